//! The NETCONF server over real SSH on 127.0.0.1, driven by a Rust client (russh): login by
//! password and by key, the netconf subsystem, limits, and the persisted host key.

mod common;

use std::time::Duration;

use common::{both_bases, errors, open_subsystem, ssh_login, weak_hash, Login, NcClient, WAIT};
use mgmt::config::Config;
use mgmt::ssh::Server;
use netconf_proto::framing::Framing;
use netconf_proto::xml::NETCONF_BASE_NS;
use russh::keys::{Algorithm, PrivateKey};

struct Fixture {
    server: Server,
    dir: tempfile::TempDir,
    key: PrivateKey,
}

async fn start_with(edit: impl FnOnce(&mut Config)) -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let key = PrivateKey::random(&mut rand::rng(), Algorithm::Ed25519).expect("client key");
    let public = key.public_key().to_openssh().expect("openssh");
    std::fs::write(
        dir.path().join("users"),
        format!("alice password {}\nbob key {public}\n", weak_hash("wonderland")),
    )
    .expect("users file");
    let mut config = Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        state_dir: dir.path().to_path_buf(),
        auth_rejection_time: Duration::from_millis(10),
        ..Config::default()
    };
    edit(&mut config);
    let server = Server::start(config).await.expect("server starts");
    Fixture { server, dir, key }
}

async fn start() -> Fixture {
    start_with(|_| {}).await
}

