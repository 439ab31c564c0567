//! The ports' events as notifications, published through mgmt's notifier by one thread that
//! ends when the ports stop. Each event goes to its family's `notification.rs`.

use std::sync::mpsc::Receiver;
use std::sync::Arc;

use mgmt::notify::Notifier;
use netconf_proto::xml::Element;
use tracing::warn;

use super::lldp::notification::{pfc_dcbx_misconfiguration, remote_table_change, system_totals};
use super::pfc::notification::{allowance_changed, allowance_clamped, receive_buffer_drop};
use crate::ports::set::PortSet;
use crate::ports::PortEvent;

/// Forwards `events` until every port has stopped; `ports` gives the other ports' counters for
/// `remote-table-change`, whose leaves count over the whole system.
pub fn forward(events: Receiver<PortEvent>, notifier: Notifier, ports: Arc<dyn PortSet>) {
    let spawned = std::thread::Builder::new().name("notifications".into()).spawn(move || {
        for mut event in events {
            if let PortEvent::RemoteTableChange { port, stats } = &mut event {
                *stats = system_totals(ports.as_ref(), port, *stats);
            }
            if !notifier.publish(notification(&event)) {
                warn!(?event, "a notification did not validate against the schema: not sent");
            }
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
    }
}
