//! A port on a real interface: the same handle, intents and snapshots as a simulated port, but
//! the MAC, buffers and measurement are the bridge's (`crate::bridge`), driven by the wall
//! clock, and LLDP/DCBX talks to whatever station is on the wire (`real_lldp.rs`). The task
//! decides what the bridge port runs (operational PFC Enable, allowance in force, whether to
//! measure) and publishes what the bridge reports.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use dataplane::headroom::allowance::Allowance;
use dataplane::headroom::{measured_headroom, WorstCase};
use dataplane::time::{LinkSpeed, Picos};
use lldp::dcbx::HeadroomMethods;
use lldp::port::LocalSystem;
use lldp::wire::TimeInterval;
use tracing::{info, info_span, warn};

use super::event::PortEvent;
use super::headroom::{select_allowance, HistoryEntry, Results, HISTORY};
use super::intent::{mixed_classes, priority_list, HeadroomMethod, PortIntent, PRIORITIES};
use super::lldp_link::{LldpView, Step};
use super::real_lldp::RealLldp;
use super::report;
use super::snapshot::{PortSnapshot, PrioritySnapshot, Published};
use super::task::{Command, PortHandle};
use crate::bridge::control::Control;
use crate::bridge::port::PortControl;
use crate::bridge::Bridge;

/// How often the task looks at the bridge and the LLDP socket when nothing else wakes it.
const TICK: Duration = Duration::from_millis(50);
/// Drops on a lossless priority are reported at most this often.
const DROP_NOTICE_EVERY: Duration = Duration::from_secs(1);
/// The largest frame the buffers are planned for, octets with FCS (Annex N's envelope).
const MAX_FRAME_OCTETS: u64 = 2_000;

/// A real port: which bridge port it is and what it is.
#[derive(Debug, Clone)]
pub struct RealPortSetup {
    pub name: String,
    /// Its index among the bridge's ports.
    pub index: usize,
    pub speed: LinkSpeed,
    /// Octets for the PFC-enabled priorities together (what an allowance must fit).
    pub receive_buffer_size: u64,
    pub system: LocalSystem,
    /// The Delay our PFC Local Delay TLV advertises.
    pub local_delay: TimeInterval,
}

impl PortHandle {
    /// Starts a real port's task over bridge port `setup.index`.
    pub fn spawn_real(
        setup: RealPortSetup,
        bridge: Arc<Bridge>,
        events: mpsc::Sender<PortEvent>,
    ) -> std::io::Result<Self> {
        let lldp = RealLldp::open(&setup.name, setup.system.clone(), setup.local_delay)
            .map_err(std::io::Error::other)?;
        let mut port = RealPort::new(setup.clone(), bridge, lldp, events);
        let published = Published::new(port.snapshot());
        let (commands, rx) = mpsc::channel();
        let out = published.clone();
        let thread =
            std::thread::Builder::new().name(format!("port {}", setup.name)).spawn(move || {
                let _span = info_span!("port", name = %port.setup.name).entered();
                loop {
                    match rx.recv_timeout(TICK) {
                        Ok(Command::Apply(intent)) => port.apply(*intent),
                        Ok(Command::Measure) => port.measure(),
                        Ok(Command::ClearCounters) => port.clear_counters(),
                        Ok(Command::Stop) | Err(RecvTimeoutError::Disconnected) => {
                            if port.lldp.shutdown() {
                                info!("LLDP shutdown LLDPDU sent");
                            }
                            break;
                        }
                        Err(RecvTimeoutError::Timeout) => {}
                    }
                    let step = port.lldp.poll();
                    port.follow_lldp(step);
                    port.follow_bridge();
                    out.publish(port.snapshot());
                }
            })?;
        Ok(PortHandle::from_parts(
            setup.name,
            setup.receive_buffer_size,
            commands,
            published,
            thread,
        ))
    }
}

