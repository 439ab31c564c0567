use std::collections::VecDeque;

use super::class::{ClassState, FsmState};
use super::config::{PauseMode, PipelineConfig, Traffic};
use super::fd::{Fd, FdId, FdSlab};
use super::stage::Stage;
use super::stats::PipelineStats;
use crate::mac::PfcReceiver;
use crate::sim::{EventQueue, SimRng};
use crate::time::{Picos, PFC_REACTION_BOUND};
use crate::wire::{MacAddr, MacControl, PfcFrame, PRIORITIES};

/// A frame that started on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Departure {
    pub time: Picos,
    pub port: u8,
    pub priority: u8,
    pub seq: u64,
    pub len: u16,
}

/// A PFC frame reaching a port's MAC: first the indication (for the reaction-bound checker),
/// then, after the detection latency, its effect on Priority_Paused.
#[derive(Debug)]
struct PfcEvent {
    port: usize,
    frame: PfcFrame,
    apply: bool,
}

struct Port {
    rx: PfcReceiver,
    busy_until: Picos,
    /// MAC transmit queue (`external`, `stall`): FDs with the time they reached the MAC.
    queue: VecDeque<(Picos, FdId)>,
    inflight: u32,
    /// Priority_Paused as last applied.
    paused: u8,
    /// When a pause timer next runs out.
    next_resume: Option<Picos>,
    /// `fifo` mode: next priority to look at first.
    rr: usize,
    /// Bit n: QMAN may push priority n, credit of the port aside.
    class_ok: u8,
}

/// The pipeline engine. Build it, optionally schedule PFC frames, then [`Pipeline::run`].
pub struct Pipeline {
    cfg: PipelineConfig,
    cycle: u64,
    slab: FdSlab,
    rng: SimRng,
    classes: Vec<ClassState>,
    ports: Vec<Port>,
    push_queue: Stage,
    qmi: Stage,
    /// QMI, BMI and NTI as one delay line (see `fuse`): the same timing, fewer moves.
    fused: bool,
    bmi: Stage,
    nti: Stage,
    flush_inflight: VecDeque<(u64, FdId)>,
    recycle_staging: VecDeque<FdId>,
    writes_inflight: VecDeque<(u64, FdId)>,
    external_used: usize,
    pfc_events: EventQueue<PfcEvent>,
    /// Classes whose Pause FSM is not idle.
    active: Vec<usize>,
    /// Bit per class: QMAN may push it now (not halted, has traffic, has credit).
    eligible: Vec<u64>,
    qman_rr: usize,
    generating: bool,
    paused_classes: usize,
    onchip_paused_octets: u64,
    next_buffer: u32,
    /// Each class may have at most this many FDs in flight: a share of the port's credit that
    /// also bounds its external FIFO and, in `fifo` mode, its on-chip FIFO.
    class_credit: usize,
    /// Wire time of a frame by its length (the division is too slow for the hot path).
    wire_time: Vec<Picos>,
    stats: PipelineStats,
    departures: Option<Vec<Departure>>,
}

const MAC_BASE: [u8; 5] = [0x02, 0x00, 0x00, 0x00, 0x01];
const PEER: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0xfe]);

