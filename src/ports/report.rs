//! What a port's LLDP agent and DCBX report, logged (in the words every program uses,
//! `pfc_logging::lldp`) and, where a notification is due, sent to the northbound side: the same
//! for a simulated port and a real one.

use std::sync::Arc;

use lldp::agent::{AgentEvent, RemoteStatistics};
use lldp::dcbx::DcbxEvent;
use lldp::neighbours::NeighbourEvent;

use super::event::PortEvent;
use super::event_channel::EventSender;
use super::lldp_view::LldpView;

/// An agent event of port `name`: a neighbour inserted, deleted or aged out is a remote
/// table change (with the table's counters `stats` after it); discards are logged.
pub fn agent_event(name: &str, event: &AgentEvent, stats: RemoteStatistics, events: &EventSender) {
    pfc_logging::lldp::agent_event(name, event);
    if let AgentEvent::Neighbour(
        NeighbourEvent::Inserted { .. }
        | NeighbourEvent::Deleted { .. }
        | NeighbourEvent::AgedOut { .. },
    ) = event
    {
        events.send(PortEvent::RemoteTableChange { port: name.to_string(), stats });
    }
}

/// A DCBX event of port `name`: a PFC misconfiguration raised or cleared is a notification
/// (with the port's LLDP view then); the rest is logged.
pub fn dcbx_event(
    name: &str,
    event: &DcbxEvent,
    view: impl FnOnce() -> Arc<LldpView>,
    events: &EventSender,
) {
    pfc_logging::lldp::dcbx_event(name, event);
    if matches!(event, DcbxEvent::MisconfigurationRaised(_) | DcbxEvent::MisconfigurationCleared) {
        let view = view();
        events.send(PortEvent::DcbxMisconfiguration { port: name.to_string(), view });
    }
}

/// Every event of an LLDP step of port `name`: `stats` and `view` give the remote table's
/// counters and the port's LLDP view when an event needs them.
pub fn step(
    name: &str,
    step: &super::lldp_view::Step,
    stats: impl Fn() -> RemoteStatistics,
    view: impl Fn() -> Arc<LldpView>,
    events: &EventSender,
) {
    for event in &step.agent_events {
        agent_event(name, event, stats(), events);
    }
    for event in &step.dcbx_events {
        dcbx_event(name, event, &view, events);
    }
}
