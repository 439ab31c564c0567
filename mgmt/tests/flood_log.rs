//! A flood of connections that never authenticate does not make the server write a log line
//! for each connection it closes (issue 23): the first few of each interval are written,
//! then one summary line counts the rest.

mod common;

use std::collections::VecDeque;
use std::io::Write;
use std::sync::Mutex;
use std::time::Duration;

use common::live_config;
use tokio::net::TcpStream;
use tokio::time::Instant;

/// How often the server sums up (`ssh::flood_log::INTERVAL`).
const INTERVAL: Duration = Duration::from_secs(10);

/// Everything the server logged.
static LOG: Mutex<Vec<u8>> = Mutex::new(Vec::new());

struct Capture;

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        LOG.lock().unwrap_or_else(std::sync::PoisonError::into_inner).extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn lines() -> Vec<String> {
    let log = LOG.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    String::from_utf8_lossy(&log).lines().map(str::to_string).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_flood_is_summed_up_not_logged_line_by_line() {
    tracing_subscriber::fmt().with_writer(|| Capture).with_ansi(false).init();
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("users"), "").expect("users");
    let server = mgmt::ssh::Server::start(mgmt::config::Config {
        max_unauthenticated: 8,
        max_unauthenticated_per_source: 4,
        login_grace_time: Duration::from_secs(1),
        ..live_config(dir.path())
    })
    .await
    .expect("server starts");

    // 2000 silent connections from one address, each displacing an older one; the last few
    // reach the login deadline.
    const FLOOD: u64 = 2000;
    let began = Instant::now();
    let mut open = VecDeque::new();
    for _ in 0..FLOOD {
        open.push_back(TcpStream::connect(server.local_addr()).await.expect("connect"));
        if open.len() > 8 {
            open.pop_front();
        }
    }
    // On a busy machine the server may still be taking connections from its backlog: every one
    // is admitted and closed in the end, however long that takes (displaced, cut at the login
    // deadline, or closed by the flood itself before the server got to it).
    let deadline = Instant::now() + Duration::from_secs(90);
    let stats = loop {
        let stats = server.admission();
        if stats.accepted == FLOOD && stats.unauthenticated_now == 0 {
            break stats;
        }
        assert!(Instant::now() < deadline, "not all closed: {stats:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    // What the server closed, by its own counters: a connection the flood itself closed first
    // is the server's to close no more (on a loaded machine, many are).
    let closed = stats.displaced + stats.displaced_per_source + stats.login_timeouts;
    assert!(closed >= FLOOD / 2, "the flood made the server close connections: {stats:?}");
    // The summaries (one an interval) count what had no line of its own: every connection the
    // server closed is either. The last of them is due within two intervals of the last close
    // (an interval starts when the last was summed up; the server looks once an interval),
    // however long the flood took.
    let summed_by = Instant::now() + INTERVAL * 3;
    let (summaries, own) = loop {
        let (summaries, own) = summed_up();
        let counted: u64 = summaries.iter().map(|s| counts(s)).sum();
        if counted + own.len() as u64 >= closed {
            assert_eq!(counted + own.len() as u64, closed, "{summaries:?}\n{own:?}\n{stats:?}");
            break (summaries, own);
        }
        assert!(
            Instant::now() < summed_by,
            "the summaries count {counted} and {} lines their own, of {closed} closed: \
             {summaries:?} {stats:?}",
            own.len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    eprintln!("{}", summaries.join("\n"));
    // At most ten lines of their own an interval, over the intervals the flood took.
    let intervals = began.elapsed().as_secs() / INTERVAL.as_secs() + 2;
    assert!(
        own.len() as u64 <= 10 * intervals,
        "{} lines of their own in {intervals} intervals:\n{}",
        own.len(),
        own.join("\n")
    );
    server.shutdown().await;
}

/// The summary lines logged so far, and the lines of connections logged on their own.
fn summed_up() -> (Vec<String>, Vec<String>) {
    let all = lines();
    let summaries = all.iter().filter(|l| l.contains("without a line each")).cloned().collect();
    let own = all
        .into_iter()
        .filter(|l| {
            l.contains("closing an unauthenticated connection")
                || l.contains("closing a connection that")
        })
        .collect();
    (summaries, own)
}

/// How many connections a summary line counts.
fn counts(summary: &str) -> u64 {
    ["displaced=", "no_version_line=", "not_authenticated="]
        .iter()
        .map(|field| {
            let Some(at) = summary.find(field) else { return 0 };
            let digits: String =
                summary[at + field.len()..].chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<u64>().expect("a count")
        })
        .sum()
}
