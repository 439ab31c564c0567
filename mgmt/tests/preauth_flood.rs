//! Connections that never authenticate cannot lock an authorised user out (issue 23, point
//! 1): 500 silent TCP connections and 50 clients sending their SSH version line a byte at a
//! time, from one loopback address and then spread over fifty; an authorised user connecting
//! from 127.0.0.2 still gets a NETCONF session within 1 s while more silent connections keep
//! arriving, and every flooding connection is closed by the login deadline (3 s here).

mod common;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use common::{both_bases, errors, live_config, weak_hash, AcceptAnyHostKey, NcClient, WAIT};
use netconf_proto::xml::NETCONF_BASE_NS;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::time::Instant;

const SILENT: usize = 500;
const SLOW: usize = 50;
const GRACE: Duration = Duration::from_secs(3);
/// How late after the deadline a connection may still be closed on a loaded 2-core machine.
const SLACK: Duration = Duration::from_millis(2500);

/// The tests hold over a thousand sockets at once (both ends are in this process).
fn raise_fd_limit() {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let want = 8192;
    let limit = getrlimit(Resource::Nofile);
    if limit.current.is_some_and(|soft| soft < want) {
        // Root may raise the hard limit too; anyone may raise the soft one up to it.
        let raised = Rlimit { current: Some(want), maximum: limit.maximum.map(|h| h.max(want)) };
        if setrlimit(Resource::Nofile, raised).is_err() {
            let capped = limit.maximum.map(|h| h.min(want));
            let _ = setrlimit(Resource::Nofile, Rlimit { current: capped, maximum: limit.maximum });
        }
    }
    let soft = getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX);
    assert!(soft >= 4096, "RLIMIT_NOFILE is {soft}: the flood needs about 2 × {}", SILENT + SLOW);
}

async fn connect_from(source: Ipv4Addr, server: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("socket");
    socket.bind(SocketAddr::new(IpAddr::V4(source), 0)).expect("bind the source address");
    tokio::time::timeout(WAIT, socket.connect(server))
        .await
        .expect("connect in time")
        .expect("connect")
}

/// Reads (discarding the server's version line) until the server closes; when it did.
async fn wait_closed(mut stream: TcpStream) -> Instant {
    let mut buf = [0u8; 256];
    while matches!(stream.read(&mut buf).await, Ok(n) if n > 0) {}
    Instant::now()
}

/// Sends a version line a byte every 300 ms (it would take over 4 s) until the server closes.
async fn slow_banner(mut stream: TcpStream) -> Instant {
    let line = b"SSH-2.0-slowpoke_1.0\r\n";
    let mut buf = [0u8; 256];
    let mut tick = tokio::time::interval(Duration::from_millis(300));
    let mut sent = 0;
    loop {
        tokio::select! {
            r = stream.read(&mut buf) => if !matches!(r, Ok(n) if n > 0) { return Instant::now() },
            _ = tick.tick(), if sent < line.len() => {
                if stream.write_all(&line[sent..=sent]).await.is_err() {
                    return Instant::now();
                }
                sent += 1;
            }
        }
    }
}

/// Logs in as alice from 127.0.0.2 and starts a NETCONF session; how long it took.
async fn log_in_from_127_0_0_2(server: SocketAddr) -> Duration {
    let t0 = Instant::now();
    let stream = connect_from(Ipv4Addr::new(127, 0, 0, 2), server).await;
    let config = Arc::new(russh::client::Config::default());
    let mut ssh = russh::client::connect_stream(config, stream, AcceptAnyHostKey)
        .await
        .expect("SSH handshake");
    let auth = ssh.authenticate_password("alice", "wonderland").await.expect("auth exchange");
    assert!(auth.success(), "alice is let in");
    let channel = common::open_subsystem(&ssh, "netconf").await.expect("netconf subsystem");
    let mut c = NcClient::connect(channel.into_stream(), &both_bases()).await;
    let took = t0.elapsed();
    let reply = c.rpc("1", "<get-config><source><running/></source></get-config>").await;
    assert_eq!(errors(&reply), vec![], "served: {}", reply.to_xml());
    assert!(reply.child(NETCONF_BASE_NS, "data").is_some());
    let _ = c.rpc("2", "<close-session/>").await;
    took
}

