//! One port's task: a thread that owns the port's PFC MAC, receive buffer, headroom participant
//! and LLDP/DCBX agent, takes configuration intents, follows the clock, and publishes a snapshot
//! after every step. The link is simulated (dataplane's `TwoStation`: our port is station B,
//! the peer station A sends it lossless traffic; both ends run LLDP/DCBX, [`LinkLldp`]); an
//! AF_PACKET port would replace the simulation behind the same handle.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use dataplane::headroom::{BufferConfig, BufferPlan};
use dataplane::sim::{TwoStation, TwoStationConfig};
use dataplane::time::Picos;
use dataplane::wire::MacAddr;
use lldp::dcbx::HeadroomMethods;
use lldp::port::LocalSystem;
use lldp::wire::TimeInterval;
use tracing::{info, info_span};

use super::clock::SimClock;
use super::event::PortEvent;
use super::headroom::{allowance_for, Results};
use super::intent::{HeadroomMethod, PortIntent, PRIORITIES};
use super::lldp_link::{LinkLldp, LldpView, PeerLldp, Step};
use super::report;
use super::snapshot::{PortSnapshot, PrioritySnapshot, Published};

/// A simulated port: its name, the stations on its link, its receive buffer.
#[derive(Debug, Clone)]
pub struct SimPortSetup {
    pub name: String,
    pub stations: TwoStationConfig,
    /// Octets for the PFC-enabled priorities together.
    pub receive_buffer_size: u64,
    /// Most simulated time a port runs per tick, as a multiple of the tick's share: bounds the
    /// CPU a port can take when it has fallen behind.
    pub catch_up: u64,
    /// Our port's MAC address (LLDPDUs' source, DCBX's tie-break) and our system.
    pub mac: MacAddr,
    pub system: LocalSystem,
    /// The Delay our PFC Local Delay TLV advertises.
    pub local_delay: TimeInterval,
    /// The peer station's LLDP/DCBX.
    pub peer: PeerLldp,
    /// The peer sends traffic (and pauses ours). Without, the port only runs LLDP/DCBX and
    /// sleeps until its agents' next deadline.
    pub traffic: bool,
}

pub(super) enum Command {
    Apply(Box<PortIntent>),
    /// Discard the measurement's estimate and measure again (the measure-headroom RPC).
    Measure,
    /// Reset the counters (the clear-pfc-counters RPC).
    ClearCounters,
    Stop,
}

/// Drops on a lossless priority are reported at most this often.
const DROP_NOTICE_EVERY: Duration = Duration::from_secs(1);

/// The daemon's side of a port task.
#[derive(Debug)]
pub struct PortHandle {
    pub name: String,
    pub receive_buffer_size: u64,
    commands: mpsc::Sender<Command>,
    published: Published,
    thread: std::sync::Mutex<Option<JoinHandle<()>>>,
}

