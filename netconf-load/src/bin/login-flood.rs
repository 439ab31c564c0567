//! login-flood: how long an authorised user's login takes while a NETCONF-over-SSH server is
//! flooded by connections that never authenticate, or by password guessers (BENCHMARKS.md,
//! NETCONF server). Prints figures; asserts nothing. See `--help`.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use netconf_client::{Auth, Client, ConnectOptions};
use netconf_load::Stats;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

const HELP: &str = "\
login-flood: login time of an authorised user while the server is flooded

usage: login-flood --port PORT --user USER --password PW [options]

  --port PORT        the server's SSH port on 127.0.0.1
  --user USER        the authorised user, who logs in by password
  --password PW      their password
  --logins N         logins measured per case (connect, authenticate, hello, close) [50]
  --only CASES       any of n (no flood), i (idle-connection flood), g (password guessing) [nig]

The idle-connection flood keeps 500 silent TCP connections and 50 that send their SSH
version line a byte a second open from 127.0.0.10-59 (re-opened as the server closes them).
The guessing flood is 20 clients from 127.0.0.100-119 trying wrong passwords for USER as
fast as the server answers, reconnecting when it hangs up. The measured user logs in from
127.0.0.1, one login at a time, after the flood has run for a second. Start the server with
--login-cache 0 to make every login pay its Argon2id check (a cached login skips it).
Raises its own RLIMIT_NOFILE soft limit if it can; needs about 600 descriptors.";

struct Target {
    server: SocketAddr,
    user: String,
    password: String,
}

#[derive(Default)]
struct Flood {
    stop: AtomicBool,
    /// Connections opened (idle flood) or guesses answered (guessing).
    count: AtomicU64,
}

async fn connect_from(source: Ipv4Addr, server: SocketAddr) -> Option<tokio::net::TcpStream> {
    let socket = tokio::net::TcpSocket::new_v4().ok()?;
    socket.bind(SocketAddr::new(IpAddr::V4(source), 0)).ok()?;
    socket.connect(server).await.ok()
}

/// Holds a connection from `source` open, saying nothing (or, if `slow`, its version line a
/// byte a second), and opens another when the server closes it.
async fn idle_connection(source: Ipv4Addr, server: SocketAddr, slow: bool, flood: Arc<Flood>) {
    let line = b"SSH-2.0-slowpoke_1.0\r\n";
    let mut buf = [0u8; 256];
    while !flood.stop.load(Ordering::Relaxed) {
        let Some(mut stream) = connect_from(source, server).await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        flood.count.fetch_add(1, Ordering::Relaxed);
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        let mut sent = 0;
        loop {
            tokio::select! {
                r = stream.read(&mut buf) => if !matches!(r, Ok(n) if n > 0) { break },
                _ = tick.tick(), if slow && sent < line.len() => {
                    if stream.write_all(&line[sent..=sent]).await.is_err() {
                        break;
                    }
                    sent += 1;
                }
                () = tokio::time::sleep(Duration::from_millis(100)) => {
                    if flood.stop.load(Ordering::Relaxed) {
                        return;
                    }
                }
            }
        }
    }
}

struct AnyHostKey;

impl russh::client::Handler for AnyHostKey {
    type Error = russh::Error;

    async fn check_server_key(
        &mut self,
        _key: &russh::keys::PublicKeyOrCertificate,
    ) -> Result<bool, Self::Error> {
        Ok(true)
    }
}

/// Tries wrong passwords for `user` from `source` as fast as the server answers.
async fn guesser(source: Ipv4Addr, server: SocketAddr, user: String, flood: Arc<Flood>) {
    let config = Arc::new(russh::client::Config::default());
    let mut n = 0u64;
    while !flood.stop.load(Ordering::Relaxed) {
        let Some(stream) = connect_from(source, server).await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let Ok(mut ssh) = russh::client::connect_stream(config.clone(), stream, AnyHostKey).await
        else {
            continue;
        };
        while !flood.stop.load(Ordering::Relaxed) {
            n += 1;
            match ssh.authenticate_password(&user, format!("wrong-{n}")).await {
                Ok(_) => flood.count.fetch_add(1, Ordering::Relaxed),
                Err(_) => break,
            };
        }
    }
}

