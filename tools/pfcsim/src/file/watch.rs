//! The scenario file's PFC watchdog sections: B's watchdog, the bridge's frames toward A that
//! the watchdog watches, and the storms A (the peer) makes.
//!
//! ```toml
//! [watchdog]              # optional; a scenario with storms runs pfcd's defaults without it
//! enabled = true
//! detection_ms = 200      # 1 to 600 000, as pfcd's detection-time
//! restoration_ms = 200
//! action = "drop"         # drop | forward | alert
//! ignore_link_pause = false
//! [[watchdog.class]]      # a class's own settings; absent ones take the port-wide ones above
//! priority = 4            # or link_pause = true
//! action = "forward"
//! [egress]                # optional: B's frames toward A, as the lab's bridge sends them
//! priorities = [0, 3]     # default: all eight
//! every_frames = 16       # each priority gets a frame every 16 frame times
//! queue_frames = 64       # each priority's queue toward A
//! [[storm]]
//! priority = 3            # or link_pause = true
//! start_us = 1000
//! end_us = 300000
//! ```

use serde::{Deserialize, Serialize};

/// The range pfcd's `detection-time` and `restoration-time` take, milliseconds.
pub const WATCHDOG_MS: std::ops::RangeInclusive<u64> = 1..=600_000;

/// B's PFC watchdog: port-wide settings and each class's own.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WatchdogSpec {
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(default = "default_ms")]
    pub detection_ms: u64,
    #[serde(default = "default_ms")]
    pub restoration_ms: u64,
    #[serde(default)]
    pub action: ActionSpec,
    #[serde(default)]
    pub ignore_link_pause: bool,
    #[serde(default, rename = "class")]
    pub classes: Vec<ClassSpec>,
}

impl Default for WatchdogSpec {
    /// pfcd's defaults: 200 ms / 200 ms / drop on every class.
    fn default() -> Self {
        WatchdogSpec {
            enabled: true,
            detection_ms: default_ms(),
            restoration_ms: default_ms(),
            action: ActionSpec::default(),
            ignore_link_pause: false,
            classes: Vec::new(),
        }
    }
}

fn yes() -> bool {
    true
}

fn default_ms() -> u64 {
    200
}

/// A watchdog action, as pfcd's configuration names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ActionSpec {
    #[default]
    Drop,
    Forward,
    Alert,
}

/// One class's watchdog settings (`priority` or `link_pause`); unset ones are the port's.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ClassSpec {
    #[serde(default)]
    pub priority: Option<u8>,
    #[serde(default)]
    pub link_pause: bool,
    #[serde(default)]
    pub enabled: Option<bool>,
    #[serde(default)]
    pub detection_ms: Option<u64>,
    #[serde(default)]
    pub restoration_ms: Option<u64>,
    #[serde(default)]
    pub action: Option<ActionSpec>,
}

/// The bridge's frames toward A, per priority (the lab's egress model).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EgressSpec {
    #[serde(default = "all_priorities")]
    pub priorities: Vec<u8>,
    #[serde(default = "default_every")]
    pub every_frames: u64,
    #[serde(default = "default_queue")]
    pub queue_frames: u64,
}

impl Default for EgressSpec {
    /// The lab's: every priority, one frame each every 16 frame times (together half the line
    /// rate), 64 frames queued per priority.
    fn default() -> Self {
        EgressSpec {
            priorities: all_priorities(),
            every_frames: default_every(),
            queue_frames: default_queue(),
        }
    }
}

fn all_priorities() -> Vec<u8> {
    (0..8).collect()
}

fn default_every() -> u64 {
    16
}

fn default_queue() -> u64 {
    64
}

/// The peer holds a class (`priority` or `link_pause`) paused from `start_us` to `end_us` of
/// simulated time, refreshing its pauses, then releases it with a pause of zero quanta.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StormSpec {
    #[serde(default)]
    pub priority: Option<u8>,
    #[serde(default)]
    pub link_pause: bool,
    pub start_us: u64,
    pub end_us: u64,
}
