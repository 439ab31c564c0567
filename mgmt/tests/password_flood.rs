//! Password guessing does not hold up other users' commits (issue 23, point 5): twenty
//! clients guess alice's password in a loop (each guess a full Argon2id check at the default
//! cost) while bob edits and commits one entry at a time; bob's p99 is compared with his p99
//! on the same server while the guessers pause. Idle and flooded rounds alternate, so that
//! the other work on a shared machine falls on both alike; a p99 of a sub-millisecond
//! operation still jumps with such work, so a measurement that misses the bound is repeated,
//! up to three in all (a real regression, such as the checks back on the blocking pool with
//! p99s of hundreds of milliseconds, misses it every time).
//!
//! The server runs as `mgmt-serve` runs it on two cores: one async worker, four blocking
//! threads. The guessers come from twenty addresses (127.0.0.100–119), so the per-source limit
//! does not thin them out: this measures the password-check pool, not admission.

mod common;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use argon2::PasswordHasher as _;
use common::{live_config, weak_hash, AcceptAnyHostKey, IF_NS};
use netconf_client::{Auth, Client, ConnectOptions, Datastore};
use netconf_load::iface;

const GUESSERS: u8 = 20;
const ROUNDS: usize = 10;
const COMMITS: usize = 90;
const ATTEMPTS: usize = 3;

/// p50 and p99 (nearest rank) of `samples`, in ms.
fn p50_p99(samples: &mut [Duration]) -> (f64, f64) {
    samples.sort();
    let rank = |p: f64| {
        let i = ((p * samples.len() as f64).ceil() as usize).clamp(1, samples.len()) - 1;
        samples[i].as_secs_f64() * 1e3
    };
    (rank(0.50), rank(0.99))
}

/// `COMMITS` one-entry edit-config + commit pairs; how long each took.
fn edit_and_commit(c: &mut Client, round: &str) -> Vec<Duration> {
    (0..COMMITS)
        .map(|i| {
            let config = format!(
                "<interfaces xmlns=\"{IF_NS}\">{}</interfaces>",
                iface("bob0", &format!("{round} {i}"))
            );
            let t0 = Instant::now();
            c.edit_config(Datastore::Candidate, &config, None).expect("edit-config");
            c.commit().expect("commit");
            t0.elapsed()
        })
        .collect()
}

/// What the guessers are told and what they report.
#[derive(Default)]
struct Guessing {
    stop: AtomicBool,
    paused: AtomicBool,
    answered: AtomicU64,
}

impl Guessing {
    fn answered(&self) -> u64 {
        self.answered.load(Ordering::Relaxed)
    }

    /// Waits until `n` more guesses have been answered.
    fn wait_for(&self, n: u64) {
        let (start, t0) = (self.answered(), Instant::now());
        while self.answered() < start + n {
            assert!(t0.elapsed() < common::WAIT, "the guessers got no answers");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Pauses the guessers and waits until the checks already queued are done.
    fn pause(&self) {
        self.paused.store(true, Ordering::Relaxed);
        let mut last = self.answered();
        loop {
            std::thread::sleep(Duration::from_millis(200));
            let now = self.answered();
            if now == last {
                return;
            }
            last = now;
        }
    }
}

/// Guesses alice's password from `source` until stopped, reconnecting whenever the server
/// hangs up (after six failures); counts the guesses answered.
async fn guess(source: Ipv4Addr, server: SocketAddr, g: Arc<Guessing>) {
    let config = Arc::new(russh::client::Config::default());
    while !g.stop.load(Ordering::Relaxed) {
        let socket = tokio::net::TcpSocket::new_v4().expect("socket");
        socket.bind(SocketAddr::new(IpAddr::V4(source), 0)).expect("bind the source address");
        let Ok(stream) = socket.connect(server).await else { continue };
        let Ok(mut ssh) =
            russh::client::connect_stream(config.clone(), stream, AcceptAnyHostKey).await
        else {
            continue;
        };
        let mut n = 0u64;
        while !g.stop.load(Ordering::Relaxed) {
            if g.paused.load(Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_millis(5)).await;
                continue;
            }
            n += 1;
            match ssh.authenticate_password("alice", format!("guess-{n}")).await {
                Ok(result) => {
                    assert!(!result.success(), "a guess cannot succeed");
                    g.answered.fetch_add(1, Ordering::Relaxed);
                }
                Err(_) => break,
            }
        }
    }
}

/// Bob's figures over alternating idle and guessing rounds.
struct Measurement {
    idle50: f64,
    idle99: f64,
    flood50: f64,
    flood99: f64,
    /// Guesses answered per second during the guessing rounds.
    rate: f64,
}

impl std::fmt::Display for Measurement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "1-entry edit-config + commit, {ROUNDS} × {COMMITS} each: idle p50 {:.2} ms p99 {:.2} ms; \
             {GUESSERS} guessers ({:.0} guesses/s answered) p50 {:.2} ms p99 {:.2} ms",
            self.idle50, self.idle99, self.rate, self.flood50, self.flood99
        )
    }
}

