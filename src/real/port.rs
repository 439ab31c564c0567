//! A port on a real interface: the same handle, intents and snapshots as a simulated port, but
//! the MAC, buffers and measurement are the bridge's (`pfc_bridge`), driven by the wall
//! clock, and LLDP/DCBX talks to whatever station is on the wire (`real_lldp.rs`). The task
//! decides what the bridge port runs (operational PFC Enable, allowance in force, whether to
//! measure) and publishes what the bridge reports.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use dataplane::headroom::measured_headroom;
use dataplane::mac::MacCounters;
use dataplane::time::{LinkSpeed, Picos};
use dataplane::watchdog::Action;
use lldp::port::LocalSystem;
use lldp::wire::TimeInterval;
use tracing::{info, warn};

use crate::ports::calculation::Calculation;
use crate::ports::follow::{Followed, PortFigures};
use crate::ports::follow_interface::{calculate_if_in_force, follow_step};
use crate::ports::headroom::{select_allowance, ReceiveBuffer, Results};
use crate::ports::intent::{mixed_classes, priority_list, HeadroomMethod, PortIntent, PRIORITIES};
use crate::ports::interface_lldp::RealLldp;
use crate::ports::lldp_view::Step;
use crate::ports::run::PortTask;
use crate::ports::snapshot::{PortSnapshot, PrioritySnapshot};
use crate::ports::watchdog::{ClassView, WatchdogView};
use crate::ports::{EventSender, PortHandle};
use pfc_bridge::control::Control;
use pfc_bridge::port::PortControl;
use pfc_bridge::Bridge;

/// How often the task looks at the bridge and the LLDP socket when nothing else wakes it.
const TICK: Duration = Duration::from_millis(50);

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
    /// The largest frame the bridge forwards, octets without FCS.
    pub max_frame: u16,
}

/// Starts a real port's task over bridge port `setup.index`.
pub fn spawn(
    setup: RealPortSetup,
    bridge: Arc<Bridge>,
    events: EventSender,
) -> std::io::Result<PortHandle> {
    let lldp = RealLldp::open(&setup.name, setup.system.clone()).map_err(std::io::Error::other)?;
    let (name, receive_buffer) = (setup.name.clone(), setup.receive_buffer());
    let port = RealPort::new(setup, bridge, lldp, events);
    PortHandle::start(name, receive_buffer, port)
}

impl RealPortSetup {
    /// The port's receive buffer, for the largest frame the bridge forwards with its FCS: the
    /// one maximum-frame figure the calculation, the measurement and the buffers all take.
    pub fn receive_buffer(&self) -> ReceiveBuffer {
        ReceiveBuffer::for_max_frame(self.receive_buffer_size, self.max_frame)
    }
}

/// The port's state, owned by its thread.
struct RealPort {
    setup: RealPortSetup,
    bridge: Arc<Bridge>,
    lldp: RealLldp,
    followed: Followed,
    /// What the bridge port was last told.
    given: Option<PortControl>,
    /// The newest measurement result taken into the history (its time on the bridge's clock).
    last_result_at: Option<Picos>,
    /// The bridge port's measurements seen started, and the one a measure-headroom awaits:
    /// until the bridge has started it, its state is the old measurement's.
    generation_seen: u64,
    awaiting_generation: Option<u64>,
    /// The bridge's view of the port as last read.
    bridge_port: Option<pfc_bridge::PortSnapshot>,
    /// Calculated headroom, from the configuration's calculation inputs.
    calculation: Calculation,
}

impl RealPort {
    fn new(setup: RealPortSetup, bridge: Arc<Bridge>, lldp: RealLldp, events: EventSender) -> Self {
        let intent = PortIntent::default();
        let results = Results::default();
        let allowance =
            select_allowance(&intent, Default::default(), &results, setup.receive_buffer());
        let followed =
            Followed::new(setup.name.clone(), intent, results, allowance, lldp.view(), events);
        RealPort {
            lldp,
            bridge,
            followed,
            given: None,
            last_result_at: None,
            generation_seen: 0,
            awaiting_generation: None,
            bridge_port: None,
            calculation: Calculation::new(setup.speed, setup.max_frame),
            setup,
        }
    }

