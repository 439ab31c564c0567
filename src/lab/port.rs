//! A lab port's task: a thread that owns the port's PFC MAC, receive buffer, headroom
//! participant and LLDP/DCBX agent, takes configuration intents, follows the lab's clock, and
//! publishes a snapshot after every step. The link is simulated (dataplane's `TwoStation`: our
//! port is station B, the peer station A sends it lossless traffic; both ends run LLDP/DCBX,
//! [`LinkLldp`]). A real interface's task (`crate::real::port`) sits behind the same handle.

use std::sync::Arc;
use std::time::Duration;

use dataplane::headroom::{BufferConfig, BufferPlan};
use dataplane::sim::{EgressConfig, TwoStation, TwoStationConfig};
use dataplane::time::Picos;
use dataplane::watchdog::{ClassStatus, CLASSES};
use dataplane::wire::MacAddr;
use lldp::dcbx::HeadroomMethods;
use lldp::port::LocalSystem;
use lldp::wire::TimeInterval;
use tracing::info;

use super::clock::SimClock;
use super::headroom::allowance_for;
use super::link_lldp::{LinkLldp, PeerLldp};
use super::storm::PeerStorm;
use crate::ports::follow::{Followed, PortFigures};
use crate::ports::headroom::{ReceiveBuffer, Results};
use crate::ports::intent::{PortIntent, PRIORITIES};
use crate::ports::lldp_view::Step;
use crate::ports::run::PortTask;
use crate::ports::snapshot::{PortSnapshot, PrioritySnapshot};
use crate::ports::watchdog::{ClassView, WatchdogView};
use crate::ports::{EventSender, PortHandle};

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
    /// The storm the peer is asked to run.
    pub storm: Arc<PeerStorm>,
}

/// Each priority's share of the bridge's traffic toward a lab port: one 64th of the line rate,
/// an eighth over the eight priorities. The watchdog needs frames waiting, not load; each frame
/// is an event of the simulated link, and at half the line rate the 64-port lab took 2.5 times
/// the CPU it took without this traffic.
const EGRESS_SHARE: u64 = 64;
/// Frames a priority's queue toward the port holds while it cannot leave.
const EGRESS_QUEUE_FRAMES: u64 = 64;

/// Starts a lab port's thread; its link carries traffic from the first `apply` on.
pub fn spawn(
    setup: SimPortSetup,
    clock: SimClock,
    tick: Duration,
    events: EventSender,
) -> std::io::Result<PortHandle> {
    let (name, receive_buffer) = (setup.name.clone(), setup.receive_buffer());
    let port = SimPort::new(setup, clock, tick, events)?;
    PortHandle::start(name, receive_buffer, port)
}

impl SimPortSetup {
    /// The port's receive buffer, for the largest frame its link's stations send.
    pub fn receive_buffer(&self) -> ReceiveBuffer {
        ReceiveBuffer {
            octets: self.receive_buffer_size,
            max_frame_octets: self.stations.max_frame_octets_with_fcs(),
        }
    }
}

/// The port's state, owned by its thread.
struct SimPort {
    setup: SimPortSetup,
    clock: SimClock,
    tick: Duration,
    /// Simulated time a tick is worth at the clock's ratio.
    share: Picos,
    /// Simulated time when the link started carrying traffic (at the first configuration).
    started_at: Option<Picos>,
    sim: TwoStation,
    lldp: LinkLldp,
    followed: Followed,
    /// The peer's operational PFC Enable, as last given to the link (ours is `followed`'s).
    peer_oper_pfc_enable: u8,
    /// The peer's storm as last given to the link.
    storm_given: u16,
}

impl SimPort {
    fn new(
        setup: SimPortSetup,
        clock: SimClock,
        tick: Duration,
        events: EventSender,
    ) -> std::io::Result<Self> {
        let intent = PortIntent::default();
        let mut results = Results::default();
        let agreed = HeadroomMethods::default();
        let allowance = allowance_for(
            &setup.name,
            &intent,
            agreed,
            &setup.stations,
            &mut results,
            setup.receive_buffer(),
        );
        let mut sim = TwoStation::new(setup.stations.clone());
        sim.set_pfc_enable(intent.pfc_enable);
        sim.set_watchdog(Some(intent.watchdog));
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
        let followed =
            Followed::new(setup.name.clone(), intent, results, allowance, lldp.view(), events);
        let share = Picos((tick.as_nanos() as f64 * 1000.0 * clock.ratio) as u64);
        Ok(SimPort {
            setup,
            clock,
            tick,
            share,
            started_at: None,
            sim,
            lldp,
            followed,
            peer_oper_pfc_enable,
            storm_given: 0,
        })
    }

