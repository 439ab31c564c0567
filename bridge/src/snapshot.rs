//! The bridge's state as the loop last published it: per port counters, buffer occupancy,
//! XOFF and pause state, pause reaction figures and the pipeline's per-class view.

use std::time::Duration;

use serde::Serialize;

use dataplane::headroom::measure::{MeasureCounters, Measurement};
use dataplane::headroom::BufferPlan;
use dataplane::mac::MacCounters;
use dataplane::pipeline::FsmState;
use dataplane::sim::IngressCounters;
use dataplane::wire::PRIORITIES;

use super::forward::Forwarder;
use super::port::{BridgePort, PortCounters};

#[derive(Debug, Clone, Default, Serialize)]
pub struct BridgeSnapshot {
    pub ports: Vec<PortSnapshot>,
    pub fdb_entries: usize,
    pub fdb_not_learned: u64,
    /// Static filtering entries in force (one per VLAN and address).
    pub fdb_static_entries: usize,
    /// Frames from a static address on a port its entry does not forward through: not
    /// learned from.
    pub fdb_static_not_moved: u64,
    /// Frames stored in the bridge now (waiting, in the pipeline, in external memory).
    pub frames_in_bridge: usize,
    /// Frames the pipeline sent, in external memory now, flushed back, recycled: its statistics.
    pub pipeline_departed: u64,
    pub pipeline_recycled: u64,
    pub pipeline_flushed: u64,
    pub pipeline_order_violations: u64,
    pub external_fifo_peak: usize,
    /// The pipeline's own view (for pfcd-pipeline's state).
    #[serde(skip)]
    pub pipeline: Option<std::sync::Arc<dataplane::pipeline::PipelineSnapshot>>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct PortSnapshot {
    pub name: String,
    /// The interface is up with carrier and the port's socket works (`links.rs`).
    pub link_up: bool,
    /// The port's MAC address (its interface's, as last seen).
    pub mac: String,
    pub pfc_enable: u8,
    /// The traffic class of each priority on transmit.
    pub traffic_class: [u8; PRIORITIES],
    #[serde(flatten)]
    pub counters: PortCounters,
    /// Where received frames wait for the bridge: "ring" (a receive ring of `rx_ring_slots`
    /// frames, counted exactly) or "socket" (the socket's queue: no ring on the interface, or
    /// none asked for).
    pub receive_path: &'static str,
    pub rx_ring_slots: usize,
    /// How frames leave: "ring" (an `AF_XDP` transmit ring, copy mode; frames longer than
    /// its chunks through the socket) or "socket" (`sendmmsg`: the kernel or the interface
    /// refused a ring, said in the log).
    pub transmit_path: &'static str,
    /// Receive buffer occupancy and its peak per priority, octets.
    pub occupancy: [u64; PRIORITIES],
    pub occupancy_peak: [u64; PRIORITIES],
    /// XOFF asserted towards the peer (bit n), and priorities the peer holds paused (bit n,
    /// the model's `priority-paused`).
    pub xoff: u8,
    pub priority_paused: u8,
    /// Pause reaction from the PFC frame's kernel arrival to the start of the last send of
    /// the priority after it: pauses, p50, p99, worst, in microseconds; and how many pauses
    /// had such a send.
    pub reaction_samples: usize,
    pub reaction_p50_us: f64,
    pub reaction_p99_us: f64,
    pub reaction_max_us: f64,
    pub reaction_late_pauses: usize,
    /// The same from the PFC receiver's indication (36.3.3's measure: at most 0.6144 µs).
    pub indication_reaction_p99_us: f64,
    pub indication_reaction_max_us: f64,
    pub indication_late_pauses: usize,
    /// The allowance in force (bits) and where it came from, in the model's words
    /// (`allowance-in-force`, `allowance-source`: "link-delay-allowance", the configured
    /// allowance, or "measurement-result"), the measured round trip (pause quanta) and the
    /// measurement's exchanges.
    pub allowance_in_force: u64,
    pub allowance_source: &'static str,
    pub measured_round_trip_quanta: Option<u32>,
    pub hmpdus_sent: u64,
    /// From an HMPDU's timestamp to the driver (median of the last transmit timestamps): what
    /// our send path adds to a measured round trip; 0 without transmit timestamps.
    pub hmpdu_handover_ns: u64,
    pub hmpdus_processed: u64,
    pub measurement_results: u64,
    /// Measurements started on the port (each one's results replace the last's).
    pub measure_generation: u64,
    /// Per priority: the Pause FSM state and the external FIFO depth of the transmit side.
    pub fsm: Vec<String>,
    pub external_depth: [usize; PRIORITIES],
    /// Per priority: frames waiting at QMAN (a halted class's frames wait here).
    pub qman_backlog: [u64; PRIORITIES],
    /// Copies of lossy frames refused because their egress port held its share of this port's
    /// lossy pool (so that one stopped port cannot take the whole pool).
    pub lossy_share_drops: u64,
    /// The PFC watchdog, per priority and the link pause.
    pub watchdog: Vec<super::watchdog::WatchdogClassSnapshot>,
    /// What pfcd's port task reads beyond the counters.
    #[serde(skip)]
    pub detail: PortDetail,
}

/// A port's MAC and buffer state in full, for pfcd's port task.
#[derive(Debug, Clone, Default)]
pub struct PortDetail {
    pub priorities: [PriorityDetail; PRIORITIES],
    /// Our PFC receiver's and initiator's counters.
    pub received: MacCounters,
    pub sent: MacCounters,
    pub measure_counters: Option<MeasureCounters>,
    pub measurement_results: Vec<Measurement>,
}

/// One priority of a port.
#[derive(Debug, Clone, Copy, Default)]
pub struct PriorityDetail {
    /// The buffer plan (PFC-enabled priorities), octets.
    pub plan: Option<BufferPlan>,
    pub occupancy: u64,
    pub xoff: bool,
    /// Frames accepted and dropped, the peak, XOFF crossings: what a simulated buffer counts.
    pub counters: IngressCounters,
    /// Priority_Paused, and the quanta the pause has left.
    pub paused: bool,
    pub pause_quanta_left: u64,
    /// How long the peer has held the priority paused in all, since the counters were cleared.
    pub time_paused: Duration,
}

impl BridgeSnapshot {
    pub fn take<P>(ports: &[BridgePort<P>], fwd: &Forwarder) -> Self {
        let mut reactions = Vec::with_capacity(ports.len());
        let traffic_classes = ports.iter().map(|p| p.setup.traffic_class).collect();
        let now = fwd.engine.now();
        let stats = fwd.engine.stats();
        let pipeline =
            with_socket_backlog(dataplane::pipeline::PipelineSnapshot::of(&fwd.engine), ports, fwd);
        let ports = ports
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let arrival = Percentiles::of(p.reaction.from_arrival());
                let indication = Percentiles::of(p.reaction.from_indication());
                reactions.push(pause_reaction(&arrival, &indication));
                let views: Vec<_> = (0..PRIORITIES).map(|n| fwd.engine.class_view(i, n)).collect();
                PortSnapshot {
                    name: p.setup.name.clone(),
                    link_up: p.link_up,
                    mac: p.mac.to_string(),
                    receive_path: if p.rx_ring_slots > 0 { "ring" } else { "socket" },
                    rx_ring_slots: p.rx_ring_slots,
                    transmit_path: if p.tx_ring { "ring" } else { "socket" },
                    allowance_in_force: p.headroom_bits,
                    allowance_source: if p.headroom_measured {
                        "measurement-result"
                    } else {
                        "link-delay-allowance"
                    },
                    measured_round_trip_quanta: p
                        .measure
                        .as_ref()
                        .and_then(|m| m.round_trip_quanta()),
                    hmpdus_sent: p.measure.as_ref().map_or(0, |m| m.counters().hmpdus_sent),
                    hmpdu_handover_ns: p.handover.median_ns(),
                    hmpdus_processed: p
                        .measure
                        .as_ref()
                        .map_or(0, |m| m.counters().hmpdus_processed),
                    measure_generation: p.measure_generation,
                    measurement_results: p
                        .measure
                        .as_ref()
                        .map_or(0, |m| m.counters().responses_received),
                    pfc_enable: p.setup.pfc_enable,
                    traffic_class: p.setup.traffic_class,
                    counters: p.counters.clone(),
                    occupancy: std::array::from_fn(|n| p.ingress.occupancy(n)),
                    occupancy_peak: p.ingress.peak,
                    xoff: p.xoff(),
                    priority_paused: p.receiver.paused_vector(now),
                    reaction_samples: arrival.sorted.len(),
                    reaction_p50_us: micros(arrival.at(0.5)),
                    reaction_p99_us: micros(arrival.at(0.99)),
                    reaction_max_us: micros(arrival.at(1.0)),
                    reaction_late_pauses: arrival.nonzero(),
                    indication_reaction_p99_us: micros(indication.at(0.99)),
                    indication_reaction_max_us: micros(indication.at(1.0)),
                    indication_late_pauses: indication.nonzero(),
                    fsm: views
                        .iter()
                        .map(|v| fsm_name(v.map_or(FsmState::Idle, |v| v.fsm)).to_string())
                        .collect(),
                    qman_backlog: std::array::from_fn(|n| fwd.engine.backlog(i, n)),
                    detail: detail(p, now),
                    watchdog: super::watchdog::snapshot(p),
                    lossy_share_drops: p.ingress.share_drops,
                    external_depth: std::array::from_fn(|n| {
                        views[n].map_or(0, |v| v.external_depth)
                    }),
                }
            })
            .collect();
        BridgeSnapshot {
            ports,
            fdb_entries: fwd.fdb.len(),
            fdb_not_learned: fwd.fdb.not_learned,
            fdb_static_entries: fwd.fdb.static_len(),
            fdb_static_not_moved: fwd.fdb.static_not_moved,
            frames_in_bridge: fwd.store.in_use(),
            pipeline_departed: stats.departed,
            pipeline_recycled: stats.recycled_by_nti + stats.returned_by_mac,
            pipeline_flushed: stats.flushed,
            pipeline_order_violations: stats.order_violations,
            external_fifo_peak: stats.external_fifo_peak,
            pipeline: Some(std::sync::Arc::new(dataplane::pipeline::PipelineSnapshot {
                reactions,
                traffic_classes,
                ..pipeline
            })),
        }
    }
}

