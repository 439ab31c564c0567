//! The login deadline and the authenticated connections' own places, one connection at a
//! time: a client stuck in the key exchange or one that never authenticates is cut at the
//! deadline; an authenticated one is not; strangers cannot take an authenticated place.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{
    both_bases, errors, live_config, open_subsystem, ssh_login, weak_hash, AcceptAnyHostKey, Login,
    NcClient, WAIT,
};
use netconf_proto::xml::NETCONF_BASE_NS;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::time::Instant;

const GRACE: Duration = Duration::from_millis(1500);

async fn start(
    edit: impl FnOnce(&mut mgmt::config::Config),
) -> (mgmt::ssh::Server, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("users"),
        format!(
            "alice password {}\nbob password {}\n",
            weak_hash("wonderland"),
            weak_hash("builder")
        ),
    )
    .expect("users file");
    let mut config = mgmt::config::Config { login_grace_time: GRACE, ..live_config(dir.path()) };
    edit(&mut config);
    (mgmt::ssh::Server::start(config).await.expect("server starts"), dir)
}

/// Reads until the server closes the connection; when it did.
async fn closed(mut stream: tokio::net::TcpStream) -> Instant {
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(WAIT, stream.read(&mut buf)).await.expect("closed in time") {
            Ok(n) if n > 0 => {}
            _ => return Instant::now(),
        }
    }
}

#[tokio::test]
async fn a_client_stuck_after_its_version_line_is_cut_at_the_deadline() {
    let (server, _dir) = start(|_| {}).await;
    let t0 = Instant::now();
    let mut stream = tokio::net::TcpStream::connect(server.local_addr()).await.expect("connect");
    // A version line, then nothing: russh waits for our key exchange init forever.
    stream.write_all(b"SSH-2.0-stuck_1.0\r\n").await.expect("write");
    let lived = closed(stream).await - t0;
    assert!(lived >= GRACE - Duration::from_millis(50), "not before the deadline: {lived:?}");
    assert!(lived < GRACE + Duration::from_secs(2), "at the deadline: {lived:?}");
    let stats = server.admission();
    assert_eq!((stats.login_timeouts, stats.unauthenticated_now), (1, 0), "{stats:?}");
    server.shutdown().await;
}

#[tokio::test]
async fn a_client_that_never_authenticates_is_cut_at_the_deadline() {
    let (server, _dir) = start(|_| {}).await;
    let config = Arc::new(russh::client::Config::default());
    let t0 = Instant::now();
    let ssh = russh::client::connect(config, server.local_addr(), AcceptAnyHostKey)
        .await
        .expect("key exchange");
    tokio::time::timeout(WAIT, async {
        while !ssh.is_closed() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("closed by the server");
    assert!(t0.elapsed() >= GRACE - Duration::from_millis(50), "{:?}", t0.elapsed());
    assert_eq!(server.admission().login_timeouts, 1);
    server.shutdown().await;
}

#[tokio::test]
async fn an_authenticated_session_outlives_the_login_deadline() {
    let (server, _dir) = start(|_| {}).await;
    let ssh = ssh_login(server.local_addr(), Login::Password("alice", "wonderland"))
        .await
        .expect("accepted");
    let channel = open_subsystem(&ssh, "netconf").await.expect("netconf subsystem");
    let mut c = NcClient::connect(channel.into_stream(), &both_bases()).await;
    tokio::time::sleep(GRACE + Duration::from_millis(500)).await;
    let reply = c.rpc("1", "<get-config><source><running/></source></get-config>").await;
    assert_eq!(errors(&reply), vec![]);
    assert!(reply.child(NETCONF_BASE_NS, "data").is_some(), "still served");
    let stats = server.admission();
    assert_eq!((stats.login_timeouts, stats.authenticated_now), (0, 1), "{stats:?}");
    server.shutdown().await;
}

#[tokio::test]
async fn strangers_cannot_take_an_authenticated_place() {
    let (server, _dir) = start(|c| {
        c.max_connections = 1;
        c.max_unauthenticated = 2;
    })
    .await;
    let addr = server.local_addr();
    let alice = ssh_login(addr, Login::Password("alice", "wonderland")).await.expect("alice");
    // Two strangers fill the unauthenticated places; a third displaces one of them.
    let mut strangers = Vec::new();
    for _ in 0..3 {
        strangers.push(tokio::net::TcpStream::connect(addr).await.expect("connect"));
    }
    let deadline = Instant::now() + WAIT;
    while server.admission().accepted < 4 {
        assert!(Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let stats = server.admission();
    assert_eq!((stats.unauthenticated_now, stats.authenticated_now, stats.displaced), (2, 1, 1));

    // Alice's place is hers: a second user who authenticates finds none and is closed.
    let config = Arc::new(russh::client::Config::default());
    let mut bob =
        russh::client::connect(config, addr, AcceptAnyHostKey).await.expect("key exchange");
    let refused = match bob.authenticate_password("bob", "builder").await {
        Ok(result) => !result.success(),
        Err(_) => true,
    };
    assert!(refused || open_subsystem(&bob, "netconf").await.is_none(), "bob got no place");
    assert_eq!(server.admission().refused_full, 1);

    // When alice leaves, bob gets her place.
    drop(alice);
    let deadline = Instant::now() + WAIT;
    while server.admission().authenticated_now > 0 {
        assert!(Instant::now() < deadline, "alice's place freed");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let bob = ssh_login(addr, Login::Password("bob", "builder")).await.expect("bob, now");
    assert!(open_subsystem(&bob, "netconf").await.is_some());
    drop(strangers);
    server.shutdown().await;
}

/// A client that never closes its connection after its session is over (libssh2 reads the
/// server's disconnect only when asked to, and this one never asks): the server closes it
/// itself and the authenticated place is freed.
#[test]
fn a_client_that_ignores_the_disconnect_loses_its_place() {
    use std::io::{Read, Write};
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let (server, _dir) = rt.block_on(start(|_| {}));
    let tcp = std::net::TcpStream::connect(server.local_addr()).expect("connect");
    let mut ssh = ssh2::Session::new().expect("libssh2 session");
    ssh.set_tcp_stream(tcp);
    ssh.set_timeout(20_000);
    ssh.handshake().expect("handshake");
    ssh.userauth_password("alice", "wonderland").expect("password accepted");
    let mut channel = ssh.channel_session().expect("channel");
    channel.subsystem("netconf").expect("netconf subsystem");
    let hello = format!(
        "<hello xmlns=\"{NETCONF_BASE_NS}\"><capabilities><capability>\
         urn:ietf:params:netconf:base:1.0</capability></capabilities></hello>]]>]]>\
         <rpc message-id=\"1\" xmlns=\"{NETCONF_BASE_NS}\"><close-session/></rpc>]]>]]>"
    );
    channel.write_all(hello.as_bytes()).expect("hello and close-session");
    let (mut seen, mut buf) = (String::new(), [0u8; 4096]);
    while !seen.contains("<ok/>") {
        let n = channel.read(&mut buf).expect("read");
        assert!(n > 0, "closed before the reply: {seen}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    assert_eq!(server.admission().authenticated_now, 1);
    // Now silence: the server waits for the client to close, then closes the connection.
    let t0 = std::time::Instant::now();
    while server.admission().authenticated_now > 0 {
        assert!(t0.elapsed() < Duration::from_secs(20), "the place was never freed");
        std::thread::sleep(Duration::from_millis(50));
    }
    drop((channel, ssh));
    rt.block_on(server.shutdown());
}
