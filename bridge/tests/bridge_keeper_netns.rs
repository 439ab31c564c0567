//! A forwarding thread that does not run leaves the peer paused: h1 — [p1 pfc-bridge p2] — h2,
//! h1 offers 4 Gb/s of PFC priority 3 while the bridge's forwarding thread, pinned to core 0,
//! is kept off it three times for 200 ms by a real-time busy loop there (as a busy switch CPU
//! or a noisy neighbour would). Each stall outlasts the bridge's own pause (65 535 quanta,
//! 3.4 ms at 10 Gb/s) fifty times over, and the default 8 MiB receive ring holds 9 ms of h1's
//! frames: only the pause keeper (a thread of its own, at real-time priority, on the other
//! core) keeps h1 paused, so that
//!
//! - the kernel dropped nothing at the ring, and h2 got every frame h1 sent, in order;
//! - the keeper sent pauses (counted as `keeper_pauses`), and the bridge took them over and
//!   released h1 when it caught up (h1 sent to the end).
//!
//! Needs root (namespaces, real-time priority) and two cores; skipped loudly otherwise.

use std::process::Command;
use std::time::{Duration, Instant};

use test_support::bridge::{port, start_bridge, state_when, LOSSLESS_P3};
use test_support::hosts::{hosts, Hosts};
use test_support::netns::can_run;
use test_support::traffic::{n, report, spawn_in};
use test_support::Scratch;

/// The thread of process `pid` named `name`.
fn thread_named(pid: u32, name: &str) -> Option<String> {
    std::fs::read_dir(format!("/proc/{pid}/task")).ok()?.flatten().find_map(|t| {
        let comm = std::fs::read_to_string(t.path().join("comm")).ok()?;
        (comm.trim() == name).then(|| t.file_name().to_string_lossy().into_owned())
    })
}

/// Keeps core 0 for `time` with a real-time busy loop: nothing of ordinary priority runs there
/// meanwhile. The loop ends by itself (nothing else could run on its core to stop it).
fn stall_core_0(time: Duration) {
    std::thread::spawn(move || {
        let mut core_0 = nix::sched::CpuSet::new();
        core_0.set(0).expect("core 0");
        nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &core_0)
            .expect("the busy loop pinned to core 0");
        let tid = nix::unistd::gettid().to_string();
        run("/usr/bin/chrt", &["-f", "-p", "50", &tid]);
        let start = Instant::now();
        while start.elapsed() < time {
            std::hint::spin_loop();
        }
    })
    .join()
    .expect("the busy loop ends");
}

fn run(program: &str, args: &[&str]) {
    let ok = Command::new(program).args(args).status().is_ok_and(|s| s.success());
    assert!(ok, "{program} {}", args.join(" "));
}

#[test]
fn a_stalled_forwarding_thread_leaves_the_peer_paused_by_the_keeper() {
    if !can_run("a_stalled_forwarding_thread_leaves_the_peer_paused_by_the_keeper") {
        return;
    }
    if std::thread::available_parallelism().map_or(1, usize::from) < 2 {
        eprintln!("SKIPPED a_stalled_forwarding_thread_leaves_the_peer_paused_by_the_keeper: needs two cores");
        return;
    }
    let scratch = Scratch::new("bridge-keeper");
    let Hosts { h1_ns, sw, h2_ns, .. } = hosts("kp");
    // The default receive ring; the watchdog off (h1 is meant to be paused while the bridge
    // is stalled); frames may wait in the bridge for as long as the stalls last.
    let (state, bridge) = start_bridge(&sw, &scratch, &LOSSLESS_P3);
    let pid = bridge.child.id();
    let forwarding = thread_named(pid, "bridge").expect("the bridge's forwarding thread");
    run("/usr/bin/taskset", &["-p", "-c", "0", &forwarding]);
    // h1 and h2 on core 1, where the stalls do not reach.
    let receiver = spawn_in(
        &h2_ns,
        "/usr/bin/taskset",
        &[
            "-c",
            "1",
            &test_support::program("pfc-traffic").to_string_lossy(),
            "recv",
            "-i",
            "eth0",
            "--json",
            "--idle",
            "1500ms",
            "--socket-buffer",
            "256MiB",
        ],
    );
    std::thread::sleep(Duration::from_millis(300));
    let sender = spawn_in(
        &h1_ns,
        "/usr/bin/taskset",
        &[
            "-c",
            "1",
            &test_support::program("pfc-traffic").to_string_lossy(),
            "send",
            "-i",
            "eth0",
            "--json",
            "--flow",
            "3:4Gbps:1000",
            "--duration",
            "2s",
        ],
    );
    for _ in 0..3 {
        std::thread::sleep(Duration::from_millis(300));
        // A real-time busy loop on core 0 for 200 ms: the forwarding thread does not run.
        stall_core_0(Duration::from_millis(200));
    }
    let sent = report(sender, "pfc-traffic send");
    let received = report(receiver, "pfc-traffic recv");
    let state = state_when(&state, "the bridge empty", |s| s["frames_in_bridge"] == 0);
    let (s3, r3) = (&sent["priorities"]["3"], &received["priorities"]["3"]);
    let p1 = port(&state, "p1");
    assert_eq!(n(&p1["rx_kernel_drops"]), 0, "the kernel dropped none at the ring: {p1}");
    assert_eq!(n(&p1["lossless_drops"]), 0, "the bridge's buffer dropped none: {p1}");
    assert_eq!(n(&r3["frames"]), n(&s3["frames"]), "h2 got every frame h1 sent: {r3} {s3}");
    assert_eq!((n(&r3["lost"]), n(&r3["reordered"])), (0, 0), "none lost, in order: {r3}");
    assert!(n(&p1["keeper_pauses"]) > 0, "the keeper paused h1 during the stalls: {p1}");
    assert!(n(&s3["pause_ns"]) > 0, "h1 was paused: {s3}");
    drop((bridge, h1_ns, sw, h2_ns));
}
