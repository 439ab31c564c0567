//! What a port's LLDP agent and DCBX report, logged and, where a notification is due, sent to
//! the northbound side: the same for a simulated port and a real one.

use std::sync::mpsc::Sender;
use std::sync::Arc;

use lldp::agent::{AgentEvent, RemoteStatistics};
use lldp::dcbx::DcbxEvent;
use lldp::neighbours::NeighbourEvent;
use tracing::{info, warn};

use super::event::PortEvent;
use super::lldp_view::LldpView;

/// An agent event of port `name`: a neighbour inserted, deleted or aged out is a remote
/// table change (with the table's counters `stats` after it); discards are logged.
pub fn agent_event(
    name: &str,
    event: &AgentEvent,
    stats: RemoteStatistics,
    events: &Sender<PortEvent>,
) {
    match event {
        AgentEvent::Neighbour(n) => {
            let (change, index) = match n {
                NeighbourEvent::Inserted { remote_index, .. } => ("inserted", remote_index),
                NeighbourEvent::Deleted { remote_index, .. } => ("deleted", remote_index),
                NeighbourEvent::AgedOut { remote_index, .. } => ("aged out", remote_index),
                _ => return,
            };
            info!(remote_index = index, "LLDP neighbour {change}");
            let _ = events.send(PortEvent::RemoteTableChange { port: name.to_string(), stats });
        }
        AgentEvent::FrameDiscarded { source_mac, error } => {
            warn!(?source_mac, %error, "LLDPDU discarded")
        }
        AgentEvent::TlvDiscarded { source_mac, error } => {
            warn!(%source_mac, %error, "LLDP TLV discarded")
        }
        AgentEvent::LengthError { left_out } => {
            warn!(left_out, "our LLDPDU is too long: optional TLVs left out")
        }
    }
}

/// A DCBX event of port `name`: a PFC misconfiguration raised or cleared is a notification
/// (with the port's LLDP view then); the rest is logged.
pub fn dcbx_event(
    name: &str,
    event: &DcbxEvent,
    view: impl FnOnce() -> Arc<LldpView>,
    events: &Sender<PortEvent>,
) {
    match event {
        DcbxEvent::MisconfigurationRaised(m) => {
            warn!(misconfiguration = %m, "DCBX: PFC misconfigured");
        }
        DcbxEvent::MisconfigurationCleared => info!("DCBX: PFC misconfiguration cleared"),
        other => {
            info!(event = ?other, "DCBX");
            return;
        }
    }
    let _ = events.send(PortEvent::DcbxMisconfiguration { port: name.to_string(), view: view() });
}

/// Every event of an LLDP step of port `name`: `stats` and `view` give the remote table's
/// counters and the port's LLDP view when an event needs them.
pub fn step(
    name: &str,
    step: &super::lldp_view::Step,
    stats: impl Fn() -> RemoteStatistics,
    view: impl Fn() -> Arc<LldpView>,
    events: &Sender<PortEvent>,
) {
    for event in &step.agent_events {
        agent_event(name, event, stats(), events);
    }
    for event in &step.dcbx_events {
        dcbx_event(name, event, &view, events);
    }
}
