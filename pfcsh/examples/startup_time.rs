//! Start-up to prompt, `show interfaces pfc`, `show interfaces pfc counters` and Tab completion
//! of a port in configuration mode, p50 over repeated runs, against a running pfcd (64- and
//! 256-port labs for BENCHMARKS.md: `[lab] ports = 64`):
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
    let (mut startup, mut show, mut counters, mut tab) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
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
        for (command, into) in
            [("show interfaces pfc", &mut show), ("show interfaces pfc counters", &mut counters)]
        {
            let t = Instant::now();
            if let Err(e) = session.execute(command) {
                eprintln!("startup_time: {e}");
                std::process::exit(1);
            }
            into.push(t.elapsed());
        }
        // Tab after a command in configuration mode: the candidate's keys are fetched again.
        let _ = session.execute("configure");
        let t = Instant::now();
        let (_, _, candidates) =
            pfcsh::complete::at_cursor(&mut session, "set interfaces interface ");
        tab.push(t.elapsed());
        if candidates.len() < 2 {
            eprintln!("startup_time: Tab offered {} candidates", candidates.len());
            std::process::exit(1);
        }
        session.close();
    }
    let ms = |v: Vec<Duration>| p50(v).as_secs_f64() * 1e3;
    eprintln!(
        "{runs} runs, p50: start-up to prompt {:.1} ms, show interfaces pfc {:.1} ms, \
         show interfaces pfc counters {:.1} ms, Tab after `set interfaces interface ` {:.1} ms",
        ms(startup),
        ms(show),
        ms(counters),
        ms(tab)
    );
}
