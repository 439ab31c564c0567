//! Forwarding rate of pfc-bridge against the Linux bridge on the same topology, in the same
//! invocation: h1 eth0 — p1 [sw] p2 — eth0 h2 (network namespaces, veth pairs). h1 sends
//! tagged frames of one size as fast as `sendmmsg` goes for a few seconds; h2 counts what
//! arrives. The sw namespace bridges p1 and p2 either with a Linux bridge (`ip link add br0 type
//! bridge`) or with pfc-bridge (one core: its loop is one thread). Runs alternate between the
//! two; medians are printed with their ratio.
//!
//! For each pfc-bridge run it also prints the bridge's CPU time (user + system, read from
//! `/proc`) per frame h2 received: what one forwarded frame costs the forwarding thread,
//! including the kernel's transmit path and h2's receive, which veth runs in the sender's
//! context.
//!
//! Run as root, after `cargo build --release --bin pfc-bridge`:
//! `cargo run --release --example bridge_rate -- [SECONDS] [RUNS] [pfc]` (`pfc`: pfc-bridge's
//! runs only, for profiling). pfc-bridge runs with `--tx-ring` unless `PFC_BRIDGE_ARGS` gives
//! its extra options instead (`PFC_BRIDGE_ARGS= …`: the socket's send path, to compare).

use std::fs::File;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dataplane::io::{RawOptions, RawPort, RxBatch};
use dataplane::wire::{EtherType, EthernetHeader, MacAddr, VlanTag};

const H1: MacAddr = MacAddr([0x02, 0, 0, 0, 0x01, 0x01]);
const H2: MacAddr = MacAddr([0x02, 0, 0, 0, 0x02, 0x02]);
const TEST_TYPE: EtherType = EtherType(0x88b5);

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Linux,
    PfcBridge,
}

fn ip(args: &[&str]) {
    let ok = Command::new("/usr/sbin/ip").args(args).status().is_ok_and(|s| s.success());
    assert!(ok, "ip {}", args.join(" "));
}

/// The three namespaces of one run, deleted (with what runs in them) when dropped.
struct Bed {
    names: [String; 3],
    bridge: Option<Child>,
}

impl Drop for Bed {
    fn drop(&mut self) {
        if let Some(mut b) = self.bridge.take() {
            let _ = b.kill();
            let _ = b.wait();
        }
        for n in &self.names {
            let _ = Command::new("/usr/sbin/ip").args(["netns", "del", n]).status();
        }
    }
}

fn bed(kind: Kind, run: usize) -> Bed {
    let names = ["h1", "sw", "h2"].map(|n| format!("rate{}-{run}-{n}", std::process::id()));
    for n in &names {
        ip(&["netns", "add", n]);
    }
    let [h1, sw, h2] = &names;
    ip(&[
        "-n",
        h1,
        "link",
        "add",
        "eth0",
        "address",
        "02:00:00:00:01:01",
        "type",
        "veth",
        "peer",
        "name",
        "p1",
        "netns",
        sw,
    ]);
    ip(&[
        "-n",
        sw,
        "link",
        "add",
        "p2",
        "type",
        "veth",
        "peer",
        "name",
        "eth0",
        "address",
        "02:00:00:00:02:02",
        "netns",
        h2,
    ]);
    for (ns, i) in [(h1, "eth0"), (sw, "p1"), (sw, "p2"), (h2, "eth0")] {
        ip(&["-n", ns, "link", "set", i, "up"]);
    }
    let mut bed = Bed { names: names.clone(), bridge: None };
    match kind {
        Kind::Linux => {
            ip(&["-n", sw, "link", "add", "br0", "type", "bridge"]);
            for p in ["p1", "p2"] {
                ip(&["-n", sw, "link", "set", p, "master", "br0"]);
            }
            ip(&["-n", sw, "link", "set", "br0", "up"]);
        }
        Kind::PfcBridge => {
            let exe = std::env::current_exe().expect("exe");
            let bin = exe.parent().and_then(|d| d.parent()).expect("target dir").join("pfc-bridge");
            assert!(
                bin.exists(),
                "{} not built: cargo build --release --bin pfc-bridge",
                bin.display()
            );
            let child = Command::new("/usr/sbin/ip")
                .args(["netns", "exec", sw])
                .arg(bin)
                .args(["--port", "p1", "--port", "p2", "--speed", "100G"])
                .args(pfc_bridge_args().split_whitespace())
                .stdout(Stdio::null())
                .stderr(File::create("/dev/null").expect("null"))
                .spawn()
                .expect("pfc-bridge starts");
            bed.bridge = Some(child);
            std::thread::sleep(Duration::from_millis(300));
        }
    }
    bed
}

