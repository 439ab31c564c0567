//! The network run, event by event in picoseconds: hosts send their flows, each bridge port
//! accounts its receive buffer, pauses its peer through its PFC initiator and honours the peer's
//! pauses through its PFC receiver, its watchdog finds storms, and the maximum transit delay
//! discards frames held too long.

use std::collections::VecDeque;

use dataplane::sim::BufferVerdict;
use dataplane::time::Picos;
use dataplane::watchdog::{self, Action};
use dataplane::wire::{MacControl, PRIORITIES};

use super::build::{FlowInfo, Topology};
use super::calendar::CalendarQueue;
use super::observe::Observer;
use super::port::{Drops, Fixed, Port, Queued};
use super::wire::Wire;

/// A host queues at most this many frames per priority; a source whose host is held longer
/// waits (the frame is not offered) rather than loses.
const HOST_QUEUE_FRAMES: usize = 32;
/// A lossy priority's egress queue on a bridge, frames (tail-dropped beyond).
const LOSSY_QUEUE_FRAMES: usize = 256;

/// An event and the port, wire or flow it is for (32-bit indices). A frame on a wire travels
/// in its arrival event, and a PFC frame received in the event of its pause taking effect:
/// frames on a wire arrive in the order they were sent, at distinct times, as their events
/// come, and pauses take effect in the order their frames arrived.
#[derive(Debug, Clone, Copy)]
enum Event {
    Tx(u32),
    /// A data frame finishes arriving over the wire from port `w` to its peer.
    Arrive(u32, Queued),
    /// A PFC frame finishes arriving over the wire from port `w` to its peer.
    ArriveControl(u32, MacControl),
    /// A PFC frame received by the port takes effect.
    Pause(u32, MacControl),
    Watchdog(u32),
    Source(u32),
    Sample,
}

/// An index as an event carries it (the topology's ports and flows number far fewer than 2^32).
fn ix(i: usize) -> u32 {
    i as u32
}

/// The most latencies reserved for a flow before the run (64 MiB): beyond, the list grows.
const LATENCIES_RESERVED: usize = 1 << 23;

/// The frames `flow` offers within `duration`, the most it can deliver (up to
/// [`LATENCIES_RESERVED`]). Reserving them at once spares the growing list's copies and the
/// fresh pages each copy faults in, which cost a tenth of a short run.
fn frames_offered(flow: &FlowInfo, duration: Picos) -> usize {
    let end = flow.stop.min(duration);
    let span = end.saturating_sub(flow.start).as_ps();
    let frames = span / flow.interval.as_ps().max(1) + 1;
    usize::try_from(frames).unwrap_or(usize::MAX).min(LATENCIES_RESERVED)
}

/// What the run counted for one flow.
#[derive(Debug, Clone, Default)]
pub(super) struct FlowStats {
    pub offered: u64,
    pub held_back: u64,
    pub delivered: u64,
    pub delivered_octets: u64,
    pub latencies_ns: Vec<u64>,
    pub window_octets: Vec<u64>,
    pub lost: Drops,
    pub last_delivery: Option<Picos>,
}

/// A watchdog detection or restoration at a port.
#[derive(Debug, Clone)]
pub(super) struct WatchdogRecord {
    pub port: usize,
    pub event: watchdog::Event,
}

pub(super) struct Sim {
    pub topo: Topology,
    pub ports: Vec<Port>,
    /// What the transmitter and arrivals look up on every event, kept apart from the topology's
    /// larger records.
    fixed: Vec<Fixed>,
    wires: Vec<Wire>,
    events: CalendarQueue<Event>,
    pub flows: Vec<FlowStats>,
    pub watchdog_events: Vec<WatchdogRecord>,
    pub observer: Observer,
    duration: Picos,
    window: Picos,
    sample: Picos,
    pub events_run: u64,
}

