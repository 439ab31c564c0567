//! Two PFC stations wired back to back: station A sends lossless traffic to station B over a
//! simulated link; B drains its receive buffer slower than A offers, so B's buffer crosses XOFF
//! and B's PFC initiator pauses A. The run counts what B had to drop — zero when B's buffer keeps
//! enough headroom (SPEC §4.5) for the round trip of items a)–k) of 36.1.1.
//!
//! Each station has the delays Annex N itemises, in bit times at the link speed: PFC frame
//! generation, the transmit and receive interface (MAC/RS, XAUI, PHY), and the time to enter
//! the paused state after a PFC frame is received. B can also send its own maximum-size frames
//! back to A, so a PFC frame may have to wait for a frame in progress (item d).

use super::{
    BufferVerdict, DataFrame, EventQueue, IngressBuffer, LinkFrame, Medium, SimLink, SimRng,
};
use crate::mac::{PfcInitiator, PfcReceiver};
use crate::time::{LinkSpeed, Picos};
use crate::wire::{MacAddr, MacControl};

mod watch;

/// Per-station delays in bit times (Annex N's 10GBASE-T example by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StationDelays {
    /// From XOFF to a PFC frame ready to send (item b): 200.
    pub pfc_generation_bits: u64,
    /// MAC/RS + XAUI + PHY, transmit direction: (12 288 + 25 600) / 2 = 18 944.
    pub tx_interface_bits: u64,
    /// The same on receive: 18 944.
    pub rx_interface_bits: u64,
    /// From a PFC frame received to transmission selection halted (item h): 6 144.
    pub pause_entry_bits: u64,
}

impl Default for StationDelays {
    fn default() -> Self {
        StationDelays {
            pfc_generation_bits: 200,
            tx_interface_bits: 18_944,
            rx_interface_bits: 18_944,
            pause_entry_bits: 6_144,
        }
    }
}

/// A back-to-back run.
#[derive(Debug, Clone)]
pub struct TwoStationConfig {
    pub speed: LinkSpeed,
    pub link_metres: u64,
    pub medium: Medium,
    pub delays: StationDelays,
    /// The lossless priority A sends on (PFC enabled on it at both ends).
    pub priority: u8,
    /// Octets per frame A sends (FCS excluded): Annex N's maximum envelope frame is 2000. With
    /// `mixed_frames_percent` it is the largest of A's frames.
    pub frame_len: u32,
    /// This share of A's frames, in percent, have a length drawn uniformly from 60 to
    /// `frame_len`; the rest are `frame_len`. 0 sends only `frame_len`.
    pub mixed_frames_percent: u8,
    /// B sends frames of this size back to A on priority 0 without pause (item d), if set.
    pub reverse_frame_len: Option<u32>,
    /// B's receive buffer for the priority is sized from this headroom, in bits.
    pub headroom_bits: u64,
    /// B drains the buffer at this share of the line rate, in percent (below 100 congests; 0
    /// never drains: the buffer only fills, and PFC must hold A for good).
    pub drain_percent: u64,
    pub duration: Picos,
    /// Randomises start offsets and the drain's phase so different seeds hit different
    /// alignments of frames in progress.
    pub seed: u64,
    /// When A starts sending, B starts sending its own frames, and B's drain starts, instead of
    /// the seed's random offsets within a frame time: lets a search sweep the alignments.
    pub start_offsets: Option<[Picos; 3]>,
    /// B's buffer allocation in octets; `None` allocates twice the headroom rounded up to 1 KiB
    /// (SPEC §4.5). XOFF stays one headroom and one frame less an octet below the allocation (at
    /// 0 if it is smaller).
    pub allocation_octets: Option<u64>,
    /// Records a [`Sample`] every this often, for plots.
    pub record_every: Option<Picos>,
    /// Only drains from this time on count in `octets_drained` (leaves out the start-up, while
    /// the first frames are still on the way).
    pub measure_from: Picos,
    /// A holds B's reverse traffic (priority 0) paused for the whole run with PFC frames of its
    /// own, so B's data queue is paused while B still has to send PFC frames: they must go out
    /// regardless (36.2.8). Needs `reverse_frame_len`.
    pub reverse_paused: bool,
    /// With `reverse_paused`: A holds the pause for the first of these, then releases it (an
    /// XON) for the second, and so on, as a congested station drains now and then. None: held
    /// for the whole run (a station that never drains: a storm).
    pub reverse_cycle: Option<(Picos, Picos)>,
}