/// `n` logins of the authorised user, one after another: their durations and the failures.
fn logins(target: &Target, n: usize) -> (Vec<Duration>, usize) {
    let mut opts = ConnectOptions::new(
        target.server.ip().to_string(),
        target.server.port(),
        target.user.clone(),
        Auth::Password(target.password.clone()),
    );
    opts.timeout = Duration::from_secs(10);
    let (mut times, mut failed) = (Vec::new(), 0);
    for _ in 0..n {
        let t0 = Instant::now();
        match Client::connect(&opts) {
            Ok(c) => {
                times.push(t0.elapsed());
                let _ = c.close_session();
            }
            Err(e) => {
                eprintln!("login failed after {:?}: {e}", t0.elapsed());
                failed += 1;
            }
        }
    }
    (times, failed)
}

fn run_case(rt: &tokio::runtime::Runtime, target: &Target, case: char, n: usize) {
    let flood = Arc::new(Flood::default());
    let mut tasks = Vec::new();
    let what = match case {
        'n' => "no flood",
        'i' => {
            for i in 0..550u32 {
                let source = Ipv4Addr::new(127, 0, 0, 10 + (i % 50) as u8);
                let slow = i % 11 == 10;
                tasks.push(rt.spawn(idle_connection(source, target.server, slow, flood.clone())));
            }
            "500 silent + 50 slow-banner connections from 50 addresses"
        }
        'g' => {
            for i in 0..20u8 {
                let source = Ipv4Addr::new(127, 0, 0, 100 + i);
                tasks.push(rt.spawn(guesser(
                    source,
                    target.server,
                    target.user.clone(),
                    flood.clone(),
                )));
            }
            "20 password guessers from 20 addresses"
        }
        _ => unreachable!("cases are checked when parsed"),
    };
    if case != 'n' {
        std::thread::sleep(Duration::from_secs(1));
    }
    let (c0, t0) = (flood.count.load(Ordering::Relaxed), Instant::now());
    let (times, failed) = logins(target, n);
    let rate = (flood.count.load(Ordering::Relaxed) - c0) as f64 / t0.elapsed().as_secs_f64();
    flood.stop.store(true, Ordering::Relaxed);
    for t in tasks {
        let _ = rt.block_on(t);
    }
    let s = Stats::of(&times);
    let during = match case {
        'i' => format!("; {rate:.0} flood connections opened/s"),
        'g' => format!("; {rate:.0} guesses answered/s"),
        _ => String::new(),
    };
    println!(
        "{what}: login n={} p50={:.1} ms p99={:.1} ms max={:.1} ms failed={failed}{during}",
        s.n, s.p50, s.p99, s.max
    );
}

fn raise_fd_limit() {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let limit = getrlimit(Resource::Nofile);
    let want = limit.maximum.map_or(4096, |hard| hard.min(4096));
    if limit.current.is_some_and(|soft| soft < want) {
        let _ = setrlimit(Resource::Nofile, Rlimit { current: Some(want), maximum: limit.maximum });
    }
}

fn main() -> std::process::ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("login-flood: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(args: Vec<String>) -> Result<(), String> {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{HELP}");
        return Ok(());
    }
    let (mut port, mut user, mut password) = (None, None, None);
    let (mut n, mut only) = (50usize, "nig".to_string());
    let mut args = args.into_iter();
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{a} needs a value (see --help)"));
        match a.as_str() {
            "--port" => port = Some(value()?.parse::<u16>().map_err(|e| format!("--port: {e}"))?),
            "--user" => user = Some(value()?),
            "--password" => password = Some(value()?),
            "--logins" => n = value()?.parse().map_err(|e| format!("--logins: {e}"))?,
            "--only" => only = value()?,
            other => return Err(format!("unknown option {other:?} (see --help)")),
        }
    }
    if let Some(c) = only.chars().find(|c| !"nig".contains(*c)) {
        return Err(format!("--only: unknown case {c:?}; cases are n, i and g"));
    }
    let target = Target {
        server: SocketAddr::from(([127, 0, 0, 1], port.ok_or("--port is required")?)),
        user: user.ok_or("--user is required")?,
        password: password.ok_or("--password is required")?,
    };
    raise_fd_limit();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    for case in only.chars() {
        run_case(&rt, &target, case, n);
    }
    Ok(())
}
