//! One simulated port of a bridge or host: the same parts as a pfcd port (the PFC MAC's
//! receiver and initiator, a receive buffer per lossless priority, the PFC watchdog) with the
//! queues of frames waiting to leave.

use std::cell::Cell;
use std::collections::VecDeque;

use dataplane::headroom::BufferPlan;
use dataplane::mac::{PfcInitiator, PfcReceiver, RxOutcome};
use dataplane::sim::IngressBuffer;
use dataplane::time::Picos;
use dataplane::watchdog::{Watchdog, WatchdogSetup};
use dataplane::wire::{MacAddr, MacControl, PRIORITIES};

use super::build::{Node, PortInfo};

/// A frame waiting in an egress queue or on a wire. (32 octets: queues and wires move it
/// whole at every hop.)
#[derive(Debug, Clone, Copy)]
pub(super) struct Queued {
    pub created: Picos,
    pub enqueued: Picos,
    pub flow: u32,
    pub len: u32,
    /// The ingress port whose buffer the frame takes until it leaves (lossless priorities), or
    /// [`NO_INGRESS`].
    ingress: u32,
    /// The index in the flow's path of the device it goes to next.
    pub hop: u16,
    pub priority: u8,
}

const _: () = assert!(std::mem::size_of::<Queued>() == 32);

/// A frame that holds no ingress buffer (from a host, or on a lossy priority).
const NO_INGRESS: u32 = u32::MAX;

impl Queued {
    /// A frame of `flow` offered by its source at `now`, on its way to the first device after
    /// the host.
    pub fn offered(flow: u32, len: u32, priority: u8, now: Picos) -> Self {
        Queued { created: now, enqueued: now, flow, len, ingress: NO_INGRESS, hop: 1, priority }
    }

    /// The ingress port whose buffer the frame holds.
    pub fn ingress(&self) -> Option<usize> {
        (self.ingress != NO_INGRESS).then_some(self.ingress as usize)
    }

    /// The frame now holds a buffer of ingress port `i` (numbered below `u32::MAX`).
    pub fn hold(&mut self, i: usize) {
        self.ingress = u32::try_from(i).unwrap_or(NO_INGRESS);
    }

    /// The frame holds no ingress buffer (queued on a lossy priority): the previous bridge's,
    /// freed when it left there, is not this one's.
    pub fn hold_none(&mut self) {
        self.ingress = NO_INGRESS;
    }
}

/// A time a class has been held, as exact intervals: the current one and the total of the
/// closed ones.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Held {
    pub since: Option<Picos>,
    pub until: Picos,
    pub total: Picos,
}

impl Held {
    /// A pause applied at `now` holding until `until` (at or before `now`: released).
    pub fn pause(&mut self, now: Picos, until: Picos) {
        match self.since {
            Some(_) if now < self.until => {}
            Some(since) => {
                self.total += self.until - since;
                self.since = None;
            }
            None => {}
        }
        if until > now {
            self.since.get_or_insert(now);
            self.until = until;
        } else if let Some(since) = self.since.take() {
            self.total += now.saturating_sub(since);
        }
    }

    /// Since when the class is held at `now`, if it is.
    pub fn held_since(&self, now: Picos) -> Option<Picos> {
        self.since.filter(|_| now < self.until)
    }

    /// The whole time held up to `end`.
    pub fn total_to(&self, end: Picos) -> Picos {
        self.total + self.since.map_or(Picos::ZERO, |s| self.until.min(end).saturating_sub(s))
    }
}

/// What a port's events look up that never changes during a run.
#[derive(Debug, Clone, Copy)]
pub(super) struct Fixed {
    pub peer: Option<usize>,
    /// The port belongs to a host (frames received are delivered).
    pub host: bool,
    /// The bridge's maximum transit delay (6.5.6), if set.
    pub max_transit: Option<Picos>,
    /// From an XOFF change to the PFC frame that tells it.
    pub pfc_generation: Picos,
    /// From a PFC frame's reception to its pause taking effect.
    pub pause_entry: Picos,
}

