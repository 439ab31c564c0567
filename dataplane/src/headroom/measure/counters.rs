//! What a participant counts. Every HMPDU received ends in exactly one of: processed, or one
//! `discarded_*` / `malformed` / `not_hmpdu` counter; nothing is dropped silently.

/// Counters of one participant, since it was created.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct MeasureCounters {
    /// HMPDUs handed to the interfaces.
    pub hmpdus_sent: u64,
    /// Measurement requests sent (each in some HMPDU).
    pub requests_sent: u64,
    /// ... of which rode in the same HMPDU as a response.
    pub requests_with_response: u64,
    /// ... of which were repeats after the maximum acceptable round trip passed unanswered.
    pub requests_repeated: u64,
    /// ... of which followed two requests received with no response between them (our last
    /// request was lost, 36.9.7).
    pub requests_after_loss: u64,
    /// Measurement responses sent: one for every request processed.
    pub responses_sent: u64,
    /// Response Adjustments sent as zero (use code 1) because they were small enough.
    pub response_adjustments_omitted: u64,
    /// Adjustments that did not fit 16 bits and were sent as the nearest 16-bit value.
    pub adjustments_saturated: u64,

    /// Frames handed to reception, whatever became of them.
    pub hmpdus_received: u64,
    /// HMPDUs accepted and decoded (immediately or after being held).
    pub hmpdus_processed: u64,
    /// HMPDUs held because the previous one's response or request was not yet sent (common path;
    /// the second of the two an implementation buffers).
    pub hmpdus_delayed: u64,
    /// Requests processed (a response was generated for each).
    pub requests_received: u64,
    /// Responses processed that matched an outstanding request: one result each (taken into the
    /// estimate or discarded).
    pub responses_received: u64,
    /// Responses whose timestamp matched no outstanding request (duplicated, very late, or not
    /// ours): ignored.
    pub responses_unmatched: u64,
    /// Responses to a request older than one already answered: they arrived out of order, after
    /// waiting somewhere, and would overstate the round trip. Ignored.
    pub responses_out_of_order: u64,
    /// Results below the minimum, raised to it.
    pub results_clamped_to_minimum: u64,
    /// Results above the maximum acceptable round trip: no link this port may have is that long
    /// (a response held somewhere). Left out of the estimate.
    pub results_discarded_above_maximum: u64,
    /// Results far above the estimate when the previous one was not: isolated outliers, left out
    /// of the estimate.
    pub results_discarded_outlier: u64,

    /// Frames that are not well-formed HMPDUs (truncated, wrong EtherType): ignored.
    pub malformed: u64,
    /// EtherType 89-A2 with a subtype other than 1 (a Congestion Isolation Message): ignored.
    pub not_hmpdu: u64,
    /// HMPDUs with a Version other than 0, processed as Version 0 (36.9.2).
    pub other_version: u64,
    /// Discarded: hmOperUp was FALSE.
    pub discarded_not_operational: u64,
    /// Discarded: received on an interface that is neither requestPath nor responsePath, or a
    /// request on the response path (or a response on the request path) when they differ.
    pub discarded_wrong_interface: u64,
    /// Discarded: the HMPDU names a path (bits 4-3) that is not the operational one.
    pub discarded_wrong_path: u64,
    /// Discarded: two HMPDUs were already buffered on the path (36.9.7, 36.10).
    pub discarded_buffer_full: u64,
    /// Discarded: addressed neither to 01-80-C2-00-00-01 nor to us.
    pub discarded_wrong_destination: u64,
    /// Discarded: no tuple in use.
    pub discarded_empty: u64,
    /// Tuples ignored because the HMPDU already held a request (or a response) before them.
    pub extra_tuples_ignored: u64,
}