impl TwoStationConfig {
    /// One way from a transmitting MAC to the receiving MAC: the cable plus the transmit and
    /// receive interfaces (which sit in the path like extra cable).
    pub fn one_way(&self) -> Picos {
        let bits = |b: u64| self.speed.bits_time(b);
        self.medium.delay(self.link_metres)
            + bits(self.delays.tx_interface_bits)
            + bits(self.delays.rx_interface_bits)
    }

    /// The PFC round trip without the frames in progress (ID + LD, what the measurement protocol
    /// measures): B generates a PFC frame, sends it (672 bit times), it travels to A, A enters the
    /// paused state, and A's last bit travels back. Annex N's example: 93 904 bit times (126 224
    /// less two 16 160-bit frames).
    pub fn round_trip(&self) -> Picos {
        let bits = |b: u64| self.speed.bits_time(b);
        bits(self.delays.pfc_generation_bits)
            + self.speed.frame_time(crate::wire::MIN_FRAME_LEN as u64)
            + self.one_way() * 2
            + bits(self.delays.pause_entry_bits)
    }

    /// The largest frame A or B sends, octets without FCS: the frame in progress of items d) and
    /// i), and the most a frame can bring B's buffer past XOFF.
    pub fn max_frame_octets(&self) -> u64 {
        u64::from(self.frame_len.max(self.reverse_frame_len.unwrap_or(0)))
    }

    /// [`Self::max_frame_octets`] with the FCS, as the headroom's worst case counts a frame.
    pub fn max_frame_octets_with_fcs(&self) -> u64 {
        self.max_frame_octets() + 4
    }

    /// The acceptance scenario: 10 Gb/s, 100 m of Cat6, Annex N delays, 2000-octet frames.
    pub fn annex_n(headroom_bits: u64, seed: u64) -> Self {
        TwoStationConfig {
            speed: LinkSpeed::G10,
            link_metres: 100,
            medium: Medium::Copper,
            delays: StationDelays::default(),
            priority: 3,
            frame_len: 2000,
            mixed_frames_percent: 0,
            reverse_frame_len: Some(2000),
            headroom_bits,
            drain_percent: 20,
            duration: Picos::from_ms(5),
            seed,
            start_offsets: None,
            allocation_octets: None,
            record_every: None,
            measure_from: Picos::ZERO,
            reverse_paused: false,
            reverse_cycle: None,
        }
    }
}

/// What a run measured.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TwoStationReport {
    pub frames_sent: u64,
    pub frames_received: u64,
    pub frames_dropped: u64,
    /// Frames of the lossless priority B received out of order (must be 0).
    pub out_of_order: u64,
    pub peak_occupancy_octets: u64,
    pub buffer_allocation_octets: u64,
    pub xoff_threshold_octets: u64,
    /// PFC frames B sent (its PFCRequests) and A processed (its PFCIndications).
    pub pfc_requests: u64,
    pub pfc_indications: u64,
    /// Frames B sent on the reverse path, and PFC frames A sent to pause them.
    pub reverse_frames_sent: u64,
    pub reverse_pfc_requests: u64,
    pub xoff_events: u64,
    /// Octets B's drain forwarded from `measure_from` on: the run's goodput.
    pub octets_drained: u64,
    /// Octets B's drain could have forwarded from `measure_from` on, had it never run dry.
    pub drain_capacity_octets: u64,
    /// The time series, when recording.
    pub series: Vec<Sample>,
}

