//! The daemon's one room between YANG and the ports. [`backend`] is the hub, the one
//! `Backend` over the ports: `prepare` turns running's XML into typed per-port intents and
//! refuses there, `apply` hands them to the port tasks, `state` reads the snapshots the ports
//! publish, `rpc` runs the PFC model's RPCs, and [`events`] turns the ports' events into
//! notifications. It routes by module family, each with one file per direction
//! (`config`, `state`, `rpc`, `notification`): [`interfaces`] (ietf-interfaces and the bridge,
//! with each Bridge Port's traffic class table), [`pfc`] (ieee802-dot1q-pfc-bridge), [`lldp`]
//! (ieee802-dot1ab-lldp with the DCBX and PFC TLV modules), [`fdb`] (the bridge's static
//! filtering entries), [`pipeline`] (pfcd-pipeline),
//! [`watchdog`] (pfcd-watchdog);
//! [`lab`] is pfcd-lab's own backend (state only). [`namespaces`] and [`xml`] serve them all.
//!
//! Imports go one way, so no two files import from each other, directly or through others: this
//! file from the hub and the families, the hub from the families and `events`, `events` from
//! the families' `notification.rs`, a family's `notification.rs` from its `state.rs`, and every
//! file from `namespaces` and `xml`, which import from none of them.

pub mod backend;
pub mod events;
pub mod fdb;
pub mod interfaces;
pub mod lab;
pub mod lldp;
pub mod moved;
pub mod namespaces;
pub mod nic;
pub mod pfc;
pub mod pipeline;
pub mod watchdog;
pub mod xml;

use std::sync::Arc;

use mgmt::backend::Backend;

use crate::lab::links::LabLink;
use crate::lab::Lab;
use crate::ports::set::PortSet;

/// The lab's first-start configuration: the bridge, its ports with PFC, LLDP on every port.
pub fn initial_config(links: &[LabLink]) -> String {
    let names: Vec<&str> = links.iter().map(|l| l.name.as_str()).collect();
    interfaces::config::initial_config(links) + &lldp::config::initial_config(&names)
}

/// Real interfaces' first-start configuration: the bridge, its ports (PFC off), LLDP on every
/// port.
pub fn initial_config_for(names: &[&str]) -> String {
    interfaces::config::initial_config_for(names) + &lldp::config::initial_config(names)
}

/// The backends: the ports' (the PFC model with everything it hangs on), and pfcd-lab's when
/// the ports are the lab's.
pub fn backends(ports: Arc<dyn PortSet>, lab: Option<Arc<Lab>>) -> Vec<Arc<dyn Backend>> {
    let mut all: Vec<Arc<dyn Backend>> = vec![Arc::new(backend::PortsBackend::new(ports))];
    if let Some(lab) = lab {
        all.push(Arc::new(lab::LabBackend::new(lab)));
    }
    all
}
