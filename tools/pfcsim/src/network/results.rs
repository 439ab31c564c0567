//! What `pfcsim network` reports: per flow, per link direction and priority, per bridge port,
//! the deadlocks and congestion trees seen, the watchdog's events. JSON is the acceptance
//! surface; [`table`] prints the same for a reader.

use std::fmt::Write;

use dataplane::time::Picos;
use dataplane::watchdog;
use serde::Serialize;

use super::observe::{DeadlockSeen, TreeSeen};
use super::port::Drops;
use super::sim::Sim;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlowResult {
    pub name: String,
    pub priority: u8,
    /// Frames the source generated, and of those the ones its host could not queue (the host
    /// was held paused): not sent, not lost.
    pub offered_frames: u64,
    pub held_back_frames: u64,
    pub delivered_frames: u64,
    pub lost_frames: Drops,
    /// Delivered over the whole run.
    pub throughput_gbps: f64,
    /// Delivered per window of `window_us`.
    pub windows_gbps: Vec<f64>,
    pub latency_p50_us: Option<f64>,
    pub latency_p99_us: Option<f64>,
    pub latency_max_us: Option<f64>,
    /// Time the source's own port was held paused on the flow's priority.
    pub paused_us: f64,
    pub last_delivery_us: Option<f64>,
}

/// One direction of a link on one priority: `egress` sends to `peer`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkResult {
    pub egress: String,
    pub peer: String,
    pub priority: u8,
    /// Time `egress` was held paused by `peer`'s PFC.
    pub paused_us: f64,
    /// PFC frames `peer` sent naming the priority (XOFF and XON).
    pub pause_frames_sent: u64,
}

/// A bridge port's receive buffer and what it discarded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PortResult {
    pub port: String,
    pub headroom_bits: u64,
    pub buffer_octets: Option<u64>,
    pub xoff_octets: Option<u64>,
    pub peak_occupancy_octets: u64,
    pub drops: Drops,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WatchdogResult {
    pub port: String,
    /// `detected` or `restored`.
    pub event: String,
    pub priority: usize,
    pub at_us: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NetworkResults {
    pub name: String,
    pub description: String,
    pub duration_us: u64,
    pub window_us: u64,
    pub flows: Vec<FlowResult>,
    pub links: Vec<LinkResult>,
    pub ports: Vec<PortResult>,
    pub deadlocks: Vec<DeadlockSeen>,
    pub congestion_trees: Vec<TreeSeen>,
    pub watchdog_events: Vec<WatchdogResult>,
    /// Frames discarded in the bridges by the watchdog and by the maximum transit delay.
    pub remedy_discards: u64,
    /// Events the simulation ran (its cost).
    pub events: u64,
}

fn us(t: Picos) -> f64 {
    t.as_ps() as f64 / 1e6
}

fn percentile(sorted: &[u64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1] as f64 / 1e3)
}

fn gbps(octets: u64, t: Picos) -> f64 {
    if t == Picos::ZERO {
        0.0
    } else {
        octets as f64 * 8.0 / (t.as_ps() as f64 / 1e3)
    }
}