impl Sim {
    pub fn new(
        topo: Topology,
        duration: Picos,
        window: Picos,
        sample: Picos,
        obs: Observer,
    ) -> Self {
        let ports: Vec<Port> = topo
            .ports
            .iter()
            .enumerate()
            .map(|(i, info)| {
                let node = &topo.nodes[info.node];
                Port::new(i, info, node.pfc, node.watchdog)
            })
            .collect();
        let fixed =
            topo.ports.iter().map(|info| Fixed::new(info, &topo.nodes[info.node])).collect();
        let wires = topo.ports.iter().map(|p| Wire::new(p.speed, p.one_way)).collect();
        let windows =
            usize::try_from(duration.as_ps().div_ceil(window.as_ps().max(1))).unwrap_or(0);
        let flows = topo
            .flows
            .iter()
            .map(|f| FlowStats {
                window_octets: vec![0; windows],
                latencies_ns: Vec::with_capacity(frames_offered(f, duration)),
                ..FlowStats::default()
            })
            .collect();
        Sim {
            ports,
            fixed,
            wires,
            events: CalendarQueue::new(),
            flows,
            watchdog_events: Vec::new(),
            observer: obs,
            duration,
            window,
            sample,
            events_run: 0,
            topo,
        }
    }

    /// Runs every event up to the run's duration, earliest first. The helpers an event runs
    /// on the way of most frames are `#[inline(always)]` into this loop: each event runs several
    /// of them, and their calls' saving and restoring of registers cost as much as some of
    /// them do (callgrind).
    pub fn run(&mut self) {
        for (f, flow) in self.topo.flows.iter().enumerate() {
            self.events.schedule(flow.start, Event::Source(ix(f)));
        }
        self.events.schedule(self.sample, Event::Sample);
        while let Some((now, event)) = self.events.pop() {
            if now > self.duration {
                break;
            }
            self.events_run += 1;
            match event {
                Event::Tx(p) => {
                    let p = p as usize;
                    if self.ports[p].tx_wake == Some(now) {
                        self.ports[p].tx_wake = None;
                    }
                    self.tx_free(p, now);
                }
                Event::Arrive(w, frame) => self.arrive(w as usize, frame, now),
                Event::ArriveControl(w, control) => self.arrive_control(w as usize, control, now),
                Event::Pause(p, frame) => self.apply_pause(p as usize, now, &frame),
                Event::Watchdog(p) => self.watchdog_due(p as usize, now),
                Event::Source(f) => self.source(f as usize, now),
                Event::Sample => {
                    self.observer.sample(now, &self.ports);
                    self.events.schedule(now + self.sample, Event::Sample);
                }
            }
        }
    }

    /// Wakes port `p`'s transmitter at `at`, or when its wire is free if that is later, unless
    /// an earlier wake-up is already pending. Woken while its wire is busy, the transmitter
    /// could only ask to be woken again when the wire is free.
    #[inline(always)]
    fn wake(&mut self, p: usize, at: Picos) {
        let at = at.max(self.wires[p].idle_at());
        let (port, events) = (&mut self.ports[p], &mut self.events);
        if let Some((idle, place)) = port.tx_idle_wake.take() {
            // Something may now give the idle wake-up work: it runs, in its place.
            if !events.passed(idle, place) {
                events.schedule_reserved(idle, place, Event::Tx(ix(p)));
                port.tx_wake = Some(idle);
            }
        }
        if port.tx_wake.is_some_and(|w| w <= at) {
            return;
        }
        port.tx_wake = Some(at);
        events.schedule(at, Event::Tx(ix(p)));
    }

    #[inline(always)]
    fn source(&mut self, f: usize, now: Picos) {
        let flow = &self.topo.flows[f];
        if now >= flow.stop {
            return;
        }
        let (n, len, interval) = (usize::from(flow.priority), flow.len, flow.interval);
        let Some(p) = flow.hops[0].2 else { return };
        self.flows[f].offered += 1;
        if self.ports[p].queue(n).len() >= HOST_QUEUE_FRAMES {
            self.flows[f].held_back += 1;
        } else {
            let q = Queued::offered(ix(f), len, n as u8, now);
            self.ports[p].push(n, q);
            self.wake_for_queued(p, now);
        }
        self.events.schedule(now + interval, Event::Source(ix(f)));
    }

