//! The lab's four links, chosen to show why headroom matters: the headroom a port needs grows
//! with the link's length and speed, from a few kilobits on 3 m to tens of megabits on 60 km.

use dataplane::sim::{Medium, StationDelays, TwoStationConfig};
use dataplane::time::{LinkSpeed, Picos};
use dataplane::wire::MacAddr;

/// The lossless priority the lab's peers send on.
pub const LAB_PRIORITY: u8 = 3;

/// Octets per lab frame without FCS: 2000 with it, Annex N's maximum envelope frame.
pub const LAB_FRAME_OCTETS: u32 = 1996;

/// How a lab port starts (its first-start configuration).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// headroom/method link-delay.
    Calculated,
    /// headroom/method manual with the default pfc-link-delay-allowance (Annex N's 126 224
    /// bits): right for 100 m at 10G, far too small for longer or faster links.
    ManualDefault,
}

/// One lab port: our end of a simulated link and the peer station at the other end.
#[derive(Debug, Clone)]
pub struct LabLink {
    pub name: String,
    /// Our port's MAC address.
    pub mac: MacAddr,
    pub peer: String,
    pub peer_mac: MacAddr,
    /// The peer's DCBX Willing bit: a willing peer adopts our PFC Enable; one that is not keeps
    /// its own (the lab's first-start vector), and a port that differs is misconfigured.
    pub peer_willing: bool,
    pub speed: LinkSpeed,
    pub metres: u64,
    pub medium: Medium,
    /// The share of line rate at which our port drains the lossless priority: below 100 the
    /// peer's line-rate traffic congests it.
    pub drain_percent: u8,
    /// The peer also holds our priority-0 traffic paused (its own buffer is full), so our port
    /// receives PFC frames too.
    pub peer_pauses_us: bool,
    /// Our receive buffer for the PFC-enabled priorities together, octets.
    pub receive_buffer_size: u64,
    pub start: Start,
}

const MIB: u64 = 1024 * 1024;

/// How a peer that pauses our priority 0 does it: held 150 ms, then released for 2 ms as its
/// buffer drains, in simulated time (150 s and 2 s of wall time at the default ratio). Held
/// for good it would be a storm, which the default PFC watchdog (200 ms) rightly ends; this peer
/// is congested, not broken. Storms are the peer-storms configuration's.
const PEER_HOLDS_US: (Picos, Picos) = (Picos::from_ms(150), Picos::from_ms(2));

/// What a lab link is, apart from its names and addresses.
struct Kind {
    speed: LinkSpeed,
    metres: u64,
    medium: Medium,
    drain_percent: u8,
    peer_pauses_us: bool,
    peer_willing: bool,
    receive_buffer_size: u64,
    start: Start,
}

/// One row of [`KINDS`], the receive buffer in MiB.
#[allow(clippy::too_many_arguments)] // a table row: the columns are named above the table
const fn kind(
    speed: LinkSpeed,
    metres: u64,
    medium: Medium,
    drain_percent: u8,
    peer_pauses_us: bool,
    peer_willing: bool,
    mib: u64,
    start: Start,
) -> Kind {
    Kind {
        speed,
        metres,
        medium,
        drain_percent,
        peer_pauses_us,
        peer_willing,
        receive_buffer_size: mib * MIB,
        start,
    }
}

/// The lab: 3 m at 100G (uncongested), 100 m of Cat6 at 10G (Annex N), 10 km at 100G on the
/// default allowance (too small: it drops until switched to measured headroom), 60 km at 400G
/// whose peer is not willing (a PFC Enable other than the first one is misconfigured).
#[rustfmt::skip]
const KINDS: [Kind; 4] = {
    use LinkSpeed::{G10, G100, G400};
    use Medium::{Copper, Fibre};
    use Start::{Calculated, ManualDefault};
    [
        //    speed  metres  medium  drain %  pauses us  willing  MiB  start
        kind(G100,       3,  Fibre,     100,     false,    true,    1, Calculated),
        kind(G10,      100,  Copper,     20,      true,    true,    1, ManualDefault),
        kind(G100,  10_000,  Fibre,      50,      true,    true,    8, ManualDefault),
        kind(G400,  60_000,  Fibre,      20,      true,   false,  128, Calculated),
    ]
};

/// The lab's links: the four above for up to four ports; more ports repeat them in turn
/// (lab4 is lab0's kind of link, and so on), each with its own name and addresses.
pub fn links(count: usize) -> Vec<LabLink> {
    (0..count)
        .map(|i| {
            let k = &KINDS[i % KINDS.len()];
            let n = u8::try_from(i).unwrap_or(u8::MAX);
            LabLink {
                name: format!("lab{i}"),
                mac: MacAddr([0x02, 0, 0, 0, 0x02, n]),
                peer: format!("peer{i}"),
                peer_mac: MacAddr([0x02, 0, 0, 0, 0x01, n]),
                peer_willing: k.peer_willing,
                speed: k.speed,
                metres: k.metres,
                medium: k.medium,
                drain_percent: k.drain_percent,
                peer_pauses_us: k.peer_pauses_us,
                receive_buffer_size: k.receive_buffer_size,
                start: k.start,
            }
        })
        .collect()
}

impl LabLink {
    /// The two stations on the link: the peer is station A, our port station B.
    pub fn stations(&self, seed: u64) -> TwoStationConfig {
        let mut s = TwoStationConfig::annex_n(0, seed);
        s.speed = self.speed;
        s.link_metres = self.metres;
        s.medium = self.medium;
        s.delays = StationDelays::for_link(self.speed, self.medium);
        s.priority = LAB_PRIORITY;
        s.frame_len = LAB_FRAME_OCTETS;
        s.reverse_frame_len = self.peer_pauses_us.then_some(LAB_FRAME_OCTETS);
        s.reverse_paused = self.peer_pauses_us;
        s.reverse_cycle = Some(PEER_HOLDS_US);
        s.drain_percent = u64::from(self.drain_percent);
        s.duration = Picos(u64::MAX);
        s
    }

    /// The priorities with PFC at first start: the lossless one, and 0 where the peer pauses
    /// our traffic on it.
    pub fn first_pfc_enable(&self) -> &'static str {
        if self.peer_pauses_us {
            "p0 p3"
        } else {
            "p3"
        }
    }

    /// [`LabLink::first_pfc_enable`] as a mask: the peer's own PFC Enable.
    pub fn first_pfc_mask(&self) -> u8 {
        (1 << LAB_PRIORITY) | u8::from(self.peer_pauses_us)
    }
}