impl NetworkResults {
    pub(super) fn from_sim(
        sim: &mut Sim,
        name: &str,
        description: &str,
        duration: Picos,
        window: Picos,
    ) -> Self {
        let topo = &sim.topo;
        let port_name = |p: usize| {
            let info = &topo.ports[p];
            format!("{}:{}", topo.nodes[info.node].name, info.name)
        };
        let mut flows = Vec::new();
        for (f, stats) in sim.flows.iter_mut().enumerate() {
            let info = &topo.flows[f];
            stats.latencies_ns.sort_unstable();
            let n = usize::from(info.priority);
            let source = info.hops[0].2;
            flows.push(FlowResult {
                name: info.name.clone(),
                priority: info.priority,
                offered_frames: stats.offered,
                held_back_frames: stats.held_back,
                delivered_frames: stats.delivered,
                lost_frames: stats.lost,
                throughput_gbps: gbps(stats.delivered_octets, duration),
                windows_gbps: stats.window_octets.iter().map(|o| gbps(*o, window)).collect(),
                latency_p50_us: percentile(&stats.latencies_ns, 50.0),
                latency_p99_us: percentile(&stats.latencies_ns, 99.0),
                latency_max_us: stats.latencies_ns.last().map(|l| *l as f64 / 1e3),
                paused_us: source.map_or(0.0, |p| us(sim.ports[p].paused[n].total_to(duration))),
                last_delivery_us: stats.last_delivery.map(us),
            });
        }
        let used: u8 = topo.flows.iter().fold(0, |m, f| m | (1 << f.priority));
        let mut links = Vec::new();
        for (p, info) in topo.ports.iter().enumerate() {
            let Some(peer) = info.peer else { continue };
            for n in (0..8).filter(|n| used & (1 << n) != 0) {
                links.push(LinkResult {
                    egress: port_name(p),
                    peer: port_name(peer),
                    priority: n as u8,
                    paused_us: us(sim.ports[p].paused[n].total_to(duration)),
                    pause_frames_sent: sim.ports[peer].tx.counters.pfc_requests_per_priority[n],
                });
            }
        }
        let mut ports = Vec::new();
        for (p, info) in topo.ports.iter().enumerate() {
            if topo.nodes[info.node].host {
                continue;
            }
            let peak = sim.ports[p].ingress.iter().flatten().map(|b| b.counters.peak_occupancy);
            ports.push(PortResult {
                port: port_name(p),
                headroom_bits: info.headroom_bits,
                buffer_octets: info.plan.as_ref().map(|b| b.allocation_octets),
                xoff_octets: info.plan.as_ref().map(|b| b.xoff_octets),
                peak_occupancy_octets: peak.max().unwrap_or(0),
                drops: sim.ports[p].drops,
            });
        }
        let watchdog_events = sim
            .watchdog_events
            .iter()
            .map(|r| {
                let (event, class, at) = match r.event {
                    watchdog::Event::StormDetected { class, at, .. } => ("detected", class, at),
                    watchdog::Event::Restored { class, at, .. } => ("restored", class, at),
                };
                WatchdogResult {
                    port: port_name(r.port),
                    event: event.to_string(),
                    priority: class,
                    at_us: us(at),
                }
            })
            .collect();
        let remedy_discards = sim.ports.iter().map(|p| p.drops.watchdog + p.drops.transit).sum();
        NetworkResults {
            name: name.to_string(),
            description: description.to_string(),
            duration_us: duration.as_ps() / 1_000_000,
            window_us: window.as_ps() / 1_000_000,
            flows,
            links,
            ports,
            deadlocks: sim.observer.deadlocks(),
            congestion_trees: sim.observer.trees(&sim.topo),
            watchdog_events,
            remedy_discards,
            events: sim.events_run,
        }
    }
}

fn opt(v: Option<f64>) -> String {
    v.map_or("-".to_string(), |v| format!("{v:.1}"))
}

/// The results as text for a reader.
pub fn table(r: &NetworkResults) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{} ({} us)", r.name, r.duration_us);
    let _ = writeln!(
        s,
        "{:<12} {:>4} {:>9} {:>9} {:>7} {:>9} {:>9} {:>10}",
        "flow", "prio", "Gb/s", "delivered", "lost", "p50 us", "p99 us", "paused us"
    );
    for f in &r.flows {
        let lost = f.lost_frames.buffer + f.lost_frames.watchdog + f.lost_frames.transit;
        let _ = writeln!(
            s,
            "{:<12} {:>4} {:>9.3} {:>9} {:>7} {:>9} {:>9} {:>10.1}",
            f.name,
            f.priority,
            f.throughput_gbps,
            f.delivered_frames,
            lost,
            opt(f.latency_p50_us),
            opt(f.latency_p99_us),
            f.paused_us
        );
    }
    let _ = writeln!(s, "links paused (egress -> peer, priority: paused us, PFC frames):");
    for l in r.links.iter().filter(|l| l.paused_us > 0.0) {
        let _ = writeln!(
            s,
            "  {} -> {}, {}: {:.1} us, {}",
            l.egress, l.peer, l.priority, l.paused_us, l.pause_frames_sent
        );
    }
    for d in &r.deadlocks {
        let cycle: Vec<String> =
            d.cycle.iter().map(|h| format!("{} -> {}", h.egress, h.ingress)).collect();
        let _ = writeln!(
            s,
            "deadlock on priority {}: {}; closed at {:.1} us, first seen {:.1} us, broken at {}",
            d.priority,
            cycle.join(", "),
            d.closed_at_us,
            d.first_seen_us,
            opt(d.broken_at_us)
        );
    }
    for t in &r.congestion_trees {
        let victims: Vec<&str> = t.victims.iter().map(String::as_str).collect();
        let _ = writeln!(
            s,
            "congestion tree on priority {} from {}: {} paused ports, victims [{}]",
            t.priority,
            t.root,
            t.paused.len(),
            victims.join(", ")
        );
    }
    let _ = writeln!(s, "frames discarded by remedies: {}", r.remedy_discards);
    s
}
