//! Memory and CPU bombs from a logged-in, read-only user (issue 23, point 6): a 64 MiB
//! `<get-config>` subtree-filter bomb, 100 000 levels of nesting, a billion-laughs entity,
//! and 64 sessions each sending a maximal message at once, against `mgmt-serve` with its
//! default limits. Each is answered or refused with the right rpc-error, the server's peak
//! resident memory stays under [`CEILING_MIB`], and an administrator's control session
//! keeps getting its `<get>` answered within [`CONTROL_LATENCY`] throughout.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{errors, open_subsystem, ssh_login, Login, NcClient, IF_NS};
use netconf_proto::hello::BASE_1_1;
use netconf_proto::xml::{Element, NETCONF_BASE_NS};
use tokio::time::Instant;

/// The most the server may have resident at its peak (VmHWM), in MiB. With the defaults
/// (`mgmt-serve --help`), requests in progress hold at most 256 MiB shared plus 1 MiB per
/// session (320 MiB for 64 sessions) on top of the server's own 60 MiB; mimalloc keeps freed
/// pages for a while before returning them (its purge delay), which under this attack can
/// add about as much again. The measured peaks are in BENCHMARKS.md (NETCONF server, "memory
/// under attack").
const CEILING_MIB: u64 = 768;

/// How long the control session's `<get>` may take while the server is under attack.
const CONTROL_LATENCY: Duration = Duration::from_secs(2);

/// The server's default largest message.
const MAX_MESSAGE: usize = 64 * 1024 * 1024;

/// Sessions sending a maximal message at once.
const SESSIONS: usize = 64;

type Channel = russh::ChannelStream<russh::client::Msg>;

struct Served {
    child: std::process::Child,
    addr: std::net::SocketAddr,
    _dir: tempfile::TempDir,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `mgmt-serve` with its default limits but room for the attackers' sessions and the
/// control session; alice is the administrator, mallory may only read (NACM's default read
/// access).
fn serve() -> Served {
    let (dir, state) = common::serve_state(&["alice", "mallory"]);
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_mgmt-serve"));
    let sessions = (SESSIONS + 2).to_string();
    command.arg(&state).args(common::serve_args("alice")).args(["--max-sessions", &sessions]);
    let (child, addr) = common::spawn_serve(command);
    Served { child, addr, _dir: dir }
}

/// A field of the server's /proc status, in KiB.
fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.trim().strip_suffix("kB")?.trim().parse().ok())
        .unwrap_or_else(|| panic!("{field} in /proc/{pid}/status"))
}

async fn session(addr: std::net::SocketAddr, user: &str) -> NcClient<Channel> {
    let ssh = ssh_login(addr, Login::Password(user, "pw")).await.expect("login");
    let channel = open_subsystem(&ssh, "netconf").await.expect("netconf subsystem");
    // The connection lives as long as its channel does.
    std::mem::forget(ssh);
    NcClient::connect(channel.into_stream(), &common::caps(&[BASE_1_1])).await
}

fn rpc(id: &str, operation: &str) -> String {
    format!("<rpc message-id=\"{id}\" xmlns=\"{NETCONF_BASE_NS}\">{operation}</rpc>")
}

/// A `<get-config>` of running with `filter` as its subtree filter's content.
fn get_config_filtered(id: &str, filter: &str) -> String {
    rpc(
        id,
        &format!(
            "<get-config><source><running/></source><filter type=\"subtree\">{filter}</filter></get-config>"
        ),
    )
}

/// Pads `open` + `close` with `fill` repeated to exactly `size` bytes.
fn padded(open: &str, fill: &str, close: &str, size: usize) -> String {
    let room = size - open.len() - close.len();
    let mut text = String::with_capacity(size);
    text.push_str(open);
    text.push_str(&fill.repeat(room / fill.len()));
    text.push_str(&" ".repeat(room % fill.len()));
    text.push_str(close);
    assert_eq!(text.len(), size);
    text
}