impl Fixed {
    pub fn new(info: &PortInfo, node: &Node) -> Self {
        Fixed {
            peer: info.peer,
            host: node.host,
            max_transit: node.max_transit,
            pfc_generation: info.speed.bits_time(info.delays.pfc_generation_bits),
            pause_entry: info.speed.bits_time(info.delays.pause_entry_bits),
        }
    }
}

/// A port's running state.
#[derive(Debug)]
pub(super) struct Port {
    /// Changed only through [`Port::receive_control`], which keeps `resume_memo` valid.
    rx: PfcReceiver,
    /// `rx.next_resume`'s last answer and when it was asked: it holds from then until the
    /// answer's time, as long as `rx` is unchanged (a transmitter held by a long pause asks at
    /// every frame queued behind it).
    resume_memo: Cell<Option<(Picos, Option<Picos>)>>,
    pub tx: PfcInitiator,
    pub pfc_ready_at: Option<Picos>,
    /// Frames waiting to leave, per priority (changed through [`Port::push`] and
    /// [`Port::pop`], which keep `backlog`).
    queues: [VecDeque<Queued>; PRIORITIES],
    /// Priorities with frames waiting (bit n = priority n).
    backlog: u8,
    /// Per priority, the ingress ports whose buffers the queued frames hold, with how many
    /// frames each (what the wait-for graph samples, kept as frames come and go).
    from_ingress: [Vec<(u32, u32)>; PRIORITIES],
    pub ingress: [Option<IngressBuffer>; PRIORITIES],
    pub xoff_since: [Option<Picos>; PRIORITIES],
    /// Changed through [`Held::pause`], then [`Port::note_held`].
    pub paused: [Held; PRIORITIES],
    /// Priorities whose `paused` has an interval open (bit n = priority n).
    held_open: u8,
    /// Boxed: a watchdog is larger than the rest of the port, and most ports have none.
    pub watchdog: Option<Box<Watchdog>>,
    pub told_waiting: u8,
    pub last_served: usize,
    /// The earliest transmit wake-up pending, and the watchdog's.
    pub tx_wake: Option<Picos>,
    /// A wake-up for the end of the frame on the wire that would find nothing to do, left
    /// unscheduled: its time and its place among the events of that time, kept in case
    /// something gives it work before then.
    pub tx_idle_wake: Option<(Picos, u64)>,
    pub watchdog_wake: Option<Picos>,
    pub drops: Drops,
}

/// Frames a port discarded, by reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Drops {
    /// Arrived to a full receive buffer (lossless) or a full queue (lossy).
    pub buffer: u64,
    /// Discarded by the PFC watchdog (egress).
    pub watchdog: u64,
    /// Held past the maximum bridge transit delay (egress).
    pub transit: u64,
}

impl Port {
    pub fn new(index: usize, info: &PortInfo, pfc: u8, watchdog: Option<WatchdogSetup>) -> Self {
        let [hi, lo] = u16::try_from(index).unwrap_or(u16::MAX).to_be_bytes();
        let addr = MacAddr([0x02, 0, 0, 0xfa, hi, lo]);
        let ingress = std::array::from_fn(|n| {
            info.plan
                .as_ref()
                .filter(|_| pfc & (1 << n) != 0)
                .map(|plan: &BufferPlan| IngressBuffer::from_plan(plan))
        });
        Port {
            rx: PfcReceiver::new(info.speed, addr, pfc),
            resume_memo: Cell::new(None),
            tx: PfcInitiator::new(info.speed, addr, pfc),
            pfc_ready_at: None,
            queues: std::array::from_fn(|_| VecDeque::new()),
            backlog: 0,
            from_ingress: std::array::from_fn(|_| Vec::new()),
            ingress,
            xoff_since: [None; PRIORITIES],
            paused: [Held::default(); PRIORITIES],
            held_open: 0,
            watchdog: watchdog.map(|s| Box::new(Watchdog::new(s.classes))),
            told_waiting: 0,
            last_served: PRIORITIES - 1,
            tx_wake: None,
            tx_idle_wake: None,
            watchdog_wake: None,
            drops: Drops::default(),
        }
    }