    /// The bridge's traffic toward the port: every priority, at the lab pipeline's load.
    fn egress(&self) -> EgressConfig {
        let s = &self.setup.stations;
        let frame = s.speed.frame_time(u64::from(s.reverse_frame_len.unwrap_or(s.frame_len)));
        EgressConfig {
            priorities: 0xff,
            interval: frame * EGRESS_SHARE,
            limit: EGRESS_QUEUE_FRAMES,
        }
    }

    /// Gives the link the storm asked for, where it changed, and records when each class's
    /// storm first held the port.
    fn follow_storm(&mut self) {
        let asked = self.setup.storm.asked();
        if asked != self.storm_given {
            info!(classes = asked, "the peer's pause storm");
            self.sim.set_peer_storm(PeerStorm::priorities(asked), PeerStorm::link_pause(asked));
            self.storm_given = asked;
        }
        let began = std::array::from_fn(|class| {
            let at = self.sim.peer_storm_began(class)?;
            Some(self.clock.wall_at(self.lab_time(at)))
        });
        self.setup.storm.record_began(began);
    }

    /// A simulated time of the link's as the lab's clock has it (the link started later).
    fn lab_time(&self, at: Picos) -> Picos {
        self.started_at.unwrap_or_default() + at
    }

    /// The watchdog's view, with the lab's clock's wall-clock times.
    fn watchdog_view(&self) -> WatchdogView {
        let mut view = WatchdogView::default();
        let Some(wd) = self.sim.watchdog() else { return view };
        let wall = |t: Option<Picos>| t.map(|t| self.clock.wall_at(self.lab_time(t)));
        for (class, v) in view.iter_mut().enumerate().take(CLASSES) {
            let c = wd.counters(class);
            *v = ClassView {
                stormed: matches!(wd.status(class), ClassStatus::Stormed { .. }),
                action: wd.config(class).action,
                storms_detected: c.storms_detected,
                restorations: c.restorations,
                frames_dropped: c.frames_dropped,
                last_storm_start: wall(c.last_storm_start),
                last_storm_end: wall(c.last_storm_end),
            };
        }
        view
    }

    /// Reports the agents' events and follows DCBX: the operational PFC Enable at both ends
    /// and the headroom method it agreed.
    fn follow_lldp(&mut self, step: Step) {
        let lldp = &self.lldp;
        let f = &mut self.followed;
        if !f.take_step(&step, || lldp.remote_statistics(), || lldp.view()) {
            return;
        }
        self.give_link_pfc_enable();
        if self.followed.take_agreed(self.lldp.agreed_headroom()) {
            self.reselect();
        }
    }

    /// Hands the link the operational PFC Enable of each end, where it changed (ours from the
    /// configuration when our agent does not run).
    fn give_link_pfc_enable(&mut self) {
        let ours = self.lldp.oper_pfc_enable(self.followed.intent.pfc_enable);
        if self.followed.take_oper_pfc_enable(ours) {
            self.sim.set_pfc_enable(ours);
        }
        let peer = self.lldp.peer_oper_pfc_enable();
        if peer != self.peer_oper_pfc_enable {
            info!(peer_oper_pfc_enable = peer, "the peer's operational PFC Enable");
            self.peer_oper_pfc_enable = peer;
            self.sim.set_peer_pfc_enable(peer);
        }
    }

    /// Selects the allowance again and resizes the buffer for it.
    fn reselect(&mut self) {
        let f = &mut self.followed;
        let allowance = allowance_for(
            &self.setup.name,
            &f.intent,
            f.agreed,
            &self.setup.stations,
            &mut f.results,
            self.setup.receive_buffer(),
        );
        let priority = usize::from(self.setup.stations.priority);
        self.sim.set_headroom(allowance.bits, f.intent.buffer_allocation_octets[priority]);
        f.put_in_force(allowance, self.setup.receive_buffer());
    }