/// The state of the run at one sampling instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    pub at: Picos,
    /// B's buffer occupancy, the highest in the interval ending here, octets.
    pub occupancy_octets: u64,
    /// B's XOFF request for the lossless priority.
    pub xoff: bool,
    /// A's Priority_Paused, bit n for priority n.
    pub paused: u8,
}

#[derive(Debug)]
enum Event {
    ATxFree,
    BTxFree,
    BPfcReady,
    BDrain,
    ArrivesAtB,
    ArrivesAtA,
    AApplyPause(MacControl),
    BApplyPause(MacControl),
    /// B's PFC watchdog has a deadline.
    WatchdogDue,
    /// A's `reverse_cycle` turns: hold (true) or release (false) B's priority 0.
    AReverseHold(bool),
}

/// The back-to-back scenario; build it and call [`TwoStation::run`].
pub struct TwoStation {
    cfg: TwoStationConfig,
    events: EventQueue<Event>,
    a_to_b: SimLink,
    b_to_a: SimLink,
    a_rx: PfcReceiver,
    b_tx: PfcInitiator,
    /// A's own initiator and B's receiver, for `reverse_paused`.
    a_tx: Option<PfcInitiator>,
    b_rx: PfcReceiver,
    b_buffer: IngressBuffer,
    b_queue: std::collections::VecDeque<u32>,
    b_pfc_ready_at: Option<Picos>,
    next_seq: u64,
    expected_seq: u64,
    rng: SimRng,
    report: TwoStationReport,
    next_sample: Picos,
    interval_peak: u64,
    /// The time of the last event run (or the last `advance_to`).
    now: Picos,
    /// B runs PFC on the lossless priority (see [`TwoStation::set_pfc_enable`]).
    lossless: bool,
    /// The times of B's pending wake-ups for the end of its pause and for a refresh, so that
    /// each is scheduled once.
    b_unpause_wake: Option<Picos>,
    b_refresh_wake: Option<Picos>,
    /// A's pending wake-up while paused, scheduled once per time.
    a_wake: Option<Picos>,
    /// The bridge's egress toward A, B's watchdog and A's pause storm.
    watch: watch::Watch,
}

const A_ADDR: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x0a]);
const B_ADDR: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x0b]);

impl TwoStation {
    pub fn new(cfg: TwoStationConfig) -> Self {
        let one_way = cfg.one_way();
        let enable = 1u8 << cfg.priority;
        let headroom_octets = cfg.headroom_bits.div_ceil(8);
        // Only A's frames fill the buffer: the largest of them is the most one can overshoot.
        let frame = u64::from(cfg.frame_len);
        let b_buffer = IngressBuffer::from_headroom(headroom_octets, frame, cfg.allocation_octets);
        TwoStation {
            events: EventQueue::new(),
            a_to_b: SimLink::new(cfg.speed, one_way),
            b_to_a: SimLink::new(cfg.speed, one_way),
            a_rx: PfcReceiver::new(cfg.speed, A_ADDR, enable),
            b_tx: PfcInitiator::new(cfg.speed, B_ADDR, enable),
            a_tx: cfg.reverse_paused.then(|| {
                let mut a_tx = PfcInitiator::new(cfg.speed, A_ADDR, 1);
                a_tx.set_xoff(0, true);
                a_tx
            }),
            b_rx: PfcReceiver::new(cfg.speed, B_ADDR, 1),
            b_buffer,
            b_queue: std::collections::VecDeque::new(),
            b_pfc_ready_at: None,
            next_seq: 0,
            expected_seq: 0,
            rng: SimRng::new(cfg.seed),
            report: TwoStationReport::default(),
            next_sample: Picos::ZERO,
            interval_peak: 0,
            now: Picos::ZERO,
            lossless: true,
            b_unpause_wake: None,
            b_refresh_wake: None,
            a_wake: None,
            watch: watch::Watch::new(cfg.speed),
            cfg,
        }
    }

