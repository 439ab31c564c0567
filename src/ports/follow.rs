//! What a port task follows, the same on the lab's simulated link and on a real interface: the
//! configuration it runs, what DCBX agreed and made operational, the results of the headroom
//! method in force and the allowance selected from them; and how the port reports them (log
//! lines, `PortEvent`s, its snapshot). What a port then does with a change (the lab gives its
//! link the PFC Enable and the headroom; a real port hands the bridge port its control) stays
//! with its task, `task.rs` or `real.rs`.

use std::sync::Arc;
use std::time::SystemTime;

use dataplane::headroom::allowance::Allowance;
use dataplane::mac::MacCounters;
use dataplane::time::{LinkSpeed, Picos};
use lldp::agent::RemoteStatistics;
use lldp::dcbx::HeadroomMethods;
use tracing::{info, warn};

use super::drops::DropNotices;
use super::event::PortEvent;
use super::event_channel::EventSender;
use super::headroom::{
    clamp_reason, receive_buffer_limit_bits, ClampReason, ReceiveBuffer, Results,
};
use super::intent::{HeadroomMethod, PortIntent, PRIORITIES};
use super::lldp_view::{LldpView, Step};
use super::report;
use super::snapshot::{PortSnapshot, PrioritySnapshot};
use super::watchdog::WatchdogView;

/// The state both kinds of port task keep, owned by the port's thread.
pub struct Followed {
    /// The port's name (in its events).
    pub name: String,
    pub intent: PortIntent,
    /// The headroom methods DCBX agreed.
    pub agreed: HeadroomMethods,
    /// Our operational PFC Enable, as last acted on.
    pub oper_pfc_enable: u8,
    pub results: Results,
    pub allowance: Allowance,
    /// Why `allowance` differs from the one selected, and the most the receive buffer honours.
    pub clamp: ClampReason,
    pub receive_buffer_limit_bits: u64,
    /// The peer's PFC Local Delay TLVs refused (a real port's calculation counts them).
    pub peer_delays_refused: u64,
    /// The latest view of the LLDP agents, renewed when something changed.
    pub lldp_view: Arc<LldpView>,
    drops: DropNotices,
    /// When the counters were last reset: at start, or by clear-pfc-counters.
    discontinuity_time: SystemTime,
    events: EventSender,
    /// The PFC watchdog as last followed.
    watchdog: WatchdogView,
    /// When the watchdog's counters last started from zero.
    watchdog_discontinuity_time: SystemTime,
}

/// What one DCBX outcome changed for the port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DcbxChange {
    /// Our operational PFC Enable.
    pub oper_pfc_enable: bool,
    /// The headroom method in force (its results start afresh).
    pub method: bool,
}

/// What a snapshot takes from the port itself rather than from what it follows.
pub struct PortFigures<'a> {
    pub speed: LinkSpeed,
    pub receive_buffer_size: u64,
    /// The peer's operational PFC Enable (0 where the port cannot know it).
    pub peer_oper_pfc_enable: u8,
    /// Our PFC initiator's counters (what we sent) and our receiver's.
    pub sent: &'a MacCounters,
    pub received: &'a MacCounters,
    /// Each priority's buffer and pause; its PFC counters are taken from `sent` and `received`.
    pub priorities: [PrioritySnapshot; PRIORITIES],
    pub simulated_time: Picos,
    /// The PFC watchdog of the port's transmit side.
    pub watchdog: WatchdogView,
}

impl Followed {
    /// A port before DCBX has said anything: PFC runs on `intent`'s PFC Enable, `allowance`
    /// (selected for `intent` with `results`) is in force.
    pub fn new(
        name: String,
        intent: PortIntent,
        results: Results,
        allowance: Allowance,
        lldp_view: Arc<LldpView>,
        events: EventSender,
    ) -> Self {
        Followed {
            name,
            agreed: HeadroomMethods::default(),
            oper_pfc_enable: intent.pfc_enable,
            intent,
            results,
            allowance,
            clamp: ClampReason::None,
            receive_buffer_limit_bits: u64::MAX,
            peer_delays_refused: 0,
            lldp_view,
            drops: DropNotices::default(),
            discontinuity_time: SystemTime::now(),
            events,
            watchdog: WatchdogView::default(),
            watchdog_discontinuity_time: SystemTime::now(),
        }
    }

    /// The headroom method in force: the configured one, or what DCBX agreed.
    pub fn method_in_force(&self) -> HeadroomMethod {
        self.intent.method.in_force(self.agreed)
    }

    /// Takes a new configuration. Returns whether the method in force changed; a method newly
    /// in force computes afresh (a new measurement, a new calculation), so its results start
    /// empty.
    pub fn take_intent(&mut self, intent: PortIntent) -> bool {
        let before = self.method_in_force();
        self.intent = intent;
        if self.method_in_force() == before {
            return false;
        }
        self.results = self.results.fresh();
        true
    }

    /// Reports the events of an LLDP step (`stats` and `view` give the remote table's counters
    /// and the LLDP view when an event needs them). Returns whether the step changed anything;
    /// the view is then renewed.
    pub fn take_step(
        &mut self,
        step: &Step,
        stats: impl Fn() -> RemoteStatistics,
        view: impl Fn() -> Arc<LldpView>,
    ) -> bool {
        report::step(&self.name, step, &stats, &view, &self.events);
        if step.changed {
            self.lldp_view = view();
        }
        step.changed
    }

