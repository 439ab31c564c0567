//! pfc-delay: a user-space delay line between two interfaces (for links that need a known delay
//! where the kernel has no netem). The library code is `pfc_traffic::delay`.

use std::process::ExitCode;

use clap::Parser;
use dataplane::time::Picos;
use pfc_traffic::delay::{run, DelayConfig};
use pfc_traffic::rate::parse_duration;

#[derive(Parser)]
#[command(
    name = "pfc-delay",
    version,
    about = "Relays every frame between two interfaces in both directions, holding each for a \
             fixed delay, in order",
    long_about = "Relays every frame between two interfaces in both directions, holding each \
                  for a fixed delay and keeping each direction's order. Put it between two veth \
                  pairs to give a link a known delay:\n\n  \
                  h1 [a0] ==veth== [a1] pfc-delay [b1] ==veth== [b0] h2\n  \
                  pfc-delay --a a1 --b b1 --delay 50us\n\n\
                  Counters, and how late frames left against their due time (p50/p99), are \
                  printed at SIGTERM/SIGINT or after --duration. Needs CAP_NET_RAW and \
                  CAP_NET_ADMIN (promiscuous mode)."
)]
struct Cli {
    /// One interface.
    #[arg(long)]
    a: String,
    /// The other interface.
    #[arg(long)]
    b: String,
    /// Delay in both directions, e.g. 50us, 1ms, 0.
    #[arg(long, default_value = "0", value_parser = parse_duration)]
    delay: Picos,
    /// Delay from a to b (overrides --delay).
    #[arg(long, value_parser = parse_duration)]
    delay_ab: Option<Picos>,
    /// Delay from b to a (overrides --delay).
    #[arg(long, value_parser = parse_duration)]
    delay_ba: Option<Picos>,
    /// Frames held per direction at most; more are dropped and counted.
    #[arg(long, default_value_t = 100_000)]
    limit: usize,
    /// Spin instead of sleeping this close to a due time (more precise, more CPU).
    #[arg(long, default_value = "30us", value_parser = parse_duration)]
    spin: Picos,
    /// Stop after this long; otherwise at SIGTERM/SIGINT.
    #[arg(long, value_parser = parse_duration)]
    duration: Option<Picos>,
    /// Print the counters as JSON.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let config = DelayConfig {
        delay_ab: cli.delay_ab.unwrap_or(cli.delay),
        delay_ba: cli.delay_ba.unwrap_or(cli.delay),
        a: cli.a,
        b: cli.b,
        limit: cli.limit,
        spin: cli.spin,
        duration: cli.duration,
    };
    match run(&config) {
        Ok(report) => {
            if cli.json {
                match serde_json::to_string_pretty(&report) {
                    Ok(s) => println!("{s}"),
                    Err(e) => eprintln!("pfc-delay: {e}"),
                }
            } else {
                println!("{report}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("pfc-delay: {e}");
            ExitCode::FAILURE
        }
    }
}
