//! The engine's state, its public interface and the order of work within one cycle. The work
//! itself is in the submodules: `hot` (what every descriptor needs: QMAN's push, a MAC starting
//! a frame, on the parts of the engine borrowed apart), `mac` (PFC reception and the MACs'
//! loop), `stages` (QMI, BMI, NTI), `qman` (QMAN's loop), `eligibility` (its bitmap),
//! `external` (the Pause FSMs and the external memory), `direct` (the short cut FDs take while
//! nothing couples them, and the steady loop's kernel) and `admission` (the QMI admission model
//! that keeps the short cut while flush reads compete).

mod admission;
mod direct;
mod eligibility;
mod external;
mod hot;
mod mac;
mod qman;
mod stages;

use std::num::NonZeroU64;

use super::class::{Class, ClassPause, FsmState, MAX_CLASSES};
use super::config::{PauseMode, PipelineConfig, Traffic};
use super::fd::Fd;
use super::front_ring::FrontRing;
use super::ring::Ring;
use super::stage::Stage;
use super::stats::PipelineStats;
use super::wheel::WakeWheel;
use crate::mac::PfcReceiver;
use crate::sim::{EventQueue, SimRng};
use crate::time::Picos;
use crate::wire::{MacAddr, PfcFrame, PRIORITIES};
use admission::Admission;
use eligibility::Eligibility;
use external::KernelReads;
use hot::{DepartureLog, Hot, Limits, Reciprocal};

/// A frame that started on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Departure {
    pub time: Picos,
    pub port: u8,
    pub priority: u8,
    pub seq: u64,
    pub len: u16,
    /// The FD's buffer handle: the one given to [`Pipeline::offer`] for offered traffic.
    pub buffer: u32,
}

/// A PFC frame reaching a port's MAC: first the indication (for the reaction-bound checker),
/// then, after the detection latency, its effect on Priority_Paused.
#[derive(Debug)]
struct PfcEvent {
    port: usize,
    frame: PfcFrame,
    apply: bool,
}

/// An FD in a MAC transmit queue with the time it reached the MAC. (32 octets with 8 of
/// padding: at 24 some entries straddled two cache lines, and the departure's read of the next
/// head split in two.)
#[derive(Debug, Clone, Copy, Default)]
#[repr(align(32))]
struct Queued {
    arrived: Picos,
    fd: Fd,
}

/// Most ports (see `MAX_CLASSES`).
const MAX_PORTS: usize = MAX_CLASSES / PRIORITIES;

/// What the engine keeps per port's MAC, transmit side.
struct Port {
    busy_until: Picos,
    /// MAC transmit queue (`external`, `stall`), its head kept in the port.
    queue: FrontRing<Queued>,
    inflight: u32,
    /// Priority_Paused as last applied.
    paused: u8,
    /// When a pause timer next runs out (`Picos::MAX`: none is running).
    next_resume: Picos,
    /// `fifo` mode: next priority to look at first.
    rr: usize,
    /// `fifo` mode: bit n set while the on-chip FIFO of priority n holds FDs.
    onchip_nonempty: u8,
    /// Bit n set while priority n's flush epoch has FDs left to read: QMAN then leaves one
    /// credit of the port to the flush reads (`qman_credit`).
    flush_waiting: u8,
}

impl Port {
    /// The FDs of the transmit queue that reach the MAC at `from` or later, newest first: on
    /// the direct path, those not past the NTI by then. The queue is in NTI order, so they
    /// are its tail (cold: the direct path's entry to the admission model and its exits).
    fn arriving_from(&self, from: Picos) -> impl Iterator<Item = &Queued> + '_ {
        (0..self.queue.len())
            .rev()
            .map_while(move |k| self.queue.get(k).filter(|q| q.arrived >= from))
    }
}

/// One (port, priority) of a pipeline, read from outside ([`Pipeline::class_view`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClassView {
    pub fsm: FsmState,
    /// PAUSE as the MAC and the Pause FSM see it (after the detection latency).
    pub pause: bool,
    /// FDs of the class between QMAN and the wire or external memory.
    pub inflight: u32,
    /// FDs in its external FIFO and, in `fifo` mode, in its on-chip FIFO.
    pub external_depth: usize,
    pub onchip_depth: usize,
    /// Frames of the class that have left on the wire.
    pub departed: u64,
}