    /// Takes DCBX's outcome: our operational PFC Enable `oper` (logged when it changed) and
    /// the headroom methods `agreed` ([`Followed::take_agreed`]). Returns what changed.
    pub fn take_dcbx(&mut self, oper: u8, agreed: HeadroomMethods) -> DcbxChange {
        DcbxChange {
            oper_pfc_enable: self.take_oper_pfc_enable(oper),
            method: self.take_agreed(agreed),
        }
    }

    /// Takes our operational PFC Enable (logged when it changed). Returns whether it changed.
    pub fn take_oper_pfc_enable(&mut self, oper: u8) -> bool {
        if oper == self.oper_pfc_enable {
            return false;
        }
        info!(oper_pfc_enable = oper, "operational PFC Enable");
        self.oper_pfc_enable = oper;
        true
    }

    /// Takes the headroom methods DCBX agreed. Returns whether that changed the method in
    /// force (logged; its results start empty, as for a new configuration).
    pub fn take_agreed(&mut self, agreed: HeadroomMethods) -> bool {
        if agreed == self.agreed {
            return false;
        }
        let before = self.method_in_force();
        self.agreed = agreed;
        if self.method_in_force() == before {
            return false;
        }
        info!(method = self.method_in_force().as_str(), "DCBX changed the headroom method");
        self.results = self.results.fresh();
        true
    }

    /// Puts `allowance` (selected for the receive `buffer`) in force; a change is logged and
    /// sent north, and so is a new reason for a clamp, with a warning.
    pub fn put_in_force(&mut self, allowance: Allowance, buffer: ReceiveBuffer) {
        if allowance != self.allowance {
            info!(allowance = %allowance, "allowance in force changed");
            self.events.send(PortEvent::AllowanceChanged {
                port: self.name.clone(),
                old: self.allowance,
                new: allowance,
            });
        }
        self.allowance = allowance;
        let (reason, selected) = clamp_reason(&self.intent, &allowance, &self.results, buffer);
        self.receive_buffer_limit_bits = receive_buffer_limit_bits(&self.intent, buffer);
        if reason != self.clamp && reason != ClampReason::None {
            warn!(
                port = %self.name,
                reason = reason.as_str(),
                selected,
                allowance = allowance.bits,
                limit = self.receive_buffer_limit_bits,
                "allowance in force clamped"
            );
            self.events.send(PortEvent::AllowanceClamped {
                port: self.name.clone(),
                reason,
                selected,
                allowance,
                limit_bits: self.receive_buffer_limit_bits,
            });
        }
        self.clamp = reason;
    }

    /// `dropped` frames in all on lossless `priority`: sent north when new and due
    /// ([`DropNotices`]).
    pub fn notice_drops(&mut self, priority: u8, dropped: u64) {
        if self.drops.take(dropped) {
            self.events.send(PortEvent::LosslessDrop {
                port: self.name.clone(),
                priority,
                frames_dropped: dropped,
                allowance: self.allowance,
            });
        }
    }

    /// The watchdog's view now: its storms found and over since the last look are sent north
    /// (and logged where the watchdog runs).
    pub fn follow_watchdog(&mut self, now: &WatchdogView) {
        for event in super::watchdog::events(&self.name, &self.watchdog, now) {
            self.events.send(event);
        }
        if super::watchdog::restarted(&self.watchdog, now) {
            self.watchdog_discontinuity_time = SystemTime::now();
        }
        self.watchdog = *now;
    }

    /// The port's counters were reset (clear-pfc-counters): the measurement's too, and a new
    /// discontinuity.
    pub fn counters_cleared(&mut self) {
        self.results.counters = Default::default();
        self.peer_delays_refused = 0;
        self.drops.counters_cleared();
        self.discontinuity_time = SystemTime::now();
        self.watchdog_discontinuity_time = self.discontinuity_time;
    }

    /// The port's snapshot: what it follows, with its own figures.
    pub fn snapshot(&self, port: PortFigures) -> PortSnapshot {
        let (tx, rx) = (port.sent, port.received);
        let mut priorities = port.priorities;
        for (n, p) in priorities.iter_mut().enumerate() {
            p.pfc_requests = tx.pfc_requests_per_priority[n];
            p.xon_sent = tx.xon_sent_per_priority[n];
            p.pfc_indications = rx.pfc_indications_per_priority[n];
        }
        PortSnapshot {
            name: self.name.clone(),
            intent: self.intent.clone(),
            oper_pfc_enable: self.oper_pfc_enable,
            peer_oper_pfc_enable: port.peer_oper_pfc_enable,
            method_in_force: self.method_in_force(),
            lldp: self.lldp_view.clone(),
            speed: port.speed,
            allowance: self.allowance,
            clamp: self.clamp,
            receive_buffer_limit_bits: self.receive_buffer_limit_bits,
            peer_delays_refused: self.peer_delays_refused,
            results: self.results.clone(),
            receive_buffer_size: port.receive_buffer_size,
            pfc_requests: tx.pfc_requests,
            pfc_indications: rx.pfc_indications,
            pause_frames_sent: tx.pause_frames_sent,
            pause_frames_received: rx.pause_frames_received,
            pause_frames_ignored: rx.pause_frames_ignored,
            pfc_frames_ignored: rx.pfc_frames_ignored,
            mac_control_discarded: rx.mac_control_discarded,
            priorities,
            frame_discards: super::snapshot::FrameDiscards::default(),
            io_path: None,
            discontinuity_time: self.discontinuity_time,
            simulated_time: port.simulated_time,
            watchdog: port.watchdog,
            watchdog_discontinuity_time: self.watchdog_discontinuity_time,
        }
    }
}