    /// Reports the agent's events and follows DCBX: operational PFC Enable and the headroom
    /// method agreed. Either changed, the bridge port is told again.
    fn follow_lldp(&mut self, step: Step) {
        let Some(change) = follow_step(&mut self.followed, &self.lldp, &self.calculation, &step)
        else {
            return;
        };
        if change.dcbx.method {
            self.last_result_at = None;
        }
        if !change.any() {
            return;
        }
        self.reselect();
    }

    /// Whether the method in force uses the measurement.
    fn measuring(&self) -> bool {
        matches!(
            self.followed.method_in_force(),
            HeadroomMethod::Measured | HeadroomMethod::CalculatedAndMeasured
        )
    }

    /// Selects the allowance again and tells the bridge port what to run.
    fn reselect(&mut self) {
        let automatic = calculate_if_in_force(&mut self.followed, &mut self.calculation);
        let allowance = select_allowance(
            &self.followed.intent,
            automatic,
            &self.followed.results,
            self.setup.receive_buffer(),
        );
        self.followed.put_in_force(allowance, self.setup.receive_buffer());
        let control = PortControl {
            pfc_enable: self.followed.oper_pfc_enable,
            headroom_bits: allowance.bits,
            measure: self.measuring(),
            traffic_class: self.followed.intent.traffic_class,
            watchdog: self.followed.intent.watchdog,
            allocations: self.followed.intent.buffer_allocation_octets,
        };
        if self.given != Some(control) {
            let before = self.given.map(|g| (g.pfc_enable, g.traffic_class));
            if before.map(|b| b.1) != Some(control.traffic_class) {
                info!(traffic_class = ?control.traffic_class, "traffic classes given to the bridge");
            }
            if before != Some((control.pfc_enable, control.traffic_class)) {
                self.warn_mixed_classes(&control);
            }
            self.bridge
                .control(Control::Port { index: self.setup.index, control: Box::new(control) });
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
        self.followed.follow_watchdog(&watchdog_view(&port));
        self.bridge_port = Some(port);
    }

    fn take_results(&mut self, port: &pfc_bridge::PortSnapshot) {
        self.generation_seen = port.measure_generation;
        if let Some(awaited) = self.awaiting_generation {
            if port.measure_generation < awaited {
                return;
            }
            self.awaiting_generation = None;
        }
        let d = &port.detail;
        if let Some(c) = d.measure_counters {
            self.followed.results.counters = c;
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
        self.followed.results.record(&new, SystemTime::now());
        let Some(quanta) = port.measured_round_trip_quanta else { return };
        if self.followed.results.round_trip_quanta == Some(quanta) {
            return;
        }
        let wd = self.setup.receive_buffer().worst_case();
        match measured_headroom(self.setup.speed, u64::from(quanta), &wd) {
            Ok(h) => {
                info!(round_trip_quanta = quanta, headroom_bits = h.bits, "headroom measured");
                self.followed.results.round_trip_quanta = Some(quanta);
                self.followed.results.measurement_bits = Some(h.bits);
                self.followed.results.measurement_lines = Some(Arc::new(h.breakdown));
                self.reselect();
            }
            Err(e) => warn!(error = %e, "measured headroom not usable"),
        }
    }

    /// Reports new drops on a lossless priority (the first that has any), at most once a
    /// second.
    fn notice_drops(&mut self, port: &pfc_bridge::PortSnapshot) {
        let lossless = |n: usize| self.followed.oper_pfc_enable & (1 << n) != 0;
        let Some(n) = (0..PRIORITIES)
            .find(|&n| lossless(n) && port.detail.priorities[n].counters.frames_dropped > 0)
        else {
            return;
        };
        self.followed.notice_drops(n as u8, port.detail.priorities[n].counters.frames_dropped);
    }

    /// The port's own figures for its snapshot: the bridge port's, or none before it reported.
    fn figures<'a>(
        &self,
        priorities: [PrioritySnapshot; PRIORITIES],
        sent: &'a MacCounters,
        received: &'a MacCounters,
    ) -> PortFigures<'a> {
        PortFigures {
            speed: self.setup.speed,
            receive_buffer_size: self.setup.receive_buffer_size,
            peer_oper_pfc_enable: 0,
            sent,
            received,
            priorities,
            simulated_time: Picos::ZERO,
            watchdog: self.bridge_port.as_ref().map(watchdog_view).unwrap_or_default(),
        }
    }
}

