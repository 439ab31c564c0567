//! Runs the NETCONF server until interrupted (for trying it by hand, and for tests that need
//! a real process to kill):
//!
//! ```text
//! mgmt-serve STATE_DIR [PORT] [--yang DIR]... [--module NAME]... [--admin USER] [--idle SECS]
//!            [--workers N] [--blocking N]
//! ssh -p PORT -s alice@127.0.0.1 netconf
//! ```
//!
//! STATE_DIR must hold a `users` file (see `mgmt::users`); the host key and the datastores
//! are kept there. PORT 0 picks a free port; the line `listening on ADDR` on stdout says which.
//! `--workers` sets the async worker threads (SSH and light requests; default 1, see
//! DECISIONS.md "Where operations run"); `--blocking` the most threads that run heavy requests
//! and password checks (default twice the CPUs, at least 4).

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

/// mimalloc instead of glibc malloc: see the dependency's comment in Cargo.toml.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const USAGE: &str = "usage: mgmt-serve STATE_DIR [PORT] [--yang DIR]... [--module NAME]... \
                     [--admin USER] [--idle SECS] [--workers N] [--blocking N]";

/// Async worker threads unless `--workers` says otherwise. On a 2-core machine one used as
/// much CPU per operation as two with 1 session and 20–30 % less with 10 and 50, where two
/// workers wake each other for every hand-off between a connection's SSH and session tasks
/// (BENCHMARKS.md).
const DEFAULT_WORKERS: usize = 1;

/// Threads for heavy requests and password checks unless `--blocking` says otherwise: twice
/// the CPUs, at least 4. Heavy requests are CPU work; with tokio's default (512) every busy
/// session got a thread of its own, each with its allocator heap: with 50 sessions editing,
/// 60 threads and ≈ 210 MB resident against 14 and ≈ 100 MB with 4, and more operations per
/// second at a lower p99 (BENCHMARKS.md, "Threads for heavy requests").
fn default_blocking() -> usize {
    let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
    (2 * cpus).max(4)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let state_dir: PathBuf = args.next().ok_or(USAGE)?.into();
    let mut port: u16 = 8300;
    let mut workers = DEFAULT_WORKERS;
    let mut blocking = default_blocking();
    let mut config = mgmt::config::Config {
        state_dir: state_dir.clone(),
        auth_rejection_time: Duration::from_millis(500),
        ..Default::default()
    };
    while let Some(a) = args.next() {
        match a.as_str() {
            "--yang" => config.yang_dirs.push(args.next().ok_or(USAGE)?.into()),
            "--module" => config
                .modules
                .push(mgmt::schema::ModuleSpec::new(&args.next().ok_or(USAGE)?, &["*"])),
            "--admin" => config.admin_user = Some(args.next().ok_or(USAGE)?),
            "--idle" => {
                config.idle_timeout = Some(Duration::from_secs(args.next().ok_or(USAGE)?.parse()?))
            }
            "--workers" => {
                workers = args.next().ok_or(USAGE)?.parse().map_err(|_| USAGE)?;
                if workers == 0 {
                    return Err("--workers must be at least 1".into());
                }
            }
            "--blocking" => {
                blocking = args.next().ok_or(USAGE)?.parse().map_err(|_| USAGE)?;
                if blocking == 0 {
                    return Err("--blocking must be at least 1".into());
                }
            }
            p => port = p.parse().map_err(|_| USAGE)?,
        }
    }
    config.listen = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .max_blocking_threads(blocking)
        .enable_all()
        .build()?;
    runtime.block_on(serve(config))
}

async fn serve(config: mgmt::config::Config) -> Result<(), Box<dyn std::error::Error>> {
    let server = mgmt::ssh::Server::start(config).await?;
    let mut out = std::io::stdout();
    writeln!(out, "listening on {}", server.local_addr())?;
    out.flush()?;
    eprintln!("NETCONF over SSH on {}; Ctrl-C stops", server.local_addr());
    tokio::signal::ctrl_c().await?;
    server.shutdown().await;
    Ok(())
}
