//! The daemon's one room between YANG and the ports: `prepare` turns running's XML into typed
//! per-port intents and refuses there, `apply` hands them to the port tasks, `state` reads the
//! snapshots the ports publish. One file per module family: [`interfaces`] (ietf-interfaces and
//! the bridge), [`pfc`] (ieee802-dot1q-pfc-bridge), [`lab`] (pfcd-lab).

pub mod interfaces;
pub mod lab;
pub mod lldp;
pub mod notifications;
pub mod pfc;
pub mod pipeline;
pub mod xml;

use std::sync::Arc;

use mgmt::backend::Backend;

use crate::lab::Lab;

pub const IF_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-interfaces";
pub const IANA_IF_NS: &str = "urn:ietf:params:xml:ns:yang:iana-if-type";
pub const DOT1Q_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-bridge";
pub const PFC_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-pfc";
pub const PFC_BRIDGE_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-pfc-bridge";
pub const LAB_NS: &str = "urn:pfcd:yang:pfcd-lab";

/// The lab's first-start configuration: the bridge, its ports with PFC, LLDP on every port.
pub fn initial_config(links: &[crate::lab::links::LabLink]) -> String {
    let names: Vec<&str> = links.iter().map(|l| l.name.as_str()).collect();
    interfaces::initial_config(links) + &lldp::initial_config(&names)
}

/// The backends for the lab's modules.
pub fn backends(lab: Arc<Lab>) -> Vec<Arc<dyn Backend>> {
    vec![Arc::new(pfc::PfcBackend::new(lab.clone())), Arc::new(lab::LabBackend::new(lab))]
}
