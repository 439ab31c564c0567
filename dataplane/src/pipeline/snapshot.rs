//! The transmit pipeline as a step left it: a simulated pipeline and the software bridge's on
//! real interfaces publish the same view, which a management layer reads.

use super::{ClassView, Pipeline, PipelineConfig, PipelineStats};
use crate::wire::PRIORITIES;

/// One (port, priority) of the pipeline: the engine's view of it.
pub type ClassSnapshot = Option<ClassView>;

/// The pipeline as a step left it.
#[derive(Debug, Clone)]
pub struct PipelineSnapshot {
    pub config: PipelineConfig,
    pub stats: PipelineStats,
    /// Per port, per priority.
    pub classes: Vec<[ClassSnapshot; PRIORITIES]>,
    /// FDs in external memory now.
    pub external_used: u64,
    /// Per port, how fast the peer's pauses took hold on the wire: measured by the bridge on
    /// real interfaces; empty in the lab, whose simulated MAC counts late frames in `stats`.
    pub reactions: Vec<PauseReaction>,
    /// Per port, the traffic class of each priority in force on transmit (the bridge's on real
    /// interfaces); empty in the lab, whose priority n is class n.
    pub traffic_classes: Vec<[u8; PRIORITIES]>,
}

/// How fast pauses from the peer stopped their priority on one real port, over the last pauses
/// (the software bridge measures it): from the PFC receiver's indication (36.3.3) and from the PFC frame's
/// kernel arrival, to the start of the last send of the priority after it. Nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PauseReaction {
    pub pauses: u64,
    /// Pauses after whose indication a frame of the priority still began to leave.
    pub late_after_indication: u64,
    pub indication_max_ns: u64,
    /// Pauses after whose arrival a frame of the priority began to leave.
    pub late_after_arrival: u64,
    pub arrival_p50_ns: u64,
    pub arrival_p99_ns: u64,
    pub arrival_max_ns: u64,
}

impl PipelineSnapshot {
    /// The view of `p` now.
    pub fn of(p: &Pipeline) -> Self {
        let ports = p.config().ports;
        let mut external_used = 0;
        let classes = (0..ports)
            .map(|port| {
                let mut row: [ClassSnapshot; PRIORITIES] = [None; PRIORITIES];
                for (n, c) in row.iter_mut().enumerate() {
                    *c = p.class_view(port, n);
                    external_used += c.map_or(0, |v| v.external_depth as u64);
                }
                row
            })
            .collect();
        PipelineSnapshot {
            config: p.config().clone(),
            stats: p.stats().clone(),
            classes,
            external_used,
            reactions: Vec::new(),
            traffic_classes: Vec::new(),
        }
    }
}