impl Pipeline {
    pub fn new(cfg: PipelineConfig) -> Result<Self, String> {
        cfg.validate()?;
        let nclasses = cfg.ports * PRIORITIES;
        let ports = (0..cfg.ports)
            .map(|p| {
                let mut addr = [0u8; 6];
                addr[..5].copy_from_slice(&MAC_BASE);
                addr[5] = p as u8;
                Port {
                    rx: PfcReceiver::new(cfg.speed, MacAddr(addr), 0xff),
                    busy_until: Picos::ZERO,
                    queue: VecDeque::new(),
                    inflight: 0,
                    paused: 0,
                    next_resume: None,
                    rr: 0,
                    class_ok: 0,
                }
            })
            .collect();
        // When no stage's capacity can bind (each holds at least latency x width FDs) and FDs
        // enter at most `width` per cycle, every FD leaves QMI, BMI and NTI exactly their
        // summed latency after entering QMI: one delay line then gives the same timing.
        let longest = cfg.qmi_latency.max(cfg.bmi_latency).max(cfg.nti_latency);
        let fused = cfg.stage_capacity as u64 >= longest * cfg.width as u64;
        let nti = if fused {
            Stage::new(cfg.qmi_latency + cfg.bmi_latency + cfg.nti_latency, 3 * cfg.stage_capacity)
        } else {
            Stage::new(cfg.nti_latency, cfg.stage_capacity)
        };
        let mut pipeline = Pipeline {
            cycle: 0,
            slab: FdSlab::default(),
            rng: SimRng::new(cfg.seed),
            classes: (0..nclasses).map(|_| ClassState::new()).collect(),
            ports,
            push_queue: Stage::new(cfg.qman_latency, cfg.qman_capacity),
            qmi: Stage::new(cfg.qmi_latency, cfg.stage_capacity),
            fused,
            bmi: Stage::new(cfg.bmi_latency, cfg.stage_capacity),
            nti,
            flush_inflight: VecDeque::new(),
            recycle_staging: VecDeque::new(),
            writes_inflight: VecDeque::new(),
            external_used: 0,
            pfc_events: EventQueue::new(),
            active: Vec::new(),
            eligible: vec![0; cfg.ports.div_ceil(8)],
            qman_rr: 0,
            generating: true,
            paused_classes: 0,
            onchip_paused_octets: 0,
            next_buffer: 0,
            class_credit: cfg.class_depth_bound(),
            wire_time: (0..=u64::from(cfg.max_len)).map(|len| cfg.speed.frame_time(len)).collect(),
            stats: PipelineStats::default(),
            departures: None,
            cfg,
        };
        for p in 0..pipeline.cfg.ports {
            pipeline.refresh_port_eligibility(p);
        }
        Ok(pipeline)
    }

    /// Keeps every departure for inspection (tests; costs memory on long runs).
    pub fn record_departures(&mut self) {
        self.departures = Some(Vec::new());
    }

    pub fn departures(&self) -> &[Departure] {
        self.departures.as_deref().unwrap_or(&[])
    }

    pub fn config(&self) -> &PipelineConfig {
        &self.cfg
    }

    pub fn stats(&self) -> &PipelineStats {
        &self.stats
    }

    pub fn now(&self) -> Picos {
        self.cfg.cycle * self.cycle
    }

    /// A PFC frame from the link peer finishes arriving at `port` at time `at`.
    pub fn schedule_pfc(&mut self, at: Picos, port: usize, priorities: u8, time: [u16; 8]) {
        if port >= self.cfg.ports {
            return;
        }
        let mut frame = PfcFrame::pause(PEER, priorities, 0);
        frame.time = time;
        self.pfc_events.schedule(at, PfcEvent { port, frame, apply: false });
    }

    /// The external FIFO depth of one class.
    pub fn external_depth(&self, port: usize, priority: usize) -> usize {
        self.classes.get(port * PRIORITIES + priority).map_or(0, |c| c.external.len())
    }

    /// Whether QMI, BMI and NTI run as one delay line (no stage capacity can bind).
    pub fn stages_fused(&self) -> bool {
        self.fused
    }

    /// Frames of one class that have left on the wire.
    pub fn departed(&self, port: usize, priority: usize) -> u64 {
        self.classes.get(port * PRIORITIES + priority).map_or(0, |c| c.departed)
    }

    /// Whether a class was paused at any time in the run.
    pub fn ever_paused(&self, port: usize, priority: usize) -> bool {
        self.classes.get(port * PRIORITIES + priority).is_some_and(|c| c.ever_paused)
    }

    /// FDs of one class in QMAN's push queue (HALT_ACK waits for zero).
    pub fn in_push_queue(&self, port: usize, priority: usize) -> u32 {
        self.classes.get(port * PRIORITIES + priority).map_or(0, |c| c.in_push_queue)
    }

    pub fn fsm_state(&self, port: usize, priority: usize) -> Option<FsmState> {
        self.classes.get(port * PRIORITIES + priority).map(|c| c.fsm)
    }

    /// FDs that have entered the pipeline and not yet left on the wire.
    pub fn frames_in_system(&self) -> usize {
        self.slab.live()
    }

