//! What the remedies for a PFC deadlock cost and give back on real links, as pfcsim's 36-7
//! remedy scenarios show them in simulated time: Figure 36-7's ring of three pfcd on veth
//! (`test_support::ring`, as root). Each host offers 8 Gb/s of 1500-octet frames on priority 3
//! to the host two bridges on: f1 and f2 for 3 s, f3 (the flow that closes the cycle) for the
//! first 1 s only. With one remedy in force:
//! - `none`: the watchdog off, the maximum transit delay at its longest (4 s): the cycle closes
//!   and f1 and f2 stay stopped after f3 has gone;
//! - `watchdog`: pfcd's PFC watchdog at its defaults (200 ms detection and restoration, drop);
//! - `transit MS`: the maximum bridge transit delay (802.1Q 6.5.6) at MS milliseconds, the
//!   watchdog off;
//! - `no-cycle`: f3 not sent, so no cycle forms, and no remedy: what the ring carries for f1
//!   and f2 on this machine, the most a remedy can give back.
//!
//! `RING_RATE` (e.g. `500Mbps`) offers another rate per flow; `RING_NO_PFC=1` leaves PFC off
//! (lossy priority 3: what the ring carries, and loses, without pauses); `RING_ALLOCATION=N`
//! gives priority 3 N octets of buffer on every port (`buffer-allocation`; twice the allowance
//! without it).
//!
//! Per run it prints what f1 and f2 delivered in their last second and over their 3 s (Gb/s,
//! of 16 offered; once f3 is gone their path has room, as far as three software bridges on two
//! cores forward), the frames their hosts found missing over the run, and the frames the remedy discarded on the
//! three bridges (the watchdog's `frames-dropped`, pfcd-pipeline's `transit-delay`), and how
//! long after f3's end f1 and f2 came back (the end of the first 200 ms window after it in
//! which they delivered at least half their last second's rate), then the median and range
//! of each.
//!
//! ```sh
//! cargo build -p pfc-fabric --example ring_remedies --bin pfcd --bin pfc-traffic
//! sudo target/debug/examples/ring_remedies none 3
//! sudo target/debug/examples/ring_remedies watchdog 3
//! sudo target/debug/examples/ring_remedies transit 3 200
//! sudo target/debug/examples/ring_remedies no-cycle 3
//! ```

use std::time::{Duration, Instant};

use test_support::pfcd::{
    commit_pfc, commit_watchdog, frame_discards_of, value, watchdog_class, watchdog_of,
};
use test_support::ring::{ring, Ring};
use test_support::traffic::{report, spawn};

const PORTS: [&str; 3] = ["cw", "ccw", "host"];

#[derive(Clone, Copy, PartialEq)]
enum Remedy {
    None,
    Watchdog,
    Transit(u64),
    /// No cycle to break: f3 is not sent, no remedy; what the ring carries for f1 and f2.
    NoCycle,
}

/// Frames the remedies discarded so far on every port of the three bridges.
fn discarded(ring: &mut Ring) -> u64 {
    let mut total = 0;
    for b in &mut ring.bridges {
        for p in PORTS {
            let class = watchdog_class(&watchdog_of(&mut b.client, p), "3");
            let transit = frame_discards_of(&mut b.client, p);
            for (text, leaf) in [(class, "frames-dropped"), (transit, "transit-delay")] {
                total += value(&text, leaf).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
            }
        }
    }
    total
}

/// Priority 3's frames and missing frames in a receiver's report.
fn received(r: std::process::Child) -> (u64, u64) {
    let got = report(r, "a host's receiver");
    let p = &got["priorities"]["3"];
    (p["frames"].as_u64().unwrap_or(0), p["lost"].as_u64().unwrap_or(0))
}

/// Gb/s of `frames` 1500-octet frames over `seconds`.
fn gbps(frames: u64, seconds: f64) -> f64 {
    frames as f64 * 1500.0 * 8.0 / 1e9 / seconds
}

/// What one run gave.
struct Run {
    /// f1 and f2's Gb/s in their last second and over their 3 s.
    last: f64,
    whole: f64,
    /// Frames missing at the hosts, and those the remedy discarded.
    missing: u64,
    discarded: u64,
    /// From f3's end to the end of the first window in which f1 and f2 delivered at least half
    /// their last second's rate: how long the ring took to give the traffic back.
    recovered: Option<Duration>,
}

/// Windows after f3's end in which f1 and f2's deliveries are counted.
const WINDOW: Duration = Duration::from_millis(200);
const WINDOWS: u32 = 10;
/// Below this (Gb/s) the last second's deliveries are the few frames a deadlocked ring leaks,
/// not traffic given back.
const TRAFFIC: f64 = 0.05;