/// The port's state, owned by its thread.
struct RealPort {
    setup: RealPortSetup,
    bridge: Arc<Bridge>,
    lldp: RealLldp,
    lldp_view: Arc<LldpView>,
    intent: PortIntent,
    oper_pfc_enable: u8,
    agreed: HeadroomMethods,
    results: Results,
    allowance: Allowance,
    /// What the bridge port was last told.
    given: Option<PortControl>,
    /// The newest measurement result taken into the history (its time on the bridge's clock).
    last_result_at: Option<Picos>,
    /// The bridge port's measurements seen started, and the one a measure-headroom awaits:
    /// until the bridge has started it, its state is the old measurement's.
    generation_seen: u64,
    awaiting_generation: Option<u64>,
    events: mpsc::Sender<PortEvent>,
    drops_reported: u64,
    drop_reported_at: Option<Instant>,
    discontinuity_time: SystemTime,
    /// The bridge's view of the port as last read.
    bridge_port: Option<crate::bridge::PortSnapshot>,
}

impl RealPort {
    fn new(
        setup: RealPortSetup,
        bridge: Arc<Bridge>,
        lldp: RealLldp,
        events: mpsc::Sender<PortEvent>,
    ) -> Self {
        let intent = PortIntent::default();
        let results = Results::default();
        let allowance = select_allowance(&intent, Default::default(), &results);
        RealPort {
            lldp_view: lldp.view(),
            lldp,
            bridge,
            oper_pfc_enable: 0,
            agreed: HeadroomMethods::default(),
            results,
            allowance,
            given: None,
            last_result_at: None,
            generation_seen: 0,
            awaiting_generation: None,
            intent,
            events,
            drops_reported: 0,
            drop_reported_at: None,
            discontinuity_time: SystemTime::now(),
            bridge_port: None,
            setup,
        }
    }

    fn method_in_force(&self) -> HeadroomMethod {
        self.intent.method.in_force(self.agreed)
    }

    fn apply(&mut self, intent: PortIntent) {
        let before = self.method_in_force();
        self.intent = intent;
        if self.method_in_force() != before {
            self.results = self.results.fresh();
            self.last_result_at = None;
        }
        let step = self.lldp.apply(&self.intent);
        self.follow_lldp(step);
        self.reselect();
    }

    /// Reports the agent's events and follows DCBX: operational PFC Enable and the headroom
    /// method agreed.
    fn follow_lldp(&mut self, step: Step) {
        let lldp = &self.lldp;
        let (stats, view) = (|| lldp.remote_statistics(), || lldp.view());
        report::step(&self.setup.name, &step, stats, view, &self.events);
        if !step.changed {
            return;
        }
        self.lldp_view = self.lldp.view();
        let agreed = self.lldp_view.agreed_headroom();
        let oper = self.lldp.oper_pfc_enable(self.intent.pfc_enable);
        if agreed != self.agreed || oper != self.oper_pfc_enable {
            let before = self.method_in_force();
            self.agreed = agreed;
            if oper != self.oper_pfc_enable {
                info!(oper_pfc_enable = oper, "operational PFC Enable");
            }
            self.oper_pfc_enable = oper;
            if self.method_in_force() != before {
                info!(method = self.method_in_force().as_str(), "DCBX changed the headroom method");
                self.results = self.results.fresh();
                self.last_result_at = None;
            }
            self.reselect();
        }
    }

    /// Whether the method in force uses the measurement.
    fn measuring(&self) -> bool {
        matches!(
            self.method_in_force(),
            HeadroomMethod::Measured | HeadroomMethod::CalculatedAndMeasured
        )
    }