#[tokio::test]
async fn password_login_hello_and_close_session() {
    let f = start().await;
    let ssh = ssh_login(f.server.local_addr(), Login::Password("alice", "wonderland"))
        .await
        .expect("accepted");
    let channel = open_subsystem(&ssh, "netconf").await.expect("netconf subsystem");
    let mut c = NcClient::connect(channel.into_stream(), &both_bases()).await;
    assert_eq!(c.out, Framing::Chunked);
    let id = c.server_hello.session_id.expect("session id");
    let sessions = f.server.sessions().list();
    assert_eq!(sessions.len(), 1);
    assert_eq!((sessions[0].id, sessions[0].username.as_str()), (id, "alice"));

    let reply = c.rpc("1", "<get/>").await;
    assert_eq!(errors(&reply), vec![]);
    assert!(reply.child(NETCONF_BASE_NS, "data").is_some(), "get answers with data");
    let reply = c.rpc("2", "<close-session/>").await;
    assert!(reply.child(NETCONF_BASE_NS, "ok").is_some());
    c.expect_closed().await;
    // The session leaves the table once it has ended.
    tokio::time::timeout(WAIT, async {
        while !f.server.sessions().is_empty() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("session removed");
    f.server.shutdown().await;
}

#[tokio::test]
async fn public_key_login() {
    let f = start().await;
    let ssh = ssh_login(f.server.local_addr(), Login::Key("bob", Box::new(f.key.clone())))
        .await
        .expect("key accepted");
    let channel = open_subsystem(&ssh, "netconf").await.expect("netconf subsystem");
    let mut c = NcClient::connect(channel.into_stream(), &both_bases()).await;
    let reply = c.rpc("1", "<close-session/>").await;
    assert!(reply.child(NETCONF_BASE_NS, "ok").is_some());
    // The key is bob's, not alice's.
    assert!(ssh_login(f.server.local_addr(), Login::Key("alice", Box::new(f.key.clone())))
        .await
        .is_none());
    f.server.shutdown().await;
}

#[tokio::test]
async fn wrong_password_unknown_user_and_keyless_user_are_refused() {
    let f = start().await;
    let addr = f.server.local_addr();
    assert!(ssh_login(addr, Login::Password("alice", "looking-glass")).await.is_none());
    assert!(ssh_login(addr, Login::Password("mallory", "wonderland")).await.is_none());
    assert!(ssh_login(addr, Login::Password("bob", "")).await.is_none(), "bob has no password");
    let stranger = PrivateKey::random(&mut rand::rng(), Algorithm::Ed25519).expect("key");
    assert!(ssh_login(addr, Login::Key("bob", Box::new(stranger))).await.is_none());
    f.server.shutdown().await;
}

#[tokio::test]
async fn only_the_netconf_subsystem_is_offered() {
    let f = start().await;
    let ssh = ssh_login(f.server.local_addr(), Login::Password("alice", "wonderland"))
        .await
        .expect("accepted");
    assert!(open_subsystem(&ssh, "sftp").await.is_none());
    f.server.shutdown().await;
}

#[tokio::test]
async fn max_sessions_is_enforced() {
    let f = start_with(|c| c.max_sessions = 1).await;
    let addr = f.server.local_addr();
    let first = ssh_login(addr, Login::Password("alice", "wonderland")).await.expect("accepted");
    let ch = open_subsystem(&first, "netconf").await.expect("first session");
    let mut c = NcClient::connect(ch.into_stream(), &both_bases()).await;
    let second = ssh_login(addr, Login::Password("alice", "wonderland")).await.expect("accepted");
    assert!(open_subsystem(&second, "netconf").await.is_none(), "a second session is refused");
    let reply = c.rpc("1", "<close-session/>").await;
    assert!(reply.child(NETCONF_BASE_NS, "ok").is_some());
    c.expect_closed().await;
    // Once the first has gone there is room again.
    tokio::time::timeout(WAIT, async {
        loop {
            let again =
                ssh_login(addr, Login::Password("alice", "wonderland")).await.expect("accepted");
            if open_subsystem(&again, "netconf").await.is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("room again");
    f.server.shutdown().await;
}

#[tokio::test]
async fn idle_session_is_closed() {
    let f = start_with(|c| c.idle_timeout = Some(Duration::from_millis(300))).await;
    let ssh = ssh_login(f.server.local_addr(), Login::Password("alice", "wonderland"))
        .await
        .expect("accepted");
    let ch = open_subsystem(&ssh, "netconf").await.expect("session");
    let mut c = NcClient::connect(ch.into_stream(), &both_bases()).await;
    c.expect_closed().await;
    f.server.shutdown().await;
}

#[tokio::test]
async fn host_key_is_generated_once_and_kept() {
    let f = start().await;
    let path = f.dir.path().join("ssh_host_ed25519_key");
    let first = std::fs::read_to_string(&path).expect("host key written");
    let public = std::fs::read_to_string(path.with_extension("pub")).expect("public half");
    assert!(public.starts_with("ssh-ed25519 "));
    let state_dir = f.dir.path().to_path_buf();
    f.server.shutdown().await;
    let again = Server::start(Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        state_dir,
        ..Config::default()
    })
    .await
    .expect("restarts");
    assert_eq!(std::fs::read_to_string(&path).expect("still there"), first);
    again.shutdown().await;
    drop(f.dir);
}

#[tokio::test]
async fn missing_users_file_stops_the_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let result = Server::start(Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        state_dir: dir.path().to_path_buf(),
        ..Config::default()
    })
    .await;
    assert!(matches!(result, Err(mgmt::ssh::StartError::Users(_))));
}

#[tokio::test]
async fn a_subscribed_session_outlives_the_idle_time_out_over_ssh() {
    let f = start_with(|c| c.idle_timeout = Some(Duration::from_millis(300))).await;
    let ssh = ssh_login(f.server.local_addr(), Login::Password("alice", "wonderland"))
        .await
        .expect("accepted");
    let ch = open_subsystem(&ssh, "netconf").await.expect("session");
    let mut c = NcClient::connect(ch.into_stream(), &both_bases()).await;
    let reply = c
        .rpc(
            "1",
            "<create-subscription xmlns=\"urn:ietf:params:xml:ns:netconf:notification:1.0\"/>",
        )
        .await;
    assert!(reply.child(NETCONF_BASE_NS, "ok").is_some(), "{}", reply.to_xml());
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let reply = c.rpc("2", "<get-config><source><running/></source></get-config>").await;
    assert!(reply.child(NETCONF_BASE_NS, "data").is_some(), "still served: {}", reply.to_xml());
    f.server.shutdown().await;
}

#[tokio::test]
async fn a_connection_that_starts_no_session_is_closed() {
    let f = start_with(|c| c.hello_timeout = Duration::from_millis(300)).await;
    let ssh = ssh_login(f.server.local_addr(), Login::Password("alice", "wonderland"))
        .await
        .expect("accepted");
    // Authenticated, but no subsystem: the server hangs up.
    tokio::time::timeout(WAIT, async {
        while !ssh.is_closed() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the server closed the connection");
    f.server.shutdown().await;
}