    pub fn run(mut self) -> TwoStationReport {
        self.start();
        self.advance_to(self.cfg.duration);
        self.report()
    }

    /// Schedules the first frames and the drain; then [`TwoStation::advance_to`] runs the
    /// stations step by step (the daemon's lab drives them against the wall clock this way).
    pub fn start(&mut self) {
        let jitter = |rng: &mut SimRng, span: Picos| Picos(rng.below(span.as_ps().max(1)));
        let frame_time = self.cfg.speed.frame_time(u64::from(self.cfg.frame_len));
        let mut a_start = jitter(&mut self.rng, frame_time);
        let mut b_start = jitter(&mut self.rng, frame_time);
        let mut drain_start = jitter(&mut self.rng, frame_time);
        if let Some([a, b, drain]) = self.cfg.start_offsets {
            (a_start, b_start, drain_start) = (a, b, drain);
        }
        self.events.schedule(a_start, Event::ATxFree);
        if let (true, Some((hold, _))) = (self.cfg.reverse_paused, self.cfg.reverse_cycle) {
            self.events.schedule(hold, Event::AReverseHold(false));
        }
        self.events.schedule(b_start, Event::BTxFree);
        if self.cfg.drain_percent > 0 {
            self.events.schedule(drain_start, Event::BDrain);
        }
    }

    /// Runs every event up to and including `until`; returns how many ran.
    pub fn advance_to(&mut self, until: Picos) -> u64 {
        let mut ran = 0;
        while self.events.peek_time().is_some_and(|t| t <= until) {
            let Some((now, event)) = self.events.pop() else { break };
            self.now = now;
            ran += 1;
            match event {
                Event::ATxFree => self.a_tx_free(now),
                Event::BTxFree => self.b_tx_free(now),
                Event::BPfcReady => {
                    if self.b_to_a.idle_at() <= now {
                        self.b_tx_free(now);
                    }
                }
                Event::BDrain => self.b_drain(now),
                Event::ArrivesAtB => self.arrives_at_b(now),
                Event::ArrivesAtA => self.arrives_at_a(now),
                Event::BApplyPause(frame) => {
                    self.b_apply_pause(now, &frame);
                    self.events.schedule(now, Event::BTxFree);
                }
                Event::WatchdogDue => self.watchdog_due(now),
                Event::AReverseHold(hold) => self.a_reverse_hold(now, hold),
                Event::AApplyPause(frame) => {
                    let tx_idle = self.a_to_b.idle_at();
                    self.a_rx.receive(now, &frame, tx_idle);
                    self.events.schedule(now, Event::ATxFree);
                }
            }
            self.record(now);
        }
        self.now = self.now.max(until);
        ran
    }

    /// What the run has counted so far.
    pub fn report(&self) -> TwoStationReport {
        let mut report = self.report.clone();
        report.frames_dropped = self.b_buffer.counters.frames_dropped;
        report.peak_occupancy_octets = self.b_buffer.counters.peak_occupancy;
        report.xoff_events = self.b_buffer.counters.xoff_events;
        report.buffer_allocation_octets = self.b_buffer.allocation();
        report.xoff_threshold_octets = self.b_buffer.xoff_threshold();
        report.pfc_requests = self.b_tx.counters.pfc_requests;
        report.pfc_indications = self.a_rx.counters.pfc_indications;
        report
    }

    /// The simulated time reached.
    pub fn now(&self) -> Picos {
        self.now
    }

    pub fn config(&self) -> &TwoStationConfig {
        &self.cfg
    }

    /// B's receive buffer for the lossless priority.
    pub fn b_buffer(&self) -> &IngressBuffer {
        &self.b_buffer
    }

    /// B's PFC initiator (its counters are B's PFCRequests).
    pub fn b_initiator(&self) -> &PfcInitiator {
        &self.b_tx
    }

    /// A's PFC receiver (its counters are A's PFCIndications, its pause state A's
    /// Priority_Paused).
    pub fn a_receiver(&self) -> &PfcReceiver {
        &self.a_rx
    }