impl PortHandle {
    /// Starts the port's thread; its link carries traffic from the first `apply` on.
    pub fn spawn(
        setup: SimPortSetup,
        clock: SimClock,
        tick: Duration,
        events: mpsc::Sender<PortEvent>,
    ) -> std::io::Result<Self> {
        let mut port = SimPort::new(setup.clone(), events)?;
        let published = Published::new(port.snapshot());
        let (commands, rx) = mpsc::channel();
        let out = published.clone();
        let thread =
            std::thread::Builder::new().name(format!("port {}", setup.name)).spawn(move || {
                let _span = info_span!("port", name = %port.setup.name).entered();
                let share = Picos((tick.as_nanos() as f64 * 1000.0 * clock.ratio) as u64);
                // No traffic before the first configuration: the lab's lossless priorities
                // would drop until the stored configuration enabled PFC on them.
                let mut started_at = None;
                loop {
                    let wait = if setup.traffic { tick } else { port.lldp.next_wait() };
                    let mut dirty = true;
                    match rx.recv_timeout(wait) {
                        Ok(Command::Apply(intent)) => {
                            port.apply(*intent);
                            if started_at.is_none() && setup.traffic {
                                started_at = Some(clock.target());
                                port.sim.start();
                            }
                        }
                        Ok(Command::Measure) => port.measure(),
                        Ok(Command::ClearCounters) => port.clear_counters(),
                        Ok(Command::Stop) | Err(RecvTimeoutError::Disconnected) => {
                            if port.lldp.shutdown() {
                                info!("LLDP shutdown LLDPDU sent");
                            }
                            break;
                        }
                        Err(RecvTimeoutError::Timeout) => dirty = false,
                    }
                    let lldp = port.lldp.poll();
                    dirty |= lldp.changed;
                    port.follow_lldp(lldp);
                    if let Some(started_at) = started_at {
                        let target = clock.target().saturating_sub(started_at);
                        let limit = port.sim.now() + Picos(share.0.saturating_mul(setup.catch_up));
                        port.sim.advance_to(target.min(limit));
                        port.notice_drops();
                        dirty = true;
                    }
                    if dirty {
                        out.publish(port.snapshot());
                    }
                }
            })?;
        Ok(PortHandle {
            name: setup.name,
            receive_buffer_size: setup.receive_buffer_size,
            commands,
            published,
            thread: std::sync::Mutex::new(Some(thread)),
        })
    }

    /// A handle on a port thread started elsewhere in `ports` (a real port's).
    pub(super) fn from_parts(
        name: String,
        receive_buffer_size: u64,
        commands: mpsc::Sender<Command>,
        published: Published,
        thread: JoinHandle<()>,
    ) -> Self {
        PortHandle {
            name,
            receive_buffer_size,
            commands,
            published,
            thread: std::sync::Mutex::new(Some(thread)),
        }
    }

    /// Hands the port a new configuration; a stopped port ignores it.
    pub fn apply(&self, intent: PortIntent) {
        let _ = self.commands.send(Command::Apply(Box::new(intent)));
    }

    /// Measures the headroom again; a stopped port ignores it.
    pub fn measure(&self) {
        let _ = self.commands.send(Command::Measure);
    }

    /// Resets the port's counters; a stopped port ignores it.
    pub fn clear_counters(&self) {
        let _ = self.commands.send(Command::ClearCounters);
    }

    /// Where the port publishes its snapshots (for other tasks that follow it).
    pub fn published(&self) -> Published {
        self.published.clone()
    }

    /// The port's latest snapshot, without waiting for the port.
    pub fn snapshot(&self) -> std::sync::Arc<PortSnapshot> {
        self.published.read()
    }

    /// Stops the thread and waits for it.
    pub fn stop(&self) {
        let _ = self.commands.send(Command::Stop);
        let thread = self.thread.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        if let Some(t) = thread {
            let _ = t.join();
        }
    }
}

impl Drop for PortHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The port's state, owned by its thread.
struct SimPort {
    setup: SimPortSetup,
    sim: TwoStation,
    intent: PortIntent,
    lldp: LinkLldp,
    /// The latest view of the LLDP agents, renewed when something changed.
    lldp_view: std::sync::Arc<LldpView>,
    /// Operational PFC Enable at our end and at the peer's, as last given to the link.
    oper_pfc_enable: u8,
    peer_oper_pfc_enable: u8,
    /// The headroom methods DCBX agreed.
    agreed: HeadroomMethods,
    results: Results,
    allowance: dataplane::headroom::allowance::Allowance,
    events: mpsc::Sender<PortEvent>,
    /// The drop count last reported, and when.
    drops_reported: u64,
    drop_reported_at: Option<Instant>,
    /// When the counters were last reset: at start, or by clear-pfc-counters.
    discontinuity_time: SystemTime,
}

