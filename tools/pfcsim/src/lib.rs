//! Scenarios for `pfcsim scenario`: a TOML file names a two-station run (link, traffic, how the
//! headroom is found, PFC or credit flow control, seeds); [`run_file`] runs it and returns results
//! that print as a table ([`table`]), as JSON (they are `Serialize`), or as an SVG plot ([`svg`]).
//!
//! The library holds this so tests run the shipped `scenarios/*.toml` through the same entry
//! point as the binary.

mod file;
mod headroom;
pub mod network;
mod plot;
mod report;
mod run;
mod storms;

use std::path::Path;

pub use file::{
    ActionSpec, ClassSpec, EgressSpec, FlowControlMode, FlowControlSpec, HeadroomMethod,
    HeadroomSpec, LinkSpec, MediumSpec, RunSpec, ScenarioFile, StormSpec, TrafficSpec,
    WatchdogSpec, WATCHDOG_MS,
};
pub use headroom::{
    headroom_for, inputs_for, max_frame_octets, measure, measure_outcome, HeadroomChoice,
};
pub use network::{load_network, run_network, run_network_file, NetworkError, NetworkResults};
pub use plot::svg;
pub use report::{group, method_name, table};
pub use run::{run, stations, ScenarioResults, SeedRun, CREDIT_DEFAULT_BLOCKS};
pub use storms::{class_name, plan, run as run_storms, Storm, StormResult, WatchPlan};

/// Why a scenario could not be run; each message says what to change.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error("cannot read scenario file {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("scenario file {path} is not a valid scenario: {message}")]
    Parse { path: String, message: String },
    #[error(transparent)]
    Speed(#[from] dataplane::time::ParseLinkSpeedError),
    #[error("drain_percent is {0}: give 1 to 100 (below 100 congests the receiver)")]
    Drain(u64),
    #[error("priority {0} does not exist: priorities are 0 to 7")]
    Priority(u8),
    #[error("the link of {0} m is too long to calculate with: at most 4 294 967 295 m")]
    TooLong(u64),
    #[error("headroom method \"fixed\" needs `bits` in [headroom]")]
    FixedWithoutBits,
    #[error(
        "`bits` in [headroom] is only used with method = \"fixed\": remove it or change the method"
    )]
    BitsWithoutFixed,
    #[error("[run] seeds is empty: give at least one seed")]
    NoSeeds,
    #[error("a credit buffer of {0} octets is more blocks than the simulation counts")]
    Buffer(u64),
    #[error("the measurement protocol gave no result on this link: station B got no response")]
    NoMeasurement,
    #[error("{0} names one class: `priority = N` (0 to 7) or `link_pause = true`, not both")]
    ClassChoice(&'static str),
    #[error("[watchdog] {what} is {value}: give 1 to 600000 (milliseconds, as pfcd's)")]
    WatchdogTime { what: &'static str, value: u64 },
    #[error(
        "a [[storm]] from {start} us to {end} us: it must end after it starts and by the run's \
         duration_us ({duration_us})"
    )]
    StormTimes { start: u64, end: u64, duration_us: u64 },
    #[error("two storms of {0} overlap: end one before the next starts")]
    StormOverlap(String),
    #[error(
        "a link-pause storm needs PFC off (a PFC port ignores 802.3x PAUSE), so it cannot run \
         with storms of priorities: put them in separate scenarios"
    )]
    LinkPauseWithPfcStorms,
    #[error("[egress] every_frames and queue_frames must be at least 1")]
    Egress,
    #[error("storms, [watchdog] and [egress] need flow_control mode = \"pfc\"")]
    StormsNeedPfc,
    #[error(transparent)]
    Headroom(#[from] dataplane::headroom::HeadroomError),
    #[error(transparent)]
    Plan(#[from] dataplane::headroom::BufferPlanError),
    #[error(transparent)]
    Measure(#[from] dataplane::headroom::measure::MeasureError),
    #[error(transparent)]
    Credit(#[from] dataplane::credit::CreditError),
}

/// Reads and parses a scenario file.
pub fn load(path: &Path) -> Result<ScenarioFile, ScenarioError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|source| ScenarioError::Read { path: name.clone(), source })?;
    parse(&name, &text)
}

/// Parses scenario text; `name` says where it came from in errors.
pub fn parse(name: &str, text: &str) -> Result<ScenarioFile, ScenarioError> {
    toml::from_str(text)
        .map_err(|e| ScenarioError::Parse { path: name.to_string(), message: e.to_string() })
}

/// Loads and runs a scenario file.
pub fn run_file(path: &Path) -> Result<ScenarioResults, ScenarioError> {
    run(&load(path)?)
}
