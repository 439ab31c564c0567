//! The daemon's one room between YANG and the ports: `prepare` turns running's XML into typed
//! per-port intents and refuses there, `apply` hands them to the port tasks, `state` reads the
//! snapshots the ports publish. One file per module family: [`interfaces`] (ietf-interfaces and
//! the bridge), [`traffic_class`] (the Bridge Port's traffic class table), [`pfc`]
//! (ieee802-dot1q-pfc-bridge), [`lab`] (pfcd-lab).

pub mod interfaces;
pub mod lab;
pub mod lldp;
pub mod notifications;
pub mod pfc;
pub mod pipeline;
pub mod traffic_class;
pub mod xml;

use std::sync::Arc;

use mgmt::backend::Backend;

use crate::lab::Lab;
use crate::ports::set::PortSet;

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

/// Real interfaces' first-start configuration: the bridge, its ports (PFC off), LLDP on every
/// port.
pub fn initial_config_for(names: &[&str]) -> String {
    interfaces::initial_config_for(names) + &lldp::initial_config(names)
}

/// The backends: the PFC model's over `ports`, and pfcd-lab's when they are the lab's.
pub fn backends(ports: Arc<dyn PortSet>, lab: Option<Arc<Lab>>) -> Vec<Arc<dyn Backend>> {
    let mut all: Vec<Arc<dyn Backend>> = vec![Arc::new(pfc::PfcBackend::new(ports))];
    if let Some(lab) = lab {
        all.push(Arc::new(lab::LabBackend::new(lab)));
    }
    all
}
