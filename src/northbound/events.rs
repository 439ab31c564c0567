//! The ports' events as notifications, published through mgmt's notifier by one thread that
//! ends when the ports stop. Each event goes to its family's `notification.rs`.

use std::sync::Arc;

use mgmt::notify::Notifier;
use netconf_proto::xml::Element;
use tracing::warn;

use super::lldp::notification::{pfc_dcbx_misconfiguration, remote_table_change, system_totals};
use super::pfc::notification::{allowance_changed, allowance_clamped, receive_buffer_drop};
use super::watchdog::notification::{storm_detected, storm_restored};
use crate::ports::set::PortSet;
use crate::ports::{EventReceiver, PortEvent};

/// What the log says when the ports' events came faster than they were published and the
/// channel was full (the counts are since start).
const DROPPED: &str = "port events dropped: more came than could be published";

/// Forwards `events` until every port has stopped; `ports` gives the other ports' counters for
/// `remote-table-change`, whose leaves count over the whole system.
pub fn forward(events: EventReceiver, notifier: Notifier, ports: Arc<dyn PortSet>) {
    let spawned = std::thread::Builder::new().name("notifications".into()).spawn(move || {
        let mut dropped = 0;
        while let Some(mut event) = events.recv() {
            if let PortEvent::RemoteTableChange { port, stats } = &mut event {
                *stats = system_totals(ports.as_ref(), port, *stats);
            }
            if !notifier.publish(notification(&event)) {
                warn!(?event, "a notification did not validate against the schema: not sent");
            }
            let counts = events.counts();
            if counts.dropped > dropped
                && pfc_logging::limit::admit("every port", DROPPED, tracing::Level::WARN)
            {
                warn!(dropped = counts.dropped, coalesced = counts.coalesced, "{DROPPED}");
            }
            dropped = counts.dropped;
        }
    });
    if let Err(e) = spawned {
        warn!(error = %e, "no notifications: cannot start their thread");
    }
}

/// The notification for `event`.
pub fn notification(event: &PortEvent) -> Element {
    match event {
        PortEvent::AllowanceChanged { port, old, new } => allowance_changed(port, old, new),
        PortEvent::AllowanceClamped { port, reason, selected, allowance, limit_bits } => {
            allowance_clamped(port, *reason, *selected, allowance, *limit_bits)
        }
        PortEvent::LosslessDrop { port, priority, frames_dropped, allowance } => {
            receive_buffer_drop(port, *priority, *frames_dropped, allowance)
        }
        PortEvent::DcbxMisconfiguration { port, view } => pfc_dcbx_misconfiguration(port, view),
        PortEvent::RemoteTableChange { stats, .. } => remote_table_change(stats),
        PortEvent::StormDetected { port, class, action, at } => {
            storm_detected(port, *class, *action, *at)
        }
        PortEvent::StormRestored { port, class, began, at } => {
            storm_restored(port, *class, *began, *at)
        }
    }
}
