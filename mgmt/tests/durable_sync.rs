//! Durability across a power cut, shown from outside: `mgmt-serve` runs under strace, and for
//! every `<commit>` the log write that stores it is followed by an fdatasync (or fsync) of
//! sled's log file that completes before the client has the reply. A large configuration
//! goes to a blob file: that file and its directory are fsynced before the reply too. No
//! `sync_file_range` is ever used (it neither flushes the device's cache nor persists a grown
//! file's size). A kill -9 cannot show any of this: the page cache survives a killed process.

mod common;

use std::process::{Child, Command};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::fixture::MT;
use common::{both_bases, errors, open_subsystem, ssh_login, Login, NcClient, IF_NS};

const SMALL_COMMITS: u64 = 20;

/// One system call as strace reported it: thread, start and end (seconds since the epoch),
/// name and the path of its first argument (from `-y`).
#[derive(Debug, Clone)]
struct Call {
    start: f64,
    end: f64,
    name: String,
    path: String,
}

/// Parses `strace -f -ttt -T -y` output, joining `<unfinished ...>` / `<... resumed>` pairs.
fn parse_trace(text: &str) -> Vec<Call> {
    let mut open: std::collections::HashMap<String, Call> = std::collections::HashMap::new();
    let mut calls = Vec::new();
    for line in text.lines() {
        // strace pads the thread id to five columns: "  812 1795704744.259934 fsync(…".
        let line = line.trim_start();
        let Some((tid, line)) = line.split_once(' ') else { continue };
        let Some((time, rest)) = line.trim_start().split_once(' ') else { continue };
        let Ok(t) = time.parse::<f64>() else { continue };
        if let Some(resumed) = rest.strip_prefix("<... ") {
            let name = resumed.split_whitespace().next().unwrap_or_default();
            if let Some(mut c) = open.remove(tid) {
                if c.name == name {
                    c.end = t;
                    calls.push(c);
                }
            }
            continue;
        }
        let Some(paren) = rest.find('(') else { continue };
        let name = rest[..paren].to_string();
        let path = rest[paren..]
            .find('<')
            .and_then(|a| {
                let after = &rest[paren + a + 1..];
                after.find('>').map(|b| after[..b].to_string())
            })
            .unwrap_or_default();
        let mut call = Call { start: t, end: t, name, path };
        if rest.ends_with("<unfinished ...>") {
            open.insert(tid.to_string(), call);
            continue;
        }
        // `-T` appends the time spent in the call: `= 0 <0.000123>`.
        if let Some(took) = rest
            .rsplit_once('<')
            .and_then(|(_, d)| d.strip_suffix('>'))
            .and_then(|d| d.parse::<f64>().ok())
        {
            call.end = t + took;
        }
        calls.push(call);
    }
    calls
}

fn now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).expect("clock after 1970").as_secs_f64()
}

fn spawn_traced(
    strace: &std::path::Path,
    state: &std::path::Path,
    trace: &std::path::Path,
) -> (Child, std::net::SocketAddr) {
    let mut command = Command::new(strace);
    // A group of its own, so that the server under strace is stopped with it: a killed strace
    // leaves its tracee running.
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    command
        .args(["-f", "-ttt", "-T", "-y", "-qq", "-o"])
        .arg(trace)
        .args(["-e", "trace=pwrite64,pwritev,write,fdatasync,fsync,sync_file_range"])
        .arg(env!("CARGO_BIN_EXE_mgmt-serve"))
        .arg(state)
        .args(common::serve_args("alice"));
    common::spawn_serve(command)
}