/// The reply to the message just sent, parsed.
async fn reply(c: &mut NcClient<Channel>) -> Element {
    let bytes = tokio::time::timeout(Duration::from_secs(60), c.recv())
        .await
        .expect("a reply within a minute")
        .expect("the session is open");
    netconf_proto::xml::parse(&bytes).expect("the reply is XML")
}

/// The first rpc-error's tag, type and message.
fn error(reply: &Element) -> (String, String, String) {
    let e = reply.child(NETCONF_BASE_NS, "rpc-error").unwrap_or_else(|| {
        panic!("an rpc-error, not {}", &reply.to_xml()[..reply.to_xml().len().min(300)])
    });
    let field = |n: &str| e.child(NETCONF_BASE_NS, n).map(Element::text).unwrap_or_default();
    (field("error-tag"), field("error-type"), field("error-message"))
}

/// Runs `<get>` on `c` every 100 ms until `stop`; the longest any took.
async fn control(mut c: NcClient<Channel>, stop: Arc<AtomicBool>) -> Duration {
    let mut worst = Duration::ZERO;
    let mut n = 0;
    while !stop.load(Ordering::Relaxed) {
        let t0 = Instant::now();
        let r = c.rpc(&format!("ctl{n}"), "<get/>").await;
        worst = worst.max(t0.elapsed());
        assert_eq!(errors(&r), vec![], "the control session's <get>");
        n += 1;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    worst
}

/// Sends `message` on a session of mallory's and returns the reply (checking it echoes
/// `id`), and whether the session still answers afterwards.
async fn attack(addr: std::net::SocketAddr, id: &str, message: String) -> (Element, bool) {
    let mut c = session(addr, "mallory").await;
    c.send(&message).await;
    drop(message);
    let r = reply(&mut c).await;
    assert_eq!(r.attribute("message-id"), Some(id), "{}", r.to_xml());
    let after = c.rpc("after", "<get-config><source><running/></source></get-config>").await;
    (r, after.child(NETCONF_BASE_NS, "data").is_some())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bombs_are_refused_within_the_memory_ceiling() {
    let server = serve();
    let pid = server.child.id();
    for i in 0..50 {
        common::seed_interface_as(server.addr, "alice", "pw", &format!("eth{i}"), "port").await;
    }
    let baseline = status_kib(pid, "VmRSS:");

    let stop = Arc::new(AtomicBool::new(false));
    let ctl = tokio::spawn(control(session(server.addr, "alice").await, stop.clone()));
    let t0 = Instant::now();

    // A 64 MiB <get-config> subtree-filter bomb: every filter entry is matched against
    // every interface, and it stays under the element limit (about 450 000 elements).
    let entry = format!("<interface><description>{}</description></interface>", "d".repeat(250));
    let open = format!(
        "<rpc message-id=\"filter\" xmlns=\"{NETCONF_BASE_NS}\"><get-config><source><running/></source><filter type=\"subtree\"><interfaces xmlns=\"{IF_NS}\">"
    );
    let close = "</interfaces></filter></get-config></rpc>";
    let bomb = padded(&open, &entry, close, MAX_MESSAGE);
    let (r, alive) = attack(server.addr, "filter", bomb).await;
    let (tag, kind, message) = error(&r);
    assert_eq!((tag.as_str(), kind.as_str()), ("too-big", "application"), "{message}");
    assert!(message.contains("subtree filter"), "{message}");
    assert!(alive, "the session goes on after the filter bomb");

    // The same 64 MiB as bare elements: over the element limit.
    let open = format!("<rpc message-id=\"elements\" xmlns=\"{NETCONF_BASE_NS}\"><get-config><source><running/></source><filter type=\"subtree\">");
    let bomb = padded(&open, "<a/>", "</filter></get-config></rpc>", MAX_MESSAGE);
    let (r, alive) = attack(server.addr, "elements", bomb).await;
    let (tag, kind, message) = error(&r);
    assert_eq!((tag.as_str(), kind.as_str()), ("too-big", "rpc"), "{message}");
    assert!(message.contains("XML elements"), "{message}");
    assert!(alive, "the session goes on after the element bomb");

    // 100 000 levels of nesting.
    let deep = get_config_filtered(
        "deep",
        &format!("{}{}", "<a>".repeat(100_000), "</a>".repeat(100_000)),
    );
    let (r, alive) = attack(server.addr, "deep", deep).await;
    let (tag, kind, message) = error(&r);
    assert_eq!((tag.as_str(), kind.as_str()), ("too-big", "rpc"), "{message}");
    assert!(message.contains("deep"), "{message}");
    assert!(alive, "the session goes on after the deep nesting");

    // Billion laughs: a document type declaration is refused, nothing is expanded.
    let lol = (1..=9)
        .map(|k| format!("<!ENTITY lol{k} \"{}\">", format!("&lol{};", k - 1).repeat(10)))
        .collect::<String>();
    let laughs = format!(
        "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol0 \"lol\">{lol}]><rpc message-id=\"laughs\" xmlns=\"{NETCONF_BASE_NS}\"><get-config><source><running/></source><filter type=\"subtree\">&lol9;</filter></get-config></rpc>"
    );
    let mut c = session(server.addr, "mallory").await;
    c.send(&laughs).await;
    let r = reply(&mut c).await;
    let (tag, kind, message) = error(&r);
    assert_eq!((tag.as_str(), kind.as_str()), ("malformed-message", "rpc"), "{message}");
    assert!(message.contains("document type"), "{message}");
    let after = c.rpc("after", "<get-config><source><running/></source></get-config>").await;
    assert!(after.child(NETCONF_BASE_NS, "data").is_some(), "the session goes on (base:1.1)");
    eprintln!("single bombs answered in {:?}", t0.elapsed());

    // 64 sessions, each a maximal message at once (logged in first: more than 16
    // connections waiting to authenticate from one address displace each other).
    let mut attackers = Vec::new();
    for i in 0..SESSIONS {
        let mut c = session(server.addr, "mallory").await;
        attackers.push(tokio::spawn(async move {
            let id = format!("max{i}");
            let open = format!(
                "<rpc message-id=\"{id}\" xmlns=\"{NETCONF_BASE_NS}\"><get-config><source><running/></source><filter type=\"subtree\"><interfaces xmlns=\"{IF_NS}\"/>"
            );
            // Blank text, which the parser holds as a node before dropping it: 64 MiB
            // received, then as much again parsed.
            let message = padded(&open, " ", "</filter></get-config></rpc>", MAX_MESSAGE);
            c.send(&message).await;
            drop(message);
            let r = reply(&mut c).await;
            assert_eq!(r.attribute("message-id"), Some(id.as_str()));
            match r.child(NETCONF_BASE_NS, "data") {
                Some(d) => {
                    assert!(d.to_xml().contains("eth49"), "the interfaces");
                    "answered"
                }
                None => {
                    // Refused for the memory budget: the message is within the size limit.
                    let (tag, kind, message) = error(&r);
                    assert_eq!((tag.as_str(), kind.as_str()), ("too-big", "rpc"), "{message}");
                    assert!(message.contains("shared by all sessions"), "{message}");
                    "refused"
                }
            }
        }));
    }
    let mut outcomes = std::collections::BTreeMap::new();
    for a in attackers {
        *outcomes.entry(a.await.expect("attacker")).or_insert(0) += 1;
    }
    eprintln!("64 maximal messages: {outcomes:?}, all bombs in {:?}", t0.elapsed());

    stop.store(true, Ordering::Relaxed);
    let worst = ctl.await.expect("control session");
    let peak = status_kib(pid, "VmHWM:") / 1024;
    eprintln!(
        "server RSS: {} MiB before the attack, peak {peak} MiB; control <get> at worst {worst:?}",
        baseline / 1024
    );
    assert!(peak < CEILING_MIB, "peak RSS {peak} MiB, ceiling {CEILING_MIB} MiB");
    assert!(worst < CONTROL_LATENCY, "control <get> took {worst:?}");
}
