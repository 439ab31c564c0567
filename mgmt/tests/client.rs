//! `netconf_client` (blocking, libssh2) against a live server on 127.0.0.1: hello in both
//! framings, get-config, edit-config + commit read back (also with the russh-based test
//! client, so the two clients check each other), rpc-errors parsed with their tags and
//! error-info, password and key-file logins and their refusals, host-key pinning, time-outs.
//!
//! The server runs on its own tokio runtime; the client is blocking and runs on the test
//! thread, as it would in a CLI.

mod common;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use common::{interface_description, live_password_server, read_running, IF_NS};
use netconf_client::{Auth, Client, ConnectOptions, Datastore, DefaultOperation, Error};
use netconf_load::{count_interfaces, iface};
use netconf_proto::framing::Framing;
use netconf_proto::hello::{BASE_1_0, BASE_1_1};
use russh::keys::{Algorithm, HashAlg, PrivateKey, PublicKey};

/// A live server (`live_password_server`: alice/wonderland, NACM administrator, the test
/// modules) plus user bob who logs in with an Ed25519 key kept in a file.
struct Live {
    rt: tokio::runtime::Runtime,
    server: Option<mgmt::ssh::Server>,
    dir: tempfile::TempDir,
    key_file: PathBuf,
}

impl Live {
    fn start() -> Live {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let (server, dir) = rt.block_on(live_password_server());
        // Add bob's key to the helper's users file and have the server re-read it.
        let key = PrivateKey::random(&mut rand::rng(), Algorithm::Ed25519).expect("key");
        let key_file = dir.path().join("bob_ed25519");
        std::fs::write(&key_file, key.to_openssh(Default::default()).expect("openssh").as_bytes())
            .expect("key file");
        let users = dir.path().join("users");
        let mut text = std::fs::read_to_string(&users).expect("users file");
        text.push_str(&format!("bob key {}\n", key.public_key().to_openssh().expect("public")));
        std::fs::write(&users, text).expect("users file");
        server.reload_users().expect("users reloaded");
        Live { rt, server: Some(server), dir, key_file }
    }

    fn server(&self) -> &mgmt::ssh::Server {
        self.server.as_ref().expect("running")
    }

    fn addr(&self) -> SocketAddr {
        self.server().local_addr()
    }

    fn opts(&self, user: &str, auth: Auth) -> ConnectOptions {
        let mut o = ConnectOptions::new("127.0.0.1", self.addr().port(), user, auth);
        o.timeout = Duration::from_secs(20);
        o
    }

    fn alice(&self) -> ConnectOptions {
        self.opts("alice", Auth::Password("wonderland".into()))
    }

    fn connect(&self) -> Client {
        Client::connect(&self.alice()).expect("alice connects")
    }

    /// Running as the russh-based test client sees it.
    fn running_via_russh(&self) -> netconf_proto::xml::Element {
        self.rt.block_on(read_running(self.addr()))
    }

