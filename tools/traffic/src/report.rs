//! What `pfc-traffic` and `pfc-delay` print at the end: every figure in JSON (`--json`, which
//! the tests read) or as a short table for people.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use super::histogram::Histogram;
use super::rate::bits;

#[derive(Debug, Clone, Serialize)]
pub struct SendReport {
    pub mode: &'static str,
    pub interface: String,
    pub seconds: f64,
    pub speed_gbps: u64,
    pub flows: Vec<FlowSent>,
    /// By priority ("0".."7"): priorities with a flow or named in a PFC frame.
    pub priorities: BTreeMap<String, PrioritySent>,
    pub pfc_frames_received: u64,
    /// PAUSE frames and MAC Control to another destination: not acted on.
    pub mac_control_ignored: u64,
    pub other_frames_received: u64,
    /// Times the kernel took fewer frames than offered (its queue was full).
    pub kernel_queue_full: u64,
    /// Times a flow fell more than 20 ms behind its schedule and restarted from now.
    pub lag_restarts: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct FlowSent {
    pub flow: u16,
    pub priority: u8,
    pub size: usize,
    pub offered: String,
    pub frames: u64,
    pub octets: u64,
    pub rate_bps: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct PrioritySent {
    pub frames: u64,
    pub octets: u64,
    pub rate_bps: f64,
    pub pps: f64,
    /// Time the priority was paused by PFC frames received, in nanoseconds.
    pub pause_ns: u64,
    /// PFC frames received that named this priority.
    pub pfc_frames: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct RecvReport {
    pub mode: &'static str,
    pub interface: String,
    pub seconds: f64,
    pub priorities: BTreeMap<String, PriorityReceived>,
    pub pfc_frames_sent: u64,
    pub pfc_frames_received: u64,
    /// Frames that were not test frames (nor MAC Control).
    pub other_frames: u64,
    /// Frames the kernel dropped because this receiver's socket buffer was full: lost here,
    /// not on the way.
    pub kernel_drops: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct PriorityReceived {
    pub frames: u64,
    pub octets: u64,
    /// Between the first and the last frame of the priority.
    pub rate_bps: f64,
    pub pps: f64,
    pub lost: u64,
    pub reordered: u64,
    pub duplicates: u64,
    /// Frames whose tag PCP differed from the priority the sender wrote in the payload.
    pub priority_mismatch: u64,
    /// One-way latency from the sender's timestamp (same host: both read CLOCK_MONOTONIC).
    pub latency_ns: Option<Quantiles>,
    pub flows: Vec<FlowReceived>,
    pub drain: Option<DrainReport>,
    /// Per pause we asked for: from our XOFF to the last frame of the priority that still
    /// arrived before our XON (0 when none did).
    pub pause_reaction_ns: Option<Quantiles>,
    /// Frames of the priority that arrived while we were pausing it.
    pub frames_in_pause: u64,
    /// PFC frames sent naming this priority (XOFF, refreshes and XON).
    pub pfc_sent: u64,
    pub xon_sent: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct FlowReceived {
    pub flow: u16,
    pub frames: u64,
    /// One past the highest sequence number received: the sender sent at least this many.
    pub highest_seq_plus_one: u64,
    pub lost: u64,
    pub reordered: u64,
    pub duplicates: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct DrainReport {
    pub rate_bps: f64,
    pub xoff_octets: u64,
    pub xon_octets: u64,
    pub peak_octets: u64,
    /// Frames that arrived while the queue was above `--buffer`: lost on a real port.
    pub overflow_frames: u64,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Quantiles {
    pub count: u64,
    pub min: u64,
    pub p50: u64,
    pub p99: u64,
    pub max: u64,
}

impl Quantiles {
    pub fn of(h: &Histogram) -> Option<Self> {
        Some(Quantiles {
            count: h.count(),
            min: h.min()?,
            p50: h.quantile(0.5)?,
            p99: h.quantile(0.99)?,
            max: h.max()?,
        })
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct DelayReport {
    pub mode: &'static str,
    pub seconds: f64,
    pub directions: Vec<DirectionReport>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DirectionReport {
    pub from: String,
    pub to: String,
    pub delay_ns: u64,
    pub frames_received: u64,
    pub frames_sent: u64,
    /// Frames refused because `--limit` frames were already held.
    pub dropped: u64,
    /// Send time minus due time: how late frames left.
    pub lateness_ns: Option<Quantiles>,
}

fn quantiles(q: &Option<Quantiles>) -> String {
    q.map_or("-".into(), |q| format!("p50 {:.1} µs, p99 {:.1} µs", us(q.p50), us(q.p99)))
}

fn us(ns: u64) -> f64 {
    ns as f64 / 1e3
}

impl fmt::Display for SendReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "pfc-traffic send on {} for {:.3} s", self.interface, self.seconds)?;
        for (p, s) in &self.priorities {
            writeln!(
                f,
                "  priority {p}: {} frames, {}, paused {:.3} ms by {} PFC frames",
                s.frames,
                bits(s.rate_bps),
                s.pause_ns as f64 / 1e6,
                s.pfc_frames
            )?;
        }
        write!(
            f,
            "  PFC frames received {}, kernel queue full {} times",
            self.pfc_frames_received, self.kernel_queue_full
        )
    }
}

impl fmt::Display for RecvReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "pfc-traffic recv on {} for {:.3} s", self.interface, self.seconds)?;
        for (p, r) in &self.priorities {
            writeln!(
                f,
                "  priority {p}: {} frames, {}, lost {}, reordered {}, duplicates {}, latency {}",
                r.frames,
                bits(r.rate_bps),
                r.lost,
                r.reordered,
                r.duplicates,
                quantiles(&r.latency_ns)
            )?;
            if let Some(d) = &r.drain {
                writeln!(
                    f,
                    "    drained at {}: peak {} octets, overflow {} frames, PFC sent {} (XON {}), \
                     XOFF to last frame {}",
                    bits(d.rate_bps),
                    d.peak_octets,
                    d.overflow_frames,
                    r.pfc_sent,
                    r.xon_sent,
                    quantiles(&r.pause_reaction_ns)
                )?;
            }
        }
        write!(
            f,
            "  PFC frames sent {}, other frames {}, dropped by the kernel here {}",
            self.pfc_frames_sent, self.other_frames, self.kernel_drops
        )
    }
}

impl fmt::Display for DelayReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pfc-delay for {:.3} s", self.seconds)?;
        for d in &self.directions {
            write!(
                f,
                "\n  {} -> {}: delay {:.1} µs, {} received, {} sent, {} dropped, late by {}",
                d.from,
                d.to,
                us(d.delay_ns),
                d.frames_received,
                d.frames_sent,
                d.dropped,
                quantiles(&d.lateness_ns)
            )?;
        }
        Ok(())
    }
}
