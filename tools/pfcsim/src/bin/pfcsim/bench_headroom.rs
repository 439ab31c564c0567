//! `pfcsim bench-headroom`: (i) how accurate the headroom measurement protocol is and how many
//! round trips it takes to two results, per link length and speed; (ii) at 100 Gb/s, the receive
//! buffer per lossless priority each approach needs for zero loss at full goodput — PFC with the
//! measured headroom, PFC with a fixed "safe" default (the 10 km value), and credit-based flow
//! control — each found by searching over the simulation.

use std::process::ExitCode;

use dataplane::credit::BLOCK_OCTETS;
use dataplane::headroom::measure::MeasureConfig;
use dataplane::headroom::{calculate, measured_headroom, WorstCase};
use dataplane::sim::{
    CreditPair, CreditPairConfig, MeasurePair, MeasurePairConfig, Medium, Station, StationDelays,
    TwoStation, TwoStationConfig,
};
use dataplane::time::{LinkSpeed, Picos};
use pfcsim::{group, inputs_for, max_frame_octets, measure};

const LENGTHS: [u64; 6] = [1, 100, 2_000, 10_000, 60_000, 1_000_000];
/// Part (ii) covers the same lengths; 1000 km (125 MB of headroom at 100 Gb/s, 150 ms of
/// simulated traffic per trial) takes most of the run time.
const BUFFER_LENGTHS: [u64; 6] = LENGTHS;
/// Goodput the drain must keep, after start-up, for a buffer to count as enough.
const GOODPUT_PERMILLE: u64 = 990;

fn accuracy(seeds: u64) {
    println!(
        "(i) measurement accuracy: fibre, Annex N station delays, both stations waiting up to"
    );
    println!(
        "    300 quanta for the wire and up to 300 more before answering, Response Adjustments"
    );
    println!("    of 4 or less left out, 8 results each; {seeds} seeds x 2 stations per row.");
    println!(
        "    error = estimate - true round trip (ID + LD), pause quanta; time to two results in"
    );
    println!("    link round trips (an HMPDU there and back), from the station's first request.");
    println!();
    println!(
        "| speed | link | true round trip (quanta) | mean error | min error | max error | \
         mean time to 2 results | max |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for speed in [LinkSpeed::G10, LinkSpeed::G100, LinkSpeed::G400] {
        for metres in LENGTHS {
            let mut errors = Vec::new();
            let mut times = Vec::new();
            let mut true_q = 0.0;
            for seed in 0..seeds {
                let mut base = TwoStationConfig::annex_n(0, seed);
                base.speed = speed;
                base.link_metres = metres;
                base.medium = Medium::Fibre;
                let mut cfg = MeasurePairConfig::for_stations(&base, seed);
                cfg.wire_wait_max = speed.quanta(300);
                cfg.response_wait_max = speed.quanta(300);
                let configure: fn(&mut MeasureConfig) = |c| {
                    c.results_wanted = 8;
                    c.omit_response_adjustment_up_to = 4;
                };
                cfg.a.configure = configure;
                cfg.b.configure = configure;
                let Ok(pair) = MeasurePair::new(cfg) else { continue };
                let r = pair.run();
                let q = r.quantum.as_ps() as f64;
                true_q = r.true_round_trip.as_ps() as f64 / q;
                for s in [Station::A, Station::B] {
                    if let Some(e) = r.error(s) {
                        errors.push(e as f64 / q);
                    }
                    let o = r.station(s);
                    if let (Some(first), Some(second)) = (o.first_request_at, o.result_at(2)) {
                        times.push(r.round_trips_milli(second - first) as f64 / 1000.0);
                    }
                }
            }
            let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
            let min = errors.iter().copied().fold(f64::INFINITY, f64::min);
            let max = errors.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let tmax = times.iter().copied().fold(0.0, f64::max);
            println!(
                "| {speed} | {} | {true_q:.1} | {:+.2} | {min:+.2} | {max:+.2} | {:.2} | {tmax:.2} |",
                length(metres),
                mean(&errors),
                mean(&times)
            );
        }
    }
    println!();
}

fn length(metres: u64) -> String {
    if metres >= 1_000 {
        format!("{} km", metres / 1_000)
    } else {
        format!("{metres} m")
    }
}

/// A congested 100 Gb/s run over `metres` of fibre: B drains at half the line rate; both
/// stations have the calculator's default delays at 100 Gb/s.
fn congested(metres: u64, seed: u64) -> TwoStationConfig {
    let mut cfg = TwoStationConfig::annex_n(0, seed);
    cfg.speed = LinkSpeed::G100;
    cfg.link_metres = metres;
    cfg.medium = Medium::Fibre;
    cfg.delays = StationDelays::for_link(LinkSpeed::G100, Medium::Fibre);
    cfg.drain_percent = 50;
    cfg.duration = Picos::from_ms(3).max(cfg.round_trip() * 15);
    cfg.measure_from = cfg.round_trip() * 4;
    cfg
}

