//! Runs the NETCONF server until interrupted (for trying it by hand, and for tests that need
//! a real process to kill):
//!
//! ```text
//! mgmt-serve STATE_DIR [PORT] [--yang DIR]... [--module NAME]... [--admin USER] [--idle SECS]
//!            [--login-cache SECS] [--login-grace SECS] [--max-startups N] [--per-source N]
//!            [--max-connections N] [--max-sessions N] [--auth-threads N] [--workers N]
//!            [--blocking N]
//!            [--max-message SIZE] [--max-elements N] [--max-depth N] [--request-memory SIZE]
//!            [--session-memory SIZE] [--max-filter-cost N]
//! ssh -p PORT -s alice@127.0.0.1 netconf
//! ```
//!
//! STATE_DIR must hold a `users` file (see `mgmt::access::users`); the host key and the datastores
//! are kept there. PORT 0 picks a free port; the line `listening on ADDR` on stdout says which.
//! `--workers` sets the async worker threads (SSH and light requests; default 1, see
//! DECISIONS.md "Where operations run"); `--blocking` the most threads that run heavy requests
//! (default twice the CPUs, at least 4); `--auth-threads` those that check passwords (default
//! 1). The limits on connections before authentication are in `--help` and DECISIONS.md
//! ("Connections before authentication"), those on requests in `--help` and DECISIONS.md ("A
//! memory budget for requests", "The cost of a filter"). `mgmt-serve --help` lists it all.

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

/// mimalloc instead of glibc malloc: see the dependency's comment in Cargo.toml.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const USAGE: &str = "usage: mgmt-serve STATE_DIR [PORT] [--yang DIR]... [--module NAME]... \
                     [--admin USER] [--idle SECS] [--indent] [--login-cache SECS] [--login-grace SECS] \
                     [--max-startups N] [--per-source N] [--max-connections N] [--max-sessions N] \
                     [--auth-threads N] [--workers N] [--blocking N] [--max-message SIZE] [--max-elements N] \
                     [--max-depth N] [--request-memory SIZE] [--session-memory SIZE] \
                     [--max-filter-cost N]";

const HELP: &str = "\
mgmt-serve: the NETCONF server over SSH (subsystem `netconf`) on 127.0.0.1, until Ctrl-C.

usage: mgmt-serve STATE_DIR [PORT] [options]

  STATE_DIR        holds `users` (who may log in; you write it), the host key and the
                   datastores (both made on first start)
  PORT             TCP port; 0 picks a free one [8300]. stdout says `listening on ADDR`
  --yang DIR       also load YANG modules from DIR (repeatable)
  --module NAME    implement module NAME with all its features (repeatable), e.g.
                   --module ietf-interfaces --module iana-if-type
  --admin USER     on first start, make USER a NACM administrator; on every later start,
                   give USER full access back (NACM group and rule-list 'admin-recovery',
                   first) if the stored rules have taken it away, with a warning in the log
  --idle SECS      close sessions idle this long; 0 never [600]
  --indent         indent replies, an element a line (readable line diffs, e.g. Ansible's
                   --diff), at the cost of a second pass over each reply
  --login-cache SECS
                   a password that passed Argon2id is recognised for this long without
                   running Argon2id again (wrong passwords always run it); 0 checks every
                   login in full [300]
  --login-grace SECS
                   a connection has this long from its TCP connect to send its SSH version
                   line, finish the key exchange and authenticate, or it is closed [30]
  --max-startups N most connections waiting to authenticate; a new one that finds them all
                   taken displaces one: the least advanced (no version line yet, then in
                   key exchange), of the source holding the most, the oldest [64]
  --per-source N   most connections waiting to authenticate from one IPv4 address or IPv6
                   /64; a new one displaces one of that source's, chosen alike [16]
  --max-connections N
                   most authenticated connections; kept apart, so connections waiting to
                   authenticate can never take them [128]
  --max-sessions N most NETCONF sessions at once [64]
  --auth-threads N threads that check passwords (Argon2id), apart from those that run
                   requests, so password guessing cannot hold up other users' commits [1]
  --workers N      async worker threads: SSH and light requests [1]
  --blocking N     most threads for heavy requests [twice the CPUs, >= 4]