/// Floods the server from `sources` (round robin), logs in, and checks every flooding
/// connection is closed by the deadline.
async fn flood_then_log_in(sources: &[Ipv4Addr]) {
    raise_fd_limit();
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("users"),
        format!("alice password {}\n", weak_hash("wonderland")),
    )
    .expect("users file");
    let config = mgmt::config::Config { login_grace_time: GRACE, ..live_config(dir.path()) };
    let (cap, per_source) = (config.max_unauthenticated, config.max_unauthenticated_per_source);
    let server = mgmt::ssh::Server::start(config).await.expect("server starts");
    let addr = server.local_addr();

    let mut flood = Vec::new();
    for i in 0..SILENT + SLOW {
        let source = sources[i % sources.len()];
        let stream = connect_from(source, addr).await;
        let opened = Instant::now();
        // Every tenth is a slow one, so both kinds are spread over the sources.
        let closed = if i % 11 == 10 {
            tokio::spawn(slow_banner(stream))
        } else {
            tokio::spawn(wait_closed(stream))
        };
        flood.push((opened, closed));
    }
    // Every flooding connection accepted: the table is as full as it gets.
    let deadline = Instant::now() + WAIT;
    while server.admission().accepted < (SILENT + SLOW) as u64 {
        assert!(Instant::now() < deadline, "accepted: {:?}", server.admission());
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let before = server.admission();
    let held = cap.min(per_source * sources.len());
    assert_eq!(before.unauthenticated_now, held, "{before:?}");

    // More silent connections keep coming while alice logs in.
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let churn = tokio::spawn({
        let (stop, sources) = (stop.clone(), sources.to_vec());
        async move {
            let mut more = Vec::new();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let stream = connect_from(sources[more.len() % sources.len()], addr).await;
                more.push((Instant::now(), tokio::spawn(wait_closed(stream))));
                tokio::task::yield_now().await;
            }
            more
        }
    });
    let took = log_in_from_127_0_0_2(addr).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let more = churn.await.expect("churn task");
    let total = (SILENT + SLOW + more.len()) as u64;
    flood.extend(more);
    println!(
        "{} sources: alice's login + hello took {:.1} ms with {} unauthenticated connections \
         held and {} more arriving meanwhile",
        sources.len(),
        took.as_secs_f64() * 1e3,
        before.unauthenticated_now,
        total - (SILENT + SLOW) as u64
    );
    assert!(took < Duration::from_secs(1), "alice logged in in {took:?}");

    // Every flooding connection is closed: displaced at once, or at the deadline.
    let mut late = 0;
    for (opened, closed) in flood {
        let closed = tokio::time::timeout(GRACE + SLACK + WAIT, closed)
            .await
            .expect("closed in the end")
            .expect("task");
        let lived = closed - opened;
        assert!(lived <= GRACE + SLACK, "a flooding connection lived {lived:?}");
        if lived >= GRACE - Duration::from_millis(100) {
            late += 1;
        }
    }
    let after = server.admission();
    println!("{} sources: {after:?}; {late} closed at the deadline", sources.len());
    assert!(late >= 1 && after.login_timeouts >= 1, "the deadline closed the survivors");
    assert_eq!(
        after.displaced + after.displaced_per_source + after.login_timeouts,
        total,
        "every flooding connection was dropped and counted once: {after:?}"
    );
    assert_eq!(after.accepted, total + 1, "{after:?}");
    assert_eq!((after.authenticated, after.unauthenticated_now), (1, 0), "{after:?}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_from_one_address_does_not_lock_out_another() {
    flood_then_log_in(&[Ipv4Addr::LOCALHOST]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_from_fifty_addresses_does_not_lock_out_another() {
    let sources: Vec<Ipv4Addr> = (10..60).map(|i| Ipv4Addr::new(127, 0, 0, i)).collect();
    flood_then_log_in(&sources).await;
}
