//! A fabric's names: its ports, and the flows through it hop by hop. Every other file of the
//! crate uses them; they use none of them.

use serde::{Deserialize, Serialize};

/// A port of a device.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PortRef {
    pub device: String,
    pub port: String,
}

impl PortRef {
    pub fn new(device: impl Into<String>, port: impl Into<String>) -> Self {
        PortRef { device: device.into(), port: port.into() }
    }
}

impl std::fmt::Display for PortRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.device, self.port)
    }
}

/// One device a flow crosses: where it comes in and where it leaves (a host that starts or ends
/// the flow has no port on that side).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hop {
    pub device: String,
    pub in_port: Option<String>,
    pub out_port: Option<String>,
}

/// A flow: its path through the fabric and its priority.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flow {
    pub name: String,
    pub priority: u8,
    pub path: Vec<Hop>,
}
