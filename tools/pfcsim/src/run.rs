//! Runs a scenario: the headroom by the chosen method, then one two-station run per seed with
//! PFC or with credit flow control.

use dataplane::credit::BLOCK_OCTETS;
use dataplane::headroom::{BufferConfig, BufferPlan};
use dataplane::sim::{
    CreditPair, CreditPairConfig, Medium, Sample, StationDelays, TwoStation, TwoStationConfig,
};
use dataplane::time::{LinkSpeed, Picos};
use serde::Serialize;

use super::file::{FlowControlMode, HeadroomMethod, MediumSpec, ScenarioFile};
use super::headroom::{headroom_for, HeadroomChoice};
use super::storms::{self, StormResult};
use super::ScenarioError;

/// Credit flow control's default buffer: the 2048-block credit window.
pub const CREDIT_DEFAULT_BLOCKS: u64 = 2048;

/// One seed's run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeedRun {
    pub seed: u64,
    pub frames_sent: u64,
    pub frames_received: u64,
    pub frames_dropped: u64,
    /// PFC frames B sent (PFC), or credit FCPs B sent (credit).
    pub flow_control_frames: u64,
    /// Times B asserted XOFF (PFC), or A waited for credit (credit).
    pub stops: u64,
    pub peak_occupancy_octets: u64,
    /// Octets drained over what the drain could have taken, after start-up, percent.
    pub goodput_percent: f64,
    /// Each of the peer's storms, with B's watchdog's detection and restoration.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub storms: Vec<StormResult>,
    #[serde(skip)]
    pub series: Vec<Sample>,
}

/// A scenario's results.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScenarioResults {
    pub name: String,
    pub description: String,
    pub speed: String,
    pub metres: u64,
    pub medium: MediumSpec,
    pub flow_control: FlowControlMode,
    pub headroom: HeadroomChoice,
    /// The true PFC round trip of the simulated link without frames in progress (ID + LD).
    pub true_round_trip_ns: u64,
    /// B's receive buffer for the lossless priority.
    pub buffer_octets: u64,
    /// PFC only: the XOFF and XON thresholds.
    pub xoff_octets: Option<u64>,
    pub xon_octets: Option<u64>,
    pub duration_us: u64,
    pub runs: Vec<SeedRun>,
}

impl ScenarioResults {
    pub fn total_dropped(&self) -> u64 {
        self.runs.iter().map(|r| r.frames_dropped).sum()
    }
}

/// The two-station configuration a scenario describes, for `seed`.
pub fn stations(file: &ScenarioFile, seed: u64) -> Result<TwoStationConfig, ScenarioError> {
    let speed: LinkSpeed = file.link.speed.parse()?;
    let t = &file.traffic;
    if t.drain_percent == 0 || t.drain_percent > 100 {
        return Err(ScenarioError::Drain(t.drain_percent));
    }
    if t.priority > 7 {
        return Err(ScenarioError::Priority(t.priority));
    }
    let mut cfg = TwoStationConfig::annex_n(0, seed);
    cfg.speed = speed;
    cfg.link_metres = file.link.metres;
    cfg.medium = match file.link.medium {
        MediumSpec::Fibre => Medium::Fibre,
        MediumSpec::Copper => Medium::Copper,
    };
    // The calculator's default stations for the speed (10GBASE-T, Annex N's, over copper at 10G).
    cfg.delays = StationDelays::for_link(speed, cfg.medium);
    cfg.priority = t.priority;
    cfg.frame_len = t.frame_len.max(60);
    cfg.reverse_frame_len = t.reverse_frame_len;
    cfg.drain_percent = t.drain_percent;
    cfg.duration = Picos::from_us(t.duration_us);
    cfg.record_every = file.run.plot_interval_ns.map(Picos::from_ns);
    cfg.measure_from = (cfg.round_trip() * 3).min(Picos(cfg.duration.as_ps() / 2));
    Ok(cfg)
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

/// Runs every seed of a scenario.
pub fn run(file: &ScenarioFile) -> Result<ScenarioResults, ScenarioError> {
    let first = *file.run.seeds.first().ok_or(ScenarioError::NoSeeds)?;
    let base = stations(file, first)?;
    if file.headroom.method != HeadroomMethod::Fixed && file.headroom.bits.is_some() {
        return Err(ScenarioError::BitsWithoutFixed);
    }
    let headroom = headroom_for(file.headroom.method, file.headroom.bits, &base)?;
    let mut results = ScenarioResults {
        name: file.name.clone(),
        description: file.description.clone(),
        speed: base.speed.to_string(),
        metres: base.link_metres,
        medium: file.link.medium,
        flow_control: file.flow_control.mode,
        true_round_trip_ns: base.round_trip().as_ns(),
        buffer_octets: 0,
        xoff_octets: None,
        xon_octets: None,
        duration_us: file.traffic.duration_us,
        runs: Vec::new(),
        headroom,
    };
    match file.flow_control.mode {
        FlowControlMode::Pfc => {
            let config = BufferConfig {
                max_frame_octets: u64::from(base.frame_len),
                allocation_octets: file.flow_control.buffer_octets,
                ..BufferConfig::default()
            };
            let plan = BufferPlan::new(results.headroom.bits, &config)?;
            results.buffer_octets = plan.allocation_octets;
            results.xoff_octets = Some(plan.xoff_octets);
            results.xon_octets = Some(plan.xon_octets);
            for &seed in &file.run.seeds {
                let mut cfg = stations(file, seed)?;
                cfg.headroom_bits = results.headroom.bits;
                cfg.allocation_octets = Some(plan.allocation_octets);
                let (r, storms) = match storms::plan(file, &cfg)? {
                    Some(watch) => {
                        let (r, storms, _) = storms::run(cfg, &watch);
                        (r, storms)
                    }
                    None => (TwoStation::new(cfg).run(), Vec::new()),
                };
                results.runs.push(SeedRun {
                    seed,
                    frames_sent: r.frames_sent,
                    frames_received: r.frames_received,
                    frames_dropped: r.frames_dropped,
                    flow_control_frames: r.pfc_requests,
                    stops: r.xoff_events,
                    peak_occupancy_octets: r.peak_occupancy_octets,
                    goodput_percent: percent(r.octets_drained, r.drain_capacity_octets),
                    storms,
                    series: r.series,
                });
            }
        }
        FlowControlMode::Credit => {
            if !file.storms.is_empty() || file.watchdog.is_some() || file.egress.is_some() {
                return Err(ScenarioError::StormsNeedPfc);
            }
            let octets = file
                .flow_control
                .buffer_octets
                .unwrap_or(CREDIT_DEFAULT_BLOCKS * u64::from(BLOCK_OCTETS));
            let blocks = u32::try_from(octets / u64::from(BLOCK_OCTETS))
                .map_err(|_| ScenarioError::Buffer(octets))?;
            results.buffer_octets = u64::from(blocks) * u64::from(BLOCK_OCTETS);
            for &seed in &file.run.seeds {
                let cfg = stations(file, seed)?;
                let r = CreditPair::new(CreditPairConfig::like(&cfg, blocks))?.run();
                results.runs.push(SeedRun {
                    seed,
                    frames_sent: r.packets_sent,
                    frames_received: r.packets_received,
                    frames_dropped: r.packets_dropped,
                    flow_control_frames: r.credit_fcps,
                    stops: r.credit_waits,
                    peak_occupancy_octets: r.peak_occupancy_octets,
                    goodput_percent: percent(r.octets_drained, r.drain_capacity_octets),
                    storms: Vec::new(),
                    series: r.series,
                });
            }
        }
    }
    Ok(results)
}