/// On real interfaces the wire begins at the socket: the frames the pipeline sent that wait
/// for their port's socket (one slower than the pipeline's speed, a qdisc that limits it) are
/// still in flight, and counted in their class's `inflight`, so that a port that drains slower
/// than it is fed shows frames waiting to leave.
fn with_socket_backlog<P>(
    mut pipeline: dataplane::pipeline::PipelineSnapshot,
    ports: &[BridgePort<P>],
    fwd: &Forwarder,
) -> dataplane::pipeline::PipelineSnapshot {
    for (row, port) in pipeline.classes.iter_mut().zip(ports) {
        for handle in &port.tx_backlog {
            let n = super::transmit::frame_priority(fwd, *handle);
            if let Some(class) = row[n].as_mut() {
                class.inflight = class.inflight.saturating_add(1);
            }
        }
    }
    pipeline
}

fn fsm_name(s: FsmState) -> &'static str {
    match s {
        FsmState::Idle => "idle",
        FsmState::WaitHaltAck => "wait-halt-ack",
        FsmState::PipeClean => "pipe-clean",
        FsmState::Flushing => "flushing",
    }
}

/// A port's detail at engine time `now`.
fn detail<P>(p: &BridgePort<P>, now: dataplane::time::Picos) -> PortDetail {
    let b = &p.ingress;
    let rx = &p.receiver;
    let speed_quanta = |t: dataplane::time::Picos| p.initiator_speed().quanta_in_ceil(t);
    PortDetail {
        priorities: std::array::from_fn(|n| {
            let paused = rx.priority_paused(now, n);
            PriorityDetail {
                plan: b.plan(n),
                occupancy: b.occupancy(n),
                // What the port asks of its peer: its buffer past XOFF, or its receive ring (part
                // of the buffer) an eighth full.
                xoff: p.xoff() & (1 << n) != 0,
                counters: IngressCounters {
                    frames_accepted: b.accepted[n],
                    frames_dropped: b.dropped[n],
                    octets_dropped: b.octets_dropped[n],
                    peak_occupancy: b.peak[n],
                    xoff_events: b.xoff_events[n],
                },
                paused,
                pause_quanta_left: if paused {
                    speed_quanta(rx.paused_until(n).saturating_sub(now))
                } else {
                    0
                },
                time_paused: Duration::from_nanos(rx.time_paused(now, n).as_ns()),
            }
        }),
        received: rx.counters.clone(),
        sent: p.initiator.counters.clone(),
        measure_counters: p.measure.as_ref().map(|m| *m.counters()),
        measurement_results: p.results.iter().cloned().collect(),
    }
}

