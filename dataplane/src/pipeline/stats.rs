/// What a pipeline run measured.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PipelineStats {
    pub cycles: u64,
    /// FDs QMAN pushed into the pipeline (each one a frame to deliver).
    pub enqueued: u64,
    /// Frames started on the wire.
    pub departed: u64,
    pub departed_octets: u64,
    /// Frames that left out of order within their (port, priority), or twice (must be 0).
    pub order_violations: u64,
    /// Frames of a paused (port, priority) that started on the wire more than the reaction
    /// bound (614.4 ns) after the PFC indication (must be 0).
    pub late_frames: u64,
    /// Frames of a paused class started on the wire after the indication but within the bound.
    pub frames_within_bound: u64,
    /// FDs the NTI recycled to external memory (FD_REC), and those the MAC handed back.
    pub recycled_by_nti: u64,
    pub returned_by_mac: u64,
    /// FDs read back from external memory.
    pub flushed: u64,
    /// Deepest any one external FIFO got, in FDs.
    pub external_fifo_peak: usize,
    /// Most FDs the external memory held at once, stored or being written (a write takes its
    /// room when issued).
    pub external_used_peak: usize,
    /// Cycles in which a DMA write waited because the external memory was full.
    pub external_full_cycles: u64,
    /// Deepest the on-chip recycle staging queue (FDs waiting for a DMA write) got.
    pub recycle_staging_peak: usize,
    /// Most payload octets of paused classes held on chip at once (read past the NTI, not
    /// sent): 0 for `external` by design, the FIFOs' contents for `fifo`.
    pub onchip_paused_octets_peak: u64,
    /// Cycles in which the whole pipeline stood still (`stall` mode).
    pub stalled_cycles: u64,
    /// PAUSE indications (PFC frames) the MACs processed.
    pub pause_indications: u64,
}