    /// Selects the allowance again and tells the bridge port what to run.
    fn reselect(&mut self) {
        let automatic = self.method_in_force().automatic();
        if matches!(
            automatic,
            dataplane::headroom::allowance::AutomaticCalculation::LinkDelay
                | dataplane::headroom::allowance::AutomaticCalculation::Both
        ) && self.results.calculation_bits.is_none()
        {
            // The calculation needs the link's length and medium, which a real interface does
            // not tell: the allowance falls back as 12.23 says (DECISIONS.md).
            warn!("calculated headroom needs the link's delays, unknown on a real interface");
        }
        let allowance = select_allowance(&self.intent, automatic, &self.results);
        if allowance != self.allowance {
            info!(allowance = %allowance, "allowance in force changed");
            let _ = self.events.send(PortEvent::AllowanceChanged {
                port: self.setup.name.clone(),
                old: self.allowance,
                new: allowance,
            });
        }
        self.allowance = allowance;
        let control = PortControl {
            pfc_enable: self.oper_pfc_enable,
            headroom_bits: allowance.bits,
            measure: self.measuring(),
            traffic_class: self.intent.traffic_class,
        };
        if self.given != Some(control) {
            let before = self.given.map(|g| (g.pfc_enable, g.traffic_class));
            if before.map(|b| b.1) != Some(control.traffic_class) {
                info!(traffic_class = ?control.traffic_class, "traffic classes given to the bridge");
            }
            if before != Some((control.pfc_enable, control.traffic_class)) {
                self.warn_mixed_classes(&control);
            }
            self.bridge.control(Control::Port { index: self.setup.index, control });
            self.given = Some(control);
        }
    }

    /// Warns of each traffic class that holds priorities with PFC and without: a pause of
    /// the first holds the second too (36.1). Allowed (a lossy priority may well share a
    /// lossless one's queue), but seldom meant.
    fn warn_mixed_classes(&self, control: &PortControl) {
        for m in mixed_classes(control.pfc_enable, &control.traffic_class) {
            warn!(
                port = %self.setup.name,
                "traffic class {} holds priorities {} with PFC and {} without: a pause of the \
                 first holds the others too (36.1)",
                m.class,
                priority_list(m.lossless),
                priority_list(m.lossy),
            );
        }
    }

    /// Reads the bridge's view of the port: new measurement results (the allowance follows
    /// the estimate), drops on a lossless priority.
    fn follow_bridge(&mut self) {
        let snapshot = self.bridge.snapshot();
        let Some(port) = snapshot.ports.get(self.setup.index).cloned() else { return };
        if self.measuring() {
            self.take_results(&port);
        }
        self.notice_drops(&port);
        self.bridge_port = Some(port);
    }

    fn take_results(&mut self, port: &crate::bridge::PortSnapshot) {
        self.generation_seen = port.measure_generation;
        if let Some(awaited) = self.awaiting_generation {
            if port.measure_generation < awaited {
                return;
            }
            self.awaiting_generation = None;
        }
        let d = &port.detail;
        if let Some(c) = d.measure_counters {
            self.results.counters = c;
        }
        let new: Vec<_> = d
            .measurement_results
            .iter()
            .filter(|m| self.last_result_at.is_none_or(|t| m.at > t))
            .cloned()
            .collect();
        if new.is_empty() {
            return;
        }
        self.last_result_at = new.last().map(|m| m.at);
        let mut history = (*self.results.history).clone();
        let first = history.last().map_or(1, |e: &HistoryEntry| e.sequence + 1);
        for (sequence, m) in (first..).zip(&new) {
            history.push(HistoryEntry {
                sequence,
                time: SystemTime::now(),
                raw_quanta: m.raw_quanta,
                quanta: m.quanta,
                clamp: m.clamp,
            });
            if m.discarded.is_none() {
                self.results.accepted.push(m.quanta);
            }
        }
        let excess = history.len().saturating_sub(HISTORY);
        history.drain(..excess);
        self.results.history = Arc::new(history);
        let Some(quanta) = port.measured_round_trip_quanta else { return };
        if self.results.round_trip_quanta == Some(quanta) {
            return;
        }
        let wd = WorstCase { max_frame_octets: MAX_FRAME_OCTETS };
        match measured_headroom(self.setup.speed, u64::from(quanta), &wd) {
            Ok(h) => {
                info!(round_trip_quanta = quanta, headroom_bits = h.bits, "headroom measured");
                self.results.round_trip_quanta = Some(quanta);
                self.results.measurement_bits = Some(h.bits);
                self.results.measurement_lines = Some(Arc::new(h.breakdown));
                self.reselect();
            }
            Err(e) => warn!(error = %e, "measured headroom not usable"),
        }
    }

