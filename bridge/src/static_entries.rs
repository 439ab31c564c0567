//! Static Filtering Entries (802.1Q 8.8.1): for a MAC address on a VLAN, the ports a frame to
//! it is forwarded through, whatever was learned. An operator writes them so that frames to a
//! known station follow a configured path and are never flooded (a ring of bridges without a
//! spanning tree stays loop-free for them). They are never aged, never moved by learning and
//! outlive a link going down.

use std::collections::HashMap;

use dataplane::wire::MacAddr;

/// A set of bridge ports (the bridge has at most 256).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct PortMap([u64; 4]);

impl PortMap {
    /// The ports of `ports` (a port beyond 255 is not a bridge port and is left out).
    pub fn of(ports: impl IntoIterator<Item = usize>) -> Self {
        let mut map = PortMap::default();
        for p in ports.into_iter().filter(|p| *p < 256) {
            map.0[p / 64] |= 1 << (p % 64);
        }
        map
    }

    pub fn contains(&self, port: usize) -> bool {
        port < 256 && self.0[port / 64] & (1 << (port % 64)) != 0
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    /// The ports, lowest first.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        (0..256).filter(|p| self.contains(*p))
    }
}

/// One static entry: frames to `address` on VLAN `vid` leave through `forward` and no other
/// port (an empty map filters them: they are discarded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StaticEntry {
    pub vid: u16,
    pub address: MacAddr,
    pub forward: PortMap,
}

/// The static entries in force, by (VLAN, address).
#[derive(Debug, Default)]
pub struct StaticTable {
    entries: HashMap<(u16, MacAddr), PortMap, foldhash::fast::RandomState>,
}

impl StaticTable {
    /// The table of `entries` (a later entry for the same VLAN and address replaces an earlier).
    pub fn of(entries: &[StaticEntry]) -> Self {
        StaticTable { entries: entries.iter().map(|e| ((e.vid, e.address), e.forward)).collect() }
    }

    /// The ports frames to `address` on `vid` leave through, if an entry says.
    pub fn get(&self, vid: u16, address: MacAddr) -> Option<PortMap> {
        if self.entries.is_empty() {
            return None;
        }
        self.entries.get(&(vid, address)).copied()
    }

    pub fn holds(&self, vid: u16, address: MacAddr) -> bool {
        self.get(vid, address).is_some()
    }

    pub fn keys(&self) -> impl Iterator<Item = (u16, MacAddr)> + '_ {
        self.entries.keys().copied()
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

    #[test]
    fn a_port_map_holds_its_ports_up_to_255() {
        let map = PortMap::of([0, 3, 64, 255, 256]);
        assert_eq!(map.iter().collect::<Vec<_>>(), vec![0, 3, 64, 255]);
        assert!(map.contains(64) && !map.contains(1) && !map.contains(256));
        assert!(PortMap::of([]).is_empty());
    }
}
