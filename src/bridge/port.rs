//! One bridge port: its interface, its PFC receiver (pauses asked of us) and initiator (pauses
//! we ask of the peer), its receive buffer, its frames waiting for the socket, and what it
//! counted.

use std::collections::VecDeque;

use dataplane::headroom::{BufferConfig, BufferPlanError};
use dataplane::mac::{PfcInitiator, PfcReceiver};
use dataplane::time::LinkSpeed;
use dataplane::wire::{MacAddr, PRIORITIES};

use super::ingress::IngressBuffer;
use super::reaction::ReactionTracker;

/// How one port is set up (from the settings file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BridgePortSetup {
    /// The Linux interface.
    pub name: String,
    /// PFC Enable, bit n for priority n (0: PFC off; link pause then applies).
    pub pfc_enable: u8,
    /// Priority of untagged frames.
    pub default_priority: u8,
    /// VLAN of untagged and priority-tagged frames.
    pub pvid: u16,
    /// The headroom allowance in force, bit times: sizes the lossless buffers.
    pub headroom_bits: u64,
    pub buffer: BufferConfig,
    /// Octets the lossy priorities share.
    pub lossy_pool: u64,
    /// Pause time our PFC frames ask for, and the refresh threshold, in quanta.
    pub pause_quanta: u16,
    pub refresh_quanta: u16,
}

impl BridgePortSetup {
    /// A port with PFC on `pfc_enable` and Annex N's 126 224-bit headroom.
    pub fn new(name: &str, pfc_enable: u8) -> Self {
        BridgePortSetup {
            name: name.to_string(),
            pfc_enable,
            default_priority: 0,
            pvid: 1,
            headroom_bits: 126_224,
            buffer: BufferConfig::default(),
            lossy_pool: 256 * 1024,
            pause_quanta: 0xffff,
            refresh_quanta: 0x7fff,
        }
    }
}

/// What a port counted. Discards say why, so a test or an operator can tell a bad peer from a
/// full buffer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PortCounters {
    pub rx_frames: u64,
    pub rx_octets: u64,
    pub tx_frames: u64,
    pub tx_octets: u64,
    /// Frames received per priority (data frames only).
    pub rx_per_priority: [u64; PRIORITIES],
    pub tx_per_priority: [u64; PRIORITIES],
    /// PFC frames received and acted on (PFCIndications) and sent (PFCRequests).
    pub pfc_indications: u64,
    pub pfc_requests: u64,
    /// MAC Control frames that did not parse: truncated, unknown opcode, tagged.
    pub bad_mac_control: u64,
    /// PFC frames naming a priority whose PFC is not enabled here (that part ignored).
    pub pfc_to_disabled_priority: u64,
    /// PFC frames while PFC is off on the port, PAUSE while it is on, wrong destination.
    pub mac_control_ignored: u64,
    /// HMPDUs and LLDPDUs (taken by their own agents), other link-local frames (never
    /// forwarded, 802.1Q 8.6.3).
    pub hmpdus: u64,
    pub lldpdus: u64,
    pub link_local: u64,
    /// Frames shorter than an Ethernet header, or longer than the bridge's largest frame.
    pub malformed: u64,
    pub oversize: u64,
    /// Frames with nowhere to go (their destination is on the port they came from, or no
    /// other port).
    pub filtered: u64,
    /// Frames dropped by the receive buffer: on a lossless priority (the peer sent past the
    /// headroom) and on a lossy one.
    pub lossless_drops: u64,
    pub lossy_drops: u64,
    /// Frames the socket refused for good (interface gone or down).
    pub tx_errors: u64,
}

/// One port of the running bridge.
pub struct BridgePort<P> {
    pub setup: BridgePortSetup,
    pub io: P,
    pub mac: MacAddr,
    pub receiver: PfcReceiver,
    pub initiator: PfcInitiator,
    pub ingress: IngressBuffer,
    /// Frames (store handles) the pipeline sent that the socket has not taken yet, in order.
    pub tx_backlog: VecDeque<u32>,
    pub reaction: ReactionTracker,
    pub counters: PortCounters,
}

impl<P> BridgePort<P> {
    pub fn new(
        setup: BridgePortSetup,
        io: P,
        mac: MacAddr,
        speed: LinkSpeed,
    ) -> Result<Self, BufferPlanError> {
        let ingress = IngressBuffer::new(
            setup.pfc_enable,
            setup.headroom_bits,
            &setup.buffer,
            setup.lossy_pool,
        )?;
        let initiator = PfcInitiator::new(speed, mac, setup.pfc_enable)
            .with_quanta(setup.pause_quanta, setup.refresh_quanta);
        Ok(BridgePort {
            receiver: PfcReceiver::new(speed, mac, setup.pfc_enable),
            initiator,
            ingress,
            tx_backlog: VecDeque::new(),
            reaction: ReactionTracker::default(),
            counters: PortCounters::default(),
            setup,
            io,
            mac,
        })
    }
}