    /// Waits until the server's session table is empty.
    fn wait_no_sessions(&self) {
        let deadline = std::time::Instant::now() + common::WAIT;
        while !self.server().sessions().is_empty() {
            assert!(std::time::Instant::now() < deadline, "sessions did not end");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        if let Some(s) = self.server.take() {
            self.rt.block_on(s.shutdown());
        }
    }
}

fn ifs(entries: &str) -> String {
    format!("<interfaces xmlns=\"{IF_NS}\">{entries}</interfaces>")
}

fn if_filter() -> String {
    format!("<interfaces xmlns=\"{IF_NS}\"/>")
}

/// The rpc-error reply inside an error, or a failure naming what came instead.
fn rpc_error(result: Result<(), Error>) -> netconf_client::RpcError {
    match result {
        Err(Error::Rpc(reply)) => reply.errors()[0].clone(),
        other => panic!("expected an rpc-error, got {other:?}"),
    }
}

#[test]
fn hello_negotiates_chunked_or_end_of_message_framing() {
    let live = Live::start();
    let mut both = live.connect();
    assert_eq!(both.framing(), Framing::Chunked);
    assert!(both.session_id() > 0);
    assert!(both.server_capabilities().iter().any(|c| c == BASE_1_1));
    assert!(both.has_capability("urn:ietf:params:netconf:capability:candidate:1.0"));
    // ietf-interfaces is YANG 1.1: yang-library announces it, not a module capability
    // (RFC 7950 §5.6.4).
    assert!(!both.has_capability(&format!("{IF_NS}?")), "ietf-interfaces is not a capability");
    assert!(both.has_capability("urn:ietf:params:netconf:capability:yang-library:1.1?"));
    // A real exchange in chunked framing, with a reply big enough for several reads.
    let reply = both.get(None).expect("get");
    assert!(reply.data().is_some_and(|d| d.contains("netconf-state")), "{}", reply.raw());

    let mut opts = live.alice();
    opts.advertise_base_1_1 = false;
    let mut old = Client::connect(&opts).expect("base:1.0 client");
    assert_eq!(old.framing(), Framing::EndOfMessage);
    assert_ne!(old.session_id(), both.session_id());
    assert!(old.server_capabilities().iter().any(|c| c == BASE_1_0));
    let reply = old.get(None).expect("get in end-of-message framing");
    assert!(reply.data().is_some_and(|d| d.contains("netconf-state")));
    assert_eq!(live.server().sessions().list().len(), 2);

    // close-session answers <ok/>; then the connection goes and the session leaves.
    old.close_session().expect("close-session");
    both.close_session().expect("close-session");
    live.wait_no_sessions();
}

#[test]
fn get_config_with_and_without_a_subtree_filter() {
    let live = Live::start();
    let mut c = live.connect();
    c.edit_config(Datastore::Running, &ifs(&iface("eth0", "first")), None).expect("edit running");
    let all = c.get_config(Datastore::Running, None).expect("get-config");
    let data = all.data().expect("<data>");
    assert_eq!(count_interfaces(data).expect("xml"), 1);
    assert!(data.contains("<nacm"), "unfiltered running has the NACM rules too: {data}");
    assert!(all.is_ok() || all.errors().is_empty());

    let only = c.get_config(Datastore::Running, Some(&if_filter())).expect("filtered");
    let data = only.data().expect("<data>");
    assert!(!data.contains("nacm"), "the filter leaves NACM out: {data}");
    assert!(data.contains("<name>eth0</name>") && data.contains("first"), "{data}");
    // A filter matching nothing gives empty data.
    let none = c
        .get_config(Datastore::Running, Some("<settings xmlns=\"urn:example:mgmt-test\"/>"))
        .expect("filtered");
    assert_eq!(none.data().map(str::trim), Some(""));
    c.close_session().expect("close");
}

#[test]
fn edit_config_commit_and_read_back() {
    let live = Live::start();
    let mut c = live.connect();
    let two = ifs(&(iface("ge0", "one") + &iface("ge1", "two")));
    c.edit_config(Datastore::Candidate, &two, Some(DefaultOperation::Merge)).expect("edit");
    // Not in running before the commit; in the candidate already.
    let filter = if_filter();
    let running = c.get_config(Datastore::Running, Some(&filter)).expect("running");
    assert_eq!(count_interfaces(running.raw()).expect("xml"), 0);
    let candidate = c.get_config(Datastore::Candidate, Some(&filter)).expect("candidate");
    assert_eq!(count_interfaces(candidate.raw()).expect("xml"), 2);
    c.commit().expect("commit");
    let running = c.get_config(Datastore::Running, Some(&filter)).expect("running");
    assert_eq!(count_interfaces(running.raw()).expect("xml"), 2);

    // The independent (russh) client sees the committed values.
    let data = live.running_via_russh();
    assert_eq!(interface_description(&data, "ge0").as_deref(), Some("one"));
    assert_eq!(interface_description(&data, "ge1").as_deref(), Some("two"));

    // discard-changes drops an uncommitted edit.
    c.edit_config(Datastore::Candidate, &ifs(&iface("ge0", "changed")), None).expect("edit");
    c.discard_changes().expect("discard");
    let candidate = c.get_config(Datastore::Candidate, Some(&filter)).expect("candidate");
    assert!(candidate.data().is_some_and(|d| d.contains("one") && !d.contains("changed")));

    // default-operation replace of the whole candidate with only the interfaces would delete
    // /nacm and lock the administrator out: the commit is refused, naming /nacm.
    c.edit_config(
        Datastore::Candidate,
        &ifs(&iface("ge9", "nine")),
        Some(DefaultOperation::Replace),
    )
    .expect("replace");
    let refused = c.commit().expect_err("a commit that drops /nacm is refused");
    assert!(format!("{refused:?}").contains("/nacm:nacm"), "{refused:?}");
    c.discard_changes().expect("discard");
    // Replacing the interfaces subtree alone, committed: only ge9 is left.
    let replace = ifs(&iface("ge9", "nine"))
        .replacen("<interfaces ", "<interfaces xmlns:nc=\"urn:ietf:params:xml:ns:netconf:base:1.0\" nc:operation=\"replace\" ", 1);
    c.edit_config(Datastore::Candidate, &replace, None).expect("replace");
    c.commit().expect("commit");
    let data = live.running_via_russh();
    assert_eq!(interface_description(&data, "ge9").as_deref(), Some("nine"));
    assert_eq!(interface_description(&data, "ge0"), None);
    c.close_session().expect("close");
}

#[test]
fn rpc_errors_are_parsed_with_tag_path_and_info() {
    let live = Live::start();
    let mut c = live.connect();
    // Unknown element inside a known container.
    let e = rpc_error(c.edit_config(Datastore::Candidate, &ifs("<bogus/>"), None));
    assert_eq!((e.error_tag.as_str(), e.error_type.as_str()), ("unknown-element", "application"));
    assert_eq!(e.error_severity, "error");
    assert_eq!(e.error_path.as_deref(), Some("/if:interfaces"));
    assert_eq!(e.info("bad-element").as_deref(), Some("bogus"));
    assert!(e.error_message.is_some_and(|m| !m.is_empty()));

    // lock-denied names the holder's session-id in error-info.
    let mut other = live.connect();
    c.lock(Datastore::Candidate).expect("lock");
    let e = rpc_error(other.lock(Datastore::Candidate));
    assert_eq!((e.error_tag.as_str(), e.error_type.as_str()), ("lock-denied", "protocol"));
    assert_eq!(e.info("session-id"), Some(c.session_id().to_string()));
    // ... and a write to the locked candidate is in-use.
    let e = rpc_error(other.edit_config(Datastore::Candidate, &ifs(&iface("x", "")), None));
    assert_eq!(e.error_tag, "in-use");
    c.unlock(Datastore::Candidate).expect("unlock");
    other.lock(Datastore::Candidate).expect("free again");
    other.unlock(Datastore::Candidate).expect("unlock");

    // rpc() returns the reply itself, errors included; the Display names the tag.
    let reply = c.rpc("<bogus-operation/>").expect("a reply");
    assert!(reply.has_errors() && !reply.is_ok());
    assert_eq!(reply.errors()[0].error_tag, "operation-not-supported");
    let err = reply.into_result().expect_err("an rpc-error");
    assert!(err.to_string().contains("operation-not-supported"), "{err}");
    // The session is still usable after errors.
    c.commit().expect("commit of an unchanged candidate");
    other.close_session().expect("close");
    c.close_session().expect("close");
}

#[test]
fn wrong_password_and_unknown_user_are_auth_errors() {
    let live = Live::start();
    for (user, pw) in [("alice", "looking-glass"), ("mallory", "wonderland")] {
        match Client::connect(&live.opts(user, Auth::Password(pw.into()))) {
            Err(Error::Auth { user: u, method, .. }) => {
                assert_eq!((u.as_str(), method), (user, "password"));
            }
            Err(e) => panic!("{user}: expected an authentication error, got {e}"),
            Ok(_) => panic!("{user}/{pw} was let in"),
        }
    }
    assert!(live.server().sessions().is_empty());
}

#[test]
fn a_cached_login_lets_no_wrong_or_changed_password_in() {
    let live = Live::start();
    assert_eq!(live.server().cached_logins(), 0);
    live.connect().close_session().expect("close");
    assert_eq!(live.server().cached_logins(), 1, "alice's login is cached");
    live.connect().close_session().expect("a second login, from the cache");
    // A wrong password is still refused, and does not disturb the cached one.
    let wrong = live.opts("alice", Auth::Password("looking-glass".into()));
    assert!(matches!(Client::connect(&wrong), Err(Error::Auth { .. })));
    live.connect().close_session().expect("the right password still works");
    // A new password in the users file: at the reload the old one stops working at once.
    let users = live.dir.path().join("users");
    let text = std::fs::read_to_string(&users).expect("users file");
    let alice = text.lines().find(|l| l.starts_with("alice ")).expect("alice's line").to_string();
    let changed = text.replace(&alice, &format!("alice password {}", common::weak_hash("rabbit")));
    std::fs::write(&users, changed).expect("users file");
    live.server().reload_users().expect("reloaded");
    assert_eq!(live.server().cached_logins(), 0, "the reload forgets every cached login");
    assert!(matches!(Client::connect(&live.alice()), Err(Error::Auth { .. })), "old password");
    let new = live.opts("alice", Auth::Password("rabbit".into()));
    Client::connect(&new).expect("the new password").close_session().expect("close");
    assert_eq!(live.server().cached_logins(), 1);
}

#[test]
fn public_key_login_from_a_key_file() {
    let live = Live::start();
    let mut c = Client::connect(&live.opts("bob", Auth::KeyFile(live.key_file.clone())))
        .expect("bob logs in with his key file");
    assert_eq!(live.server().sessions().list()[0].username, "bob");
    // bob is no NACM administrator, but reading running is permitted by default.
    c.get_config(Datastore::Running, Some(&if_filter())).expect("get-config");
    c.close_session().expect("close");
    // The key is bob's, not alice's; and another key is not bob's.
    assert!(matches!(
        Client::connect(&live.opts("alice", Auth::KeyFile(live.key_file.clone()))),
        Err(Error::Auth { method: "public key", .. })
    ));
    let stranger = PrivateKey::random(&mut rand::rng(), Algorithm::Ed25519).expect("key");
    let stranger_file = live.dir.path().join("stranger");
    std::fs::write(
        &stranger_file,
        stranger.to_openssh(Default::default()).expect("openssh").as_bytes(),
    )
    .expect("key file");
    assert!(matches!(
        Client::connect(&live.opts("bob", Auth::KeyFile(stranger_file))),
        Err(Error::Auth { .. })
    ));
}

#[test]
fn subscribed_session_receives_notifications_and_times_out_without_one() {
    let live = Live::start();
    let mut listener = live.connect();
    listener.create_subscription(None).expect("subscribed");
    // Nothing happened yet: a short wait comes back empty, and the session still works.
    assert_eq!(listener.next_notification(Duration::from_millis(200)).expect("wait"), None);
    // Another session's commit raises netconf-config-change (RFC 6470).
    let mut editor = live.connect();
    editor.edit_config(Datastore::Candidate, &ifs(&iface("ge5", "five")), None).expect("edit");
    editor.commit().expect("commit");
    // (netconf-session-start for the editor's session may come first.)
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let mut seen = Vec::new();
    while !seen.iter().any(|n: &String| n.contains("netconf-config-change")) {
        assert!(std::time::Instant::now() < deadline, "no netconf-config-change: {seen:?}");
        if let Some(n) = listener.next_notification(Duration::from_secs(1)).expect("read") {
            seen.push(n);
        }
    }
    // rpc() still works on a subscribed session.
    listener.get_config(Datastore::Running, Some(&if_filter())).expect("get-config");
    editor.close_session().expect("close");
}

#[test]
fn host_key_pin_is_checked() {
    let live = Live::start();
    let pub_line = std::fs::read_to_string(live.dir.path().join("state/ssh_host_ed25519_key.pub"))
        .expect("host key");
    let host_key = PublicKey::from_openssh(pub_line.trim()).expect("public key");
    let fp = host_key.fingerprint(HashAlg::Sha256).as_bytes().to_vec();
    let mut opts = live.alice();
    // What the client reports is what a pin must hold: pinning on first use works.
    let unpinned = live.connect();
    assert_eq!(unpinned.host_key_sha256(), fp.as_slice());
    unpinned.close_session().expect("close");
    opts.host_key_sha256 = Some(fp.clone());
    Client::connect(&opts).expect("the right pin").close_session().expect("close");
    let mut wrong = fp;
    wrong[0] ^= 1;
    opts.host_key_sha256 = Some(wrong);
    assert!(matches!(Client::connect(&opts), Err(Error::HostKey { .. })));
}

#[test]
fn refused_connection_and_silent_server_fail_fast() {
    // Nothing listens: a connect error, not a hang.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let mut opts = ConnectOptions::new("127.0.0.1", port, "alice", Auth::Password("x".into()));
    opts.timeout = Duration::from_millis(500);
    assert!(matches!(Client::connect(&opts), Err(Error::Connect { .. })));

    // A peer that accepts and never speaks: the handshake times out.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    opts.port = silent.local_addr().expect("addr").port();
    let start = std::time::Instant::now();
    let result = Client::connect(&opts);
    assert!(matches!(result, Err(Error::Timeout { .. })), "{:?}", result.err());
    assert!(start.elapsed() < Duration::from_secs(10));
}