Limits on requests (a request over one is answered too-big and the session goes on;
SIZE in bytes, or with K, M or G for KiB, MiB, GiB):
  --max-message SIZE
                   largest message [64M]
  --max-elements N most XML elements parsed from one message [524288]
  --max-depth N    deepest nesting of XML elements in a message, at most 512 [512]
  --request-memory SIZE
                   memory all sessions together may hold for requests in progress (messages
                   as they arrive, their parsed trees) beyond each one's own --session-memory;
                   a request that needs more is refused while the others go on [256M]
  --session-memory SIZE
                   memory for requests in progress each session holds of its own, never
                   refused because of other sessions' requests [1M]
  --max-filter-cost N
                   most node visits an XPath or subtree filter may cost on the data it
                   filters (an XPath filter's is estimated before it runs); a costlier one is
                   refused [20000000]
  -h, --help       this text

The users file: one line per password or key, e.g.
  alice  password  $argon2id$...   (the hash printed by
                                    `echo -n PASSWORD | cargo run -p mgmt --example hash_password`)
  alice  key       ssh-ed25519 AAAA... alice@laptop
Then: ssh -p PORT -s alice@127.0.0.1 netconf";

/// Async worker threads unless `--workers` says otherwise. On a 2-core machine one used as
/// much CPU per operation as two with 1 session and 20–30 % less with 10 and 50, where two
/// workers wake each other for every hand-off between a connection's SSH and session tasks
/// (BENCHMARKS.md).
const DEFAULT_WORKERS: usize = 1;

/// Threads for heavy requests unless `--blocking` says otherwise: twice
/// the CPUs, at least 4. Heavy requests are CPU work; with tokio's default (512) every busy
/// session got a thread of its own, each with its allocator heap: with 50 sessions editing,
/// 60 threads and ≈ 210 MB resident against 14 and ≈ 100 MB with 4, and more operations per
/// second at a lower p99 (BENCHMARKS.md, NETCONF server).
fn default_blocking() -> usize {
    let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
    (2 * cpus).max(4)
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{HELP}");
        return std::process::ExitCode::SUCCESS;
    }
    match run(args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mgmt-serve: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// A flag's value, or an error naming the flag.
fn value(flag: &str, args: &mut impl Iterator<Item = String>) -> Result<String, String> {
    args.next().ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
}

/// A flag's numeric value, at least 1.
fn count(flag: &str, args: &mut impl Iterator<Item = String>) -> Result<usize, String> {
    let v = value(flag, args)?;
    match v.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{flag} takes a whole number of at least 1, not {v:?}")),
    }
}

/// A flag's size in bytes: a whole number, perhaps followed by K, M or G (binary), at least 1.
fn size(flag: &str, args: &mut impl Iterator<Item = String>) -> Result<usize, String> {
    let v = value(flag, args)?;
    let (digits, unit) = match v.char_indices().last() {
        Some((i, 'k' | 'K')) => (&v[..i], 1 << 10),
        Some((i, 'm' | 'M')) => (&v[..i], 1 << 20),
        Some((i, 'g' | 'G')) => (&v[..i], 1 << 30),
        _ => (v.as_str(), 1),
    };
    match digits.parse::<usize>().ok().and_then(|n| n.checked_mul(unit)) {
        Some(n) if n >= 1 => Ok(n),
        _ => Err(format!("{flag} takes a size such as 65536, 64K or 64M, not {v:?}")),
    }
}

fn run(args: Vec<String>) -> Result<(), Box<dyn std::error::Error>> {
    let mut args = args.into_iter();
    let state_dir: PathBuf = match args.next() {
        Some(d) if !d.starts_with('-') => d.into(),
        _ => return Err(format!("STATE_DIR comes first\n{USAGE}").into()),
    };
    if !state_dir.join("users").is_file() {
        return Err(format!(
            "{} has no users file, so nobody could log in: write one (see mgmt-serve --help)",
            state_dir.display()
        )
        .into());
    }
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
            "--yang" => config.yang_dirs.push(value("--yang", &mut args)?.into()),
            "--module" => config
                .modules
                .push(mgmt::yang::schema::ModuleSpec::new(&value("--module", &mut args)?, &["*"])),
            "--admin" => config.admin_user = Some(value("--admin", &mut args)?),
            "--indent" => config.indent_replies = true,
            "--idle" => {
                let v = value("--idle", &mut args)?;
                let secs: u64 = v
                    .parse()
                    .map_err(|_| format!("--idle takes whole seconds (0: never), not {v:?}"))?;
                config.idle_timeout = (secs > 0).then(|| Duration::from_secs(secs));
            }
            "--login-cache" => {
                let v = value("--login-cache", &mut args)?;
                let secs: u64 = v.parse().map_err(|_| {
                    format!("--login-cache takes whole seconds (0: off), not {v:?}")
                })?;
                config.login_cache_ttl = (secs > 0).then(|| Duration::from_secs(secs));
            }
            "--login-grace" => {
                let secs = count("--login-grace", &mut args)?;
                config.login_grace_time = Duration::from_secs(secs as u64);
            }
            "--max-startups" => config.max_unauthenticated = count("--max-startups", &mut args)?,
            "--per-source" => {
                config.max_unauthenticated_per_source = count("--per-source", &mut args)?
            }
            "--max-connections" => config.max_connections = count("--max-connections", &mut args)?,
            "--max-sessions" => config.max_sessions = count("--max-sessions", &mut args)?,
            "--auth-threads" => config.auth_threads = count("--auth-threads", &mut args)?,
            "--workers" => workers = count("--workers", &mut args)?,
            "--blocking" => blocking = count("--blocking", &mut args)?,
            "--max-message" => config.max_message_size = size("--max-message", &mut args)?,
            "--max-elements" => config.max_message_elements = count("--max-elements", &mut args)?,
            "--max-depth" => {
                let depth = count("--max-depth", &mut args)?;
                if depth > netconf_proto::xml::MAX_DEPTH {
                    return Err(format!(
                        "--max-depth is at most {}",
                        netconf_proto::xml::MAX_DEPTH
                    )
                    .into());
                }
                config.max_message_depth = depth;
            }
            "--request-memory" => config.request_memory = size("--request-memory", &mut args)?,
            "--session-memory" => {
                config.session_request_memory = size("--session-memory", &mut args)?
            }
            "--max-filter-cost" => {
                config.max_filter_cost = count("--max-filter-cost", &mut args)? as u64
            }
            p if !p.starts_with('-') => {
                port = p.parse().map_err(|_| format!("{p:?} is not a port number\n{USAGE}"))?
            }
            other => return Err(format!("unknown option {other:?}\n{USAGE}").into()),
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
