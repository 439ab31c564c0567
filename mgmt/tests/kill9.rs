//! Durability: the server process (`mgmt-serve`) is killed with SIGKILL in the middle of a
//! stream of commits, 20 times. After each restart running holds the last commit that was
//! acknowledged, or the one that was in flight when the process died (stored but not yet
//! answered) — never an older one, never a damaged one.

mod common;

use std::process::{Child, Command};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::fixture::MT;
use common::{both_bases, open_subsystem, ssh_login, Login, NcClient};
use netconf_proto::framing;
use netconf_proto::xml::{Element, NETCONF_BASE_NS};
use tokio::io::AsyncWriteExt;

const ROUNDS: usize = 20;

fn spawn(state: &std::path::Path) -> (Child, std::net::SocketAddr) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mgmt-serve"));
    command.arg(state).args(common::serve_args("alice"));
    common::spawn_serve(command)
}

type Client = NcClient<russh::ChannelStream<russh::client::Msg>>;

async fn connect(
    addr: std::net::SocketAddr,
) -> (Client, russh::client::Handle<common::AcceptAnyHostKey>) {
    let ssh = ssh_login(addr, Login::Password("alice", "pw")).await.expect("login");
    let ch = open_subsystem(&ssh, "netconf").await.expect("subsystem");
    (NcClient::connect(ch.into_stream(), &both_bases()).await, ssh)
}

/// An rpc that reports a dead server as `None` instead of failing.
async fn try_rpc(c: &mut Client, id: u64, op: &str) -> Option<Element> {
    let msg = format!("<rpc message-id=\"{id}\" xmlns=\"{NETCONF_BASE_NS}\">{op}</rpc>");
    let framed = framing::encode(c.out, msg.as_bytes()).ok()?;
    c.stream.write_all(&framed).await.ok()?;
    c.stream.flush().await.ok()?;
    let reply = c.recv().await?;
    netconf_proto::xml::parse(&reply).ok()
}

fn label_edit(n: u64) -> String {
    format!(
        "<edit-config><target><candidate/></target><config><settings xmlns=\"{MT}\"><label>n{n}</label></settings></config></edit-config>"
    )
}

async fn running_label(c: &mut Client) -> Option<u64> {
    let r = c.rpc("get", "<get-config><source><running/></source></get-config>").await;
    let label = r
        .child(NETCONF_BASE_NS, "data")
        .expect("data")
        .child(MT, "settings")
        .and_then(|s| s.child(MT, "label"))
        .map(Element::text)?;
    label.strip_prefix('n').and_then(|n| n.parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn running_survives_kill_9_during_commits() {
    let (_dir, state) = common::serve_state(&["alice"]);
    let mut next: u64 = 1;
    let mut expected: Option<u64> = None;
    let mut in_flight_kept = 0;
    for round in 0..ROUNDS {
        let (mut child, addr) = spawn(&state);
        let (mut c, _ssh) = connect(addr).await;
        // After a restart running is the last acknowledged commit, or the one in flight.
        let found = running_label(&mut c).await;
        if let Some(last) = expected {
            let in_flight = next - 1;
            assert!(
                found == Some(last) || found == Some(in_flight),
                "round {round}: running holds {found:?}; the last acknowledged commit was {last}, the one in flight {in_flight}"
            );
            if found == Some(in_flight) && in_flight != last {
                in_flight_kept += 1;
            }
            if let Some(f) = found {
                expected = Some(f);
            }
        }
        // A stream of commits, killed at a random moment.
        let acked = Arc::new(AtomicU64::new(expected.unwrap_or(0)));
        let first = next;
        let stream = {
            let acked = acked.clone();
            tokio::spawn(async move {
                let mut n = first;
                loop {
                    let Some(r) = try_rpc(&mut c, n, &label_edit(n)).await else { return n };
                    assert!(r.child(NETCONF_BASE_NS, "ok").is_some(), "{}", r.to_xml());
                    let Some(r) = try_rpc(&mut c, n, "<commit/>").await else { return n };
                    assert!(r.child(NETCONF_BASE_NS, "ok").is_some(), "{}", r.to_xml());
                    acked.store(n, Ordering::SeqCst);
                    n += 1;
                }
            })
        };
        // Kill at a random moment once the stream is flowing: waiting for the first
        // acknowledgement (instead of assuming one comes within a fixed time) keeps the test
        // honest on a loaded machine.
        let started = std::time::Instant::now();
        while acked.load(Ordering::SeqCst) < first {
            assert!(started.elapsed() < common::WAIT, "round {round}: no commit was acknowledged");
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let delay = rand::random::<u64>() % 150;
        tokio::time::sleep(Duration::from_millis(delay)).await;
        child.kill().expect("SIGKILL");
        let _ = child.wait();
        let last_tried = tokio::time::timeout(common::WAIT, stream)
            .await
            .expect("the stream stops")
            .expect("no panic");
        let last_acked = acked.load(Ordering::SeqCst);
        expected = Some(last_acked);
        next = last_tried + 1;
    }
    // A last clean look.
    let (mut child, addr) = spawn(&state);
    let (mut c, _ssh) = connect(addr).await;
    let found = running_label(&mut c).await;
    let last = expected.expect("commits happened");
    assert!(found == Some(last) || found == Some(next - 1), "final: {found:?} vs {last}");
    eprintln!(
        "{ROUNDS} kills, {} commits acknowledged; {in_flight_kept} times the commit in flight had been stored",
        next - 1
    );
    child.kill().expect("kill");
    let _ = child.wait();
}
