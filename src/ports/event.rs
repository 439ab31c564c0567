//! What a port reports as it happens, for the northbound side to turn into notifications.

use dataplane::headroom::allowance::Allowance;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PortEvent {
    /// The allowance in force changed value or source (12.23, 36.8).
    AllowanceChanged { port: String, old: Allowance, new: Allowance },
    /// A priority with PFC enabled dropped frames: its headroom is too small for the link.
    /// Reported at most once a second per port while drops continue.
    LosslessDrop { port: String, priority: u8, frames_dropped: u64, allowance: Allowance },
}