impl SimPort {
    fn new(setup: SimPortSetup, events: mpsc::Sender<PortEvent>) -> std::io::Result<Self> {
        let intent = PortIntent::default();
        let mut results = Results::default();
        let agreed = HeadroomMethods::default();
        let allowance = allowance_for(&setup.name, &intent, agreed, &setup.stations, &mut results);
        let mut sim = TwoStation::new(setup.stations.clone());
        sim.set_pfc_enable(intent.pfc_enable);
        sim.set_headroom(allowance.bits, None);
        let lldp = LinkLldp::new(
            &setup.name,
            setup.mac,
            setup.system.clone(),
            setup.local_delay,
            &setup.peer,
        )
        .map_err(std::io::Error::other)?;
        let peer_oper_pfc_enable = lldp.peer_oper_pfc_enable();
        sim.set_peer_pfc_enable(peer_oper_pfc_enable);
        Ok(SimPort {
            setup,
            sim,
            lldp_view: lldp.view(),
            lldp,
            oper_pfc_enable: intent.pfc_enable,
            peer_oper_pfc_enable,
            agreed,
            intent,
            results,
            allowance,
            events,
            drops_reported: 0,
            drop_reported_at: None,
            discontinuity_time: SystemTime::now(),
        })
    }

    /// The headroom method in force: the configured one, or what DCBX agreed.
    fn method_in_force(&self) -> HeadroomMethod {
        self.intent.method.in_force(self.agreed)
    }

    fn apply(&mut self, intent: PortIntent) {
        let before = self.method_in_force();
        self.intent = intent;
        if self.method_in_force() != before {
            // A method newly in force computes afresh (a new measurement, a new calculation).
            self.results = self.results.fresh();
        }
        let step = self.lldp.apply(&self.intent);
        self.follow_lldp(step);
        self.give_link_pfc_enable();
        self.reselect();
    }

    /// Reports the agents' events and follows DCBX: the operational PFC Enable at both ends
    /// and the headroom method it agreed.
    fn follow_lldp(&mut self, step: Step) {
        let lldp = &self.lldp;
        let (stats, view) = (|| lldp.remote_statistics(), || lldp.view());
        report::step(&self.setup.name, &step, stats, view, &self.events);
        if !step.changed {
            return;
        }
        self.lldp_view = self.lldp.view();
        self.give_link_pfc_enable();
        let agreed = self.lldp.agreed_headroom();
        if agreed != self.agreed {
            let before = self.method_in_force();
            self.agreed = agreed;
            if self.method_in_force() != before {
                info!(method = self.method_in_force().as_str(), "DCBX changed the headroom method");
                self.results = self.results.fresh();
                self.reselect();
            }
        }
    }

    /// Hands the link the operational PFC Enable of each end, where it changed.
    fn give_link_pfc_enable(&mut self) {
        let ours = self.lldp.oper_pfc_enable(self.intent.pfc_enable);
        let peer = self.lldp.peer_oper_pfc_enable();
        if (ours, peer) == (self.oper_pfc_enable, self.peer_oper_pfc_enable) {
            return;
        }
        info!(oper_pfc_enable = ours, peer_oper_pfc_enable = peer, "operational PFC Enable");
        self.oper_pfc_enable = ours;
        self.peer_oper_pfc_enable = peer;
        self.sim.set_pfc_enable(ours);
        self.sim.set_peer_pfc_enable(peer);
    }

    fn clear_counters(&mut self) {
        self.sim.clear_b_counters();
        self.results.counters = Default::default();
        self.drops_reported = 0;
        self.discontinuity_time = SystemTime::now();
    }

    fn measure(&mut self) {
        self.results.round_trip_quanta = None;
        self.results.measurement_bits = None;
        self.results.measurement_lines = None;
        self.reselect();
    }

    /// Selects the allowance again and resizes the buffer for it.
    fn reselect(&mut self) {
        let allowance = allowance_for(
            &self.setup.name,
            &self.intent,
            self.agreed,
            &self.setup.stations,
            &mut self.results,
        );
        let priority = usize::from(self.setup.stations.priority);
        self.sim.set_headroom(allowance.bits, self.intent.buffer_allocation_octets[priority]);
        if allowance != self.allowance {
            info!(allowance = %allowance, "allowance in force changed");
            let _ = self.events.send(PortEvent::AllowanceChanged {
                port: self.setup.name.clone(),
                old: self.allowance,
                new: allowance,
            });
        }
        self.allowance = allowance;
    }