/// The pipeline engine. Build it, optionally schedule PFC frames, then [`Pipeline::run`].
pub struct Pipeline {
    cfg: PipelineConfig,
    /// What the hot paths read from the configuration.
    lim: Limits,
    cycle: u64,
    rng: SimRng,
    /// The per-frame state of every class; only the first `nclasses` are in use.
    classes: Box<[Class; MAX_CLASSES]>,
    nclasses: usize,
    /// The rest of each class's state.
    pauses: Vec<ClassPause>,
    /// Only the first `cfg.ports` are in use.
    ports: Box<[Port; MAX_PORTS]>,
    /// The ports' PFC receivers (kept apart from `ports`: only PFC frames need them).
    receivers: Vec<PfcReceiver>,
    /// When each port's MAC next needs looking at.
    wheel: WakeWheel,
    push_queue: Stage,
    /// QMI, BMI and NTI as one delay line (`nti`) when no stage capacity can bind: the same
    /// timing, fewer moves.
    fused: bool,
    qmi: Stage,
    bmi: Stage,
    nti: Stage,
    /// FDs go from QMAN straight to the MAC queues (`direct.rs`); `direct_possible`: the
    /// configuration allows it (`lim.direct_transit`: cycles from the push to the NTI on it).
    direct: bool,
    direct_possible: bool,
    /// A flush read issued on the direct path would take a QMI place already given to an FD:
    /// the path is left at the start of the next cycle.
    direct_leave: bool,
    /// Set when a pause starts or ends at a MAC, or FDs on the direct path go back into the
    /// stages: the steady loop (`direct.rs`) then hands the rest of the cycle to
    /// `step_after_macs`.
    steady_break: bool,
    /// QMI admission on the direct path while flush reads compete for it (`admission.rs`).
    admit: Admission,
    flush_inflight: Ring<(u64, Fd)>,
    recycle_staging: Ring<Fd>,
    writes_inflight: Ring<(u64, Fd)>,
    external_used: usize,
    pfc_events: EventQueue<PfcEvent>,
    /// When the earliest PFC event is due (`Picos::MAX` if none).
    next_pfc: Picos,
    /// When the first of the ports' pause timers runs out (`Picos::MAX` if none is running).
    next_resume: Picos,
    /// Classes whose Pause FSM is not idle.
    active: Vec<usize>,
    /// QMAN's eligibility bitmap and round robin.
    elig: Eligibility,
    generating: bool,
    paused_classes: usize,
    onchip_paused_octets: u64,
    /// FDs QMAN has pushed, ever: `stats.enqueued`, brought up to date at the end of `run` and
    /// `drain` instead of on every push (a running total in the statistics was a chain of
    /// stores and loads through one word); its low 32 bits number the next FD's buffer.
    pushed: u64,
    restage_scratch: direct::RestageScratch,
    /// See `Hot::wire_time`.
    wire_time: Box<[Picos; 1 << 16]>,
    stats: PipelineStats,
    log: DepartureLog,
    /// Cycles run by `steady_cycles`, in its general case and in its small one (tests).
    #[cfg(test)]
    kernel_cycles: [u64; 2],
}

const MAC_BASE: [u8; 5] = [0x02, 0x00, 0x00, 0x00, 0x01];
const PEER: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0xfe]);