    /// Port `p` may start a frame: a PFC frame when one is due, else the next data frame of a
    /// priority not held; otherwise it sleeps until something can change.
    #[inline(always)]
    fn tx_free(&mut self, p: usize, now: Picos) {
        let idle = self.wires[p].idle_at();
        if idle > now {
            self.wake(p, idle);
            return;
        }
        if self.fixed[p].peer.is_none() {
            return;
        }
        let port = &mut self.ports[p];
        if port.pfc_ready_at.is_some_and(|t| t <= now) {
            port.pfc_ready_at = None;
            if let Some(control) = port.tx.poll(now) {
                let (end, arrival) = self.wires[p].transmit(now, control.buffer_len() as u64);
                self.events.schedule(arrival, Event::ArriveControl(ix(p), control));
                self.sent(p, end);
                return;
            }
        }
        self.expire(p, now);
        let Some(n) = self.ports[p].select(now) else {
            self.sleep(p, now);
            return;
        };
        let port = &mut self.ports[p];
        let Some(frame) = port.pop(n) else { return };
        port.last_served = n;
        if let Some(wd) = port.watchdog.as_mut() {
            wd.frame_sent(now, n);
        }
        self.release(frame, p, n, now);
        self.tell_waiting(p, now);
        let (end, arrival) = self.wires[p].transmit(now, u64::from(frame.len));
        self.events.schedule(arrival, Event::Arrive(ix(p), frame));
        self.sent(p, end);
    }

    /// A frame went out on `p`'s wire until `end` (its arrival scheduled): the PFC cases
    /// evaluated again after it (refresh included), the transmitter free then.
    #[inline(always)]
    fn sent(&mut self, p: usize, end: Picos) {
        let port = &mut self.ports[p];
        if port.pfc_ready_at.is_none() && port.tx.xoff() != 0 {
            port.pfc_ready_at = Some(end);
        }
        // Nothing queued, no PFC frame due and no priority in XOFF: woken at `end`, the
        // transmitter would find nothing to send and nothing to wait for, unless something
        // changes first, and whatever changes it wakes the transmitter.
        let idle = port.waiting() == 0 && port.pfc_ready_at.is_none() && port.tx.xoff() == 0;
        if idle && port.tx_wake.is_none_or(|w| w > end) {
            // As a wake-up at `end` would, this one takes the place of any later one pending.
            port.tx_wake = None;
            port.tx_idle_wake = Some((end, self.events.reserve()));
            return;
        }
        self.wake(p, end);
    }

    /// Nothing to send now: wake for a pause ending on a queue with frames, a PFC refresh, or
    /// the maximum transit delay of a held frame.
    fn sleep(&mut self, p: usize, now: Picos) {
        let (at, pfc_ready_at) = self.sleep_plan(p, now);
        self.ports[p].pfc_ready_at = pfc_ready_at;
        if let Some(t) = at {
            self.wake(p, t);
        }
    }

    /// When [`Self::sleep`] at `now` wakes port `p` next, and its `pfc_ready_at` after.
    #[inline(always)]
    fn sleep_plan(&self, p: usize, now: Picos) -> (Option<Picos>, Option<Picos>) {
        let max_transit = self.fixed[p].max_transit;
        let port = &self.ports[p];
        let mut at: Option<Picos> = None;
        let mut earliest = |t: Picos| at = Some(at.map_or(t, |a| a.min(t)));
        if port.waiting() != 0 {
            if let Some(t) = port.next_resume(now) {
                earliest(t);
            }
            if let Some(limit) = max_transit {
                for q in port.queues().filter_map(VecDeque::front) {
                    earliest((q.enqueued + limit + Picos(1)).max(now));
                }
            }
        }
        let mut pfc_ready_at = port.pfc_ready_at;
        // No priority in XOFF, no refresh to ask for.
        let refresh = if port.tx.xoff() != 0 { port.tx.next_refresh(now) } else { None };
        if let Some(t) = refresh {
            let t = t.max(now);
            pfc_ready_at = Some(pfc_ready_at.map_or(t, |r| r.min(t)));
        }
        if let Some(t) = pfc_ready_at {
            earliest(t.max(now));
        }
        (at, pfc_ready_at)
    }

    /// A frame was queued on port `p` at `now`. When the transmitter is free but nothing may
    /// go (its priority held), waking it now would only ask again for the wake-up already
    /// pending: then it is not woken.
    #[inline(always)]
    fn wake_for_queued(&mut self, p: usize, now: Picos) {
        if self.transmitter_would_only_sleep(p, now) {
            return;
        }
        self.wake(p, now);
    }