    /// Reports new drops on the lossless priority while PFC is enabled on it.
    fn notice_drops(&mut self) {
        let priority = self.setup.stations.priority;
        let dropped = self.sim.b_buffer().counters.frames_dropped;
        let due = self.drop_reported_at.is_none_or(|t| t.elapsed() >= DROP_NOTICE_EVERY);
        let lossless = self.oper_pfc_enable & (1 << priority) != 0;
        if dropped > self.drops_reported && due && lossless {
            self.drops_reported = dropped;
            self.drop_reported_at = Some(Instant::now());
            let _ = self.events.send(PortEvent::LosslessDrop {
                port: self.setup.name.clone(),
                priority,
                frames_dropped: dropped,
                allowance: self.allowance,
            });
        }
    }

    fn snapshot(&self) -> PortSnapshot {
        let now = self.sim.now();
        let tx = &self.sim.b_initiator().counters;
        let rx_mac = self.sim.b_receiver();
        let rx = &rx_mac.counters;
        let traffic = usize::from(self.setup.stations.priority);
        let max_frame = self.setup.stations.max_frame_octets() + dataplane::time::FCS_OCTETS;
        let mut priorities = [PrioritySnapshot::default(); PRIORITIES];
        for (n, p) in priorities.iter_mut().enumerate() {
            if self.oper_pfc_enable & (1 << n) != 0 {
                let config = BufferConfig {
                    max_frame_octets: max_frame,
                    allocation_octets: self.intent.buffer_allocation_octets[n],
                    xon_hysteresis_octets: None,
                };
                if let Ok(plan) = BufferPlan::new(self.allowance.bits, &config) {
                    p.allocation = plan.allocation_octets;
                    p.xoff_threshold = plan.xoff_octets;
                    p.xon_threshold = plan.xon_octets;
                }
            }
            if n == traffic {
                let b = self.sim.b_buffer();
                p.allocation = b.allocation();
                p.xoff_threshold = b.xoff_threshold();
                p.xon_threshold = b.xon_threshold();
                p.occupancy = b.occupancy();
                p.peak_occupancy = b.counters.peak_occupancy;
                p.xoff = b.xoff();
                p.xoff_events = b.counters.xoff_events;
                p.frames_accepted = b.counters.frames_accepted;
                p.frames_dropped = b.counters.frames_dropped;
                p.octets_dropped = b.counters.octets_dropped;
            }
            p.priority_paused = rx_mac.priority_paused(now, n);
            p.pause_time_remaining = if p.priority_paused {
                self.setup.stations.speed.quanta_in_ceil(rx_mac.paused_until(n).saturating_sub(now))
            } else {
                0
            };
            p.pfc_requests = tx.pfc_requests_per_priority[n];
            p.xon_sent = tx.xon_sent_per_priority[n];
            p.pfc_indications = rx.pfc_indications_per_priority[n];
        }
        PortSnapshot {
            name: self.setup.name.clone(),
            intent: self.intent.clone(),
            oper_pfc_enable: self.oper_pfc_enable,
            peer_oper_pfc_enable: self.peer_oper_pfc_enable,
            method_in_force: self.method_in_force(),
            lldp: self.lldp_view.clone(),
            speed: self.setup.stations.speed,
            allowance: self.allowance,
            results: self.results.clone(),
            receive_buffer_size: self.setup.receive_buffer_size,
            pfc_requests: tx.pfc_requests,
            pfc_indications: rx.pfc_indications,
            pause_frames_sent: tx.pause_frames_sent,
            pause_frames_received: rx.pause_frames_received,
            pause_frames_ignored: rx.pause_frames_ignored,
            pfc_frames_ignored: rx.pfc_frames_ignored,
            mac_control_discarded: rx.mac_control_discarded,
            priorities,
            discontinuity_time: self.discontinuity_time,
            simulated_time: now,
        }
    }
}
