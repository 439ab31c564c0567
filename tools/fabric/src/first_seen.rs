//! When the collector first saw each state: the YANG model says whether a priority is paused
//! or in XOFF now, not since when, so the collector's own clock stands in for "since".

use std::collections::{BTreeMap, BTreeSet};

use fabric_graph::{Nanos, PortRef};

/// A state with a start time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// Egress held by the peer's PFC (`priority-paused`).
    Paused,
    /// Ingress above XOFF (`xoff`).
    Xoff,
}

/// One state of one port and priority.
pub type StateKey = (PortRef, u8, Kind);

/// The first time each (port, priority, kind) was seen on, while it stays on.
#[derive(Debug, Default)]
pub struct FirstSeen {
    since: BTreeMap<StateKey, Nanos>,
}

impl FirstSeen {
    /// A refresh at `now` saw exactly the states `on` on: those already on keep their time,
    /// new ones start at `now`, the others are forgotten (seen off, or on a device that did
    /// not answer: not known to have held).
    pub fn refresh(&mut self, on: BTreeSet<StateKey>, now: Nanos) {
        let old = std::mem::take(&mut self.since);
        self.since = on
            .into_iter()
            .map(|key| {
                let since = old.get(&key).copied().unwrap_or(now);
                (key, since)
            })
            .collect();
    }

    /// Since when the state has been on, if it is.
    pub fn since(&self, port: &PortRef, priority: u8, kind: Kind) -> Option<Nanos> {
        self.since.get(&(port.clone(), priority, kind)).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_keeps_the_time_it_was_first_seen_until_it_clears() {
        let mut f = FirstSeen::default();
        let p = PortRef::new("a", "x");
        let paused = (p.clone(), 3, Kind::Paused);
        let xoff = (p.clone(), 3, Kind::Xoff);
        f.refresh([paused.clone()].into(), 10);
        f.refresh([paused.clone(), xoff.clone()].into(), 20);
        assert_eq!(f.since(&p, 3, Kind::Paused), Some(10));
        assert_eq!(f.since(&p, 3, Kind::Xoff), Some(20), "each kind its own time");
        f.refresh([xoff.clone()].into(), 30);
        assert_eq!(f.since(&p, 3, Kind::Paused), None, "seen off: forgotten");
        f.refresh([paused.clone(), xoff].into(), 40);
        assert_eq!(f.since(&p, 3, Kind::Paused), Some(40), "on again: a new start");
        assert_eq!(f.since(&p, 3, Kind::Xoff), Some(20));
    }
}
