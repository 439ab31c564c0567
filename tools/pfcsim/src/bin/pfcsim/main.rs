//! pfcsim: runs pfcd's data-plane simulations and benchmarks from the command line.

mod bench_buffer;
mod bench_fabric;
mod bench_headroom;
mod bench_pipeline;
mod bench_watchdog;
mod network;
mod print;
mod scenario;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use dataplane::time::LinkSpeed;

/// mimalloc, as pfcd: the network runs allocate and free small buffers on most events.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    /// Runs a named scenario from a TOML file (see scenarios/) and prints a results table.
    Scenario {
        /// The scenario file.
        file: PathBuf,
        /// Print the results as JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Draw buffer occupancy and per-priority pause state over time to this SVG file.
        #[arg(long)]
        plot: Option<PathBuf>,
    },
    /// Runs a network of bridges and hosts from a TOML file (see scenarios/fabric-*.toml): per
    /// flow throughput, loss, latency and time paused; per link and priority pause time and PFC
    /// frames; the deadlocks and congestion trees found in the wait-for graph as it ran.
    Network {
        /// The network file.
        file: PathBuf,
        /// Print the results as JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Draw the topology (each link coloured by time paused, a deadlock's cycle dashed)
        /// and each flow's throughput over time to this SVG file.
        #[arg(long)]
        svg: Option<PathBuf>,
    },
    /// The buffer above XOFF each headroom scheme (calculated, measured) keeps per lossless
    /// priority, against the least that loses nothing in simulation, at every speed over 1 m,
    /// 100 m, 10 km and 60 km.
    BenchBuffer {
        /// Alignments of B's frames against A's searched per drain and frame mix.
        #[arg(long, default_value_t = 4096)]
        alignments: u32,
        /// The same from 10 km on, where a frame more or less weighs little.
        #[arg(long, default_value_t = 256)]
        long_alignments: u32,
    },
    /// Headroom: measurement accuracy and time to two results per link length and speed, and
    /// the buffer PFC (measured or fixed headroom) and credit flow control need at 100 Gb/s.
    BenchHeadroom {
        /// Seeds per row of the accuracy table.
        #[arg(long, default_value_t = 5)]
        seeds: u64,
        /// Only the accuracy table.
        #[arg(long)]
        accuracy_only: bool,
    },
    /// B's PFC watchdog over many peer storms on random links (1-400G, 1 m-10 km, frames of
    /// 60-9216 octets, every phase of the bridge's frames): detection error against the
    /// configured time, p50 / p99 / worst, and the watchdog's cost in events and CPU.
    BenchWatchdog {
        /// Storms, each on a link of its own.
        #[arg(long, default_value_t = 1_000)]
        storms: u64,
        /// Detection and restoration time, milliseconds (pfcd's default: 200).
        #[arg(long, default_value_t = 200)]
        detection_ms: u64,
        /// Seed of the random draws.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// What simulating a lossless fabric costs: a network file run several times on one
    /// thread, CPU seconds per simulated second (below 1: faster than real time) and events
    /// per CPU second.
    BenchFabric {
        /// The network file.
        #[arg(default_value = "scenarios/fabric-leaf-spine-incast.toml")]
        file: PathBuf,
        /// Runs.
        #[arg(long, default_value_t = 3)]
        runs: u32,
        /// Simulated time of each run, microseconds (default: the file's).
        #[arg(long)]
        duration_us: Option<u64>,
    },
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::BenchPipeline { micros, runs, ports, speed, frame_len } => {
            bench_pipeline::run(micros, runs.max(1), ports, speed, frame_len)
        }
        Command::Scenario { file, json, plot } => scenario::run(&file, json, plot),
        Command::Network { file, json, svg } => network::run(&file, json, svg.as_deref()),
        Command::BenchBuffer { alignments, long_alignments } => {
            bench_buffer::run(alignments.max(1), long_alignments.max(1))
        }
        Command::BenchHeadroom { seeds, accuracy_only } => {
            bench_headroom::run(seeds, accuracy_only)
        }
        Command::BenchWatchdog { storms, detection_ms, seed } => {
            bench_watchdog::run(storms.max(1), detection_ms.clamp(1, 600_000), seed)
        }
        Command::BenchFabric { file, runs, duration_us } => {
            bench_fabric::run(&file, runs.max(1), duration_us)
        }
    }
}
