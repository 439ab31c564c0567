//! The scenario file: a TOML document naming one two-station run — link, traffic, how the
//! headroom is found, which flow control — and the seeds to run it with.
//!
//! ```toml
//! name = "measured-100g-10km"
//! description = "..."
//! [link]
//! speed = "100G"          # 10G 25G 40G 50G 100G 200G 400G
//! metres = 10000
//! medium = "fibre"        # fibre | copper
//! [traffic]
//! frame_len = 2000        # octets, FCS excluded
//! reverse_frame_len = 2000  # B's own frames back to A (optional)
//! drain_percent = 20      # B forwards at this share of line rate
//! duration_us = 2000
//! [headroom]
//! method = "measured"     # annex-n | calculated | measured | fixed
//! bits = 126224           # fixed only
//! [flow_control]
//! mode = "pfc"            # pfc | credit
//! buffer_octets = 131072  # optional: PFC defaults to 2 x headroom, credit to 2048 blocks
//! [run]
//! seeds = [1, 2, 3]
//! plot_interval_ns = 1000 # optional, for --plot
//! ```
//!
//! A PFC watchdog on B, the bridge's frames toward A and the peer's storms are optional
//! sections: see [`watch`].

mod watch;

use serde::{Deserialize, Serialize};
pub use watch::{ActionSpec, ClassSpec, EgressSpec, StormSpec, WatchdogSpec, WATCHDOG_MS};

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub link: LinkSpec,
    pub traffic: TrafficSpec,
    pub headroom: HeadroomSpec,
    #[serde(default)]
    pub flow_control: FlowControlSpec,
    #[serde(default)]
    pub run: RunSpec,
    #[serde(default)]
    pub watchdog: Option<WatchdogSpec>,
    #[serde(default)]
    pub egress: Option<EgressSpec>,
    #[serde(default, rename = "storm")]
    pub storms: Vec<StormSpec>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub speed: String,
    pub metres: u64,
    pub medium: MediumSpec,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MediumSpec {
    Fibre,
    Copper,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficSpec {
    /// The lossless priority A sends on.
    #[serde(default = "default_priority")]
    pub priority: u8,
    #[serde(default = "default_frame_len")]
    pub frame_len: u32,
    #[serde(default)]
    pub reverse_frame_len: Option<u32>,
    pub drain_percent: u64,
    pub duration_us: u64,
}

fn default_priority() -> u8 {
    3
}

fn default_frame_len() -> u32 {
    2000
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HeadroomMethod {
    /// Annex N's worked example, 126 224 bit times, whatever the link.
    AnnexN,
    /// The link-delay method (36.8.1) for this link and the simulated stations' delays.
    Calculated,
    /// The measurement protocol (36.9) run over this link first.
    Measured,
    /// A fixed number of bits.
    Fixed,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HeadroomSpec {
    pub method: HeadroomMethod,
    #[serde(default)]
    pub bits: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FlowControlMode {
    #[default]
    Pfc,
    Credit,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FlowControlSpec {
    #[serde(default)]
    pub mode: FlowControlMode,
    #[serde(default)]
    pub buffer_octets: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    #[serde(default = "default_seeds")]
    pub seeds: Vec<u64>,
    #[serde(default)]
    pub plot_interval_ns: Option<u64>,
}

impl Default for RunSpec {
    fn default() -> Self {
        RunSpec { seeds: default_seeds(), plot_interval_ns: None }
    }
}

fn default_seeds() -> Vec<u64> {
    vec![1]
}
