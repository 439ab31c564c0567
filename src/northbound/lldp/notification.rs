//! LLDP's notifications: ieee802-dot1q-lldp-pfc-tlv's `pfc-dcbx-misconfiguration` and
//! ieee802-dot1ab-lldp's `remote-table-change`, from the port's events.

use lldp::agent::RemoteStatistics;
use netconf_proto::xml::Element;

use super::nearest_bridge;
use super::state::{counter32, misconfiguration_name, remote_totals};
use crate::northbound::namespaces::{LLDP_NS, PFCD_LLDP_NS, PFC_TLV_NS};
use crate::northbound::xml::{leaf, pfc_enable_bits};
use crate::ports::set::PortSet;
use crate::ports::LldpView;

/// `pfc-dcbx-misconfiguration`: DCBX found PFC misconfigured on port `port`, or no longer does.
pub fn pfc_dcbx_misconfiguration(port: &str, view: &LldpView) -> Element {
    let ns = PFC_TLV_NS;
    let pfc = &view.ours.state().pfc;
    let mut e = Element::new(ns, "pfc-dcbx-misconfiguration")
        .with(leaf(ns, "name", port))
        .with(leaf(ns, "dest-mac-address", nearest_bridge()))
        .with(leaf(ns, "misconfigured", pfc.misconfiguration.is_some()));
    if let Some(m) = pfc.misconfiguration {
        e.push(leaf(ns, "misconfiguration", misconfiguration_name(m)));
        e.push(leaf(PFCD_LLDP_NS, "misconfiguration-description", m.to_string()));
    }
    e.push(leaf(ns, "local-pfc-enable", pfc_enable_bits(view.ours.admin().pfc.pfc_enable)));
    if let Some(peer) = view.ours.state().peer.dcbx().and_then(|d| d.pfc.as_ref()) {
        e.push(leaf(ns, "peer-pfc-enable", pfc_enable_bits(peer.pfc_enable)));
    }
    e.push(leaf(ns, "oper-pfc-enable", pfc_enable_bits(pfc.pfc_enable)));
    e
}

/// `remote-table-change` with the remote table's counters over the whole system, `stats`
/// being what they are now.
pub fn remote_table_change(stats: &RemoteStatistics) -> Element {
    let ns = LLDP_NS;
    Element::new(ns, "remote-table-change")
        .with(leaf(ns, "remote-insert", counter32(stats.remote_inserts)))
        .with(leaf(ns, "remote-delete", counter32(stats.remote_deletes)))
        .with(leaf(ns, "remote-drops", counter32(stats.remote_drops)))
        .with(leaf(ns, "remote-ageouts", counter32(stats.remote_ageouts)))
}

/// The remote table's counters over every port of `set`: `own` for `port` (its counters after
/// the change the event reports), the latest snapshot's for the others. The notification's
/// leaves count over the whole system.
pub fn system_totals(set: &dyn PortSet, port: &str, own: RemoteStatistics) -> RemoteStatistics {
    let others = set.ports().iter().filter(|p| p.name != port);
    let others = others.map(|p| p.snapshot().lldp.ours.agent().statistics().remote);
    remote_totals(std::iter::once(own).chain(others))
}