    /// Resizes B's buffer for a new headroom (bits) while running: the allowance in force
    /// changed. Occupancy and counters stay; a changed XOFF request makes a PFC frame due.
    pub fn set_headroom(&mut self, headroom_bits: u64, allocation_octets: Option<u64>) {
        let sized = IngressBuffer::from_headroom(
            headroom_bits.div_ceil(8),
            u64::from(self.cfg.frame_len),
            allocation_octets,
        );
        self.cfg.headroom_bits = headroom_bits;
        self.cfg.allocation_octets = allocation_octets;
        self.b_buffer.replan(sized.allocation(), sized.xoff_threshold(), sized.xon_threshold());
        let now = self.now;
        self.xoff_changed(now);
    }

    /// B's PFC receiver (its counters are B's PFCIndications, its pause state B's
    /// Priority_Paused: with `reverse_paused`, A holds B's priority 0).
    pub fn b_receiver(&self) -> &PfcReceiver {
        &self.b_rx
    }

    /// Resets B's counters (its MAC's and its buffer's): B's clear-pfc-counters. The run's own
    /// report keeps counting.
    pub fn clear_b_counters(&mut self) {
        self.b_tx.counters = Default::default();
        self.b_rx.counters = Default::default();
        self.b_buffer.clear_counters();
        self.watch.clear_counters();
    }

    /// Sets the priorities with PFC enabled at both ends while running (B's choice; A, the
    /// peer, adopts it as a willing DCBX peer would). Without the lossless priority in it B's
    /// buffer still fills and drops, but B asks for no pause.
    pub fn set_pfc_enable(&mut self, enable: u8) {
        self.lossless = enable & (1 << self.cfg.priority) != 0;
        self.b_tx.set_pfc_enable(enable);
        self.b_rx.set_pfc_enable(enable);
        self.a_rx.set_pfc_enable(enable);
        let now = self.now;
        self.xoff_changed(now);
    }

    /// Sets the priorities on which A, the peer, honours B's PFC frames, when A runs its own
    /// DCBX instead of adopting B's choice ([`TwoStation::set_pfc_enable`] sets both ends).
    pub fn set_peer_pfc_enable(&mut self, enable: u8) {
        self.a_rx.set_pfc_enable(enable);
    }

    /// Samples the buffer and pause state at each interval boundary passed.
    fn record(&mut self, now: Picos) {
        let Some(every) = self.cfg.record_every.filter(|e| *e > Picos::ZERO) else {
            return;
        };
        let occupancy = self.b_buffer.occupancy();
        self.interval_peak = self.interval_peak.max(occupancy);
        while self.next_sample <= now {
            let at = self.next_sample;
            let paused = (0..8)
                .filter(|&p| self.a_rx.priority_paused(at, p))
                .fold(0u8, |bits, p| bits | (1 << p));
            self.report.series.push(Sample {
                at,
                occupancy_octets: self.interval_peak,
                xoff: self.b_buffer.xoff(),
                paused,
            });
            self.interval_peak = occupancy;
            self.next_sample = at + every;
        }
    }

    /// A's `reverse_cycle` turns: its initiator holds or releases B's priority 0 (the XOFF or
    /// XON goes out at A's next transmission opportunity), and the next turn is scheduled.
    fn a_reverse_hold(&mut self, now: Picos, hold: bool) {
        let (Some(tx), Some((held, released))) = (self.a_tx.as_mut(), self.cfg.reverse_cycle)
        else {
            return;
        };
        tx.set_xoff(0, hold);
        let next = now + if hold { held } else { released };
        self.events.schedule(next, Event::AReverseHold(!hold));
        self.events.schedule(now, Event::ATxFree);
    }

