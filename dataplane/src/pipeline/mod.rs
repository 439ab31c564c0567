//! The transmit pipeline of a network processor, QMAN → QMI → BMI → NTI → MAC, with the
//! external-memory pause mechanism of seed 000 (SPEC §6) and, for comparison, the two designs it
//! replaces: `stall` (stop the whole pipeline) and `fifo` (on-chip per-(port, priority) FIFOs
//! between NTI and MAC).
//!
//! The engine is cycle-stepped: each stage is a delay line with a latency and a capacity and
//! moves up to `width` frame descriptors per cycle; the MACs serialise frames in picoseconds.
//! Frames are descriptors ([`Fd`]); payload stays in a buffer pool and is only "read" (counted
//! as on-chip bytes) once the NTI passes a frame to the MAC side.

mod class;
mod config;
mod engine;
mod fd;
mod front_ring;
mod ring;
mod snapshot;
mod stage;
mod stats;
mod wheel;

pub use class::FsmState;
pub use config::{
    ExternalMemoryConfig, PauseMode, PipelineConfig, Traffic, MAX_LATENCY_CYCLES,
    MAX_PAUSE_DETECT_LATENCY, MAX_PORT_CREDIT,
};
pub use engine::{ClassView, Departure, Pipeline};
pub use fd::Fd;
pub use snapshot::{ClassSnapshot, PauseReaction, PipelineSnapshot};
pub use stats::PipelineStats;