/// Whether a buffer of `octets` is enough: for each seed, no drop and the drain kept busy.
fn enough(metres: u64, octets: u64, headroom_bits: Option<u64>) -> (bool, u64, u64) {
    let mut worst_goodput = 1000;
    let mut drops = 0;
    for seed in 1..=2 {
        let cfg = congested(metres, seed);
        let (dropped, drained, capacity) = match headroom_bits {
            Some(bits) => {
                let mut cfg = cfg;
                cfg.headroom_bits = bits;
                cfg.allocation_octets = Some(octets);
                let r = TwoStation::new(cfg).run();
                (r.frames_dropped, r.octets_drained, r.drain_capacity_octets)
            }
            None => {
                let blocks = u32::try_from(octets / u64::from(BLOCK_OCTETS)).unwrap_or(u32::MAX);
                match CreditPair::new(CreditPairConfig::like(&cfg, blocks.max(1))) {
                    Ok(pair) => {
                        let r = pair.run();
                        (r.packets_dropped, r.octets_drained, r.drain_capacity_octets)
                    }
                    Err(_) => return (false, 1, 0),
                }
            }
        };
        drops += dropped;
        worst_goodput = worst_goodput.min(drained * 1000 / capacity.max(1));
    }
    (drops == 0 && worst_goodput >= GOODPUT_PERMILLE, drops, worst_goodput)
}

/// The smallest buffer (whole KiB) that is enough, or why there is none up to `ceiling`.
fn search(metres: u64, headroom_bits: Option<u64>, ceiling: u64) -> String {
    const KIB: u64 = 1024;
    let (ok, drops, goodput) = enough(metres, ceiling, headroom_bits);
    if !ok {
        return if drops > 0 {
            format!("loses frames at any size ({drops} dropped at {} KiB)", group(ceiling / KIB))
        } else {
            format!(
                "none: goodput {}.{}% at {} KiB",
                goodput / 10,
                goodput % 10,
                group(ceiling / KIB)
            )
        };
    }
    let (mut lo, mut hi) = (2, ceiling.div_ceil(KIB));
    while lo < hi {
        let mid = (lo + hi) / 2;
        if enough(metres, mid * KIB, headroom_bits).0 {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    format!("{} KiB", group(hi))
}

fn buffers() -> Result<(), String> {
    println!("(ii) receive buffer per lossless priority for zero loss at full goodput, 100 Gb/s:");
    println!("     A sends 2000-octet frames at line rate, B drains at 50 % and sends its own");
    println!(
        "     2000-octet frames back; enough = no drop and >= 99 % of the drain's capacity used"
    );
    println!(
        "     after start-up, for seeds 1 and 2; smallest whole KiB found by bisection over the"
    );
    println!("     simulation. PFC: XOFF a headroom and a frame below the end. Fixed default: the");
    println!("     link-delay headroom of 10 km. Credit: 64-octet blocks, 2048-block window.");
    println!("     Both stations: the calculator's default delays at 100 Gb/s.");
    println!();
    let ten_km = calculate(&inputs_for(&congested(10_000, 1)).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?
        .bits;
    println!(
        "| link | round trip (us) | measured headroom (octets) | PFC, measured headroom | \
         PFC, fixed 10 km headroom ({} octets) | credit |",
        group(ten_km.div_ceil(8))
    );
    println!("| ---: | ---: | ---: | ---: | ---: | ---: |");
    for metres in BUFFER_LENGTHS {
        let cfg = congested(metres, 1);
        let quanta = measure(&cfg).map_err(|e| e.to_string())?;
        let wd = WorstCase { max_frame_octets: max_frame_octets(&cfg) };
        let measured =
            measured_headroom(cfg.speed, u64::from(quanta), &wd).map_err(|e| e.to_string())?.bits;
        let ceiling = |bits: u64| (bits.div_ceil(8) * 4).max(256 * 1024);
        let pfc_measured = search(metres, Some(measured), ceiling(measured));
        let pfc_fixed = search(metres, Some(ten_km), ceiling(ten_km.max(measured)));
        let credit = search(metres, None, 2 * 2048 * u64::from(BLOCK_OCTETS));
        let rtt = cfg.round_trip();
        println!(
            "| {} | {}.{:03} | {} | {pfc_measured} | {pfc_fixed} | {credit} |",
            length(metres),
            rtt.as_ns() / 1000,
            rtt.as_ns() % 1000,
            group(measured.div_ceil(8)),
        );
    }
    Ok(())
}

pub fn run(seeds: u64, skip_buffers: bool) -> ExitCode {
    accuracy(seeds.max(1));
    if skip_buffers {
        return ExitCode::SUCCESS;
    }
    match buffers() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pfcsim: {e}");
            ExitCode::FAILURE
        }
    }
}