fn one(remedy: Remedy, n: usize) -> Run {
    let transit = match remedy {
        Remedy::Transit(ms) => ms,
        _ => 4000,
    };
    let mut ring = ring(&format!("rr{n}"), &format!("max-transit-ms = {transit}\n"));
    ring.route_clockwise();
    for b in &mut ring.bridges {
        if std::env::var_os("RING_NO_PFC").is_none() {
            let allocation = std::env::var("RING_ALLOCATION").map_or(String::new(), |octets| {
                let ns = pfc_yang_names::pfcd_pfc::NAMESPACE;
                format!(
                    "<priority><priority>3</priority>\
                     <buffer-allocation xmlns=\"{ns}\">{octets}</buffer-allocation></priority>"
                )
            });
            commit_pfc(&mut b.client, &PORTS, &format!("<pfc-enable>p3</pfc-enable>{allocation}"));
        }
        if remedy != Remedy::Watchdog {
            commit_watchdog(&mut b.client, &PORTS, "<enabled>false</enabled>");
        }
    }
    let recv = |ring: &Ring, i: usize, duration: &str| {
        spawn(&ring.hosts[i].0, &["recv", "-i", "eth0", "--duration", duration, "--json"])
    };
    // Whole-run receivers on every host; f1 ends at h3, f2 at h1.
    let whole: Vec<_> = (0..3).map(|i| recv(&ring, i, "3.5s")).collect();
    std::thread::sleep(Duration::from_millis(300));
    let before = discarded(&mut ring);
    let rate = std::env::var("RING_RATE").unwrap_or_else(|_| "8Gbps".into());
    let start = Instant::now();
    let mut senders = vec![ring.send_flow(0, &rate, "3s"), ring.send_flow(1, &rate, "3s")];
    if remedy != Remedy::NoCycle {
        senders.push(ring.send_flow(2, &rate, "1s"));
    }
    // From f3's end (1 s in), windows at h3 and h1; the last second's receivers at 2 s.
    let window = format!("{}ms", WINDOW.as_millis());
    let mut windows = Vec::new();
    let mut last = Vec::new();
    for k in 0..WINDOWS {
        let at = Duration::from_secs(1) + WINDOW * k;
        if last.is_empty() && at >= Duration::from_secs(2) {
            std::thread::sleep(Duration::from_secs(2).saturating_sub(start.elapsed()));
            last = vec![recv(&ring, 2, "1s"), recv(&ring, 0, "1s")];
        }
        std::thread::sleep(at.saturating_sub(start.elapsed()));
        windows.push((at, [recv(&ring, 2, &window), recv(&ring, 0, &window)]));
    }
    let frames: u64 = last.into_iter().map(|r| received(r).0).sum();
    let last_gbps = gbps(frames, 1.0);
    // Every window's receivers are read, the ones after the first that shows the traffic too.
    let rates: Vec<(Duration, f64)> = windows
        .into_iter()
        .map(|(at, pair)| {
            let got: u64 = pair.into_iter().map(|r| received(r).0).sum();
            (at, gbps(got, WINDOW.as_secs_f64()))
        })
        .collect();
    let recovered = rates
        .iter()
        .find(|(_, rate)| last_gbps >= TRAFFIC && *rate >= last_gbps / 2.0)
        .map(|(at, _)| (*at + WINDOW).saturating_sub(Duration::from_secs(1)));
    for s in senders {
        let _ = s.wait_with_output();
    }
    let whole: Vec<(u64, u64)> = whole.into_iter().map(received).collect();
    Run {
        last: last_gbps,
        whole: gbps(whole[0].0 + whole[2].0, 3.0),
        missing: whole.iter().map(|r| r.1).sum(),
        discarded: discarded(&mut ring) - before,
        recovered,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rate = std::env::var("RING_RATE").unwrap_or_else(|_| "8Gbps".into());
    let usage = "usage: ring_remedies none|watchdog|transit|no-cycle RUNS [TRANSIT_MS]";
    let runs: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(3);
    let (remedy, name) = match args.get(1).map(String::as_str) {
        Some("none") => (Remedy::None, "no remedy".to_string()),
        Some("watchdog") => (Remedy::Watchdog, "the watchdog (200 ms, drop)".to_string()),
        Some("no-cycle") => (Remedy::NoCycle, "no f3 (no cycle), no remedy".to_string()),
        Some("transit") => {
            let ms = args.get(3).and_then(|t| t.parse().ok()).unwrap_or(200);
            (Remedy::Transit(ms), format!("a maximum transit delay of {ms} ms"))
        }
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    println!("36-7 ring on veth, f1 and f2 {rate} for 3 s, f3 {rate} for 1 s, {name}");
    println!(
        "run  f1+f2 last second Gb/s  f1+f2 whole run Gb/s  missing at hosts  frames discarded  \
         back after f3, ms"
    );
    let (mut last, mut whole, mut missing, mut costs, mut back) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for n in 1..=runs {
        let r = one(remedy, n);
        let after = r.recovered.map_or("never".to_string(), |d| d.as_millis().to_string());
        println!(
            "{n:>3}  {:>24.2}  {:>20.2}  {:>16}  {:>16}  {after:>16}",
            r.last, r.whole, r.missing, r.discarded
        );
        last.push(r.last);
        whole.push(r.whole);
        missing.push(r.missing as f64);
        costs.push(r.discarded as f64);
        if let Some(d) = r.recovered {
            back.push(d.as_millis() as f64);
        }
    }

    for (what, mut v) in [
        ("f1+f2 last second, Gb/s", last),
        ("f1+f2 whole run, Gb/s", whole),
        ("missing at hosts", missing),
        ("frames discarded", costs),
        ("back after f3's end, ms (runs that came back)", back),
    ] {
        if v.is_empty() {
            println!("{what}: none");
            continue;
        }
        v.sort_by(f64::total_cmp);
        println!("{what}: median {:.2}, range {:.2}-{:.2}", v[v.len() / 2], v[0], v[v.len() - 1]);
    }
}
