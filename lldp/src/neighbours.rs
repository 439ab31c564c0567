//! The remote systems data of one port (IEEE 802.1AB-2016 9.2.7.7, 11.5): what each neighbour
//! last said, every TLV kept (unknown and malformed ones as their raw octets, in
//! [`Lldpdu::tlvs`]), when it ages out, and the change events that notifications are made of.
//!
//! A neighbour is identified by its MSAP identifier, the pair (Chassis ID, Port ID). The table
//! is pure data: the agent decides when to call it and with what time.

use std::time::Duration;

use pfc_wire::MacAddr;

use crate::wire::{ChassisId, Lldpdu, PortId};

/// MSAP identifier (802.1AB 6.6): the Chassis ID and Port ID a neighbour sends.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Msap {
    pub chassis_id: ChassisId,
    pub port_id: PortId,
}

impl Msap {
    pub fn of(pdu: &Lldpdu) -> Self {
        Msap { chassis_id: pdu.chassis_id.clone(), port_id: pdu.port_id.clone() }
    }
}

/// What one neighbour last sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteSystem {
    /// lldpV2RemIndex: a number unique on this port, never reused while the agent runs.
    pub remote_index: u32,
    /// When the entry was inserted or its information last changed (the time-mark).
    pub time_mark: Duration,
    /// When the last LLDPDU from it arrived (a refresh with identical content included).
    pub last_seen: Duration,
    /// The source address of the last LLDPDU (DCBX breaks willing ties with it).
    pub source_mac: MacAddr,
    /// The last LLDPDU, every TLV in order.
    pub lldpdu: Lldpdu,
    /// rxInfoTTL: when the information is deleted unless refreshed.
    pub expires_at: Duration,
}

impl RemoteSystem {
    pub fn msap(&self) -> Msap {
        Msap::of(&self.lldpdu)
    }
}

/// Why a neighbour was deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeleteReason {
    /// It sent a shutdown LLDPDU (TTL 0).
    Shutdown,
    /// Our port went down or its receiver was disabled.
    PortDisabled,
}

/// A change to the table, for logs and notifications (`remote-table-change`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NeighbourEvent {
    Inserted {
        remote_index: u32,
        msap: Msap,
    },
    Updated {
        remote_index: u32,
        msap: Msap,
    },
    Deleted {
        remote_index: u32,
        msap: Msap,
        reason: DeleteReason,
    },
    AgedOut {
        remote_index: u32,
        msap: Msap,
    },
    /// An LLDPDU from one neighbour more than the table holds was dropped.
    Dropped {
        msap: Msap,
    },
}

/// What [`Neighbours::update`] did with an LLDPDU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateOutcome {
    /// A new neighbour (802.1AB's newNeighbor: the transmitter starts a fast burst).
    Inserted,
    /// A known neighbour whose information changed.
    Updated,
    /// A known neighbour, same information: only its TTL was renewed.
    Refreshed,
    /// The table was full.
    Dropped,
}

/// One port's neighbours.
#[derive(Debug, Clone, Default)]
pub struct Neighbours {
    entries: Vec<RemoteSystem>,
    next_index: u32,
    capacity: usize,
    /// tooManyNeighbors (9.2.5.15) and its timer: set when a neighbour was dropped, cleared when
    /// the information of the one dropped would have aged out.
    too_many_until: Option<Duration>,
}

impl Neighbours {
    pub fn new(capacity: usize) -> Self {
        Neighbours {
            entries: Vec::new(),
            next_index: 1,
            capacity: capacity.max(1),
            too_many_until: None,
        }
    }