    /// Runs `cycles` cycles.
    pub fn run(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.step();
        }
    }

    /// Stops offering new frames and runs until every frame has left (or `max_cycles` pass).
    /// Returns whether the pipeline emptied.
    pub fn drain(&mut self, max_cycles: u64) -> bool {
        self.generating = false;
        for p in 0..self.cfg.ports {
            self.refresh_port_eligibility(p);
        }
        for _ in 0..max_cycles {
            if self.slab.live() == 0 {
                return true;
            }
            self.step();
        }
        self.slab.live() == 0
    }

    /// Whether every frame QMAN ever enqueued has left, once each and in order.
    pub fn delivered_everything_in_order(&self) -> bool {
        self.stats.order_violations == 0
            && self.stats.departed == self.stats.enqueued
            && self.classes.iter().all(|c| c.expected_seq == c.next_seq)
    }

    // ===== one cycle =====

    fn step(&mut self) {
        let now = self.now();
        self.process_pfc(now);
        if self.cfg.mode == PauseMode::External {
            self.run_pause_fsms();
        }
        for p in 0..self.cfg.ports {
            // A pause ending on port p concerns only port p's MAC and classes.
            if self.ports[p].next_resume.is_some_and(|t| t <= now) {
                self.update_pause(p, now);
            }
            self.mac_transmit(p, now);
        }
        let frozen = self.cfg.mode == PauseMode::Stall && self.paused_classes > 0;
        if frozen {
            self.stats.stalled_cycles += 1;
        } else {
            self.nti_stage(now);
            if !self.fused {
                self.move_stage(Stage2::BmiToNti);
                self.move_stage(Stage2::QmiToBmi);
            }
            self.qmi_input();
            self.qman_push();
        }
        if self.cfg.mode == PauseMode::External {
            self.dma();
        }
        if let Traffic::Random { load_percent } = self.cfg.traffic {
            if self.cycle.is_multiple_of(64) && self.generating {
                self.refill(load_percent);
            }
        }
        self.cycle += 1;
        self.stats.cycles = self.cycle;
    }

    // ===== MAC: PFC reception and Priority_Paused =====

    fn process_pfc(&mut self, now: Picos) {
        while self.pfc_events.peek_time().is_some_and(|t| t <= now) {
            let Some((at, ev)) = self.pfc_events.pop() else { break };
            if ev.apply {
                let port = &mut self.ports[ev.port];
                let idle = port.busy_until;
                port.rx.receive(at, &MacControl::Pfc(ev.frame), idle);
                self.stats.pause_indications += 1;
                self.update_pause(ev.port, now);
            } else {
                self.note_indication(at, ev.port, &ev.frame);
                let apply_at = at + self.cfg.pause_detect_latency;
                self.pfc_events.schedule(apply_at, PfcEvent { apply: true, ..ev });
            }
        }
    }

    /// The reaction-bound checker's record: when each class was told to pause, and until when.
    fn note_indication(&mut self, at: Picos, port: usize, frame: &PfcFrame) {
        let speed = self.cfg.speed;
        for n in 0..PRIORITIES {
            if frame.enable & (1 << n) == 0 {
                continue;
            }
            let class = &mut self.classes[port * PRIORITIES + n];
            let until = at + speed.quanta(u64::from(frame.time[n]));
            if at >= class.indicated_until {
                class.indicated_at = at; // a new pause; a refresh keeps the original start
            }
            class.indicated_until = until;
        }
    }

    fn update_pause(&mut self, p: usize, now: Picos) {
        let vector = self.ports[p].rx.paused_vector(now);
        let changed = vector ^ self.ports[p].paused;
        self.ports[p].paused = vector;
        self.ports[p].next_resume = self.ports[p].rx.next_resume(now);
        for n in (0..PRIORITIES).filter(|n| changed & (1 << n) != 0) {
            if vector & (1 << n) != 0 {
                self.pause_asserted(p, n);
            } else {
                self.pause_deasserted(p, n);
            }
        }
        if changed != 0 {
            self.refresh_port_eligibility(p);
        }
    }

    fn pause_asserted(&mut self, p: usize, n: usize) {
        let ci = p * PRIORITIES + n;
        let class = &mut self.classes[ci];
        class.pause = true;
        class.ever_paused = true;
        self.paused_classes += 1;
        self.onchip_paused_octets += class.mac_octets;
        if self.cfg.mode == PauseMode::External {
            match class.fsm {
                FsmState::Idle => {
                    class.fsm = FsmState::WaitHaltAck;
                    self.active.push(ci);
                }
                FsmState::Flushing => class.renewed = true,
                FsmState::WaitHaltAck | FsmState::PipeClean => {}
            }
            self.return_from_mac(p, n);
        }
        self.note_onchip_peak();
    }

    fn pause_deasserted(&mut self, p: usize, n: usize) {
        let class = &mut self.classes[p * PRIORITIES + n];
        class.pause = false;
        self.paused_classes -= 1;
        self.onchip_paused_octets -= class.mac_octets;
    }

    /// Frames of a newly paused class waiting in the MAC's transmit queue go back on the
    /// recycle path at once, in order: a paused frame never waits on chip.
    fn return_from_mac(&mut self, p: usize, n: usize) {
        let mut kept = VecDeque::with_capacity(self.ports[p].queue.len());
        while let Some((t, id)) = self.ports[p].queue.pop_front() {
            if usize::from(self.slab.get(id).priority) == n {
                self.stats.returned_by_mac += 1;
                let len = u64::from(self.slab.get(id).len);
                let class = &mut self.classes[p * PRIORITIES + n];
                class.mac_octets -= len;
                class.staged += 1;
                self.onchip_paused_octets -= len;
                self.recycle_staging.push_back(id);
            } else {
                kept.push_back((t, id));
            }
        }
        self.ports[p].queue = kept;
        self.note_staging_peak();
    }

    // ===== MAC: transmission selection =====

    fn mac_transmit(&mut self, p: usize, now: Picos) {
        if self.ports[p].busy_until > now {
            return;
        }
        let paused = self.ports[p].paused;
        let picked = match self.cfg.mode {
            PauseMode::External | PauseMode::Stall => {
                let Some(&(arrived, id)) = self.ports[p].queue.front() else { return };
                if paused & (1 << self.slab.get(id).priority) != 0 {
                    // Never start a paused frame; in `stall` mode it blocks the port.
                    return;
                }
                self.ports[p].queue.pop_front();
                (arrived, id)
            }
            PauseMode::Fifo => {
                let start = self.ports[p].rr;
                let Some(n) = (0..PRIORITIES).map(|k| (start + k) % PRIORITIES).find(|&n| {
                    paused & (1 << n) == 0 && !self.classes[p * PRIORITIES + n].onchip.is_empty()
                }) else {
                    return;
                };
                self.ports[p].rr = (n + 1) % PRIORITIES;
                match self.classes[p * PRIORITIES + n].onchip.pop_front() {
                    Some(id) => (now, id),
                    None => return,
                }
            }
        };
        let (arrived, id) = picked;
        let fd = self.slab.remove(id);
        let start = self.ports[p].busy_until.max(arrived).max(now.saturating_sub(self.cfg.cycle));
        self.ports[p].busy_until = start + self.wire_time[usize::from(fd.len)];
        self.ports[p].inflight -= 1;
        self.depart(start, &fd);
        self.refresh_class(p * PRIORITIES + usize::from(fd.priority));
    }

    fn depart(&mut self, start: Picos, fd: &Fd) {
        let class = &mut self.classes[usize::from(fd.port) * PRIORITIES + usize::from(fd.priority)];
        class.inflight -= 1;
        class.mac_octets -= u64::from(fd.len);
        class.departed += 1;
        if fd.seq != class.expected_seq {
            self.stats.order_violations += 1;
        }
        class.expected_seq = fd.seq + 1;
        if start >= class.indicated_at && start < class.indicated_until {
            if start > class.indicated_at + PFC_REACTION_BOUND {
                self.stats.late_frames += 1;
            } else {
                self.stats.frames_within_bound += 1;
            }
        }
        self.stats.departed += 1;
        self.stats.departed_octets += u64::from(fd.len);
        if let Some(d) = self.departures.as_mut() {
            d.push(Departure {
                time: start,
                port: fd.port,
                priority: fd.priority,
                seq: fd.seq,
                len: fd.len,
            });
        }
    }

    // ===== NTI: pass to the MAC, or mark FD_REC and recycle =====

    fn nti_stage(&mut self, now: Picos) {
        for _ in 0..self.cfg.width {
            let Some(id) = self.nti.ready(self.cycle) else { return };
            let fd = *self.slab.get(id);
            let p = usize::from(fd.port);
            let ci = p * PRIORITIES + usize::from(fd.priority);
            match self.cfg.mode {
                PauseMode::External => {
                    self.nti.pop();
                    self.classes[ci].upstream -= 1;
                    if self.classes[ci].hold_applies(fd.flushed) {
                        self.stats.recycled_by_nti += 1;
                        self.classes[ci].staged += 1;
                        self.recycle_staging.push_back(id);
                        self.note_staging_peak();
                        continue;
                    }
                    self.slab.get_mut(id).flushed = false;
                    self.enter_mac_side(ci, fd.len);
                    self.ports[p].queue.push_back((now, id));
                }
                PauseMode::Stall => {
                    self.nti.pop();
                    self.enter_mac_side(ci, fd.len);
                    self.ports[p].queue.push_back((now, id));
                }
                PauseMode::Fifo => {
                    if self.classes[ci].onchip.len() >= self.cfg.port_credit {
                        return; // backpressure; cannot happen with class credit <= FIFO depth
                    }
                    self.nti.pop();
                    self.enter_mac_side(ci, fd.len);
                    self.classes[ci].onchip.push_back(id);
                }
            }
        }
    }

    /// The NTI has read the payload: its octets are now on chip, MAC side.
    fn enter_mac_side(&mut self, ci: usize, len: u16) {
        let class = &mut self.classes[ci];
        class.mac_octets += u64::from(len);
        if class.pause {
            self.onchip_paused_octets += u64::from(len);
            self.note_onchip_peak();
        }
    }

    /// Where FDs enter the pipeline after QMAN: QMI, or the fused delay line.
    fn entry_stage(&mut self) -> &mut Stage {
        if self.fused {
            &mut self.nti
        } else {
            &mut self.qmi
        }
    }

    fn move_stage(&mut self, which: Stage2) {
        let (from, to) = match which {
            Stage2::BmiToNti => (&mut self.bmi, &mut self.nti),
            Stage2::QmiToBmi => (&mut self.qmi, &mut self.bmi),
        };
        for _ in 0..self.cfg.width {
            if !to.has_room() {
                return;
            }
            if from.ready(self.cycle).is_none() {
                return;
            }
            if let Some(id) = from.pop() {
                to.push(self.cycle, id);
            }
        }
    }

    /// QMI takes FDs flushed back from external memory first (they are older than anything
    /// QMAN holds for the class), then QMAN's push queue.
    fn qmi_input(&mut self) {
        let cycle = self.cycle;
        for _ in 0..self.cfg.width {
            if !self.entry_stage().has_room() {
                return;
            }
            if self.flush_inflight.front().is_some_and(|(t, _)| *t <= self.cycle) {
                if let Some((_, id)) = self.flush_inflight.pop_front() {
                    self.entry_stage().push(cycle, id);
                }
                continue;
            }
            let Some(id) = self.push_queue.ready(self.cycle) else { return };
            self.push_queue.pop();
            let fd = self.slab.get(id);
            let class =
                &mut self.classes[usize::from(fd.port) * PRIORITIES + usize::from(fd.priority)];
            class.in_push_queue -= 1;
            class.upstream += 1;
            self.entry_stage().push(cycle, id);
        }
    }

    // ===== QMAN =====

    fn qman_push(&mut self) {
        for _ in 0..self.cfg.width {
            if !self.push_queue.has_room() {
                return;
            }
            let Some(ci) = self.next_eligible() else { return };
            self.qman_rr = ci + 1;
            let p = ci / PRIORITIES;
            let len = if self.cfg.min_len == self.cfg.max_len {
                self.cfg.min_len
            } else {
                self.rng.between(u64::from(self.cfg.min_len), u64::from(self.cfg.max_len)) as u16
            };
            let class = &mut self.classes[ci];
            let fd = Fd {
                port: p as u8,
                priority: (ci % PRIORITIES) as u8,
                len,
                seq: class.next_seq,
                buffer: self.next_buffer,
                flushed: false,
            };
            self.next_buffer = self.next_buffer.wrapping_add(1);
            class.next_seq += 1;
            class.in_push_queue += 1;
            class.inflight += 1;
            if self.cfg.traffic != Traffic::Saturated {
                class.backlog -= 1;
            }
            self.ports[p].inflight += 1;
            let id = self.slab.insert(fd);
            self.push_queue.push(self.cycle, id);
            self.stats.enqueued += 1;
            self.refresh_class(ci);
        }
    }

    /// Round-robin over the eligibility bitmap, starting after the last class served.
    fn next_eligible(&self) -> Option<usize> {
        let start = if self.qman_rr < self.classes.len() { self.qman_rr } else { 0 };
        let words = self.eligible.len();
        let (w0, b0) = (start / 64, start % 64);
        // The rest of the starting word, then the other words, then the start of the first.
        let first = self.eligible[w0] & (u64::MAX << b0);
        if first != 0 {
            return Some(w0 * 64 + first.trailing_zeros() as usize);
        }
        for k in 1..words {
            let w = (w0 + k) % words;
            if self.eligible[w] != 0 {
                return Some(w * 64 + self.eligible[w].trailing_zeros() as usize);
            }
        }
        let wrap = self.eligible[w0] & !(u64::MAX << b0);
        (wrap != 0).then(|| w0 * 64 + wrap.trailing_zeros() as usize)
    }

    /// Recomputes QMAN eligibility for every class of port `p`.
    fn refresh_port_eligibility(&mut self, p: usize) {
        for n in 0..PRIORITIES {
            self.set_class_ok(p, n);
        }
        self.write_port_byte(p);
    }

    /// Recomputes QMAN eligibility after something changed for one class (a push, a departure,
    /// a write to external memory, the end of a pause): its own bit, and the port's credit.
    fn refresh_class(&mut self, ci: usize) {
        let p = ci / PRIORITIES;
        self.set_class_ok(p, ci % PRIORITIES);
        self.write_port_byte(p);
    }

    /// Whether QMAN may push class (p, n), leaving the port's credit aside.
    fn set_class_ok(&mut self, p: usize, n: usize) {
        let class = &self.classes[p * PRIORITIES + n];
        let halted = match self.cfg.mode {
            PauseMode::External => class.halted(),
            PauseMode::Fifo => class.pause,
            PauseMode::Stall => false,
        };
        let has_traffic =
            self.generating && (self.cfg.traffic == Traffic::Saturated || class.backlog > 0);
        let ok = !halted && has_traffic && (class.inflight as usize) < self.class_credit;
        let port = &mut self.ports[p];
        if ok {
            port.class_ok |= 1 << n;
        } else {
            port.class_ok &= !(1 << n);
        }
    }

    /// Eight priorities per port make a port one byte of the eligibility bitmap.
    fn write_port_byte(&mut self, p: usize) {
        let port = &self.ports[p];
        let byte = if (port.inflight as usize) < self.cfg.port_credit { port.class_ok } else { 0 };
        let shift = (p % 8) * 8;
        let word = &mut self.eligible[p / 8];
        *word = (*word & !(0xffu64 << shift)) | (u64::from(byte) << shift);
    }

    fn refill(&mut self, load_percent: u64) {
        // Frames per 64 cycles per class at the offered load, for the average frame length.
        let avg_len = (u64::from(self.cfg.min_len) + u64::from(self.cfg.max_len)) / 2;
        let window = self.cfg.cycle * 64;
        let per_port = window.as_ps() as f64 / self.cfg.speed.frame_time(avg_len).as_ps() as f64;
        let mean = per_port * load_percent as f64 / 100.0 / PRIORITIES as f64;
        let max = (2.0 * mean).ceil() as u64;
        for ci in 0..self.classes.len() {
            let add = self.rng.below(max + 1);
            self.classes[ci].backlog += add;
        }
        for p in 0..self.cfg.ports {
            self.refresh_port_eligibility(p);
        }
    }

    // ===== Pause FSMs and the external memory =====

    fn run_pause_fsms(&mut self) {
        let mut i = 0;
        while i < self.active.len() {
            let ci = self.active[i];
            let class = &mut self.classes[ci];
            match class.fsm {
                FsmState::WaitHaltAck => {
                    if class.in_push_queue == 0 {
                        class.fsm = FsmState::PipeClean; // HALT_ACK
                    }
                }
                FsmState::PipeClean => {
                    // An epoch covers every FD of the class outside the pipeline: the FIFO and
                    // any FDs still staged for a write (the memory may be full). Nothing may be
                    // upstream or mid-write, or a later re-pause could recycle older FDs
                    // behind newer ones that are not in the epoch.
                    if !class.pause && class.upstream == 0 && class.writing == 0 {
                        let epoch = class.external.len() + class.staged as usize;
                        if epoch > 0 {
                            class.fsm = FsmState::Flushing;
                            class.to_read = epoch;
                            class.renewed = false;
                        } else {
                            // FLUSH_COMPLETE with PAUSE deasserted: HOLD and HALT deasserted.
                            class.fsm = FsmState::Idle;
                            self.active.swap_remove(i);
                            self.refresh_class(ci);
                            continue;
                        }
                    }
                }
                FsmState::Flushing => {
                    if class.to_read == 0 && class.upstream == 0 {
                        class.fsm = FsmState::PipeClean; // epoch over
                    }
                }
                FsmState::Idle => {}
            }
            i += 1;
        }
    }

    fn dma(&mut self) {
        let mut ops = self.cfg.external.ops_per_cycle;
        // Completed writes land at the tail of their class's FIFO.
        while self.writes_inflight.front().is_some_and(|(t, _)| *t <= self.cycle) {
            let Some((_, id)) = self.writes_inflight.pop_front() else { break };
            let fd = *self.slab.get(id);
            let p = usize::from(fd.port);
            let class = &mut self.classes[p * PRIORITIES + usize::from(fd.priority)];
            class.writing -= 1;
            class.inflight -= 1;
            class.external.push_back(id);
            let depth = class.external.len();
            self.ports[p].inflight -= 1;
            self.stats.external_fifo_peak = self.stats.external_fifo_peak.max(depth);
            self.refresh_class(p * PRIORITIES + usize::from(fd.priority));
        }
        // Issue writes while the memory has room.
        while ops > 0 && !self.recycle_staging.is_empty() {
            // `external_used` counts stored FDs and writes under way.
            if self.external_used >= self.cfg.external.capacity_fds {
                self.stats.external_full_cycles += 1;
                break;
            }
            let Some(id) = self.recycle_staging.pop_front() else { break };
            let fd = self.slab.get(id);
            let class =
                &mut self.classes[usize::from(fd.port) * PRIORITIES + usize::from(fd.priority)];
            class.staged -= 1;
            class.writing += 1;
            self.writes_inflight.push_back((self.cycle + self.cfg.external.write_latency, id));
            self.external_used += 1;
            ops -= 1;
        }
        // Reads for classes in a flush epoch, in FIFO order, while their port has credit.
        if ops == 0 {
            return;
        }
        for k in 0..self.active.len() {
            let ci = self.active[k];
            let p = ci / PRIORITIES;
            while ops > 0
                && self.classes[ci].fsm == FsmState::Flushing
                && self.classes[ci].to_read > 0
                && (self.ports[p].inflight as usize) < self.cfg.port_credit
            {
                let Some(id) = self.take_epoch_fd(ci) else { break };
                let class = &mut self.classes[ci];
                class.to_read -= 1;
                class.upstream += 1;
                class.inflight += 1;
                self.ports[p].inflight += 1;
                self.slab.get_mut(id).flushed = true;
                self.flush_inflight.push_back((self.cycle + self.cfg.external.read_latency, id));
                self.stats.flushed += 1;
                ops -= 1;
            }
            if ops == 0 {
                break;
            }
        }
    }

    /// The next FD of a flush epoch in class order: the FIFO's head; once the FIFO is empty,
    /// the oldest of the class's FDs still staged for a write (the memory was full), taken
    /// straight from the staging queue. None while an older FD of the class is mid-write.
    fn take_epoch_fd(&mut self, ci: usize) -> Option<FdId> {
        if let Some(id) = self.classes[ci].external.pop_front() {
            self.external_used -= 1;
            return Some(id);
        }
        if self.classes[ci].writing > 0 || self.classes[ci].staged == 0 {
            return None;
        }
        let (port, prio) = ((ci / PRIORITIES) as u8, (ci % PRIORITIES) as u8);
        let pos = self.recycle_staging.iter().position(|id| {
            let fd = self.slab.get(*id);
            fd.port == port && fd.priority == prio
        })?;
        let id = self.recycle_staging.remove(pos)?;
        self.classes[ci].staged -= 1;
        Some(id)
    }

    fn note_staging_peak(&mut self) {
        self.stats.recycle_staging_peak =
            self.stats.recycle_staging_peak.max(self.recycle_staging.len());
    }

    fn note_onchip_peak(&mut self) {
        self.stats.onchip_paused_octets_peak =
            self.stats.onchip_paused_octets_peak.max(self.onchip_paused_octets);
    }
}

#[derive(Clone, Copy)]
enum Stage2 {
    BmiToNti,
    QmiToBmi,
}