    /// A's transmission selection: one lossless frame whenever the wire is free and the
    /// priority is not paused; otherwise wake when the pause ends.
    fn a_tx_free(&mut self, now: Picos) {
        if self.a_to_b.idle_at() > now {
            return; // a wake-up already follows the frame in progress
        }
        let control = self.a_tx.as_mut().and_then(|tx| tx.poll(now));
        if let Some(control) = control.or_else(|| self.storm_poll(now)) {
            self.report.reverse_pfc_requests += 1;
            let end = self.a_to_b.transmit(now, LinkFrame::Bytes(control.to_vec()));
            self.events.schedule(end, Event::ATxFree);
            if let Some(at) = self.a_to_b.last_arrival() {
                self.events.schedule(at, Event::ArrivesAtB);
            }
            return;
        }
        let priority = usize::from(self.cfg.priority);
        if self.a_rx.priority_paused(now, priority) {
            let mut wake = self.a_rx.paused_until(priority);
            let own = self.a_tx.as_ref().and_then(|tx| tx.next_refresh(now));
            if let Some(refresh) = [own, self.storm_refresh(now)].into_iter().flatten().min() {
                wake = wake.min(refresh.max(now));
            }
            // One wake-up per time, as for B: each pause applied at A wakes it once more, and
            // while A stays paused every such wake-up would otherwise live on as a duplicate.
            if self.a_wake != Some(wake) {
                self.a_wake = Some(wake);
                self.events.schedule(wake, Event::ATxFree);
            }
            return;
        }
        let len = self.next_frame_len();
        let frame = DataFrame { priority: self.cfg.priority, len, seq: self.next_seq };
        self.next_seq += 1;
        self.report.frames_sent += 1;
        let lost_before = self.a_to_b.frames_lost;
        let end = self.a_to_b.transmit(now, LinkFrame::Data(frame));
        self.events.schedule(end, Event::ATxFree);
        if let (Some(at), true) =
            (self.a_to_b.last_arrival(), lost_before == self.a_to_b.frames_lost)
        {
            self.events.schedule(at, Event::ArrivesAtB);
        }
    }

    /// The length of A's next frame (the random source is only drawn on with a mix, so runs
    /// without one stay as they were).
    fn next_frame_len(&mut self) -> u32 {
        let max = self.cfg.frame_len;
        let mixed = u32::from(self.cfg.mixed_frames_percent.min(100)) * 10_000;
        if mixed > 0 && self.rng.chance_ppm(mixed) {
            // Lengths from 60 to max: the u64 draw fits back in u32 below max.
            let min = 60.min(max);
            min + u32::try_from(self.rng.below(u64::from(max - min) + 1)).unwrap_or(0)
        } else {
            max
        }
    }

    /// B's transmitter: a PFC frame first when one is due and generated, else reverse traffic.
    fn b_tx_free(&mut self, now: Picos) {
        if self.b_to_a.idle_at() > now {
            return;
        }
        let pfc_ready = self.b_pfc_ready_at.is_some_and(|t| t <= now);
        let control = if pfc_ready { self.b_tx.poll(now) } else { None };
        if pfc_ready {
            self.b_pfc_ready_at = None;
        }
        let frame = match control {
            Some(c) => LinkFrame::Bytes(c.to_vec()),
            None if self.b_egress_send(now) => return,
            None => match self.cfg.reverse_frame_len {
                // Transmission selection never starts a paused priority; PFC frames above
                // bypassed this check.
                Some(_) if self.b_rx.priority_paused(now, 0) => {
                    // One wake-up per time: every wake-up of a paused B used to schedule two
                    // more, doubling the queue at each of A's refreshes (harmless in a 5 ms run,
                    // fatal in the daemon's lab, which runs for hours).
                    let until = self.b_rx.paused_until(0);
                    if self.b_unpause_wake != Some(until) {
                        self.b_unpause_wake = Some(until);
                        self.events.schedule(until, Event::BTxFree);
                    }
                    self.wake_for_refresh(now);
                    return;
                }
                Some(len) => {
                    // A reads only B's MAC Control frames: B's data takes the wire's time and
                    // is never delivered (no arrival event per frame).
                    self.report.reverse_frames_sent += 1;
                    let end = self.b_to_a.transmit_unread(now, u64::from(len));
                    self.b_sent(end);
                    return;
                }
                None => {
                    self.wake_for_refresh(now);
                    return;
                }
            },
        };
        let end = self.b_to_a.transmit(now, frame);
        self.b_sent(end);
        if let Some(at) = self.b_to_a.last_arrival() {
            self.events.schedule(at, Event::ArrivesAtA);
        }
    }

