//! The network scenario file (`pfcsim network FILE.toml`): bridges, hosts, links and flows.
//!
//! ```toml
//! name = "fabric-36-7-deadlock"
//! description = "..."
//! [run]
//! duration_us = 40000
//! sample_us = 200              # the wait-for graph is built from the state this often
//! window_us = 1000             # each flow's throughput per window
//! deadlock_threshold_us = 1000 # a cycle counts once every part of it held this long
//! [[bridge]]
//! name = "b1"
//! ports = ["h", "east", "west"]
//! pfc_priorities = [3]         # default [3]
//! buffer_octets = 65536        # per port and lossless priority; default 2 x the headroom
//! max_transit_ms = 20          # 802.1Q 6.5.6, 1 to 4000; default: no limit
//! [bridge.watchdog]            # optional: every port's PFC watchdog, as pfcsim scenario's
//! detection_ms = 20
//! [[host]]
//! name = "h1"
//! [[link]]
//! a = "h1"                     # a host, or "bridge:port"
//! b = "b1:h"
//! speed = "10G"
//! metres = 100                 # fibre
//! [[flow]]
//! name = "f1"
//! path = ["h1", "b1", "b2", "h2"]
//! priority = 3
//! rate_mbps = 10000
//! frame_len = 1000             # octets, FCS excluded
//! start_us = 0
//! stop_us = 40000              # default: the run's end
//! ```

use serde::{Deserialize, Serialize};

use crate::file::WatchdogSpec;

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkFile {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub run: NetworkRun,
    #[serde(default, rename = "bridge")]
    pub bridges: Vec<BridgeSpec>,
    #[serde(default, rename = "host")]
    pub hosts: Vec<HostSpec>,
    #[serde(default, rename = "link")]
    pub links: Vec<NetworkLinkSpec>,
    #[serde(default, rename = "flow")]
    pub flows: Vec<FlowSpec>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkRun {
    pub duration_us: u64,
    #[serde(default = "default_sample")]
    pub sample_us: u64,
    #[serde(default = "default_window")]
    pub window_us: u64,
    #[serde(default = "default_threshold")]
    pub deadlock_threshold_us: u64,
}

fn default_sample() -> u64 {
    200
}

fn default_window() -> u64 {
    1_000
}

fn default_threshold() -> u64 {
    1_000
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BridgeSpec {
    pub name: String,
    pub ports: Vec<String>,
    #[serde(default = "default_pfc")]
    pub pfc_priorities: Vec<u8>,
    #[serde(default)]
    pub buffer_octets: Option<u64>,
    #[serde(default)]
    pub max_transit_ms: Option<u64>,
    #[serde(default)]
    pub watchdog: Option<WatchdogSpec>,
}

fn default_pfc() -> Vec<u8> {
    vec![3]
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkLinkSpec {
    pub a: String,
    pub b: String,
    pub speed: String,
    #[serde(default = "default_metres")]
    pub metres: u64,
}

fn default_metres() -> u64 {
    100
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub name: String,
    pub path: Vec<String>,
    #[serde(default = "default_priority")]
    pub priority: u8,
    pub rate_mbps: u64,
    #[serde(default = "default_frame")]
    pub frame_len: u32,
    #[serde(default)]
    pub start_us: u64,
    #[serde(default)]
    pub stop_us: Option<u64>,
}

fn default_priority() -> u8 {
    3
}

fn default_frame() -> u32 {
    1_000
}