    pub fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity.max(1);
    }

    /// The neighbours, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &RemoteSystem> {
        self.entries.iter()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The only neighbour, if there is exactly one (DCBX negotiates with a single peer).
    pub fn single(&self) -> Option<&RemoteSystem> {
        match self.entries.as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }

    pub fn get(&self, msap: &Msap) -> Option<&RemoteSystem> {
        self.entries.iter().find(|r| r.msap() == *msap)
    }

    /// tooManyNeighbors.
    pub fn too_many_neighbours(&self) -> bool {
        self.too_many_until.is_some()
    }

    /// Stores an LLDPDU with a non-zero TTL from `source_mac`, received at `now`.
    /// Returns what was done and the event to report (none for a mere refresh).
    pub fn update(
        &mut self,
        source_mac: MacAddr,
        pdu: Lldpdu,
        now: Duration,
    ) -> (UpdateOutcome, Option<NeighbourEvent>) {
        let msap = Msap::of(&pdu);
        let expires_at = now + Duration::from_secs(pdu.ttl.into());
        if let Some(r) = self.entries.iter_mut().find(|r| r.msap() == msap) {
            r.expires_at = expires_at;
            r.last_seen = now;
            let remote_index = r.remote_index;
            if r.lldpdu == pdu && r.source_mac == source_mac {
                return (UpdateOutcome::Refreshed, None);
            }
            r.lldpdu = pdu;
            r.source_mac = source_mac;
            r.time_mark = now;
            return (UpdateOutcome::Updated, Some(NeighbourEvent::Updated { remote_index, msap }));
        }
        if self.entries.len() >= self.capacity {
            let until = self.too_many_until.map_or(expires_at, |t| t.max(expires_at));
            self.too_many_until = Some(until);
            return (UpdateOutcome::Dropped, Some(NeighbourEvent::Dropped { msap }));
        }
        let remote_index = self.next_index;
        self.next_index = self.next_index.checked_add(1).filter(|i| *i <= 0x7fff_ffff).unwrap_or(1);
        self.entries.push(RemoteSystem {
            remote_index,
            time_mark: now,
            last_seen: now,
            source_mac,
            lldpdu: pdu,
            expires_at,
        });
        (UpdateOutcome::Inserted, Some(NeighbourEvent::Inserted { remote_index, msap }))
    }

    /// Deletes a neighbour (a shutdown LLDPDU); `None` if it was not known.
    pub fn delete(&mut self, msap: &Msap, reason: DeleteReason) -> Option<NeighbourEvent> {
        let at = self.entries.iter().position(|r| r.msap() == *msap)?;
        let r = self.entries.remove(at);
        Some(NeighbourEvent::Deleted { remote_index: r.remote_index, msap: msap.clone(), reason })
    }

    /// Deletes every neighbour (the port went down or its receiver was disabled).
    pub fn clear(&mut self, reason: DeleteReason) -> Vec<NeighbourEvent> {
        self.too_many_until = None;
        self.entries
            .drain(..)
            .map(|r| NeighbourEvent::Deleted {
                remote_index: r.remote_index,
                msap: r.msap(),
                reason,
            })
            .collect()
    }

    /// Removes every neighbour whose TTL has run out by `now`, and clears tooManyNeighbors when
    /// its timer has.
    pub fn age(&mut self, now: Duration) -> Vec<NeighbourEvent> {
        if self.too_many_until.is_some_and(|t| t <= now) {
            self.too_many_until = None;
        }
        let mut aged = Vec::new();
        self.entries.retain(|r| {
            if r.expires_at <= now {
                aged.push(NeighbourEvent::AgedOut { remote_index: r.remote_index, msap: r.msap() });
                false
            } else {
                true
            }
        });
        aged
    }

    /// The next time [`Neighbours::age`] has something to do.
    pub fn next_deadline(&self) -> Option<Duration> {
        self.entries.iter().map(|r| r.expires_at).chain(self.too_many_until).min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{SystemName, Tlv};

    fn pdu(n: u8, ttl: u16) -> Lldpdu {
        Lldpdu::new(
            ChassisId::MacAddress(MacAddr([2, 0, 0, 0, 0, n])),
            PortId::InterfaceName("eth0".into()),
            ttl,
        )
    }

    const SA: MacAddr = MacAddr([2, 0, 0, 0, 0, 0x99]);
    const S: fn(u64) -> Duration = Duration::from_secs;

    #[test]
    fn insert_refresh_update_age() {
        let mut t = Neighbours::new(4);
        assert_eq!(t.update(SA, pdu(1, 10), S(0)).0, UpdateOutcome::Inserted);
        assert_eq!(t.update(SA, pdu(1, 10), S(5)).0, UpdateOutcome::Refreshed);
        assert_eq!(t.single().map(|r| (r.time_mark, r.expires_at)), Some((S(0), S(15))));
        let mut changed = pdu(1, 10);
        changed.tlvs.push(Tlv::SystemName(SystemName::from("sw")));
        assert_eq!(t.update(SA, changed, S(6)).0, UpdateOutcome::Updated);
        assert_eq!(t.single().map(|r| r.time_mark), Some(S(6)));
        assert_eq!(t.next_deadline(), Some(S(16)));
        assert!(t.age(S(15)).is_empty());
        let aged = t.age(S(16));
        assert_eq!(aged.len(), 1);
        assert!(matches!(aged[0], NeighbourEvent::AgedOut { remote_index: 1, .. }));
        assert!(t.is_empty());
    }

    #[test]
    fn too_many_neighbours_drops_the_newcomer_and_keeps_the_rest() {
        let mut t = Neighbours::new(1);
        t.update(SA, pdu(1, 10), S(0));
        assert_eq!(t.update(SA, pdu(2, 30), S(1)).0, UpdateOutcome::Dropped);
        assert!(t.too_many_neighbours());
        assert_eq!(t.len(), 1);
        // The first neighbour ages out at 10; the flag stays until the dropped one's TTL (31).
        t.age(S(10));
        assert!(t.too_many_neighbours());
        assert_eq!(t.next_deadline(), Some(S(31)));
        t.age(S(31));
        assert!(!t.too_many_neighbours());
    }

    #[test]
    fn delete_and_indices_are_not_reused() {
        let mut t = Neighbours::new(4);
        t.update(SA, pdu(1, 10), S(0));
        let m = Msap::of(&pdu(1, 10));
        assert!(matches!(
            t.delete(&m, DeleteReason::Shutdown),
            Some(NeighbourEvent::Deleted { remote_index: 1, reason: DeleteReason::Shutdown, .. })
        ));
        assert_eq!(t.delete(&m, DeleteReason::Shutdown), None);
        t.update(SA, pdu(1, 10), S(1));
        assert_eq!(t.single().map(|r| r.remote_index), Some(2));
    }
}
