//! Start-up to prompt and `show interfaces pfc`, p50 over repeated runs, against a running
//! pfcd (a 64-port lab for BENCHMARKS.md: `[lab] ports = 64`):
//!
//! ```text
//! cargo run --release -p pfcsh --example startup_time -- --port 18830 \
//!     --user admin --password-file pfcd-state/admin.password [RUNS]
//! ```
//!
//! Start-up is what pfcsh does before its first prompt: SSH connection and login, hello,
//! yang-library, the schema from the cache, the libyang context. The table goes to stderr's
//! opposite, stdout, which the command line should send to /dev/null.

use std::time::{Duration, Instant};

use clap::Parser as _;

fn p50(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let mut argv: Vec<String> = std::env::args().collect();
    let runs: usize = match argv.last().and_then(|a| a.parse().ok()) {
        Some(n) => {
            argv.pop();
            n
        }
        None => 20,
    };
    let args = match pfcsh::cli::Args::try_parse_from(&argv) {
        Ok(a) => a,
        Err(e) => e.exit(),
    };
    let (mut startup, mut show) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let t = Instant::now();
        let mut session = match pfcsh::open(&args) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("startup_time: {e}");
                std::process::exit(1);
            }
        };
        startup.push(t.elapsed());
        let t = Instant::now();
        if let Err(e) = session.execute("show interfaces pfc") {
            eprintln!("startup_time: {e}");
            std::process::exit(1);
        }
        show.push(t.elapsed());
        session.close();
    }
    eprintln!(
        "{runs} runs: start-up to prompt p50 {:.1} ms, show interfaces pfc p50 {:.1} ms",
        p50(startup).as_secs_f64() * 1e3,
        p50(show).as_secs_f64() * 1e3
    );
}
