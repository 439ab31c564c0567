//! LLDP's notifications: ieee802-dot1q-lldp-pfc-tlv's `pfc-dcbx-misconfiguration` and
//! ieee802-dot1ab-lldp's `remote-table-change`, from the port's events.

use lldp::agent::RemoteStatistics;
use netconf_proto::xml::Element;
use pfc_yang_names::{
    ieee802_dot1ab_lldp as dot1ab, ieee802_dot1q_lldp_pfc_tlv as tlv, pfcd_lldp as pfcd,
};

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
    let mut e = Element::new(ns, tlv::PFC_DCBX_MISCONFIGURATION)
        .with(leaf(ns, tlv::NAME, port))
        .with(leaf(ns, tlv::DEST_MAC_ADDRESS, nearest_bridge()))
        .with(leaf(ns, tlv::MISCONFIGURED, pfc.misconfiguration.is_some()));
    if let Some(m) = pfc.misconfiguration {
        e.push(leaf(ns, tlv::MISCONFIGURATION, misconfiguration_name(m)));
        e.push(leaf(PFCD_LLDP_NS, pfcd::MISCONFIGURATION_DESCRIPTION, m.to_string()));
    }
    e.push(leaf(ns, tlv::LOCAL_PFC_ENABLE, pfc_enable_bits(view.ours.admin().pfc.pfc_enable)));
    if let Some(peer) = view.ours.state().peer.dcbx().and_then(|d| d.pfc.as_ref()) {
        e.push(leaf(ns, tlv::PEER_PFC_ENABLE, pfc_enable_bits(peer.pfc_enable)));
    }
    e.push(leaf(ns, tlv::OPER_PFC_ENABLE, pfc_enable_bits(pfc.pfc_enable)));
    e
}

/// `remote-table-change` with the remote table's counters over the whole system, `stats`
/// being what they are now.
pub fn remote_table_change(stats: &RemoteStatistics) -> Element {
    let ns = LLDP_NS;
    Element::new(ns, dot1ab::REMOTE_TABLE_CHANGE)
        .with(leaf(ns, dot1ab::REMOTE_INSERT, counter32(stats.remote_inserts)))
        .with(leaf(ns, dot1ab::REMOTE_DELETE, counter32(stats.remote_deletes)))
        .with(leaf(ns, dot1ab::REMOTE_DROPS, counter32(stats.remote_drops)))
        .with(leaf(ns, dot1ab::REMOTE_AGEOUTS, counter32(stats.remote_ageouts)))
}

/// The remote table's counters over every port of `set`: `own` for `port` (its counters after
/// the change the event reports), the latest snapshot's for the others. The notification's
/// leaves count over the whole system.
pub fn system_totals(set: &dyn PortSet, port: &str, own: RemoteStatistics) -> RemoteStatistics {
    let others = set.ports().iter().filter(|p| p.name != port);
    let others = others.map(|p| p.snapshot().lldp.ours.agent().statistics().remote);
    remote_totals(std::iter::once(own).chain(others))
}
