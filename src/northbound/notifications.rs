//! The ports' events as notifications: ieee802-dot1q-pfc-bridge's `headroom-allowance-changed`
//! and `receive-buffer-drop`, ieee802-dot1q-lldp-pfc-tlv's `pfc-dcbx-misconfiguration` and
//! ieee802-dot1ab-lldp's `remote-table-change`, published through mgmt's notifier by one thread
//! that ends when the ports stop.

use std::sync::mpsc::Receiver;
use std::sync::Arc;

use dataplane::headroom::allowance::Allowance;
use mgmt::notify::Notifier;
use netconf_proto::xml::Element;
use tracing::warn;

use super::lldp::{counter32, misconfiguration_name, remote_totals, LLDP_NS, PFC_TLV_NS};
use super::pfc::{clamp_name, source_identity};
use super::xml::{leaf, pfc_enable_bits, pfc_identity_leaf};
use super::{PFC_BRIDGE_NS, PFC_NS};
use crate::ports::set::PortSet;
use crate::ports::PortEvent;
use lldp::agent::RemoteStatistics;

/// Forwards `events` until every port has stopped; `lab` gives the other ports' counters for
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

/// The remote table's counters over every port: `own` for `port`, the latest snapshot's for the
/// others.
fn system_totals(set: &dyn PortSet, port: &str, own: RemoteStatistics) -> RemoteStatistics {
    let others = set.ports().iter().filter(|p| p.name != port);
    let others = others.map(|p| p.snapshot().lldp.ours.agent().statistics().remote);
    remote_totals(std::iter::once(own).chain(others))
}

/// The notification for `event`.
pub fn notification(event: &PortEvent) -> Element {
    let ns = PFC_BRIDGE_NS;
    let source =
        |name: &str, a: &Allowance| pfc_identity_leaf(ns, name, source_identity(a.source).0);
    let mut e = match event {
        PortEvent::AllowanceChanged { port, old, new } => {
            let mut e = Element::new(ns, "headroom-allowance-changed")
                .with(leaf(ns, "interface", port))
                .with(leaf(ns, "old-allowance", old.bits))
                .with(source("old-source", old))
                .with(leaf(ns, "new-allowance", new.bits))
                .with(source("new-source", new));
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
                .with(source("allowance-source", allowance))
        }
        PortEvent::DcbxMisconfiguration { port, view } => {
            let ns = PFC_TLV_NS;
            let pfc = &view.ours.state().pfc;
            let mut e = Element::new(ns, "pfc-dcbx-misconfiguration")
                .with(leaf(ns, "name", port))
                .with(leaf(
                    ns,
                    "dest-mac-address",
                    lldp::wire::NEAREST_BRIDGE.to_string().to_uppercase(),
                ))
                .with(leaf(ns, "misconfigured", pfc.misconfiguration.is_some()));
            if let Some(m) = pfc.misconfiguration {
                e.push(leaf(ns, "misconfiguration", misconfiguration_name(m)));
                e.push(leaf(ns, "misconfiguration-description", m.to_string()));
            }
            e.push(leaf(ns, "local-pfc-enable", pfc_enable_bits(view.ours.admin().pfc.pfc_enable)));
            if let Some(peer) = view.ours.state().peer.dcbx().and_then(|d| d.pfc.as_ref()) {
                e.push(leaf(ns, "peer-pfc-enable", pfc_enable_bits(peer.pfc_enable)));
            }
            e.push(leaf(ns, "oper-pfc-enable", pfc_enable_bits(pfc.pfc_enable)));
            return e;
        }
        PortEvent::RemoteTableChange { stats, .. } => {
            let ns = LLDP_NS;
            return Element::new(ns, "remote-table-change")
                .with(leaf(ns, "remote-insert", counter32(stats.remote_inserts)))
                .with(leaf(ns, "remote-delete", counter32(stats.remote_deletes)))
                .with(leaf(ns, "remote-drops", counter32(stats.remote_drops)))
                .with(leaf(ns, "remote-ageouts", counter32(stats.remote_ageouts)));
        }
    };
    e.namespaces_mut().push((Some("pfc".into()), PFC_NS.into()));
    e
}