impl Pipeline {
    pub fn new(cfg: PipelineConfig) -> Result<Self, String> {
        cfg.validate()?;
        let nclasses = cfg.ports * PRIORITIES;
        let receivers = (0..cfg.ports)
            .map(|p| {
                let mut addr = [0u8; 6];
                addr[..5].copy_from_slice(&MAC_BASE);
                addr[5] = p as u8;
                PfcReceiver::new(cfg.speed, MacAddr(addr), 0xff)
            })
            .collect();
        let ports: Box<[Port; MAX_PORTS]> = (0..MAX_PORTS)
            .map(|p| Port {
                busy_until: Picos::ZERO,
                queue: FrontRing::with_capacity(if p < cfg.ports { cfg.port_credit } else { 1 }),
                inflight: 0,
                paused: 0,
                next_resume: Picos::MAX,
                rr: 0,
                onchip_nonempty: 0,
                flush_waiting: 0,
            })
            .collect::<Box<[Port]>>()
            .try_into()
            .map_err(|_| "port table")?;
        let classes: Box<[Class; MAX_CLASSES]> =
            vec![Class::NEW; MAX_CLASSES].into_boxed_slice().try_into().map_err(|_| "classes")?;
        let mut wire_time: Box<[Picos; 1 << 16]> =
            vec![Picos::ZERO; 1 << 16].into_boxed_slice().try_into().map_err(|_| "wire times")?;
        for len in 0..=cfg.max_len {
            wire_time[usize::from(len)] = cfg.speed.frame_time(u64::from(len));
        }
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
        let transit = Self::direct_transit(&cfg, fused);
        let cycle_ps = NonZeroU64::new(cfg.cycle.as_ps()).ok_or("cycle must be above zero")?;
        let lim = Limits {
            mode: cfg.mode,
            cycle: cfg.cycle,
            cycle_ps,
            recip: Reciprocal::of(cycle_ps),
            width: cfg.width,
            // Each class may have at most this many FDs in flight: a share of the port's
            // credit that also bounds its external FIFO and, in `fifo` mode, its on-chip FIFO.
            class_credit: u32::try_from(cfg.class_depth_bound()).unwrap_or(u32::MAX),
            port_credit: u32::try_from(cfg.port_credit).unwrap_or(u32::MAX),
            to_qmi: cfg.qman_latency.max(1),
            direct_transit: transit.unwrap_or(0),
            direct_transit_time: cfg.cycle * transit.unwrap_or(0),
            to_nti: nti.latency().max(1),
            qman_capacity: cfg.qman_capacity as u64,
            ports: cfg.ports,
            nclasses,
            saturated: cfg.traffic == Traffic::Saturated,
            offered: cfg.traffic == Traffic::Offered,
            min_len: cfg.min_len,
            max_len: cfg.max_len,
            uniform_wire: cfg.speed.frame_time(u64::from(cfg.min_len)),
        };
        let mut pipeline = Pipeline {
            lim,
            cycle: 0,
            rng: SimRng::new(cfg.seed),
            classes,
            nclasses,
            pauses: (0..nclasses).map(|_| ClassPause::new()).collect(),
            ports,
            receivers,
            wheel: WakeWheel::new(cfg.ports),
            push_queue: Stage::new(cfg.qman_latency, cfg.qman_capacity),
            fused,
            qmi: Stage::new(cfg.qmi_latency, cfg.stage_capacity),
            bmi: Stage::new(cfg.bmi_latency, cfg.stage_capacity),
            nti,
            direct: false,
            // Offered traffic changes QMAN's eligibility between runs, which the direct path's
            // admission model does not follow: random pauses on it broke the rule that no FD of
            // the push queue is held back there, and then order. The stages run instead.
            direct_possible: transit.is_some() && cfg.traffic != Traffic::Offered,
            direct_leave: false,
            steady_break: false,
            admit: Admission::new(),
            flush_inflight: Ring::with_capacity(16),
            recycle_staging: Ring::with_capacity(16),
            writes_inflight: Ring::with_capacity(16),
            external_used: 0,
            pfc_events: EventQueue::new(),
            next_pfc: Picos::MAX,
            next_resume: Picos::MAX,
            active: Vec::new(),
            elig: Eligibility::new(cfg.ports),
            generating: true,
            paused_classes: 0,
            onchip_paused_octets: 0,
            pushed: 0,
            restage_scratch: direct::RestageScratch::default(),
            wire_time,
            stats: PipelineStats::default(),
            log: DepartureLog::default(),
            #[cfg(test)]
            kernel_cycles: [0; 2],
            cfg,
        };
        for p in 0..pipeline.cfg.ports {
            pipeline.refresh_port_eligibility(p);
        }
        Ok(pipeline)
    }

    /// Keeps every departure for inspection (tests; costs memory on long runs).
    pub fn record_departures(&mut self) {
        self.log = DepartureLog { on: true, list: Vec::new() };
    }

    pub fn departures(&self) -> &[Departure] {
        &self.log.list
    }

    /// Moves the departures recorded so far into `out` (appended, in order of departure).
    pub fn take_departures(&mut self, out: &mut Vec<Departure>) {
        out.append(&mut self.log.list);
    }

