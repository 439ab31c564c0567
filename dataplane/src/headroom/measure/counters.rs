//! What a participant counts. Every HMPDU received ends in exactly one of: processed, or one
//! `discarded_*` / `malformed` / `not_hmpdu` counter; nothing is dropped silently.

/// Declares the counters once: the struct, and each counter's name beside its value.
macro_rules! measure_counters {
    ($( $(#[$doc:meta])* $field:ident, )*) => {
        /// Counters of one participant, since it was created.
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct MeasureCounters {
            $( $(#[$doc])* pub $field: u64, )*
        }

        impl MeasureCounters {
            /// Every counter with its name (the field's, `_` for the model's `-`), in the
            /// struct's order.
            pub fn named(&self) -> impl Iterator<Item = (&'static str, u64)> {
                [$( (stringify!($field), self.$field), )*].into_iter()
            }

            /// The two sets of counters added counter by counter (a port's runs summed).
            pub fn sum(&self, other: &MeasureCounters) -> MeasureCounters {
                MeasureCounters { $( $field: self.$field + other.$field, )* }
            }
        }
    };
}

measure_counters! {

    /// HMPDUs handed to the interfaces.
    hmpdus_sent,
    /// Measurement requests sent (each in some HMPDU).
    requests_sent,
    /// ... of which rode in the same HMPDU as a response.
    requests_with_response,
    /// ... of which were repeats after the maximum acceptable round trip passed unanswered.
    requests_repeated,
    /// ... of which followed two requests received with no response between them (our last
    /// request was lost, 36.9.7).
    requests_after_loss,
    /// Measurement responses sent: one for every request processed.
    responses_sent,
    /// Response Adjustments sent as zero (use code 1) because they were small enough.
    response_adjustments_omitted,
    /// Adjustments that did not fit 16 bits and were sent as the nearest 16-bit value.
    adjustments_saturated,

    /// Frames handed to reception, whatever became of them.
    hmpdus_received,
    /// HMPDUs accepted and decoded (immediately or after being held).
    hmpdus_processed,
    /// HMPDUs held because the previous one's response or request was not yet sent (common path;
    /// the second of the two an implementation buffers).
    hmpdus_delayed,
    /// Requests processed (a response was generated for each).
    requests_received,
    /// Responses processed that matched an outstanding request: one result each (taken into the
    /// estimate or discarded).
    responses_received,
    /// Responses whose timestamp matched no outstanding request (duplicated, very late, or not
    /// ours): ignored.
    responses_unmatched,
    /// Responses to a request older than one already answered: they arrived out of order, after
    /// waiting somewhere, and would overstate the round trip. Ignored.
    responses_out_of_order,
    /// Results below the minimum, raised to it.
    results_clamped_to_minimum,
    /// Results above the maximum acceptable round trip: no link this port may have is that long
    /// (a response held somewhere). Left out of the estimate.
    results_discarded_above_maximum,
    /// Results far above the estimate when the previous one was not: isolated outliers, left out
    /// of the estimate.
    results_discarded_outlier,

    /// Frames that are not well-formed HMPDUs (truncated, wrong EtherType): ignored.
    malformed,
    /// EtherType 89-A2 with a subtype other than 1 (a Congestion Isolation Message): ignored.
    not_hmpdu,
    /// HMPDUs with a Version other than 0, processed as Version 0 (36.9.2).
    other_version,
    /// Discarded: hmOperUp was FALSE.
    discarded_not_operational,
    /// Discarded: received on an interface that is neither requestPath nor responsePath, or a
    /// request on the response path (or a response on the request path) when they differ.
    discarded_wrong_interface,
    /// Discarded: the HMPDU names a path (bits 4-3) that is not the operational one.
    discarded_wrong_path,
    /// Discarded: two HMPDUs were already buffered on the path (36.9.7, 36.10).
    discarded_buffer_full,
    /// Discarded: addressed neither to 01-80-C2-00-00-01 nor to us.
    discarded_wrong_destination,
    /// Discarded: no tuple in use.
    discarded_empty,
    /// Tuples ignored because the HMPDU already held a request (or a response) before them.
    extra_tuples_ignored,
}
