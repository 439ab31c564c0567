//! What a port task publishes after every step: a plain copy of its state, swapped in whole
//! behind an `Arc`, so that `<get>` reads it without ever waiting for the port.

use std::sync::{Arc, PoisonError, RwLock};

use dataplane::headroom::allowance::Allowance;
use dataplane::headroom::BufferPlan;
use dataplane::sim::IngressCounters;
use dataplane::time::Picos;

use super::headroom::{ClampReason, Results};
use super::intent::{HeadroomMethod, PortIntent, PRIORITIES};
use super::lldp_view::LldpView;

/// One priority of a port.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PrioritySnapshot {
    /// The buffer plan in force (PFC enabled on the priority), octets.
    pub allocation: u64,
    pub xoff_threshold: u64,
    pub xon_threshold: u64,
    pub occupancy: u64,
    pub peak_occupancy: u64,
    pub xoff: bool,
    pub xoff_events: u64,
    pub frames_accepted: u64,
    pub frames_dropped: u64,
    pub octets_dropped: u64,
    /// Priority_Paused of our PFC Receiver.
    pub priority_paused: bool,
    /// Pause quanta left of the pause in progress.
    pub pause_time_remaining: u64,
    /// How long the peer has held the priority paused in all since the counters were cleared
    /// (pfcd-pfc's `time-paused`), microseconds.
    pub time_paused_us: u64,
    pub pfc_requests: u64,
    pub xon_sent: u64,
    pub pfc_indications: u64,
}

impl PrioritySnapshot {
    /// The buffer's counters, as a simulated buffer and the bridge's both keep them.
    pub fn take_counters(&mut self, c: &IngressCounters) {
        self.peak_occupancy = c.peak_occupancy;
        self.xoff_events = c.xoff_events;
        self.frames_accepted = c.frames_accepted;
        self.frames_dropped = c.frames_dropped;
        self.octets_dropped = c.octets_dropped;
    }

    /// The buffer plan in force on the priority.
    pub fn set_plan(&mut self, plan: &BufferPlan) {
        self.allocation = plan.allocation_octets;
        self.xoff_threshold = plan.xoff_octets;
        self.xon_threshold = plan.xon_octets;
    }
}

/// One port.
#[derive(Debug, Clone)]
pub struct PortSnapshot {
    pub name: String,
    /// The configuration the port runs.
    pub intent: PortIntent,
    /// Operational PFC Enable (`oper-pfc-enable`): DCBX's outcome, or `intent.pfc_enable`
    /// without LLDP on the port.
    pub oper_pfc_enable: u8,
    /// The peer station's operational PFC Enable (the lab's view of the other end).
    pub peer_oper_pfc_enable: u8,
    /// `headroom/method-in-force`.
    pub method_in_force: HeadroomMethod,
    /// The LLDP agents on the link (shared with every snapshot until it changes).
    pub lldp: Arc<LldpView>,
    /// The link's speed.
    pub speed: dataplane::time::LinkSpeed,
    /// The allowance in force, its source and the calculated result.
    pub allowance: Allowance,
    /// Why the allowance in force differs from the one selected, the most the receive buffer
    /// honours (bits), and the peer's PFC Local Delay TLVs refused.
    pub clamp: ClampReason,
    pub receive_buffer_limit_bits: u64,
    pub peer_delays_refused: u64,
    /// The calculation's and the measurement's latest results (when their method is in force).
    pub results: Results,
    /// The receive buffer for the PFC-enabled priorities together, octets.
    pub receive_buffer_size: u64,
    /// Table 12-1: PFC frames sent and received-and-processed.
    pub pfc_requests: u64,
    pub pfc_indications: u64,
    pub pause_frames_sent: u64,
    pub pause_frames_received: u64,
    pub pause_frames_ignored: u64,
    pub pfc_frames_ignored: u64,
    pub mac_control_discarded: u64,
    pub priorities: [PrioritySnapshot; PRIORITIES],
    /// Received frames the port discarded as no Bridge Port may forward them.
    pub frame_discards: FrameDiscards,
    /// How frames reach and leave the software bridge: on real interfaces only.
    pub io_path: Option<IoPath>,
    /// When the counters were last reset.
    pub discontinuity_time: std::time::SystemTime,
    /// The simulated time the port has reached.
    pub simulated_time: Picos,
    /// The PFC watchdog of the port's transmit side.
    pub watchdog: super::watchdog::WatchdogView,
    /// When the watchdog's counters last started from zero.
    pub watchdog_discontinuity_time: std::time::SystemTime,
}

/// Frames the bridge discarded at the port other than for want of headroom or by the watchdog
/// (pfcd-pipeline's `frame-discards`): counted on real interfaces, where the bridge receives
/// frames; 0 on the lab's ports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameDiscards {
    /// Received longer than the largest frame the bridge forwards (`max-frame`).
    pub oversize: u64,
    /// Received tagged with the reserved VID 4095.
    pub reserved_vid: u64,
    /// Copies of lossy frames received here refused because their egress port held its share
    /// of this port's lossy buffer.
    pub lossy_share: u64,
    /// Frames toward this port held longer than the maximum bridge transit delay.
    pub transit_delay: u64,
}

/// How a real interface's frames reach and leave the software bridge, and what the kernel
/// lost on the way (pfcd-pipeline's `io-path`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IoPath {
    /// Received frames wait in a ring of this many frames the bridge counts exactly; 0: in the
    /// socket's queue (no ring on the interface).
    pub receive_ring_slots: u64,
    /// Frames leave through an `AF_XDP` transmit ring rather than the socket.
    pub transmit_ring: bool,
    /// Frames the kernel dropped before the bridge read them.
    pub receive_kernel_drops: u64,
    /// Frames the interface dropped after the bridge handed them over.
    pub transmit_kernel_drops: u64,
    /// Pauses the pause keeper sent while the bridge's thread did not run.
    pub keeper_pauses: u64,
}

/// The latest snapshot of a port: the port task replaces it, readers clone the `Arc`.
#[derive(Debug, Clone)]
pub struct Published(Arc<RwLock<Arc<PortSnapshot>>>);

impl Published {
    pub fn new(first: PortSnapshot) -> Self {
        Published(Arc::new(RwLock::new(Arc::new(first))))
    }

    /// The latest snapshot (the lock is held only for the `Arc` clone).
    pub fn read(&self) -> Arc<PortSnapshot> {
        self.0.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    pub fn publish(&self, snapshot: PortSnapshot) {
        *self.0.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(snapshot);
    }
}
