use crate::wire::PRIORITIES;

/// MAC Control counters of one port. `pfc_requests` and `pfc_indications` are the Table 12-1
/// objects PFCRequests and PFCIndications; the per-priority arrays count, for each priority, the
/// frames whose enable bit was set for it (as Linux `struct ieee_pfc` does).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MacCounters {
    /// PFC frames transmitted (PFC M_CONTROL.requests).
    pub pfc_requests: u64,
    /// PFC frames received and processed.
    pub pfc_indications: u64,
    pub pfc_requests_per_priority: [u64; PRIORITIES],
    pub pfc_indications_per_priority: [u64; PRIORITIES],
    /// PFC frames sent with a zero time for a priority (XON), per priority.
    pub xon_sent_per_priority: [u64; PRIORITIES],
    /// IEEE 802.3 PAUSE frames transmitted (link-pause mode only).
    pub pause_frames_sent: u64,
    /// PAUSE frames received and acted on (link-pause mode).
    pub pause_frames_received: u64,
    /// PAUSE frames received while PFC is enabled: counted and ignored (36.3.1).
    pub pause_frames_ignored: u64,
    /// PFC frames received while PFC is disabled on the port: no effect.
    pub pfc_frames_ignored: u64,
    /// MAC Control frames discarded: wrong destination address or unsupported opcode.
    pub mac_control_discarded: u64,
    /// Time each priority's pause timer ran, in picoseconds, up to the last PFC frame received
    /// for it ([`PfcReceiver::time_paused`](super::PfcReceiver::time_paused) adds the rest).
    pub time_paused_ps: [u64; PRIORITIES],
    /// The same for the link pause (802.3x PAUSE while PFC is off).
    pub link_time_paused_ps: u64,
}