    /// B's frame on the wire until `end`: the MAC re-evaluates its PFC cases (refresh included)
    /// after it, and the transmitter is free again then.
    fn b_sent(&mut self, end: Picos) {
        if self.b_pfc_ready_at.is_none() && self.b_tx.xoff() != 0 {
            self.b_pfc_ready_at = Some(end);
        }
        self.events.schedule(end, Event::BTxFree);
    }

    /// B has nothing to send: wake for the next refresh, if a pause is being held.
    fn wake_for_refresh(&mut self, now: Picos) {
        if let Some(t) = self.b_tx.next_refresh(now) {
            self.b_pfc_ready_at = Some(t);
            let at = t.max(now);
            if self.b_refresh_wake != Some(at) {
                self.b_refresh_wake = Some(at);
                self.events.schedule(at, Event::BPfcReady);
            }
        }
    }

    fn arrives_at_b(&mut self, now: Picos) {
        while let Some((_, frame)) = self.a_to_b.receive(now) {
            let d = match frame {
                LinkFrame::Data(d) => d,
                LinkFrame::Bytes(bytes) => {
                    if let Ok(control) = MacControl::parse(&bytes) {
                        let entry = self.cfg.speed.bits_time(self.cfg.delays.pause_entry_bits);
                        self.events.schedule(now + entry, Event::BApplyPause(control));
                    }
                    continue;
                }
            };
            if d.seq != self.expected_seq {
                self.report.out_of_order += 1;
            }
            self.expected_seq = d.seq + 1;
            if self.b_buffer.arrive(u64::from(d.len)) == BufferVerdict::Accepted {
                self.report.frames_received += 1;
                self.b_queue.push_back(d.len);
            }
            self.xoff_changed(now);
        }
    }

    fn arrives_at_a(&mut self, now: Picos) {
        while let Some((_, frame)) = self.b_to_a.receive(now) {
            let LinkFrame::Bytes(bytes) = frame else { continue };
            if let Ok(control) = MacControl::parse(&bytes) {
                let entry = self.cfg.speed.bits_time(self.cfg.delays.pause_entry_bits);
                self.events.schedule(now + entry, Event::AApplyPause(control));
            }
        }
    }

    fn b_drain(&mut self, now: Picos) {
        let len = self.b_queue.pop_front().unwrap_or(self.cfg.frame_len);
        if !self.b_queue.is_empty() || self.b_buffer.occupancy() > 0 {
            self.b_buffer.depart(u64::from(len));
            if now >= self.cfg.measure_from {
                self.report.octets_drained += u64::from(len);
            }
            self.xoff_changed(now);
        }
        if now >= self.cfg.measure_from {
            self.report.drain_capacity_octets += u64::from(len);
        }
        // One frame's worth at drain_percent of line rate.
        let per_frame =
            self.cfg.speed.frame_time(u64::from(len)).as_ps() * 100 / self.cfg.drain_percent.max(1);
        self.events.schedule(now + Picos(per_frame), Event::BDrain);
    }