/// Whether a write to `file` starts in `window` and a sync of the same file starts after it
/// ended and completes within the window.
fn synced_within(calls: &[Call], file: impl Fn(&str) -> bool, window: (f64, f64)) -> bool {
    let is_sync = |c: &Call| c.name == "fdatasync" || c.name == "fsync";
    calls.iter().filter(|w| w.name.starts_with("pwrite") || w.name == "write").any(|w| {
        file(&w.path)
            && w.start >= window.0
            && calls
                .iter()
                .any(|s| is_sync(s) && file(&s.path) && s.start >= w.end && s.end <= window.1)
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_commit_is_synced_to_disk_before_its_reply() {
    let Some(strace) = common::external_tool("/usr/bin/strace", "strace") else { return };
    let (dir, state) = common::serve_state(&["alice"]);
    let trace = dir.path().join("trace.txt");
    let (mut child, addr) = spawn_traced(&strace, &state, &trace);

    let ssh = ssh_login(addr, Login::Password("alice", "pw")).await.expect("login");
    let ch = open_subsystem(&ssh, "netconf").await.expect("subsystem");
    let mut c = NcClient::connect(ch.into_stream(), &both_bases()).await;

    let mut windows = Vec::new();
    for n in 1..=SMALL_COMMITS {
        let edit = format!(
            "<edit-config><target><candidate/></target><config><settings xmlns=\"{MT}\"><label>n{n}</label></settings></config></edit-config>"
        );
        let r = c.rpc(&n.to_string(), &edit).await;
        assert_eq!(errors(&r), vec![], "{}", r.to_xml());
        let sent = now();
        let r = c.rpc(&n.to_string(), "<commit/>").await;
        let answered = now();
        assert_eq!(errors(&r), vec![], "{}", r.to_xml());
        windows.push((sent, answered));
        // Apart from one another, so that sled's periodic flush cannot stand in for a
        // commit's own sync by chance more than once in a while.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A configuration above sled's blob threshold (a quarter of its 512 KiB segment).
    let big = "d".repeat(300 * 1024);
    let edit = format!(
        "<edit-config><target><candidate/></target><config><interfaces xmlns=\"{IF_NS}\"><interface><name>eth0</name>\
         <type xmlns:ianaift=\"urn:ietf:params:xml:ns:yang:iana-if-type\">ianaift:ethernetCsmacd</type>\
         <description>{big}</description></interface></interfaces></config></edit-config>"
    );
    let r = c.rpc("big", &edit).await;
    assert_eq!(errors(&r), vec![], "{}", r.to_xml());
    let sent = now();
    let r = c.rpc("big-commit", "<commit/>").await;
    let big_window = (sent, now());
    assert_eq!(errors(&r), vec![], "{}", r.to_xml());
    let _ = c.rpc("bye", "<close-session/>").await;

    // strace writes its log as the calls happen; stop the server and strace (the whole group).
    let group = format!("-{}", child.id());
    let killed = Command::new("kill").args(["-KILL", "--", &group]).status().expect("kill");
    assert!(killed.success(), "the server's process group is stopped");
    let _ = child.wait();
    let text = std::fs::read_to_string(&trace).expect("strace output");
    if let Ok(keep) = std::env::var("DURABLE_SYNC_TRACE") {
        let _ = std::fs::write(keep, &text);
    }
    let calls = parse_trace(&text);
    let datastores = state.join("datastores");
    let root = datastores.display().to_string();
    let log = format!("{root}/db");

    assert!(
        calls.iter().all(|c| c.name != "sync_file_range"),
        "sync_file_range is not durable across a power cut: {:?}",
        calls.iter().find(|c| c.name == "sync_file_range")
    );
    let unsynced: Vec<usize> = windows
        .iter()
        .enumerate()
        .filter(|(_, w)| !synced_within(&calls, |p| p == log, **w))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(
        unsynced,
        Vec::<usize>::new(),
        "commits whose log write was not synced before the reply; windows {windows:?}"
    );

    let blobs = format!("{root}/blobs");
    let blob_file = |p: &str| p.starts_with(&format!("{blobs}/"));
    assert!(
        synced_within(&calls, blob_file, big_window),
        "the large commit's blob file was not fsynced before the reply"
    );
    let blob_written_at = calls
        .iter()
        .filter(|c| c.name == "write" && blob_file(&c.path) && c.start >= big_window.0)
        .map(|c| c.end)
        .fold(f64::INFINITY, f64::min);
    assert!(
        calls.iter().any(|c| c.name == "fsync"
            && c.path == blobs
            && c.start >= blob_written_at
            && c.end <= big_window.1),
        "the blob directory was not fsynced before the reply (a new file's entry would be lost)"
    );
    assert!(
        synced_within(&calls, |p| p == log, big_window),
        "the large commit's log entry was not synced before the reply"
    );
}