impl PortTask for RealPort {
    fn wait(&self) -> Duration {
        TICK
    }

    fn apply(&mut self, intent: PortIntent) {
        if self.followed.take_intent(intent) {
            self.last_result_at = None;
        }
        // Our PFC Local Delay TLV advertises the configured delays (interface-rtt,
        // pause-entry), as the calculation counts them on our side.
        let speed = self.setup.speed;
        let ours = self.followed.intent.calculation.local_delays(speed).local_delay_tlv(speed);
        let step = self.lldp.apply(&self.followed.intent, TimeInterval(ours));
        self.follow_lldp(step);
        self.reselect();
    }

    fn measure(&mut self) {
        self.followed.results.forget_measurement();
        self.followed.results.accepted.clear();
        self.last_result_at = None;
        self.awaiting_generation = Some(self.generation_seen + 1);
        self.bridge.control(Control::Remeasure(self.setup.index));
        self.reselect();
    }

    fn clear_counters(&mut self) {
        self.bridge.control(Control::ClearCounters(Some(self.setup.index)));
        self.calculation.peer_delays_refused = 0;
        self.followed.counters_cleared();
    }

    fn shutdown_lldp(&mut self) -> bool {
        self.lldp.shutdown()
    }

    /// LLDP's step, then the bridge port's state; the snapshot is published after every step.
    fn step(&mut self, _commanded: bool) -> bool {
        let step = self.lldp.poll();
        self.follow_lldp(step);
        self.follow_bridge();
        true
    }

    fn snapshot(&self) -> PortSnapshot {
        let mut priorities = [PrioritySnapshot::default(); PRIORITIES];
        let none = MacCounters::default();
        let Some(port) = &self.bridge_port else {
            return self.followed.snapshot(self.figures(priorities, &none, &none));
        };
        let d = &port.detail;
        for (p, b) in priorities.iter_mut().zip(&d.priorities) {
            if let Some(plan) = &b.plan {
                p.set_plan(plan);
            }
            p.occupancy = b.occupancy;
            p.xoff = b.xoff;
            p.take_counters(&b.counters);
            p.priority_paused = b.paused;
            p.pause_time_remaining = b.pause_quanta_left;
            p.time_paused_us = u64::try_from(b.time_paused.as_micros()).unwrap_or(u64::MAX);
        }
        let mut snapshot = self.followed.snapshot(self.figures(priorities, &d.sent, &d.received));
        // Table 12-1 counts PFC frames: what the bridge port sent and acted on.
        snapshot.pfc_requests = port.counters.pfc_requests;
        snapshot.mac_control_discarded += port.counters.bad_mac_control;
        snapshot.frame_discards = crate::ports::snapshot::FrameDiscards {
            oversize: port.counters.oversize,
            reserved_vid: port.counters.reserved_vid,
            lossy_share: port.lossy_share_drops,
            transit_delay: port.counters.transit_drops,
        };
        snapshot.io_path = Some(crate::ports::snapshot::IoPath {
            receive_ring_slots: port.rx_ring_slots as u64,
            transmit_ring: port.transmit_path == "ring",
            receive_kernel_drops: port.counters.rx_kernel_drops,
            transmit_kernel_drops: port.counters.tx_kernel_drops,
            keeper_pauses: port.counters.keeper_pauses,
        });
        snapshot
    }
}

/// The bridge port's PFC watchdog as the northbound side sees it.
fn watchdog_view(port: &pfc_bridge::PortSnapshot) -> WatchdogView {
    let mut view = WatchdogView::default();
    let time = |ns: Option<u64>| ns.map(|ns| SystemTime::UNIX_EPOCH + Duration::from_nanos(ns));
    for (v, c) in view.iter_mut().zip(&port.watchdog) {
        *v = ClassView {
            stormed: c.stormed,
            action: Action::from_name(c.action).unwrap_or_default(),
            storms_detected: c.storms_detected,
            restorations: c.restorations,
            frames_dropped: c.frames_dropped,
            last_storm_start: time(c.last_storm_start_unix_ns),
            last_storm_end: time(c.last_storm_end_unix_ns),
        };
    }
    view
}
