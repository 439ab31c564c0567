//! `pfcsim bench-pipeline`: the pipeline engine's speed, and the three pause designs compared.

use std::process::ExitCode;
use std::time::Instant;

use dataplane::pipeline::{PauseMode, Pipeline, PipelineConfig};
use dataplane::time::{LinkSpeed, Picos};

/// One timed run: returns (descriptors per wall-clock second, the pipeline afterwards).
fn timed_run(
    cfg: &PipelineConfig,
    micros: u64,
    pause_one: bool,
) -> Result<(f64, Pipeline), String> {
    let mut p = Pipeline::new(cfg.clone())?;
    if pause_one {
        // Port 0 priority 3: paused for 100 quanta every microsecond, so it is paused and
        // resumed (flushed back) about once per microsecond throughout.
        let mut time = [0u16; 8];
        time[3] = 100;
        for k in 0..micros {
            p.schedule_pfc(Picos::from_us(k), 0, 0x08, time);
        }
    }
    let cycles = Picos::from_us(micros).as_ps() / cfg.cycle.as_ps();
    let start = Instant::now();
    p.run(cycles);
    let secs = start.elapsed().as_secs_f64();
    Ok((p.stats().departed as f64 / secs, p))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn unpaused_departures(p: &Pipeline) -> u64 {
    (0..p.config().ports)
        .flat_map(|port| (0..8).map(move |prio| (port, prio)))
        .filter(|&(port, prio)| !(port == 0 && prio == 3))
        .map(|(port, prio)| p.departed(port, prio))
        .sum()
}

pub fn run(micros: u64, runs: usize, ports: usize, speed: LinkSpeed, len: u16) -> ExitCode {
    let base =
        PipelineConfig { ports, speed, min_len: len, max_len: len, ..PipelineConfig::default() };
    println!(
        "pipeline engine, {ports} ports x 8 priorities at {speed}, {len}-octet frames, \
         {micros} us simulated per run, median of {runs}"
    );
    println!(
        "offered: line rate on every port = {:.1} Mpps simulated",
        ports as f64 * speed.line_rate_pps(u64::from(len)) / 1e6
    );
    println!();
    println!("{:<10} {:<28} {:>14} {:>16}", "mode", "scenario", "engine Mpps", "wire Mpps (sim)");
    for (mode, pause) in [(PauseMode::External, false), (PauseMode::External, true)] {
        let cfg = PipelineConfig { mode, ..base.clone() };
        let mut rates = Vec::new();
        let mut wire = 0.0;
        for _ in 0..runs {
            match timed_run(&cfg, micros, pause) {
                Ok((rate, p)) => {
                    rates.push(rate);
                    wire = p.stats().departed as f64 / (micros as f64);
                }
                Err(e) => {
                    eprintln!("pfcsim: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
        let scenario = if pause { "one class paused/resumed" } else { "no pause" };
        println!(
            "{:<10} {:<28} {:>14.1} {:>16.1}",
            mode.to_string(),
            scenario,
            median(rates) / 1e6,
            wire
        );
    }

    println!();
    println!("same traffic, port 0 priority 3 paused and resumed every microsecond:");
    println!(
        "{:<10} {:>22} {:>18} {:>22} {:>14}",
        "mode",
        "unpaused rel. to calm",
        "late paused frames",
        "on-chip paused octets",
        "stalled cycles"
    );
    let calm = match timed_run(
        &PipelineConfig { mode: PauseMode::External, ..base.clone() },
        micros,
        false,
    ) {
        Ok((_, p)) => unpaused_departures(&p),
        Err(e) => {
            eprintln!("pfcsim: {e}");
            return ExitCode::FAILURE;
        }
    };
    for mode in [PauseMode::External, PauseMode::Fifo, PauseMode::Stall] {
        let cfg = PipelineConfig { mode, ..base.clone() };
        match timed_run(&cfg, micros, true) {
            Ok((_, p)) => {
                let s = p.stats();
                println!(
                    "{:<10} {:>22.3} {:>18} {:>22} {:>14}",
                    mode.to_string(),
                    unpaused_departures(&p) as f64 / calm.max(1) as f64,
                    s.late_frames,
                    s.onchip_paused_octets_peak,
                    s.stalled_cycles
                );
            }
            Err(e) => {
                eprintln!("pfcsim: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