    /// Whether port `p`'s transmitter, woken at `now`, would send nothing, discard nothing,
    /// tell its watchdog nothing and go back to sleep until the wake-up already pending, with
    /// `pfc_ready_at` as it is.
    #[inline(always)]
    fn transmitter_would_only_sleep(&self, p: usize, now: Picos) -> bool {
        let port = &self.ports[p];
        let Some(pending) = port.tx_wake.filter(|&w| w > now) else { return false };
        if port.tx_idle_wake.is_some()
            || self.wires[p].idle_at() > now
            || port.pfc_ready_at.is_some_and(|t| t <= now)
            || port.told_waiting != port.waiting()
            || self.fixed[p].max_transit.is_some()
            || port.select(now).is_some()
        {
            return false;
        }
        self.sleep_plan(p, now) == (Some(pending), port.pfc_ready_at)
    }

    /// Frames at the head of `p`'s queues held longer than the bridge's maximum transit delay
    /// are discarded (802.1Q 6.5.6), freeing the buffers they hold.
    fn expire(&mut self, p: usize, now: Picos) {
        let Some(limit) = self.fixed[p].max_transit else { return };
        for n in 0..PRIORITIES {
            while let Some(q) = self.ports[p].queue(n).front().copied() {
                if now.saturating_sub(q.enqueued) <= limit {
                    break;
                }
                self.ports[p].pop(n);
                self.ports[p].drops.transit += 1;
                self.flows[q.flow as usize].lost.transit += 1;
                self.release(q, p, n, now);
            }
        }
        self.tell_waiting(p, now);
    }

    /// A frame leaves the bridge through port `from` (sent or discarded): its ingress buffer,
    /// one of the same bridge's, is freed.
    #[inline(always)]
    fn release(&mut self, q: Queued, from: usize, n: usize, now: Picos) {
        let Some(i) = q.ingress() else { return };
        debug_assert_eq!(
            self.topo.ports[i].node, self.topo.ports[from].node,
            "a frame frees a buffer of the bridge it leaves, not of one it passed"
        );
        if let Some(buffer) = self.ports[i].ingress[n].as_mut() {
            buffer.depart(u64::from(q.len));
        }
        self.xoff_changed(i, n, now);
    }

    /// Passes ingress `i`'s XOFF level on priority `n` to its PFC initiator; a change makes a
    /// PFC frame due after the generation delay.
    #[inline(always)]
    fn xoff_changed(&mut self, i: usize, n: usize, now: Picos) {
        let port = &mut self.ports[i];
        let xoff = port.ingress[n].as_ref().is_some_and(|b| b.xoff());
        if (port.tx.xoff() & (1 << n) != 0) == xoff {
            return;
        }
        port.tx.set_xoff(n, xoff);
        port.xoff_since[n] = xoff.then_some(now);
        let ready = now + self.fixed[i].pfc_generation;
        port.pfc_ready_at = Some(ready);
        self.wake(i, ready);
    }

    /// Tells `p`'s watchdog which priorities have frames waiting, when that changed.
    #[inline(always)]
    fn tell_waiting(&mut self, p: usize, now: Picos) {
        let port = &mut self.ports[p];
        let waiting = port.waiting();
        if waiting == port.told_waiting {
            return;
        }
        port.told_waiting = waiting;
        if let Some(wd) = port.watchdog.as_mut() {
            wd.waiting(now, waiting);
        }
        self.watchdog_schedule(p, now);
    }

    #[inline(always)]
    fn watchdog_schedule(&mut self, p: usize, now: Picos) {
        let port = &mut self.ports[p];
        let Some(at) = port.watchdog.as_ref().and_then(|w| w.next_deadline()) else { return };
        let at = at.max(now);
        if port.watchdog_wake.is_some_and(|w| w <= at && w >= now) {
            return;
        }
        port.watchdog_wake = Some(at);
        self.events.schedule(at, Event::Watchdog(ix(p)));
    }

    fn watchdog_due(&mut self, p: usize, now: Picos) {
        if self.ports[p].watchdog_wake == Some(now) {
            self.ports[p].watchdog_wake = None;
        }
        let Some(found) = self.ports[p].watchdog.as_mut().map(|w| w.poll(now)) else { return };
        for event in found {
            if let watchdog::Event::StormDetected { class, action: Action::Drop, .. } = event {
                let classes = if class >= PRIORITIES { 0..PRIORITIES } else { class..class + 1 };
                for n in classes {
                    self.discard_queue(p, n, now);
                }
            }
            self.watchdog_events.push(WatchdogRecord { port: p, event });
        }
        self.tell_waiting(p, now);
        self.watchdog_schedule(p, now);
        self.wake(p, now);
    }

