//! The ports' events as ieee802-dot1q-pfc-bridge notifications: `headroom-allowance-changed`
//! and `receive-buffer-drop`, published through mgmt's notifier by one thread that ends when
//! the ports stop.

use std::sync::mpsc::Receiver;

use dataplane::headroom::allowance::Allowance;
use mgmt::notify::Notifier;
use mgmt::xml::Element;
use tracing::warn;

use super::pfc::{clamp_name, source_identity};
use super::xml::leaf;
use super::{PFC_BRIDGE_NS, PFC_NS};
use crate::ports::PortEvent;

/// Forwards `events` until every port has stopped.
pub fn forward(events: Receiver<PortEvent>, notifier: Notifier) {
    let spawned = std::thread::Builder::new().name("notifications".into()).spawn(move || {
        for event in events {
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
    let ns = PFC_BRIDGE_NS;
    let source = |a: &Allowance| format!("pfc:{}", source_identity(a.source).0);
    let mut e = match event {
        PortEvent::AllowanceChanged { port, old, new } => {
            let mut e = Element::new(ns, "headroom-allowance-changed")
                .with(leaf(ns, "interface", port))
                .with(leaf(ns, "old-allowance", old.bits))
                .with(leaf(ns, "old-source", source(old)))
                .with(leaf(ns, "new-allowance", new.bits))
                .with(leaf(ns, "new-source", source(new)));
            if let Some(clamp) = source_identity(new.source).1 {
                e.push(leaf(ns, "clamp", clamp_name(clamp)));
            }
            e
        }
        PortEvent::LosslessDrop { port, priority, frames_dropped, allowance } => {
            Element::new(ns, "receive-buffer-drop")
                .with(leaf(ns, "interface", port))
                .with(leaf(ns, "priority", priority))
                .with(leaf(ns, "frames-dropped", frames_dropped))
                .with(leaf(ns, "allowance-in-force", allowance.bits))
                .with(leaf(ns, "allowance-source", source(allowance)))
        }
    };
    e.namespaces_mut().push((Some("pfc".into()), PFC_NS.into()));
    e
}
