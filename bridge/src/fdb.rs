//! The filtering database: where each (VLAN, MAC address) was last seen, learned from the
//! source addresses of received frames (802.1Q 8.7), aged out after `ageing` without a frame.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use dataplane::wire::MacAddr;

/// 802.1Q's default ageing time (8.8.3: 300 s).
pub const DEFAULT_AGEING: Duration = Duration::from_secs(300);

/// Most entries learned: a flood of random source addresses must not grow memory without
/// bound. A full table learns nothing new (counted) and floods unknown destinations.
pub const MAX_ENTRIES: usize = 65_536;

#[derive(Debug, Clone, Copy)]
struct Entry {
    port: usize,
    seen: Instant,
}

/// Learned addresses per VLAN.
#[derive(Debug)]
pub struct Fdb {
    entries: HashMap<(u16, MacAddr), Entry>,
    ageing: Duration,
    /// Addresses not learned because the table was full.
    pub not_learned: u64,
}

/// Where a frame goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Destination {
    /// A learned individual address on this port.
    Port(usize),
    /// A group address or an address not learned: every port but the one it came from.
    Flood,
}

impl Fdb {
    pub fn new(ageing: Duration) -> Self {
        Fdb { entries: HashMap::new(), ageing, not_learned: 0 }
    }

    /// Learns that `src` on VLAN `vid` is reached through `port` (a group address is never a
    /// source and is not learned).
    pub fn learn(&mut self, vid: u16, src: MacAddr, port: usize, now: Instant) {
        if src.is_group() {
            return;
        }
        let full = self.entries.len() >= MAX_ENTRIES;
        match self.entries.get_mut(&(vid, src)) {
            Some(e) => *e = Entry { port, seen: now },
            None if full => self.not_learned += 1,
            None => {
                self.entries.insert((vid, src), Entry { port, seen: now });
            }
        }
    }

    /// Where a frame to `dst` on VLAN `vid` goes.
    pub fn lookup(&self, vid: u16, dst: MacAddr, now: Instant) -> Destination {
        if dst.is_group() {
            return Destination::Flood;
        }
        match self.entries.get(&(vid, dst)) {
            Some(e) if now.duration_since(e.seen) < self.ageing => Destination::Port(e.port),
            _ => Destination::Flood,
        }
    }

    /// Drops entries older than the ageing time.
    pub fn age(&mut self, now: Instant) {
        let ageing = self.ageing;
        self.entries.retain(|_, e| now.duration_since(e.seen) < ageing);
    }

    /// Forgets every address learned on `port` (its link went down).
    pub fn flush_port(&mut self, port: usize) {
        self.entries.retain(|_, e| e.port != port);
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: MacAddr = MacAddr([2, 0, 0, 0, 0, 0xa]);
    const B: MacAddr = MacAddr([2, 0, 0, 0, 0, 0xb]);

    #[test]
    fn learned_addresses_are_per_vlan_and_age_out() {
        let t0 = Instant::now();
        let mut fdb = Fdb::new(Duration::from_secs(10));
        assert_eq!(fdb.lookup(1, A, t0), Destination::Flood);
        fdb.learn(1, A, 2, t0);
        assert_eq!(fdb.lookup(1, A, t0), Destination::Port(2));
        assert_eq!(fdb.lookup(5, A, t0), Destination::Flood, "another VLAN floods");
        assert_eq!(fdb.lookup(1, B, t0), Destination::Flood);
        fdb.learn(1, A, 0, t0 + Duration::from_secs(1));
        assert_eq!(fdb.lookup(1, A, t0), Destination::Port(0), "a station that moved");
        let later = t0 + Duration::from_secs(12);
        assert_eq!(fdb.lookup(1, A, later), Destination::Flood, "aged out");
        fdb.age(later);
        assert!(fdb.is_empty());
    }

    #[test]
    fn group_addresses_flood_and_are_never_learned() {
        let t0 = Instant::now();
        let mut fdb = Fdb::new(DEFAULT_AGEING);
        let group = MacAddr([1, 0, 0x5e, 0, 0, 1]);
        fdb.learn(1, group, 1, t0);
        assert!(fdb.is_empty());
        assert_eq!(fdb.lookup(1, group, t0), Destination::Flood);
    }

    #[test]
    fn a_port_going_down_forgets_its_addresses() {
        let t0 = Instant::now();
        let mut fdb = Fdb::new(DEFAULT_AGEING);
        fdb.learn(1, A, 0, t0);
        fdb.learn(1, B, 1, t0);
        fdb.flush_port(0);
        assert_eq!(fdb.lookup(1, A, t0), Destination::Flood);
        assert_eq!(fdb.lookup(1, B, t0), Destination::Port(1));
    }
}
