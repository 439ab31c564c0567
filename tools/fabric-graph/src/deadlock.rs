//! Deadlocks: cycles in the wait-for graph (36.2.5, Figure 36-7), each paused egress waiting on
//! the next through the peer's XOFF ingress.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Fabric, Nanos, PortRef, PRIORITIES};

/// The most cycles [`Fabric::deadlocks`] reports (elementary cycles can be exponentially many in
/// a dense fabric; each found one is already a deadlock to break).
pub const MAX_CYCLES: usize = 1_000;

/// One step of a cycle: `egress` is held paused by its peer's `ingress`, which is in XOFF and
/// waits on the next step's egress.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CycleHop {
    pub egress: PortRef,
    pub ingress: PortRef,
}

/// A circular buffer dependency on one priority.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Deadlock {
    pub priority: u8,
    /// The cycle, starting at its least egress (device, then port).
    pub cycle: Vec<CycleHop>,
    /// When the cycle closed: the latest time one of its egresses became paused or one of its
    /// ingresses went into XOFF.
    pub closed_at: Nanos,
}

impl Deadlock {
    /// The devices of the cycle, in its order.
    pub fn devices(&self) -> Vec<&str> {
        self.cycle.iter().map(|h| h.egress.device.as_str()).collect()
    }
}

impl Fabric {
    /// Every deadlock whose every part has held at least `threshold` at `now`, each once, sorted
    /// (at most [`MAX_CYCLES`]).
    pub fn deadlocks(&self, now: Nanos, threshold: Nanos) -> Vec<Deadlock> {
        let held = |since: Option<Nanos>| since.filter(|s| now.saturating_sub(*s) >= threshold);
        let mut found = Vec::new();
        for priority in 0..PRIORITIES {
            // Egress → (its peer's ingress, the latest since of the two, the egresses it waits on).
            let mut next: BTreeMap<&PortRef, (PortRef, Nanos, Vec<PortRef>)> = BTreeMap::new();
            for (egress, o) in self.observed_on(priority) {
                let Some(paused) = held(o.egress_paused_since) else { continue };
                let Some(ingress) = self.peer(egress) else { continue };
                let Some(xoff) = held(self.xoff_since(ingress, priority)) else { continue };
                let waits: Vec<PortRef> = self
                    .waits_on(ingress, priority)
                    .into_iter()
                    .filter(|e| held(self.paused_since(e, priority)).is_some())
                    .collect();
                next.insert(egress, (ingress.clone(), paused.max(xoff), waits));
            }
            cycles(&next, |cycle| {
                if found.len() >= MAX_CYCLES {
                    return;
                }
                let hops: Vec<CycleHop> = cycle
                    .iter()
                    .map(|e| CycleHop { egress: (*e).clone(), ingress: next[e].0.clone() })
                    .collect();
                let closed_at = cycle.iter().map(|e| next[e].1).max().unwrap_or(0);
                found.push(Deadlock { priority, cycle: hops, closed_at });
            });
        }
        found.sort();
        found
    }
}

/// Every elementary cycle of the graph, each once and starting at its least node: from each
/// node in order, a depth-first search through greater nodes only back to it.
fn cycles<'a>(
    next: &BTreeMap<&'a PortRef, (PortRef, Nanos, Vec<PortRef>)>,
    mut report: impl FnMut(&[&'a PortRef]),
) {
    let nodes: Vec<&'a PortRef> = next.keys().copied().collect();
    let index: BTreeMap<&PortRef, usize> = nodes.iter().enumerate().map(|(i, p)| (*p, i)).collect();
    let successors: Vec<Vec<usize>> = nodes
        .iter()
        .map(|p| next[p].2.iter().filter_map(|e| index.get(e).copied()).collect())
        .collect();
    let mut reported = 0usize;
    for start in 0..nodes.len() {
        let mut path = vec![start];
        let mut on_path = vec![false; nodes.len()];
        on_path[start] = true;
        // Each frame: (node, next successor to try).
        let mut stack = vec![(start, 0usize)];
        while let Some((node, i)) = stack.pop() {
            let Some(&succ) = successors[node].get(i) else {
                on_path[node] = false;
                path.pop();
                continue;
            };
            stack.push((node, i + 1));
            if succ == start {
                let cycle: Vec<&PortRef> = path.iter().map(|k| nodes[*k]).collect();
                report(&cycle);
                reported += 1;
                if reported >= MAX_CYCLES {
                    return;
                }
            } else if succ > start && !on_path[succ] {
                on_path[succ] = true;
                path.push(succ);
                stack.push((succ, 0));
            }
        }
    }
}