fn measure(bob: &mut Client, g: &Guessing) -> Measurement {
    let (mut idle, mut flooded) = (Vec::new(), Vec::new());
    let (mut guesses, mut guessing_time) = (0, Duration::ZERO);
    for round in 0..ROUNDS {
        g.pause();
        idle.extend(edit_and_commit(bob, &format!("idle {round}")));
        g.paused.store(false, Ordering::Relaxed);
        g.wait_for(u64::from(GUESSERS));
        let (before, t0) = (g.answered(), Instant::now());
        flooded.extend(edit_and_commit(bob, &format!("flooded {round}")));
        (guesses, guessing_time) = (guesses + g.answered() - before, guessing_time + t0.elapsed());
        // Ten seconds of guessing rounds is already a clear regression (they take under one):
        // what has been measured shows it.
        if guessing_time > Duration::from_secs(10) {
            break;
        }
    }
    let ((idle50, idle99), (flood50, flood99)) = (p50_p99(&mut idle), p50_p99(&mut flooded));
    Measurement {
        idle50,
        idle99,
        flood50,
        flood99,
        rate: guesses as f64 / guessing_time.as_secs_f64(),
    }
}

#[test]
fn password_guessing_does_not_hold_up_other_users_commits() {
    let dir = tempfile::tempdir().expect("tempdir");
    // alice's hash has Argon2id's default cost, as `hash_password` makes it; bob's is cheap.
    let alice = argon2::Argon2::default().hash_password(b"not guessable").expect("hash");
    std::fs::write(
        dir.path().join("users"),
        format!("alice password {alice}\nbob password {}\n", weak_hash("builder")),
    )
    .expect("users file");
    let config = mgmt::config::Config { admin_user: Some("bob".into()), ..live_config(dir.path()) };
    let server_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .max_blocking_threads(4)
        .enable_all()
        .build()
        .expect("server runtime");
    let server = server_rt.block_on(mgmt::ssh::Server::start(config)).expect("server starts");
    let addr = server.local_addr();

    let mut opts =
        ConnectOptions::new("127.0.0.1", addr.port(), "bob", Auth::Password("builder".into()));
    opts.timeout = Duration::from_secs(20);
    let mut bob = Client::connect(&opts).expect("bob connects");
    edit_and_commit(&mut bob, "warm-up");

    let client_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("guessers' runtime");
    let g = Arc::new(Guessing::default());
    let guessers: Vec<_> = (0..GUESSERS)
        .map(|i| client_rt.spawn(guess(Ipv4Addr::new(127, 0, 0, 100 + i), addr, g.clone())))
        .collect();
    g.wait_for(u64::from(GUESSERS));
    let (mut passed, mut misses) = (false, Vec::new());
    for attempt in 1..=ATTEMPTS {
        let m = measure(&mut bob, &g);
        println!("attempt {attempt}: {m}");
        // The guessers were answered, so the checks were running while bob committed. How many
        // a second depends on the CPU left to them (a handful with the other core taken, more
        // on a quiet machine), and fewer as the server sheds them; printed, not bounded.
        if m.rate < 1.0 {
            misses.push(format!("{m} (the guessing had faded: not a measurement under it)"));
            break;
        }
        // The bound is 2×; 5 ms more absorbs the scheduler with the other core taken
        // (a p99 of 5–6 ms against an idle 1.5 ms was seen so), and is still well below one
        // Argon2id check (tens of milliseconds), which a commit queued behind the checks
        // would wait for.
        let bound = 2.0 * m.idle99 + 5.0;
        if m.flood99 <= bound {
            passed = true;
            break;
        }
        misses.push(m.to_string());
        if m.flood99 > 10.0 * bound {
            break; // no noise explains that: measuring again would only take long
        }
    }
    g.stop.store(true, Ordering::Relaxed);
    for guesser in guessers {
        client_rt.block_on(guesser).expect("guesser");
    }
    bob.close_session().expect("close-session");
    assert!(passed, "bob's p99 more than doubled under password guessing: {misses:#?}");
    server_rt.block_on(server.shutdown());
}
