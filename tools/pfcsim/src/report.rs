//! A scenario's results as a table a person reads (JSON comes from `serde_json`).

use std::fmt::Write;

use super::file::{FlowControlMode, HeadroomMethod, MediumSpec};
use super::run::ScenarioResults;

/// `126 224`.
pub fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

pub fn method_name(m: HeadroomMethod) -> &'static str {
    match m {
        HeadroomMethod::AnnexN => "Annex N example",
        HeadroomMethod::Calculated => "calculated from link delays (36.8.1)",
        HeadroomMethod::Measured => "measured by the protocol (36.9)",
        HeadroomMethod::Fixed => "fixed",
    }
}

/// The results table.
pub fn table(r: &ScenarioResults) -> String {
    let mut out = String::new();
    let medium = match r.medium {
        MediumSpec::Fibre => "fibre",
        MediumSpec::Copper => "copper",
    };
    let _ = writeln!(out, "scenario {}: {}", r.name, r.description);
    let _ = writeln!(
        out,
        "link: {} over {} m of {medium}; PFC round trip without frames in progress {} ns",
        r.speed,
        group(r.metres),
        group(r.true_round_trip_ns)
    );
    let measured = r
        .headroom
        .round_trip_quanta
        .map(|q| format!(" (round trip {} quanta)", group(u64::from(q))))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "headroom: {} bits = {} octets, {}{measured}",
        group(r.headroom.bits),
        group(r.headroom.bits.div_ceil(8)),
        method_name(r.headroom.method)
    );
    match (r.flow_control, r.xoff_octets, r.xon_octets) {
        (FlowControlMode::Pfc, Some(xoff), Some(xon)) => {
            let _ = writeln!(
                out,
                "flow control: PFC; buffer {} octets, XOFF at {}, XON at {}",
                group(r.buffer_octets),
                group(xoff),
                group(xon)
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "flow control: credit (64-octet blocks, 12-bit counters); buffer {} octets",
                group(r.buffer_octets)
            );
        }
    }
    let (frames, stops) = match r.flow_control {
        FlowControlMode::Pfc => ("PFC frames", "XOFF"),
        FlowControlMode::Credit => ("FCPs", "waits"),
    };
    let _ = writeln!(out, "{} us simulated per seed", group(r.duration_us));
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{:>6} {:>10} {:>10} {:>8} {:>10} {:>7} {:>13} {:>9}",
        "seed", "sent", "received", "dropped", frames, stops, "peak octets", "goodput%"
    );
    for s in &r.runs {
        let _ = writeln!(
            out,
            "{:>6} {:>10} {:>10} {:>8} {:>10} {:>7} {:>13} {:>9.1}",
            s.seed,
            s.frames_sent,
            s.frames_received,
            s.frames_dropped,
            s.flow_control_frames,
            s.stops,
            group(s.peak_occupancy_octets),
            s.goodput_percent
        );
    }
    storms(&mut out, r);
    out
}

/// `12 345.678` microseconds from nanoseconds, or `-`.
fn us(ns: Option<u64>) -> String {
    ns.map_or("-".to_string(), |ns| format!("{}.{:03}", group(ns / 1000), ns % 1000))
}

/// Each seed's storms: when the peer's pauses first held B, when the watchdog's hold began,
/// when it found the storm and its error against the configured time, what it dropped, what
/// was still queued as the storm ended, and when it restored the class.
fn storms(out: &mut String, r: &ScenarioResults) {
    if r.runs.iter().all(|s| s.storms.is_empty()) {
        return;
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "storms (times in us of simulated time; error = detected - hold began - detection time)"
    );
    let _ = writeln!(
        out,
        "{:>6} {:>10} {:>7} {:>17} {:>9} {:>13} {:>13} {:>13} {:>9} {:>8} {:>7} {:>13}",
        "seed",
        "class",
        "action",
        "storm us",
        "detect ms",
        "peer held B",
        "hold began",
        "detected",
        "error ps",
        "dropped",
        "queued",
        "restored"
    );
    for run in &r.runs {
        for s in &run.storms {
            let error = s.detection_error_ps.map_or("-".to_string(), |e| e.to_string());
            let _ = writeln!(
                out,
                "{:>6} {:>10} {:>7} {:>17} {:>9} {:>13} {:>13} {:>13} {:>9} {:>8} {:>7} {:>13}",
                run.seed,
                s.class,
                s.action,
                format!("{}-{}", group(s.start_us), group(s.end_us)),
                s.detection_ms,
                us(s.storm_began_ns),
                us(s.hold_began_ns),
                us(s.detected_ns),
                error,
                s.frames_dropped,
                s.queued_at_end,
                us(s.restored_ns)
            );
        }
    }
}