/// Reaction samples, sorted.
struct Percentiles {
    sorted: Vec<Duration>,
}

impl Percentiles {
    fn of(samples: impl Iterator<Item = Duration>) -> Self {
        let mut sorted: Vec<Duration> = samples.collect();
        sorted.sort_unstable();
        Percentiles { sorted }
    }

    /// The `q` quantile (nearest rank); 0 without samples.
    fn at(&self, q: f64) -> Duration {
        if self.sorted.is_empty() {
            return Duration::ZERO;
        }
        self.sorted[((self.sorted.len() - 1) as f64 * q).round() as usize]
    }

    /// Samples above zero.
    fn nonzero(&self) -> usize {
        self.sorted.iter().filter(|d| !d.is_zero()).count()
    }
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// A port's pause reaction for pfcd-pipeline's state, from its samples from the arrival and
/// from the indication.
fn pause_reaction(
    arrival: &Percentiles,
    indication: &Percentiles,
) -> dataplane::pipeline::PauseReaction {
    let ns = |d: Duration| d.as_nanos() as u64;
    dataplane::pipeline::PauseReaction {
        pauses: arrival.sorted.len() as u64,
        late_after_indication: indication.nonzero() as u64,
        indication_max_ns: ns(indication.at(1.0)),
        late_after_arrival: arrival.nonzero() as u64,
        arrival_p50_ns: ns(arrival.at(0.5)),
        arrival_p99_ns: ns(arrival.at(0.99)),
        arrival_max_ns: ns(arrival.at(1.0)),
    }
}