/// pfc-bridge's extra options: `PFC_BRIDGE_ARGS`, `--tx-ring` when it is not set.
fn pfc_bridge_args() -> String {
    std::env::var("PFC_BRIDGE_ARGS").unwrap_or_else(|_| "--tx-ring".into())
}

/// Opens `eth0` inside namespace `ns`.
fn open_in(ns: &str) -> RawPort {
    let path = format!("/run/netns/{ns}");
    std::thread::scope(|s| {
        s.spawn(|| {
            let f = File::open(&path).expect("netns");
            nix::sched::setns(f, nix::sched::CloneFlags::CLONE_NEWNET).expect("setns");
            let options = RawOptions {
                recv_buffer: Some(32 << 20),
                send_buffer: Some(4 << 20),
                qdisc_bypass: true,
                ..RawOptions::default()
            };
            RawPort::open("eth0", &options).expect("socket")
        })
        .join()
        .expect("thread")
    })
}

fn frame(len: usize) -> Vec<u8> {
    let header = EthernetHeader {
        dst: H2,
        src: H1,
        vlan: Some(VlanTag { pcp: 0, dei: false, vid: 10 }),
        ethertype: TEST_TYPE,
    };
    let mut f = vec![0u8; len];
    let _ = header.emit(&mut f);
    f
}

/// CPU time (user + system) process `pid` has used so far, seconds.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let ticks: f64 =
        after.split_whitespace().skip(11).take(2).filter_map(|f| f.parse::<f64>().ok()).sum();
    ticks / 100.0
}

/// Frames per second h2 received while h1 sent `len`-octet frames for `secs`, and for
/// pfc-bridge its CPU time per received frame (ns).
fn measure(kind: Kind, len: usize, secs: f64, run: usize) -> (f64, Option<f64>) {
    let bed = bed(kind, run);
    let mut tx = open_in(&bed.names[0]);
    let mut rx = open_in(&bed.names[2]);
    let bridge_pid = bed.bridge.as_ref().map(Child::id);
    let cpu_before = bridge_pid.map(cpu_seconds);
    let sending = Arc::new(AtomicBool::new(true));
    let receiver = {
        let sending = sending.clone();
        std::thread::spawn(move || {
            let mut batch = RxBatch::new(64, 2048);
            let mut got = 0u64;
            let mut quiet_since = None::<Instant>;
            loop {
                let n = rx.recv_batch(&mut batch).unwrap_or(0);
                got += batch.iter().filter(|f| f.get(16..18) == Some(&[0x88, 0xb5][..])).count()
                    as u64;
                if n == 0 {
                    if !sending.load(Ordering::Relaxed) {
                        let since = *quiet_since.get_or_insert_with(Instant::now);
                        if since.elapsed() > Duration::from_millis(200) {
                            return got;
                        }
                    }
                    std::thread::sleep(Duration::from_micros(50));
                } else {
                    quiet_since = None;
                }
            }
        })
    };
    let f = frame(len);
    let frames: Vec<&[u8]> = (0..64).map(|_| f.as_slice()).collect();
    let end = Instant::now() + Duration::from_secs_f64(secs);
    while Instant::now() < end {
        let _ = tx.send_batch(&frames);
    }
    sending.store(false, Ordering::Relaxed);
    let got = receiver.join().expect("receiver");
    let cpu = bridge_pid.zip(cpu_before).map(|(pid, before)| cpu_seconds(pid) - before);
    drop(bed);
    (got as f64 / secs, cpu.map(|c| c * 1e9 / got.max(1) as f64))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let secs: f64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(3.0);
    let runs: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(3);
    let pfc_only = args.get(3).is_some_and(|a| a == "pfc");
    println!("forwarding rate h1 -> h2 through sw, {secs} s per run, {runs} runs each, alternated");
    println!(
        "{:>6}  {:>14}  {:>14}  {:>7}  {:>16}",
        "octets", "linux bridge", "pfc-bridge", "ratio", "pfc-bridge CPU"
    );
    for len in [64usize, 1500] {
        let (mut linux, mut pfc, mut cost) = (Vec::new(), Vec::new(), Vec::new());
        for run in 0..runs {
            if !pfc_only {
                linux.push(measure(Kind::Linux, len, secs, run * 2).0);
            }
            let (rate, ns) = measure(Kind::PfcBridge, len, secs, run * 2 + 1);
            pfc.push(rate);
            cost.extend(ns);
        }
        let l = if pfc_only { f64::NAN } else { median(linux) };
        let (p, c) = (median(pfc), median(cost));
        println!(
            "{len:>6}  {:>10.3} Mpps  {:>10.3} Mpps  {:>6.2}  {:>8.0} ns/frame",
            l / 1e6,
            p / 1e6,
            p / l,
            c
        );
    }
}
