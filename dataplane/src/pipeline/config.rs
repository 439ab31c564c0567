use crate::time::{LinkSpeed, Picos};

/// How the pipeline keeps a paused (port, priority) from reaching the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PauseMode {
    /// Seed 000: the NTI recycles the paused class's FDs to a FIFO in external memory, QMAN
    /// halts the class, and the FIFO is flushed back in order when the pause ends.
    External,
    /// Prior art: on-chip FIFOs per (port, priority) between NTI and MAC hold paused frames
    /// (payload already read); QMAN halts the class.
    Fifo,
    /// Naive: any pause stops every pipeline stage until it ends; the MAC will not start a
    /// paused frame, so the head of its queue blocks the port.
    Stall,
}

impl std::str::FromStr for PauseMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "external" => Ok(PauseMode::External),
            "fifo" => Ok(PauseMode::Fifo),
            "stall" => Ok(PauseMode::Stall),
            _ => Err(format!("'{s}' is not a pause mode: use external, fifo or stall")),
        }
    }
}

impl std::fmt::Display for PauseMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PauseMode::External => "external",
            PauseMode::Fifo => "fifo",
            PauseMode::Stall => "stall",
        })
    }
}

/// The external memory holding one FIFO per (port, priority).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExternalMemoryConfig {
    /// FDs it can hold in all FIFOs together.
    pub capacity_fds: usize,
    /// Cycles from a DMA write issued to the FD stored.
    pub write_latency: u64,
    /// Cycles from a DMA read issued to the FD back at the QMI.
    pub read_latency: u64,
    /// DMA operations (reads plus writes) per cycle.
    pub ops_per_cycle: usize,
}

impl Default for ExternalMemoryConfig {
    fn default() -> Self {
        // DDR-class: ~100 ns access at a 1 GHz pipeline clock, two descriptor moves per cycle.
        ExternalMemoryConfig {
            capacity_fds: 1 << 20,
            write_latency: 100,
            read_latency: 100,
            ops_per_cycle: 2,
        }
    }
}

/// Offered traffic per (port, priority) at QMAN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Traffic {
    /// Every class always has frames waiting.
    Saturated,
    /// Each class receives, every 64 cycles, a random number of frames averaging `load_percent`
    /// of its port's line rate divided among the classes.
    Random { load_percent: u64 },
    /// Only the frames handed to [`crate::pipeline::Pipeline::offer`]: a bridge forwarding
    /// real frames, each with its own buffer handle and length.
    Offered,
}

/// Everything that shapes a pipeline run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PipelineConfig {
    pub mode: PauseMode,
    pub ports: usize,
    pub speed: LinkSpeed,
    /// Pipeline clock period.
    pub cycle: Picos,
    /// FDs each stage can move per cycle.
    pub width: usize,
    /// QMAN push queue: latency (cycles) and capacity (FDs).
    pub qman_latency: u64,
    pub qman_capacity: usize,
    pub qmi_latency: u64,
    pub bmi_latency: u64,
    pub nti_latency: u64,
    /// Capacity of each of QMI, BMI and NTI.
    pub stage_capacity: usize,
    /// Most FDs of one port anywhere between QMAN's push queue and the wire (the port's share of
    /// the pipeline, so a slow or paused port cannot fill it). Also the depth of each on-chip
    /// FIFO in `fifo` mode and of each MAC transmit queue.
    pub port_credit: usize,
    /// From a PFC frame received to Priority_Paused asserted at the MAC and the Pause FSM.
    pub pause_detect_latency: Picos,
    pub external: ExternalMemoryConfig,
    pub traffic: Traffic,
    /// Frame lengths, octets (FCS excluded), drawn uniformly per frame.
    pub min_len: u16,
    pub max_len: u16,
    pub seed: u64,
}