    /// Reports new drops on a lossless priority, at most once a second.
    fn notice_drops(&mut self, port: &crate::bridge::PortSnapshot) {
        let lossless = |n: usize| self.oper_pfc_enable & (1 << n) != 0;
        let Some(n) =
            (0..PRIORITIES).find(|&n| lossless(n) && port.detail.priorities[n].dropped > 0)
        else {
            return;
        };
        let dropped = port.detail.priorities[n].dropped;
        let due = self.drop_reported_at.is_none_or(|t| t.elapsed() >= DROP_NOTICE_EVERY);
        if dropped > self.drops_reported && due {
            self.drops_reported = dropped;
            self.drop_reported_at = Some(Instant::now());
            let _ = self.events.send(PortEvent::LosslessDrop {
                port: self.setup.name.clone(),
                priority: n as u8,
                frames_dropped: dropped,
                allowance: self.allowance,
            });
        }
    }

    fn measure(&mut self) {
        self.results.round_trip_quanta = None;
        self.results.measurement_bits = None;
        self.results.measurement_lines = None;
        self.results.accepted.clear();
        self.last_result_at = None;
        self.awaiting_generation = Some(self.generation_seen + 1);
        self.bridge.control(Control::Remeasure(self.setup.index));
        self.reselect();
    }

    fn clear_counters(&mut self) {
        self.bridge.control(Control::ClearCounters(Some(self.setup.index)));
        self.results.counters = Default::default();
        self.drops_reported = 0;
        self.discontinuity_time = SystemTime::now();
    }

    fn snapshot(&self) -> PortSnapshot {
        let mut priorities = [PrioritySnapshot::default(); PRIORITIES];
        let (mut pfc_requests, mut pfc_indications) = (0, 0);
        let mut mac = (0, 0, 0, 0, 0);
        if let Some(port) = &self.bridge_port {
            let d = &port.detail;
            for (n, p) in priorities.iter_mut().enumerate() {
                let b = &d.priorities[n];
                if let Some(plan) = b.plan {
                    p.allocation = plan.allocation_octets;
                    p.xoff_threshold = plan.xoff_octets;
                    p.xon_threshold = plan.xon_octets;
                }
                p.occupancy = b.occupancy;
                p.peak_occupancy = b.peak;
                p.xoff = b.xoff;
                p.xoff_events = b.xoff_events;
                p.frames_accepted = b.accepted;
                p.frames_dropped = b.dropped;
                p.octets_dropped = b.octets_dropped;
                p.priority_paused = b.paused;
                p.pause_time_remaining = b.pause_quanta_left;
                p.pfc_requests = d.sent.pfc_requests_per_priority[n];
                p.xon_sent = d.sent.xon_sent_per_priority[n];
                p.pfc_indications = d.received.pfc_indications_per_priority[n];
            }
            // Table 12-1 counts PFC frames: what the bridge port sent and acted on.
            pfc_requests = port.counters.pfc_requests;
            pfc_indications = d.received.pfc_indications;
            mac = (
                d.sent.pause_frames_sent,
                d.received.pause_frames_received,
                d.received.pause_frames_ignored,
                d.received.pfc_frames_ignored,
                d.received.mac_control_discarded + port.counters.bad_mac_control,
            );
        }
        PortSnapshot {
            name: self.setup.name.clone(),
            intent: self.intent.clone(),
            oper_pfc_enable: self.oper_pfc_enable,
            peer_oper_pfc_enable: 0,
            method_in_force: self.method_in_force(),
            lldp: self.lldp_view.clone(),
            speed: self.setup.speed,
            allowance: self.allowance,
            results: self.results.clone(),
            receive_buffer_size: self.setup.receive_buffer_size,
            pfc_requests,
            pfc_indications,
            pause_frames_sent: mac.0,
            pause_frames_received: mac.1,
            pause_frames_ignored: mac.2,
            pfc_frames_ignored: mac.3,
            mac_control_discarded: mac.4,
            priorities,
            discontinuity_time: self.discontinuity_time,
            simulated_time: Picos::ZERO,
        }
    }
}