    /// Passes the buffer's XOFF level to the initiator; a change makes a PFC frame due after the
    /// generation delay.
    fn xoff_changed(&mut self, now: Picos) {
        let xoff = self.lossless && self.b_buffer.xoff();
        let priority = usize::from(self.cfg.priority);
        if (self.b_tx.xoff() & (1 << priority) != 0) == xoff {
            return;
        }
        self.b_tx.set_xoff(priority, xoff);
        let ready = now + self.cfg.speed.bits_time(self.cfg.delays.pfc_generation_bits);
        self.b_pfc_ready_at = Some(ready);
        self.events.schedule(ready, Event::BPfcReady);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uncongested_link_never_pauses() {
        let mut cfg = TwoStationConfig::annex_n(126_224, 1);
        cfg.drain_percent = 100;
        cfg.duration = Picos::from_us(500);
        let r = TwoStation::new(cfg).run();
        assert!(r.frames_sent > 100);
        assert_eq!(r.frames_dropped, 0);
        assert_eq!(r.pfc_requests, 0, "{r:?}");
    }

    #[test]
    fn stepping_gives_the_same_run_and_a_larger_headroom_stops_the_drops() {
        let mut cfg = TwoStationConfig::annex_n(126_224 / 4, 7);
        cfg.duration = Picos::from_us(400);
        let whole = TwoStation::new(cfg.clone()).run();
        let mut stepped = TwoStation::new(cfg.clone());
        stepped.start();
        let mut t = Picos::ZERO;
        while t < cfg.duration {
            t = (t + Picos::from_us(7)).min(cfg.duration);
            stepped.advance_to(t);
        }
        assert_eq!(stepped.report(), whole);
        assert!(whole.frames_dropped > 0, "a quarter of the headroom loses frames: {whole:?}");

        // The Annex N headroom from now on: nothing more is lost.
        stepped.set_headroom(126_224 + 2 * 32, None);
        let dropped = stepped.report().frames_dropped;
        stepped.advance_to(Picos::from_ms(3));
        let after = stepped.report();
        assert_eq!(after.frames_dropped, dropped, "{after:?}");
        assert!(after.pfc_requests > whole.pfc_requests);
    }

    #[test]
    fn a_long_run_with_b_held_paused_keeps_a_bounded_event_queue() {
        let mut cfg = TwoStationConfig::annex_n(126_224, 3);
        cfg.reverse_paused = true;
        let mut s = TwoStation::new(cfg);
        s.start();
        for ms in 1..=200 {
            s.advance_to(Picos::from_ms(ms));
            let pending = s.events.len();
            assert!(pending < 100, "{pending} events pending after {ms} ms");
        }
        assert!(s.b_receiver().counters.pfc_indications > 100);
    }

    #[test]
    fn a_long_run_with_a_held_paused_keeps_a_bounded_event_queue() {
        // B never drains: its XOFF holds A for good, refreshed every half pause.
        let mut cfg = TwoStationConfig::annex_n(126_224, 3);
        cfg.drain_percent = 0;
        let mut s = TwoStation::new(cfg);
        s.start();
        for ms in 1..=200 {
            s.advance_to(Picos::from_ms(ms));
            let pending = s.events.len();
            assert!(pending < 20, "{pending} events pending after {ms} ms");
        }
        assert!(s.a_receiver().counters.pfc_indications > 100);
    }

    #[test]
    fn a_cycling_peer_releases_b_for_its_release_time_and_holds_it_again() {
        let mut cfg = TwoStationConfig::annex_n(126_224, 3);
        cfg.reverse_paused = true;
        cfg.reverse_cycle = Some((Picos::from_ms(3), Picos::from_ms(1)));
        let mut s = TwoStation::new(cfg);
        s.start();
        let paused_at = |s: &mut TwoStation, us: u64| {
            s.advance_to(Picos::from_us(us));
            s.b_receiver().priority_paused(Picos::from_us(us), 0)
        };
        // Held from the start to 3 ms, released to 4 ms (the XON's flight and the frame in
        // progress aside), held again from 4 ms to 7 ms.
        assert!(paused_at(&mut s, 1_000));
        assert!(paused_at(&mut s, 2_900));
        let sent_before = s.report().reverse_frames_sent;
        assert!(!paused_at(&mut s, 3_500));
        assert!(paused_at(&mut s, 4_500));
        assert!(s.report().reverse_frames_sent > sent_before, "B sent while released");
        assert!(paused_at(&mut s, 6_900));
        assert!(!paused_at(&mut s, 7_500));
    }
}