    /// Priorities with frames waiting (bit n = priority n).
    pub fn waiting(&self) -> u8 {
        self.backlog
    }

    /// The PFC receiver.
    pub fn rx(&self) -> &PfcReceiver {
        &self.rx
    }

    /// Passes a MAC Control frame that took effect at `now` to the PFC receiver.
    pub fn receive_control(
        &mut self,
        now: Picos,
        frame: &MacControl,
        tx_idle_at: Picos,
    ) -> RxOutcome {
        self.resume_memo.set(None);
        self.rx.receive(now, frame, tx_idle_at)
    }

    /// When the next pause in force at `now` ends, if one is (the PFC receiver's
    /// `next_resume`).
    pub fn next_resume(&self, now: Picos) -> Option<Picos> {
        if let Some((asked, answer)) = self.resume_memo.get() {
            // No pause ends in (asked, answer): the earliest after `now` is still `answer`.
            if now >= asked && answer.is_none_or(|end| now < end) {
                return answer;
            }
        }
        let answer = self.rx.next_resume(now);
        self.resume_memo.set(Some((now, answer)));
        answer
    }

    /// Keeps [`Port::held_open`] after priority `n`'s `paused` changed.
    pub fn note_held(&mut self, n: usize) {
        let bit = 1 << n;
        if self.paused[n].since.is_some() {
            self.held_open |= bit;
        } else {
            self.held_open &= !bit;
        }
    }

    /// Priorities whose pause interval is open (bit n = priority n): held now, or until a
    /// pause frame closes it.
    pub fn held_open(&self) -> u8 {
        self.held_open
    }

    /// Priority `n`'s queue.
    pub fn queue(&self, n: usize) -> &VecDeque<Queued> {
        &self.queues[n]
    }

    pub fn queues(&self) -> impl Iterator<Item = &VecDeque<Queued>> {
        self.queues.iter()
    }

