//! `pfcsim bench-watchdog`: B's PFC watchdog over many peer storms in simulated time, each on
//! a link of its own with a random speed, cable, frame lengths, start offsets and storm start
//! (so the storm meets the bridge's frames at every phase): the detection error against the
//! configured time (p50 / p99 / worst), and what the watchdog costs the simulation (events per
//! storm and simulated seconds per CPU second, with and without it, on the same storms).

use std::process::ExitCode;

use dataplane::sim::{EgressConfig, Medium, SimRng, StationDelays, TwoStationConfig};
use dataplane::time::{LinkSpeed, Picos};
use dataplane::watchdog::{Action, ClassConfig, WatchdogSetup, CLASSES};
use pfcsim::{run_storms, Storm, StormResult, WatchPlan};

/// One storm's link, traffic and storm, drawn from `rng`.
fn draw(rng: &mut SimRng, n: u64, detection: Picos) -> (TwoStationConfig, WatchPlan) {
    let speed = LinkSpeed::ALL[rng.below(LinkSpeed::ALL.len() as u64) as usize];
    let mut cfg = TwoStationConfig::annex_n(0, rng.next_u64() ^ n);
    cfg.speed = speed;
    cfg.link_metres = rng.between(1, 10_000);
    cfg.medium = Medium::Fibre;
    cfg.delays = StationDelays::for_link(speed, Medium::Fibre);
    cfg.frame_len = rng.between(60, 9_216) as u32;
    cfg.reverse_frame_len = Some(rng.between(60, 9_216) as u32);
    cfg.headroom_bits = 8 * 2 * 9_216 + cfg.speed.bits_in(cfg.round_trip());
    // B never drains: PFC holds A for good, so A's lossless traffic costs few events and the
    // storm's cost is the watchdog's and the peer's.
    cfg.drain_percent = 0;
    let class = rng.below(8) as usize;
    let every = rng.between(2, 64);
    let len = u64::from(cfg.reverse_frame_len.unwrap_or(cfg.frame_len));
    let interval = cfg.speed.frame_time(len) * every;
    // The storm starts after 10 us at any phase of the bridge's frames and lasts 1 ms past its
    // detection and the wait for a frame to queue under it (up to one interval: 4.7 ms at 1G);
    // the run ends when the class must have been restored (the restoration time after the
    // peer's last pause, sent before the storm's end).
    let start = Picos::from_us(10) + Picos(rng.below(interval.as_ps() * 8));
    let end = start + detection + interval + Picos::from_ms(1);
    cfg.duration = end + detection + Picos::from_ms(1);
    let plan = WatchPlan {
        pfc_enable: 1 << class | 1 << cfg.priority,
        egress: EgressConfig { priorities: 1 << class, interval, limit: 64 },
        // The watchdog is set per run (drop, alert, none).
        watchdog: Some(WatchdogSetup::default()),
        storms: vec![Storm { class, start, end }],
    };
    (cfg, plan)
}

/// CPU time this thread has used: the first field of its schedstat, nanoseconds.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn percentile(sorted: &[i64], p: usize) -> i64 {
    sorted[(sorted.len() * p / 100).min(sorted.len() - 1)]
}

fn figures(name: &str, mut errors: Vec<i64>) -> String {
    errors.sort_unstable();
    let ns = |ps: i64| format!("{:.3}", ps as f64 / 1000.0);
    format!(
        "{name}: p50 {} / p99 {} / worst {} ns",
        ns(percentile(&errors, 50)),
        ns(percentile(&errors, 99)),
        ns(*errors.last().unwrap_or(&0))
    )
}

pub fn run(storms: u64, detection_ms: u64, seed: u64) -> ExitCode {
    let detection = Picos::from_ms(detection_ms);
    let mut rng = SimRng::new(seed);
    let drawn: Vec<_> = (0..storms).map(|n| draw(&mut rng, n, detection)).collect();
    let mut held = Vec::new();
    let mut began = Vec::new();
    let mut failed = 0;
    let simulated: u64 = drawn.iter().map(|(c, _)| c.duration.as_ps()).sum();
    // The same storms with the watchdog as configured (drop), alerting only (the same traffic
    // as without one: the difference is the watchdog's own wake-ups), and without it.
    let cost = |watchdog: Option<WatchdogSetup>| {
        let t0 = cpu_ns();
        let mut events = 0;
        let mut results: Vec<StormResult> = Vec::new();
        for (cfg, plan) in &drawn {
            let plan = WatchPlan { watchdog: plan.watchdog.and(watchdog), ..plan.clone() };
            let (_, storms, ran) = run_storms(cfg.clone(), &plan);
            events += ran;
            results.extend(storms);
        }
        let cpu = (cpu_ns() - t0).max(1);
        (events / storms.max(1), simulated as f64 / 1e12 / (cpu as f64 / 1e9), results)
    };
    let drop = ClassConfig { detection, restoration: detection, ..ClassConfig::default() };
    let alert = ClassConfig { action: Action::Alert, ..drop };
    let setup = |c: ClassConfig| WatchdogSetup { classes: [c; CLASSES], ignore_link_pause: false };
    let (events_drop, rate_drop, results) = cost(Some(setup(drop)));
    for s in &results {
        let checked = s.restored_ns.is_some() && s.hold_began_ns >= s.storm_began_ns;
        match (s.detection_error_ps, s.after_storm_began_ps, checked) {
            (Some(h), Some(b), true) => {
                held.push(h);
                began.push(b);
            }
            _ => failed += 1,
        }
    }
    let (events_alert, rate_alert, _) = cost(Some(setup(alert)));
    let (events_off, rate_off, _) = cost(None);
    println!(
        "{storms} storms, detection and restoration {detection_ms} ms, 1-400G, 1 m-10 km, \
         frames 60-9216 octets, seed {seed}"
    );
    if held.is_empty() {
        println!("no storm was detected and restored");
        return ExitCode::FAILURE;
    }
    println!("{}", figures("detection error from the hold (frames waiting under the pause)", held));
    println!(
        "{}",
        figures("from the peer's first pause applied (adds the wait for a frame)", began)
    );
    println!("storms not detected and restored: {failed}");
    println!(
        "events per storm / simulated s per CPU s: drop {events_drop} / {rate_drop:.1}, \
         alert {events_alert} / {rate_alert:.1}, no watchdog {events_off} / {rate_off:.1}"
    );
    if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
