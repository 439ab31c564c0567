//! `pfcsim bench-fabric`: what simulating a lossless fabric costs: a network file (by default
//! the shipped leaf-spine incast, 4 spines, 8 leaves, 32 hosts at 10G) run several times on one
//! thread, each run's CPU time per simulated second (below 1: faster than real time) and
//! events per CPU second, with the median and range.

use std::path::Path;
use std::process::ExitCode;

use pfcsim::network::{load_network, run_network};

/// CPU time this thread has used: the first field of its schedstat, nanoseconds.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

pub fn run(file: &Path, runs: u32, duration_us: Option<u64>) -> ExitCode {
    let mut network = match load_network(file) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("pfcsim: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(us) = duration_us {
        network.run.duration_us = us;
    }
    let simulated_s = network.run.duration_us as f64 / 1e6;
    println!(
        "{}: {} bridges, {} hosts, {} flows, {simulated_s} simulated s a run",
        network.name,
        network.bridges.len(),
        network.hosts.len(),
        network.flows.len()
    );
    println!("run  CPU s  CPU s per simulated s  Mevents per CPU s");
    let mut ratios = Vec::new();
    for n in 1..=runs {
        let before = cpu_ns();
        let results = match run_network(&network) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("pfcsim: {e}");
                return ExitCode::FAILURE;
            }
        };
        let cpu = (cpu_ns() - before) as f64 / 1e9;
        let ratio = cpu / simulated_s;
        ratios.push(ratio);
        println!(
            "{n:>3}  {cpu:>5.2}  {ratio:>21.3}  {:>17.2}",
            results.events as f64 / cpu.max(1e-9) / 1e6
        );
    }
    ratios.sort_by(f64::total_cmp);
    println!(
        "CPU s per simulated s: median {:.3}, range {:.3}-{:.3} (below 1: faster than real time)",
        ratios[ratios.len() / 2],
        ratios[0],
        ratios[ratios.len() - 1]
    );
    ExitCode::SUCCESS
}
