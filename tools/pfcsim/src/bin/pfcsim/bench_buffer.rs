//! `pfcsim bench-buffer`: the receive buffer each headroom scheme keeps above XOFF per lossless
//! priority (headroom + the maximum frame less an octet, SPEC §4.5), against the least buffer
//! above XOFF that loses nothing in simulation, at every speed over 1 m, 100 m, 10 km and 60 km
//! of fibre. Both stations have the calculator's default delays for the speed.

use std::process::ExitCode;
use std::time::Instant;

use dataplane::headroom::{calculate, measured_headroom, WorstCase};
use dataplane::sim::{
    least_buffer_above_xoff, run_with_reserve, Medium, StationDelays, TwoStationConfig,
};
use dataplane::time::LinkSpeed;
use pfcsim::{group, max_frame_octets, measure};

const LENGTHS: [u64; 4] = [1, 100, 10_000, 60_000];
/// Drain rates searched, percent: none, and the 1 % that exposed the trigger frame's overshoot.
const DRAINS: [u64; 2] = [0, 1];
/// Shares of A's frames with random lengths, percent: whole maximum frames only leave up to a
/// frame of the round trip unfilled; some shorter frames fill it.
const MIXES: [u8; 3] = [0, 10, 50];

fn length(metres: u64) -> String {
    if metres >= 1_000 {
        format!("{} km", metres / 1_000)
    } else {
        format!("{metres} m")
    }
}

fn ratio(scheme: u64, least: u64) -> String {
    let permille = (scheme * 10_000).div_ceil(least.max(1));
    format!("{}.{:04}", permille / 10_000, permille % 10_000)
}

fn row(speed: LinkSpeed, metres: u64, alignments: u32) -> Result<String, String> {
    let mut base = TwoStationConfig::annex_n(0, 1);
    base.speed = speed;
    base.link_metres = metres;
    base.medium = Medium::Fibre;
    base.delays = StationDelays::for_link(speed, Medium::Fibre);
    let calculated = calculate(&base.headroom_inputs().map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?
        .bits;
    let quanta = measure(&base).map_err(|e| e.to_string())?;
    let wd = WorstCase { max_frame_octets: max_frame_octets(&base) };
    let measured =
        measured_headroom(speed, u64::from(quanta), &wd).map_err(|e| e.to_string())?.bits;
    // What the plan keeps above XOFF; the simulation's buffer holds frames without their FCS.
    let reserve = |bits: u64| bits.div_ceil(8) + u64::from(base.frame_len) - 1;
    let least = least_buffer_above_xoff(&base, alignments, &DRAINS, &MIXES);
    let lost = |bits: u64| run_with_reserve(&least.worst, reserve(bits)).frames_dropped;
    Ok(format!(
        "| {speed} | {} | {} | {} | {} | {} | {} | {} |",
        length(metres),
        group(least.octets),
        group(reserve(calculated)),
        ratio(reserve(calculated), least.octets),
        group(reserve(measured)),
        ratio(reserve(measured), least.octets),
        lost(calculated) + lost(measured),
    ))
}

pub fn run(alignments: u32, long_alignments: u32) -> ExitCode {
    println!(
        "Buffer above XOFF per lossless priority (octets): each scheme's headroom + 1999, against"
    );
    println!(
        "the least that loses nothing over {alignments} alignments ({long_alignments} from 10 km) \
         x drains {DRAINS:?} % x frame mixes {MIXES:?} %."
    );
    println!();
    println!(
        "| speed | link | least, simulated | calculated | ratio | measured | ratio | \
         frames lost with the schemes |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let start = Instant::now();
    for speed in LinkSpeed::ALL {
        for metres in LENGTHS {
            let n = if metres >= 10_000 { long_alignments } else { alignments };
            match row(speed, metres, n) {
                Ok(line) => println!("{line}"),
                Err(e) => {
                    eprintln!("pfcsim: {speed} {}: {e}", length(metres));
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    eprintln!("took {:.1} s", start.elapsed().as_secs_f64());
    ExitCode::SUCCESS
}
