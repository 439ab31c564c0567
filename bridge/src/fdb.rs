//! The filtering database: where each (VLAN, MAC address) was last seen, learned from the
//! source addresses of received frames (802.1Q 8.7), aged out after `ageing` without a frame;
//! and the static entries an operator configured (8.8.1, `static_entries.rs`), looked up
//! before anything learned, never aged, never moved by learning, kept when a link goes down.
//!
//! Bounded so that a flood of random source addresses costs neither memory nor learning: each
//! port learns at most `per_port` addresses and the table `total`; an address beyond either
//! evicts the oldest learned one (on the same port, or on the port holding the most), so a
//! station that talks is learned even during such a flood and unicast to it stops flooding.
//! Ageing is incremental: each call looks at a few of the oldest entries, never the whole
//! table, so the forwarding thread never stalls on it.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use dataplane::wire::MacAddr;

use super::static_entries::{PortMap, StaticEntry, StaticTable};

/// 802.1Q's default ageing time (8.8.3: 300 s).
pub const DEFAULT_AGEING: Duration = Duration::from_secs(300);

/// Most entries learned in all.
pub const MAX_ENTRIES: usize = 65_536;
/// Most entries learned on one port: a flood on one port leaves the others room.
pub const MAX_PER_PORT: usize = MAX_ENTRIES / 4;

type Key = (u16, MacAddr);

#[derive(Debug, Clone, Copy)]
struct Entry {
    port: usize,
    seen: Instant,
    /// When its record in its port's queue was made: that record alone stands for it.
    queued: Instant,
}

/// Learned addresses per VLAN.
#[derive(Debug)]
pub struct Fdb {
    /// Hashed with foldhash, seeded per process: SipHash cost a few per cent of the forwarding
    /// thread, and a peer cannot predict the seed to pile its addresses into one bucket.
    entries: HashMap<Key, Entry, foldhash::fast::RandomState>,
    /// Per port, its entries oldest record first (`Entry::queued`); a record whose entry has
    /// since moved, been re-queued or removed is stale and dropped when reached.
    queues: Vec<VecDeque<(Key, Instant)>>,
    /// Entries learned per port.
    counts: Vec<usize>,
    ageing: Duration,
    total: usize,
    per_port: usize,
    /// Addresses not learned (kept for the state; learning now evicts instead).
    pub not_learned: u64,
    /// Entries removed to make room for a newly learned address.
    pub evicted: u64,
    /// The static entries in force.
    statics: StaticTable,
    /// Frames whose source address has a static entry that does not forward through the port
    /// they came in on: not learned from (a static entry is never moved), the frame forwarded
    /// as any other.
    pub static_not_moved: u64,
}

/// Where a frame goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Destination {
    /// A learned individual address on this port.
    Port(usize),
    /// An address with a static entry: these ports and no other (none: the frame is
    /// filtered).
    Static(PortMap),
    /// A group address or an address not learned: every port but the one it came from.
    Flood,
}

impl Fdb {
    pub fn new(ageing: Duration) -> Self {
        Fdb::with_limits(ageing, MAX_ENTRIES, MAX_PER_PORT)
    }

    /// A table of at most `total` entries, `per_port` on any one port (both at least 1).
    pub fn with_limits(ageing: Duration, total: usize, per_port: usize) -> Self {
        Fdb {
            entries: HashMap::default(),
            queues: Vec::new(),
            counts: Vec::new(),
            ageing,
            total: total.max(1),
            per_port: per_port.max(1),
            not_learned: 0,
            evicted: 0,
            statics: StaticTable::default(),
            static_not_moved: 0,
        }
    }

    /// Puts `entries` in force in place of the static entries before. An address learned
    /// before that now has a static entry is forgotten: the static entry is its place.
    pub fn set_static(&mut self, entries: &[StaticEntry]) {
        self.statics = StaticTable::of(entries);
        let learned: Vec<Key> =
            self.statics.keys().filter(|k| self.entries.contains_key(k)).collect();
        for key in learned {
            if let Some(e) = self.entries.remove(&key) {
                self.counts[e.port] -= 1;
            }
        }
    }