impl Default for PipelineConfig {
    /// 8 ports at 100 Gb/s, a 1 GHz pipeline two FDs wide, 64-octet frames.
    fn default() -> Self {
        PipelineConfig {
            mode: PauseMode::External,
            ports: 8,
            speed: LinkSpeed::G100,
            cycle: Picos(1_000),
            width: 2,
            qman_latency: 4,
            qman_capacity: 16,
            qmi_latency: 8,
            bmi_latency: 16,
            nti_latency: 8,
            stage_capacity: 64,
            port_credit: 32,
            pause_detect_latency: Picos::from_ns(20),
            external: ExternalMemoryConfig::default(),
            traffic: Traffic::Saturated,
            min_len: 60,
            max_len: 60,
            seed: 1,
        }
    }
}

/// The most FDs of one port in flight ([`PipelineConfig::port_credit`]): each port's transmit
/// queue is allocated at this depth when the pipeline is built, so it bounds the pipeline's
/// memory (4096 FDs is 128 times the default and far more than any port needs to fill its
/// line: QMAN's credit only has to cover the pipeline's round trip).
pub const MAX_PORT_CREDIT: usize = 4096;

/// The longest external-memory access ([`ExternalMemoryConfig::write_latency`],
/// `read_latency`) and stage latency, in cycles: 1 ms at a 1 GHz pipeline clock, ten thousand
/// times DDR's. Cycle counts plus latencies then never come near overflowing.
pub const MAX_LATENCY_CYCLES: u64 = 1_000_000;

/// The longest [`PipelineConfig::pause_detect_latency`]: 1 ms, over a thousand times the
/// 614.4 ns within which 36.3.3 wants a pause to take hold.
pub const MAX_PAUSE_DETECT_LATENCY: Picos = Picos(1_000_000_000);

impl PipelineConfig {
    /// The FDs one (port, priority) may have in flight — a quarter of the port's credit — and
    /// so the bound on its external FIFO's depth (SPEC §6 invariant 4).
    pub fn class_depth_bound(&self) -> usize {
        (self.port_credit / 4).max(1)
    }

    /// Checks the configuration makes sense; the message says what to change.
    pub fn validate(&self) -> Result<(), String> {
        if self.ports == 0 || self.ports > 256 {
            return Err(format!("ports must be 1..=256, not {}", self.ports));
        }
        if self.width == 0 || self.cycle == Picos::ZERO {
            return Err("width and cycle must be above zero".into());
        }
        if self.min_len < 60 || self.max_len < self.min_len {
            return Err(format!(
                "frame lengths must satisfy 60 <= min_len <= max_len (got {}..{})",
                self.min_len, self.max_len
            ));
        }
        if self.port_credit == 0 || self.qman_capacity == 0 || self.stage_capacity == 0 {
            return Err("port_credit, qman_capacity and stage_capacity must be above zero".into());
        }
        if self.external.ops_per_cycle == 0 || self.external.capacity_fds == 0 {
            return Err("external memory needs capacity and at least one DMA op per cycle".into());
        }
        if self.port_credit > MAX_PORT_CREDIT {
            return Err(format!(
                "port_credit must be at most {MAX_PORT_CREDIT} FDs, not {}",
                self.port_credit
            ));
        }
        let latencies = [
            ("write_latency", self.external.write_latency),
            ("read_latency", self.external.read_latency),
            ("qman_latency", self.qman_latency),
            ("qmi_latency", self.qmi_latency),
            ("bmi_latency", self.bmi_latency),
            ("nti_latency", self.nti_latency),
        ];
        if let Some((name, cycles)) = latencies.iter().find(|(_, c)| *c > MAX_LATENCY_CYCLES) {
            return Err(format!(
                "{name} must be at most {MAX_LATENCY_CYCLES} cycles, not {cycles}"
            ));
        }
        if self.pause_detect_latency > MAX_PAUSE_DETECT_LATENCY {
            return Err(format!(
                "pause_detect_latency must be at most {} ps, not {}",
                MAX_PAUSE_DETECT_LATENCY.as_ps(),
                self.pause_detect_latency.as_ps()
            ));
        }
        Ok(())
    }
}
