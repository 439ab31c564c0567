//! The per-port counters of IEEE 802.1AB-2016 9.2.6, named after the leaves of the
//! `ieee802-dot1ab-lldp` YANG module (`tx-statistics`, `rx-statistics`, and the remote table's
//! `remote-inserts` ... `remote-ageouts`, kept per port here and summed by whoever shows them).

/// Transmit counters (`tx-statistics`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TxStatistics {
    /// statsFramesOutTotal: LLDP frames transmitted, shutdown LLDPDUs included.
    pub total_frames: u64,
    /// lldpduLengthErrors: LLDPDUs that did not fit a frame; the optional TLVs that did not fit
    /// were left out.
    pub total_length_errors: u64,
}

/// Receive counters (`rx-statistics`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RxStatistics {
    /// statsAgeoutsTotal: neighbours deleted because their TTL ran out.
    pub total_ageouts: u64,
    /// statsFramesDiscardedTotal: LLDPDUs received and discarded.
    pub total_discarded_frames: u64,
    /// statsFramesInErrorsTotal: LLDPDUs received with detectable errors.
    pub error_frames: u64,
    /// statsFramesInTotal: LLDP frames received for this agent's destination address.
    pub total_frames: u64,
    /// statsTLVsDiscardedTotal: TLVs received and discarded (malformed optional TLVs).
    pub total_discarded_tlvs: u64,
    /// statsTLVsUnrecognizedTotal: reserved TLV types and organizationally specific TLVs this
    /// agent does not interpret (kept in the neighbour table all the same).
    pub total_unrecognized_tlvs: u64,
}

/// Changes to the remote systems table (`remote-statistics`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RemoteStatistics {
    pub remote_inserts: u64,
    pub remote_deletes: u64,
    /// Neighbours not stored because the table was full (tooManyNeighbors).
    pub remote_drops: u64,
    pub remote_ageouts: u64,
}

/// All of one port's counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Statistics {
    pub tx: TxStatistics,
    pub rx: RxStatistics,
    pub remote: RemoteStatistics,
}