    /// A stormed priority's queued frames are discarded, freeing the buffers they hold.
    fn discard_queue(&mut self, p: usize, n: usize, now: Picos) {
        let frames = self.ports[p].take_queue(n);
        if let Some(wd) = self.ports[p].watchdog.as_mut() {
            wd.count_dropped(n, frames.len() as u64);
        }
        for q in frames {
            self.ports[p].drops.watchdog += 1;
            self.flows[q.flow as usize].lost.watchdog += 1;
            self.release(q, p, n, now);
        }
    }

    fn apply_pause(&mut self, p: usize, now: Picos, frame: &MacControl) {
        let tx_idle = self.wires[p].idle_at();
        let port = &mut self.ports[p];
        let outcome = port.receive_control(now, frame, tx_idle);
        if let dataplane::mac::RxOutcome::PfcApplied { priorities } = outcome {
            for n in (0..PRIORITIES).filter(|n| priorities & (1 << n) != 0) {
                let until = port.rx().paused_until(n);
                port.paused[n].pause(now, until);
                port.note_held(n);
                if let Some(wd) = port.watchdog.as_mut() {
                    wd.pause_received(now, n, until);
                }
            }
        }
        self.watchdog_schedule(p, now);
        self.wake(p, now);
    }

    /// A data frame finishes arriving over wire `w` (from port `w` to its peer).
    #[inline(always)]
    fn arrive(&mut self, w: usize, frame: Queued, now: Picos) {
        let Some(to) = self.fixed[w].peer else { return };
        self.data_in(to, usize::from(frame.priority), frame, now);
    }

    /// A PFC frame finishes arriving over wire `w`: its pause takes effect at the peer after
    /// the peer's pause entry delay.
    fn arrive_control(&mut self, w: usize, control: MacControl, now: Picos) {
        let Some(to) = self.fixed[w].peer else { return };
        let entry = self.fixed[to].pause_entry;
        self.events.schedule(now + entry, Event::Pause(ix(to), control));
    }

    /// A data frame received on port `at`: delivered at a host; at a bridge, into the receive
    /// buffer and onto the egress queue of the flow's next hop.
    #[inline(always)]
    fn data_in(&mut self, at: usize, n: usize, mut q: Queued, now: Picos) {
        let flow = q.flow as usize;
        if self.fixed[at].host {
            let stats = &mut self.flows[flow];
            stats.delivered += 1;
            stats.delivered_octets += u64::from(q.len);
            stats.latencies_ns.push((now - q.created).as_ns());
            stats.last_delivery = Some(now);
            let window = (now.as_ps() / self.window.as_ps().max(1)) as usize;
            if let Some(o) = stats.window_octets.get_mut(window) {
                *o += u64::from(q.len);
            }
            return;
        }
        let Some(out) = self.topo.flows[flow].hops.get(usize::from(q.hop)).and_then(|h| h.2) else {
            return;
        };
        let ingress = &mut self.ports[at];
        if let Some(buffer) = ingress.ingress[n].as_mut() {
            if buffer.arrive(u64::from(q.len)) != BufferVerdict::Accepted {
                ingress.drops.buffer += 1;
                self.flows[flow].lost.buffer += 1;
                return;
            }
            q.hold(at);
            self.xoff_changed(at, n, now);
        } else if self.ports[out].queue(n).len() >= LOSSY_QUEUE_FRAMES {
            self.ports[out].drops.buffer += 1;
            self.flows[flow].lost.buffer += 1;
            return;
        } else {
            q.hold_none();
        }
        q.hop += 1;
        q.enqueued = now;
        let egress = &mut self.ports[out];
        if let Some(wd) = egress.watchdog.as_mut().filter(|w| w.drops(n)) {
            wd.count_dropped(n, 1);
            egress.drops.watchdog += 1;
            self.flows[flow].lost.watchdog += 1;
            self.release(q, out, n, now);
            return;
        }
        egress.push(n, q);
        self.tell_waiting(out, now);
        self.wake_for_queued(out, now);
    }
}