    /// The ingress ports whose buffers priority `n`'s queued frames hold (each once).
    pub fn holding(&self, n: usize) -> impl Iterator<Item = u32> + '_ {
        self.from_ingress[n].iter().map(|(i, _)| *i)
    }

    /// Queues a frame on priority `n`.
    #[inline(always)]
    pub fn push(&mut self, n: usize, q: Queued) {
        if let Some(i) = q.ingress().map(|i| i as u32) {
            let from = &mut self.from_ingress[n];
            match from.iter_mut().find(|(j, _)| *j == i) {
                Some((_, count)) => *count += 1,
                None => from.push((i, 1)),
            }
        }
        self.queues[n].push_back(q);
        self.backlog |= 1 << n;
    }

    /// Takes the frame at the head of priority `n`'s queue.
    #[inline(always)]
    pub fn pop(&mut self, n: usize) -> Option<Queued> {
        let q = self.queues[n].pop_front();
        if self.queues[n].is_empty() {
            self.backlog &= !(1 << n);
        }
        if let Some(i) = q.and_then(|q| q.ingress()).map(|i| i as u32) {
            let from = &mut self.from_ingress[n];
            if let Some(k) = from.iter().position(|(j, _)| *j == i) {
                from[k].1 -= 1;
                if from[k].1 == 0 {
                    from.swap_remove(k);
                }
            }
        }
        q
    }

    /// Takes every frame of priority `n`'s queue.
    pub fn take_queue(&mut self, n: usize) -> VecDeque<Queued> {
        self.backlog &= !(1 << n);
        self.from_ingress[n].clear();
        std::mem::take(&mut self.queues[n])
    }

    /// Whether transmission selection holds priority `n`: paused and the watchdog honours it.
    pub fn held(&self, now: Picos, n: usize) -> bool {
        self.rx.priority_paused(now, n) && self.watchdog.as_ref().is_none_or(|w| w.honours_pause(n))
    }

    /// The next priority that may send, round robin: of those with frames waiting, the first
    /// after the last served (it included, last) that is not held.
    #[inline(always)]
    pub fn select(&self, now: Picos) -> Option<usize> {
        let start = (self.last_served + 1) % PRIORITIES;
        // Priority `start` at bit 0, the one after it at bit 1, and so on round.
        let mut candidates = self.backlog.rotate_right(start as u32);
        while candidates != 0 {
            let k = candidates.trailing_zeros() as usize;
            let n = (start + k) % PRIORITIES;
            if !self.held(now, n) {
                return Some(n);
            }
            candidates &= !(1 << k);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dataplane::time::LinkSpeed;
    use dataplane::wire::{MacControl, PfcFrame};

    /// A 10G port with PFC on every priority, no buffers and no watchdog.
    fn bare_port() -> Port {
        Port {
            rx: PfcReceiver::new(LinkSpeed::G10, MacAddr([2, 0, 0, 0, 0, 1]), 0xff),
            resume_memo: Cell::new(None),
            tx: PfcInitiator::new(LinkSpeed::G10, MacAddr([2, 0, 0, 0, 0, 1]), 0xff),
            pfc_ready_at: None,
            queues: std::array::from_fn(|_| VecDeque::new()),
            backlog: 0,
            from_ingress: std::array::from_fn(|_| Vec::new()),
            ingress: std::array::from_fn(|_| None),
            xoff_since: [None; PRIORITIES],
            paused: [Held::default(); PRIORITIES],
            held_open: 0,
            watchdog: None,
            told_waiting: 0,
            last_served: PRIORITIES - 1,
            tx_wake: None,
            tx_idle_wake: None,
            watchdog_wake: None,
            drops: Drops::default(),
        }
    }

    /// Transmission selection serves the priorities with frames waiting in turn, starting after
    /// the last one served and coming back to it last, and passes over a held one.
    #[test]
    fn selection_takes_the_waiting_priorities_in_turn_after_the_last_served() {
        let mut port = bare_port();
        port.last_served = 5;
        let frame = Queued::offered(0, 1000, 0, Picos::ZERO);
        assert_eq!(port.select(Picos::ZERO), None, "nothing waits");
        for n in [1, 3, 5] {
            port.push(n, frame);
        }
        let mut order = Vec::new();
        for _ in 0..4 {
            let n = port.select(Picos::ZERO).expect("a priority waits");
            order.push(n);
            port.last_served = n;
        }
        assert_eq!(order, [1, 3, 5, 1], "after 5 comes 1, then 3, then 5 itself");
        let pause = PfcFrame::pause(MacAddr([2, 0, 0, 0, 0, 2]), 1 << 3, 0xffff);
        port.rx.receive(Picos::ZERO, &MacControl::Pfc(pause), Picos::ZERO);
        port.last_served = 1;
        assert_eq!(port.select(Picos(1)), Some(5), "3 is paused: passed over");
    }

    /// The port answers when the next pause ends as its PFC receiver does, at any time and
    /// after any pause frame, however it keeps the answer between frames.
    #[test]
    fn the_next_resume_is_the_receivers_at_every_time() {
        let mut port = bare_port();
        let mut rng = dataplane::sim::SimRng::new(3);
        let mut now = Picos::ZERO;
        for step in 0..20_000 {
            now += Picos(rng.next_u64() % 400_000);
            if rng.next_u64().is_multiple_of(8) {
                let n = (rng.next_u64() % 8) as u8;
                let quanta = (rng.next_u64() % 3) as u16 * 300;
                let pause = PfcFrame::pause(MacAddr([2, 0, 0, 0, 0, 2]), 1 << n, quanta);
                port.receive_control(now, &MacControl::Pfc(pause), now);
            }
            assert_eq!(port.next_resume(now), port.rx().next_resume(now), "step {step}");
        }
    }
}