    /// Static entries in force.
    pub fn static_len(&self) -> usize {
        self.statics.len()
    }

    /// Learns that `src` on VLAN `vid` is reached through `port` (a group address is never a
    /// source and is not learned). A port at its limit, or a full table, makes room by
    /// evicting the oldest learned address.
    pub fn learn(&mut self, vid: u16, src: MacAddr, port: usize, now: Instant) {
        if src.is_group() {
            return;
        }
        if let Some(map) = self.statics.get(vid, src) {
            if !map.contains(port) {
                self.static_not_moved += 1;
            }
            return;
        }
        let key = (vid, src);
        if let Some(e) = self.entries.get_mut(&key) {
            if e.port == port {
                // Refreshed in place: its record is re-queued when ageing reaches it.
                e.seen = now;
                return;
            }
            // A station that moved: counted and queued on its new port.
            let old = e.port;
            self.entries.remove(&key);
            self.counts[old] -= 1;
        }
        self.grow_to(port);
        if self.counts[port] >= self.per_port {
            self.evict_oldest(port, now);
        } else if self.entries.len() >= self.total {
            let fullest = (0..self.counts.len()).max_by_key(|p| self.counts[*p]).unwrap_or(port);
            self.evict_oldest(fullest, now);
        }
        if self.counts[port] >= self.per_port || self.entries.len() >= self.total {
            self.not_learned += 1;
            return;
        }
        self.entries.insert(key, Entry { port, seen: now, queued: now });
        self.queues[port].push_back((key, now));
        self.counts[port] += 1;
        self.compact(port);
    }

    /// Where a frame to `dst` on VLAN `vid` goes.
    pub fn lookup(&self, vid: u16, dst: MacAddr, now: Instant) -> Destination {
        if let Some(map) = self.statics.get(vid, dst) {
            return Destination::Static(map);
        }
        if dst.is_group() {
            return Destination::Flood;
        }
        match self.entries.get(&(vid, dst)) {
            Some(e) if now.duration_since(e.seen) < self.ageing => Destination::Port(e.port),
            _ => Destination::Flood,
        }
    }

    /// Ages out entries older than the ageing time, looking at no more than `budget` records
    /// (the oldest of each port first): called often, it keeps up with the table without ever
    /// walking it. (An entry past its age that is not removed yet is not used: `lookup` checks
    /// the age itself.)
    pub fn age(&mut self, now: Instant, budget: usize) {
        let mut left = budget;
        for port in 0..self.queues.len() {
            while left > 0 {
                let Some(&(key, queued)) = self.queues[port].front() else { break };
                left -= 1;
                match self.entries.get_mut(&key) {
                    Some(e) if e.port == port && e.queued == queued => {
                        if now.duration_since(e.seen) >= self.ageing {
                            self.entries.remove(&key);
                            self.counts[port] -= 1;
                            self.queues[port].pop_front();
                        } else if e.seen > queued {
                            // Seen since it was queued: its place is at the back now.
                            e.queued = e.seen;
                            let seen = e.seen;
                            self.queues[port].pop_front();
                            self.queues[port].push_back((key, seen));
                        } else {
                            // The oldest record on this port is still young.
                            break;
                        }
                    }
                    _ => {
                        self.queues[port].pop_front();
                    }
                }
            }
        }
    }

    /// Forgets every address learned on `port` (its link went down); static entries stay.
    pub fn flush_port(&mut self, port: usize) {
        self.entries.retain(|_, e| e.port != port);
        if let (Some(q), Some(c)) = (self.queues.get_mut(port), self.counts.get_mut(port)) {
            q.clear();
            *c = 0;
        }
    }