    /// Offered traffic: a frame of `len` octets (FCS excluded, 60 to the configured
    /// `max_len`) held in buffer `buffer` waits at QMAN for (`port`, `priority`). Refused, with
    /// the reason, outside `Traffic::Offered` or for a port, priority or length the pipeline
    /// does not have.
    pub fn offer(
        &mut self,
        port: usize,
        priority: usize,
        len: u16,
        buffer: u32,
    ) -> Result<(), String> {
        if self.cfg.traffic != Traffic::Offered {
            return Err("the pipeline is not configured for offered traffic".into());
        }
        if port >= self.cfg.ports || priority >= PRIORITIES {
            return Err(format!("no class for port {port}, priority {priority}"));
        }
        if len > self.cfg.max_len {
            return Err(format!("a {len}-octet frame is longer than max_len {}", self.cfg.max_len));
        }
        let ci = port * PRIORITIES + priority;
        let class = &mut self.pauses[ci];
        class.offered.push_back((buffer, len));
        class.backlog += 1;
        self.refresh_class(ci);
        Ok(())
    }

    /// Offered frames of one class still waiting at QMAN.
    pub fn backlog(&self, port: usize, priority: usize) -> u64 {
        self.pauses.get(port * PRIORITIES + priority).map_or(0, |c| c.backlog)
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
        self.next_pfc = self.next_pfc.min(at);
    }

    /// The external FIFO depth of one class.
    pub fn external_depth(&self, port: usize, priority: usize) -> usize {
        self.pauses.get(port * PRIORITIES + priority).map_or(0, |c| c.external.len())
    }

    /// Whether QMI, BMI and NTI run as one delay line (no stage capacity can bind).
    pub fn stages_fused(&self) -> bool {
        self.fused
    }

    /// Frames of one class that have left on the wire.
    pub fn departed(&self, port: usize, priority: usize) -> u64 {
        self.class(port, priority).map_or(0, |c| c.departed)
    }

    /// Whether a class was paused at any time in the run.
    pub fn ever_paused(&self, port: usize, priority: usize) -> bool {
        self.pauses.get(port * PRIORITIES + priority).is_some_and(|c| c.ever_paused)
    }

    /// FDs of one class in QMAN's push queue (HALT_ACK waits for zero).
    pub fn in_push_queue(&self, port: usize, priority: usize) -> u32 {
        let queued = self.class(port, priority).map_or(0, |c| c.in_push_queue);
        if self.direct && self.class(port, priority).is_some() {
            return queued + self.direct_in_push_queue(port * PRIORITIES + priority);
        }
        queued
    }

    /// One class as its Pause FSM, MAC and FIFOs see it now.
    pub fn class_view(&self, port: usize, priority: usize) -> Option<ClassView> {
        let c = self.class(port, priority)?;
        let p = self.pauses.get(port * PRIORITIES + priority)?;
        Some(ClassView {
            fsm: c.fsm,
            pause: c.pause,
            inflight: c.inflight,
            external_depth: p.external.len(),
            onchip_depth: p.onchip.len(),
            departed: c.departed,
        })
    }

    pub fn fsm_state(&self, port: usize, priority: usize) -> Option<FsmState> {
        self.class(port, priority).map(|c| c.fsm)
    }

    fn class(&self, port: usize, priority: usize) -> Option<&Class> {
        self.classes[..self.nclasses].get(port * PRIORITIES + priority)
    }

    /// FDs that have entered the pipeline and not yet left on the wire.
    pub fn frames_in_system(&self) -> usize {
        (self.pushed - self.stats.departed) as usize
    }

    /// Runs `cycles` cycles.
    pub fn run(&mut self, cycles: u64) {
        let end = self.cycle + cycles;
        while self.cycle < end {
            if self.direct && self.steady() {
                self.run_steady(end);
            } else {
                self.step_inline();
            }
        }
        self.stats.cycles = self.cycle;
        self.stats.enqueued = self.pushed;
    }

    /// Stops offering new frames and runs until every frame has left (or `max_cycles` pass).
    /// Returns whether the pipeline emptied.
    pub fn drain(&mut self, max_cycles: u64) -> bool {
        self.generating = false;
        for p in 0..self.cfg.ports {
            self.refresh_port_eligibility(p);
        }
        for _ in 0..max_cycles {
            if self.frames_in_system() == 0 {
                break;
            }
            self.step();
        }
        self.stats.cycles = self.cycle;
        self.stats.enqueued = self.pushed;
        self.frames_in_system() == 0
    }

    /// Whether every frame QMAN ever enqueued has left, once each and in order.
    pub fn delivered_everything_in_order(&self) -> bool {
        self.stats.order_violations == 0
            && self.stats.departed == self.pushed
            && self.classes[..self.nclasses].iter().all(|c| c.expected_seq == c.next_seq)
    }