    /// Reports new drops on the lossless priority while PFC is enabled on it.
    fn notice_drops(&mut self) {
        let priority = self.setup.stations.priority;
        if self.followed.oper_pfc_enable & (1 << priority) != 0 {
            let dropped = self.sim.b_buffer().counters.frames_dropped;
            self.followed.notice_drops(priority, dropped);
        }
    }

    /// The simulated link's figures for the snapshot.
    fn figures(&self) -> PortFigures<'_> {
        let now = self.sim.now();
        let rx_mac = self.sim.b_receiver();
        let traffic = usize::from(self.setup.stations.priority);
        let max_frame = self.setup.stations.max_frame_octets() + dataplane::time::FCS_OCTETS;
        let mut priorities = [PrioritySnapshot::default(); PRIORITIES];
        for (n, p) in priorities.iter_mut().enumerate() {
            if self.followed.oper_pfc_enable & (1 << n) != 0 {
                let config = BufferConfig {
                    max_frame_octets: max_frame,
                    allocation_octets: self.followed.intent.buffer_allocation_octets[n],
                    xon_hysteresis_octets: None,
                };
                if let Ok(plan) = BufferPlan::new(self.followed.allowance.bits, &config) {
                    p.set_plan(&plan);
                }
            }
            if n == traffic {
                let b = self.sim.b_buffer();
                p.allocation = b.allocation();
                p.xoff_threshold = b.xoff_threshold();
                p.xon_threshold = b.xon_threshold();
                p.occupancy = b.occupancy();
                p.xoff = b.xoff();
                p.take_counters(&b.counters);
            }
            // A pause the watchdog ignores holds nothing.
            p.priority_paused = self.sim.b_paused(now, n);
            p.pause_time_remaining = if p.priority_paused {
                self.setup.stations.speed.quanta_in_ceil(rx_mac.paused_until(n).saturating_sub(now))
            } else {
                0
            };
            p.time_paused_us = rx_mac.time_paused(now, n).as_ps() / 1_000_000;
        }
        PortFigures {
            speed: self.setup.stations.speed,
            receive_buffer_size: self.setup.receive_buffer_size,
            peer_oper_pfc_enable: self.peer_oper_pfc_enable,
            sent: &self.sim.b_initiator().counters,
            received: &rx_mac.counters,
            priorities,
            simulated_time: now,
            watchdog: self.watchdog_view(),
        }
    }
}

impl PortTask for SimPort {
    fn wait(&self) -> Duration {
        if self.setup.traffic {
            self.tick
        } else {
            self.lldp.next_wait()
        }
    }

    fn apply(&mut self, intent: PortIntent) {
        self.followed.take_intent(intent);
        self.sim.set_watchdog(Some(self.followed.intent.watchdog));
        let step = self.lldp.apply(&self.followed.intent);
        self.follow_lldp(step);
        self.give_link_pfc_enable();
        self.reselect();
        // No traffic before the first configuration: the lab's lossless priorities would drop
        // until the stored configuration enabled PFC on them.
        if self.started_at.is_none() && self.setup.traffic {
            self.started_at = Some(self.clock.target());
            self.sim.start();
            self.sim.set_egress(self.egress());
        }
    }

    fn measure(&mut self) {
        self.followed.results.forget_measurement();
        self.reselect();
    }

    fn clear_counters(&mut self) {
        self.sim.clear_b_counters();
        self.followed.counters_cleared();
    }

    fn shutdown_lldp(&mut self) -> bool {
        self.lldp.shutdown()
    }

    /// LLDP's step, then the link's up to the clock (at most `catch_up` ticks' worth).
    fn step(&mut self, commanded: bool) -> bool {
        let lldp = self.lldp.poll();
        let mut changed = commanded || lldp.changed;
        self.follow_lldp(lldp);
        if let Some(started_at) = self.started_at {
            let target = self.clock.target().saturating_sub(started_at);
            let limit = self.sim.now() + Picos(self.share.0.saturating_mul(self.setup.catch_up));
            self.follow_storm();
            self.sim.advance_to(target.min(limit));
            self.follow_storm();
            self.notice_drops();
            let view = self.watchdog_view();
            self.followed.follow_watchdog(&view);
            changed = true;
        }
        changed
    }

    fn snapshot(&self) -> PortSnapshot {
        self.followed.snapshot(self.figures())
    }
}
