//! pfcsim: runs pfcd's data-plane simulations and benchmarks from the command line.

mod bench_pipeline;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use dataplane::time::LinkSpeed;

#[derive(Parser)]
#[command(name = "pfcsim", version, about = "Simulations and benchmarks of pfcd's data plane")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Measures the pipeline engine: descriptors per second on one core with no pause and with
    /// one (port, priority) paused and resumed repeatedly, then compares the external, fifo and
    /// stall designs on the same traffic.
    BenchPipeline {
        /// Simulated time per run, in microseconds.
        #[arg(long, default_value_t = 2_000)]
        micros: u64,
        /// Repetitions; the median is reported.
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// Ports (each with 8 priorities).
        #[arg(long, default_value_t = 8)]
        ports: usize,
        /// Link speed of every port.
        #[arg(long, default_value = "100G")]
        speed: LinkSpeed,
        /// Frame length in octets, FCS excluded.
        #[arg(long, default_value_t = 60)]
        frame_len: u16,
    },
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::BenchPipeline { micros, runs, ports, speed, frame_len } => {
            bench_pipeline::run(micros, runs.max(1), ports, speed, frame_len)
        }
    }
}