    /// The parts of the engine a descriptor's push and departure touch, borrowed apart.
    #[inline(always)]
    fn hot(&mut self) -> Hot<'_> {
        self.hot_and_admission().0
    }

    /// `hot`, and the QMI admission model beside it.
    #[inline(always)]
    fn hot_and_admission(&mut self) -> (Hot<'_>, &mut Admission) {
        let (hot, admit, ..) = self.kernel_parts();
        (hot, admit)
    }

    /// `kernel_parts`, and the parts of the DMA engine with which the kernel issues flush
    /// reads (`external.rs`, `KernelReads`).
    #[inline(always)]
    fn kernel_parts_with_reads(
        &mut self,
    ) -> (Hot<'_>, &mut Admission, &mut Stage, &mut Ring<(u64, Fd)>, KernelReads<'_>) {
        let reads = KernelReads {
            active: &self.active,
            external_used: &mut self.external_used,
            direct_leave: &mut self.direct_leave,
            read_latency: self.cfg.external.read_latency,
            ops_per_cycle: self.cfg.external.ops_per_cycle,
            width: self.cfg.width as u64,
        };
        let hot = Hot {
            lim: &self.lim,
            ports: &mut self.ports,
            classes: &mut self.classes,
            pauses: &mut self.pauses,
            elig: &mut self.elig,
            wheel: &mut self.wheel,
            stats: &mut self.stats,
            log: &mut self.log,
            rng: &mut self.rng,
            pushed: &mut self.pushed,
            wire_time: &self.wire_time,
            generating: self.generating,
        };
        (hot, &mut self.admit, &mut self.nti, &mut self.flush_inflight, reads)
    }

    /// What the steady loop's kernel works on (`direct.rs`): `hot`, the QMI admission model,
    /// the delay line and the flush reads on their way to the QMI.
    #[inline(always)]
    fn kernel_parts(&mut self) -> (Hot<'_>, &mut Admission, &mut Stage, &mut Ring<(u64, Fd)>) {
        let (hot, admit, line, flush_inflight, _) = self.kernel_parts_with_reads();
        (hot, admit, line, flush_inflight)
    }

    // ===== one cycle =====

    fn step(&mut self) {
        self.step_inline();
    }

    /// One cycle, inlined into `run`'s loop (the call and its register saves were ~8 % of the
    /// work of a cycle).
    #[inline(always)]
    fn step_inline(&mut self) {
        let now = self.now();
        if self.direct {
            // A flush read issued in the last cycle took a QMI place given to an FD.
            if self.direct_leave {
                self.leave_direct();
            }
        } else if self.can_go_direct() {
            self.go_direct();
        }
        if self.next_pfc <= now {
            self.process_pfc(now);
        }
        let external = self.cfg.mode == PauseMode::External;
        if external && !self.active.is_empty() {
            self.run_pause_fsms();
        }
        if self.wheel.any_due(self.cycle) {
            self.mac_ports(now);
        }
        self.step_after_macs(now);
    }

    /// The rest of a cycle once the MACs have run: the stages, QMAN, the DMA engine, the
    /// traffic offered.
    #[inline(always)]
    pub(super) fn step_after_macs(&mut self, now: Picos) {
        let external = self.cfg.mode == PauseMode::External;
        if self.cfg.mode == PauseMode::Stall && self.paused_classes > 0 {
            self.stats.stalled_cycles += 1;
        } else if self.direct {
            // Only FDs of paused classes, on their way to be recycled, and flushed FDs are in
            // the stages.
            if !(self.nti.is_empty()
                && self.push_queue.is_empty()
                && self.flush_inflight.is_empty())
            {
                self.nti_stage(now);
                self.qmi_input();
            }
            self.qman_push_direct();
        } else {
            self.nti_stage(now);
            if !self.fused {
                self.move_stages();
            }
            self.qmi_input();
            self.qman_push_staged();
        }
        if external && self.dma_has_work() {
            self.dma();
        }
        self.offer_traffic();
        self.cycle += 1;
    }

    /// Random traffic: QMAN's backlogs grow every 64 cycles.
    #[inline(always)]
    pub(super) fn offer_traffic(&mut self) {
        if let Traffic::Random { load_percent } = self.cfg.traffic {
            if self.cycle.is_multiple_of(64) && self.generating {
                self.refill(load_percent);
            }
        }
    }
}
