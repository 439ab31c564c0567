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
    /// headroom/method calculated.
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

/// The lab: 3 m at 100G (uncongested), 100 m of Cat6 at 10G (Annex N), 10 km at 100G on the
/// default allowance (too small: it drops until switched to measured headroom), 60 km at 400G
/// whose peer is not willing (a PFC Enable other than the first one is misconfigured).
fn templates() -> [LabLink; 4] {
    [
        LabLink {
            name: "lab0".into(),
            mac: MacAddr([0x02, 0, 0, 0, 0x02, 0x00]),
            peer: "peer0".into(),
            peer_mac: MacAddr([0x02, 0, 0, 0, 0x01, 0x00]),
            peer_willing: true,
            speed: LinkSpeed::G100,
            metres: 3,
            medium: Medium::Fibre,
            drain_percent: 100,
            peer_pauses_us: false,
            receive_buffer_size: MIB,
            start: Start::Calculated,
        },
        LabLink {
            name: "lab1".into(),
            mac: MacAddr([0x02, 0, 0, 0, 0x02, 0x01]),
            peer: "peer1".into(),
            peer_mac: MacAddr([0x02, 0, 0, 0, 0x01, 0x01]),
            peer_willing: true,
            speed: LinkSpeed::G10,
            metres: 100,
            medium: Medium::Copper,
            drain_percent: 20,
            peer_pauses_us: true,
            receive_buffer_size: MIB,
            start: Start::ManualDefault,
        },
        LabLink {
            name: "lab2".into(),
            mac: MacAddr([0x02, 0, 0, 0, 0x02, 0x02]),
            peer: "peer2".into(),
            peer_mac: MacAddr([0x02, 0, 0, 0, 0x01, 0x02]),
            peer_willing: true,
            speed: LinkSpeed::G100,
            metres: 10_000,
            medium: Medium::Fibre,
            drain_percent: 50,
            peer_pauses_us: true,
            receive_buffer_size: 8 * MIB,
            start: Start::ManualDefault,
        },
        LabLink {
            name: "lab3".into(),
            mac: MacAddr([0x02, 0, 0, 0, 0x02, 0x03]),
            peer: "peer3".into(),
            peer_mac: MacAddr([0x02, 0, 0, 0, 0x01, 0x03]),
            peer_willing: false,
            speed: LinkSpeed::G400,
            metres: 60_000,
            medium: Medium::Fibre,
            drain_percent: 20,
            peer_pauses_us: true,
            receive_buffer_size: 128 * MIB,
            start: Start::Calculated,
        },
    ]
}

/// The lab's links: the four above for up to four ports; more ports repeat them in turn
/// (lab4 is lab0's kind of link, and so on), each with its own name and addresses.
pub fn links(count: usize) -> Vec<LabLink> {
    let templates = templates();
    (0..count)
        .map(|i| {
            let mut link = templates[i % templates.len()].clone();
            let n = u8::try_from(i).unwrap_or(u8::MAX);
            link.name = format!("lab{i}");
            link.peer = format!("peer{i}");
            link.mac = MacAddr([0x02, 0, 0, 0, 0x02, n]);
            link.peer_mac = MacAddr([0x02, 0, 0, 0, 0x01, n]);
            link
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