    /// Learned entries (static ones apart).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn grow_to(&mut self, port: usize) {
        if self.queues.len() <= port {
            self.queues.resize_with(port + 1, VecDeque::new);
            self.counts.resize(port + 1, 0);
        }
    }

    /// Removes `port`'s oldest entry: the first of its queue that has not been seen since it
    /// was queued (one that has is re-queued behind, as ageing does).
    fn evict_oldest(&mut self, port: usize, now: Instant) {
        // Every live entry is re-queued at most once, so this ends.
        while let Some((key, queued)) = self.queues[port].pop_front() {
            let Some(e) = self.entries.get_mut(&key) else { continue };
            if e.port != port || e.queued != queued {
                continue;
            }
            if e.seen > queued && now.duration_since(e.seen) < self.ageing {
                e.queued = e.seen;
                let seen = e.seen;
                self.queues[port].push_back((key, seen));
                continue;
            }
            self.entries.remove(&key);
            self.counts[port] -= 1;
            self.evicted += 1;
            return;
        }
    }

    /// Drops `port`'s stale records once they outnumber its entries (stations moving back
    /// and forth leave one each): the queue stays within twice the port's entries.
    fn compact(&mut self, port: usize) {
        let q = &self.queues[port];
        if q.len() <= 2 * self.counts[port] + 16 {
            return;
        }
        let entries = &self.entries;
        self.queues[port].retain(|(key, queued)| {
            entries.get(key).is_some_and(|e| e.port == port && e.queued == *queued)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: MacAddr = MacAddr([2, 0, 0, 0, 0, 0xa]);
    const B: MacAddr = MacAddr([2, 0, 0, 0, 0, 0xb]);

    fn station(n: u32) -> MacAddr {
        let b = n.to_be_bytes();
        MacAddr([2, 0xf1, b[0], b[1], b[2], b[3]])
    }

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
        fdb.age(later, usize::MAX);
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

    /// A flood of random source addresses on port 0 fills the table; a station on another
    /// port that starts talking afterwards is still learned, so frames to it stop flooding.
    #[test]
    fn a_flood_of_source_addresses_on_one_port_leaves_the_others_learning() {
        let t0 = Instant::now();
        let mut fdb = Fdb::new(DEFAULT_AGEING);
        for n in 0..(MAX_ENTRIES as u32 + 1000) {
            fdb.learn(1, station(n), 0, t0);
        }
        assert!(fdb.len() <= MAX_ENTRIES);
        fdb.learn(1, A, 1, t0);
        assert_eq!(fdb.lookup(1, A, t0), Destination::Port(1), "learned on a quiet port");
    }

    /// A port at its limit evicts its oldest address for a new one (the newest station is
    /// reachable), while an address it keeps hearing is kept.
    #[test]
    fn a_full_port_evicts_its_oldest_silent_address() {
        let t0 = Instant::now();
        let mut fdb = Fdb::with_limits(DEFAULT_AGEING, 100, 4);
        fdb.learn(1, A, 0, t0);
        for n in 0..3 {
            fdb.learn(1, station(n), 0, t0);
        }
        let t1 = t0 + Duration::from_secs(1);
        fdb.learn(1, A, 0, t1); // A keeps talking.
        fdb.learn(1, B, 0, t1);
        assert_eq!(fdb.lookup(1, B, t1), Destination::Port(0), "the new station is learned");
        assert_eq!(fdb.lookup(1, A, t1), Destination::Port(0), "the talking one is kept");
        assert_eq!(fdb.lookup(1, station(0), t1), Destination::Flood, "the oldest silent one went");
        assert_eq!(fdb.len(), 4);
        assert_eq!(fdb.evicted, 1);
    }

    fn to(vid: u16, address: MacAddr, ports: &[usize]) -> StaticEntry {
        StaticEntry { vid, address, forward: PortMap::of(ports.iter().copied()) }
    }

    /// A static entry decides before anything learned, for its VLAN only, and for a group
    /// address too; an empty port map filters.
    #[test]
    fn a_static_entry_is_looked_up_before_learned_ones() {
        let t0 = Instant::now();
        let mut fdb = Fdb::new(DEFAULT_AGEING);
        fdb.learn(1, A, 0, t0);
        let group = MacAddr([1, 0, 0x5e, 0, 0, 1]);
        fdb.set_static(&[to(1, A, &[2]), to(1, group, &[1, 3]), to(1, B, &[])]);
        assert_eq!(fdb.lookup(1, A, t0), Destination::Static(PortMap::of([2])));
        assert_eq!(fdb.lookup(1, group, t0), Destination::Static(PortMap::of([1, 3])));
        assert_eq!(fdb.lookup(1, B, t0), Destination::Static(PortMap::default()), "filter");
        assert_eq!(fdb.lookup(5, A, t0), Destination::Flood, "another VLAN: not the entry's");
        assert_eq!(fdb.len(), 0, "the address learned before gave way to its static entry");
        assert_eq!(fdb.static_len(), 3);
    }

    /// Static entries are never aged and a link going down does not remove them.
    #[test]
    fn a_static_entry_outlives_ageing_and_a_link_going_down() {
        let t0 = Instant::now();
        let mut fdb = Fdb::new(Duration::from_secs(10));
        fdb.set_static(&[to(1, A, &[0])]);
        fdb.learn(1, B, 0, t0);
        let later = t0 + Duration::from_secs(3600);
        fdb.age(later, usize::MAX);
        fdb.flush_port(0);
        assert_eq!(fdb.lookup(1, A, later), Destination::Static(PortMap::of([0])));
        assert_eq!(fdb.lookup(1, B, later), Destination::Flood, "the learned one went");
    }

    /// A frame from a static address on another port does not move the entry (nor is the
    /// address learned there); it is counted. On a port the entry forwards through, it is not.
    #[test]
    fn learning_never_moves_a_static_entry() {
        let t0 = Instant::now();
        let mut fdb = Fdb::new(DEFAULT_AGEING);
        fdb.set_static(&[to(1, A, &[2])]);
        fdb.learn(1, A, 0, t0);
        fdb.learn(1, A, 0, t0);
        fdb.learn(1, A, 2, t0);
        assert_eq!(fdb.lookup(1, A, t0), Destination::Static(PortMap::of([2])));
        assert_eq!(fdb.len(), 0, "not learned");
        assert_eq!(fdb.static_not_moved, 2);
        // The same address on another VLAN is learned as usual.
        fdb.learn(7, A, 0, t0);
        assert_eq!(fdb.lookup(7, A, t0), Destination::Port(0));
    }

    /// New static entries replace the old: an address no longer configured is learned again.
    #[test]
    fn static_entries_are_replaced_whole() {
        let t0 = Instant::now();
        let mut fdb = Fdb::new(DEFAULT_AGEING);
        fdb.set_static(&[to(1, A, &[2])]);
        fdb.set_static(&[to(1, B, &[1])]);
        assert_eq!(fdb.lookup(1, A, t0), Destination::Flood);
        fdb.learn(1, A, 0, t0);
        assert_eq!(fdb.lookup(1, A, t0), Destination::Port(0));
        assert_eq!(fdb.static_len(), 1);
    }

    /// Ageing looks at no more entries than its budget, and a table of expired entries is
    /// emptied over successive calls.
    #[test]
    fn ageing_is_incremental() {
        let t0 = Instant::now();
        let mut fdb = Fdb::new(Duration::from_secs(10));
        for n in 0..1000 {
            fdb.learn(1, station(n), n as usize % 2, t0);
        }
        fdb.learn(1, A, 0, t0 + Duration::from_secs(5));
        let later = t0 + Duration::from_secs(11);
        fdb.age(later, 64);
        assert_eq!(fdb.len(), 1000 + 1 - 64, "64 looked at, 64 removed");
        for _ in 0..20 {
            fdb.age(later, 64);
        }
        assert_eq!(fdb.len(), 1, "the expired ones are gone");
        assert_eq!(fdb.lookup(1, A, later), Destination::Port(0), "the young one stays");
    }
}
