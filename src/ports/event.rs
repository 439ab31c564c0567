//! What a port reports as it happens, for the northbound side to turn into notifications.

use std::sync::Arc;
use std::time::SystemTime;

use dataplane::headroom::allowance::Allowance;
use lldp::agent::RemoteStatistics;

use super::headroom::ClampReason;
use super::lldp_view::LldpView;

#[derive(Debug, Clone)]
pub enum PortEvent {
    /// The allowance in force changed value or source (12.23, 36.8).
    AllowanceChanged { port: String, old: Allowance, new: Allowance },
    /// The allowance in force was clamped for a new reason (pfcd-headroom's
    /// `allowance-clamped`): `selected` lowered or raised to `allowance`.
    AllowanceClamped {
        port: String,
        reason: ClampReason,
        selected: u64,
        allowance: Allowance,
        limit_bits: u64,
    },
    /// A priority with PFC enabled dropped frames: its headroom is too small for the link.
    /// Reported at most once a second per port while drops continue.
    LosslessDrop { port: String, priority: u8, frames_dropped: u64, allowance: Allowance },
    /// DCBX found PFC misconfigured on the port, or no longer does.
    DcbxMisconfiguration { port: String, view: Arc<LldpView> },
    /// A port's remote systems table gained or lost an entry (its counters after the change).
    RemoteTableChange { port: String, stats: RemoteStatistics },
    /// The PFC watchdog found a storm on `class` (a priority, or the link pause) at `at`.
    StormDetected {
        port: String,
        class: usize,
        action: dataplane::watchdog::Action,
        at: SystemTime,
    },
    /// The storm found at `began` on `class` was over at `at`.
    StormRestored { port: String, class: usize, began: SystemTime, at: SystemTime },
}
