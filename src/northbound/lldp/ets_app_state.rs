//! A neighbour's ETS Configuration, ETS Recommendation and Application Priority TLVs as
//! ieee802-dot1q-lldp-dcbx-tlv's containers in its `remote-systems-data`. What the model cannot
//! hold (a traffic class above 7, e.g. 15 for "unassigned"; a bandwidth above 100; a TSA or
//! selector it has no identity for) is left out of its table rather than served invalid.

use lldp::wire::{AppPriority, EtsTables, Lldpdu};
use netconf_proto::xml::Element;
use pfc_yang_names::ieee802_dot1q_lldp_dcbx_tlv as dcbx;

use super::ets_app::{selector_identity, tsa_identity};
use crate::northbound::namespaces::DCBX_NS;
use crate::northbound::xml::leaf;

/// ieee802-dot1q-types' namespace, where the TSA identities are.
const TYPES_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-types";

/// The highest traffic class the model's `traffic-class-type` holds.
const MAX_TC: u8 = 7;

/// An identityref leaf with its prefix declared on the leaf itself, so that the value resolves
/// wherever the leaf is copied to.
fn identity_leaf(name: &str, prefix: &str, ns: &str, identity: &str) -> Element {
    let mut e = Element::leaf(DCBX_NS, name, format!("{prefix}:{identity}"));
    e.namespaces_mut().push((Some(prefix.into()), ns.into()));
    e
}

/// The peer's ETS and APP TLVs, where its LLDPDU has them.
pub fn push_peer_ets_app(e: &mut Element, pdu: &Lldpdu) {
    if let Some(c) = pdu.ets_config() {
        let tlv = Element::new(DCBX_NS, dcbx::ETS_CONFIGURATION_TLV_EXTENSION)
            .with(leaf(DCBX_NS, dcbx::WILLING, c.willing))
            .with(leaf(DCBX_NS, dcbx::CREDIT_BASED_SHAPER, c.cbs))
            .with(leaf(DCBX_NS, dcbx::TRAFFIC_CLASSES_SUPPORTED, c.traffic_classes()));
        e.push(with_tables(tlv, &c.tables));
    }
    if let Some(r) = pdu.ets_recommendation() {
        e.push(with_tables(
            Element::new(DCBX_NS, dcbx::ETS_RECOMMENDATION_TLV_EXTENSION),
            &r.tables,
        ));
    }
    if let Some(a) = pdu.app_priority() {
        e.push(app_table(a));
    }
}

/// The three tables of an ETS TLV.
fn with_tables(mut tlv: Element, t: &EtsTables) -> Element {
    let ns = DCBX_NS;
    for (p, tc) in t.priority_tc.iter().enumerate().filter(|(_, tc)| **tc <= MAX_TC) {
        tlv.push(
            Element::new(ns, dcbx::PRIORITY_ASSIGNMENT_TABLE)
                .with(leaf(ns, dcbx::PRIORITY, p))
                .with(leaf(ns, dcbx::PRIORITY_TRAFFIC_CLASS, tc)),
        );
    }
    for (tc, bw) in t.tc_bandwidth.iter().enumerate().filter(|(_, bw)| **bw <= 100) {
        tlv.push(
            Element::new(ns, dcbx::TC_BANDWIDTH_TABLE)
                .with(leaf(ns, dcbx::TRAFFIC_CLASS, tc))
                .with(leaf(ns, dcbx::PERCENTAGE_BANDWIDTH, bw)),
        );
    }
    for (tc, tsa) in t.tsa.iter().enumerate() {
        let Some(identity) = tsa_identity(*tsa) else { continue };
        tlv.push(
            Element::new(ns, dcbx::TSA_ASSIGNMENT_TABLE)
                .with(leaf(ns, dcbx::TSA_TRAFFIC_CLASS, tc))
                .with(identity_leaf(
                    dcbx::TRANSMISSION_SELECTION_ALGORITHM,
                    "dot1q-types",
                    TYPES_NS,
                    identity,
                )),
        );
    }
    tlv
}

/// The Application Priority table. The model keys it by priority: of several entries at one
/// priority, the first is served.
fn app_table(a: &AppPriority) -> Element {
    let ns = DCBX_NS;
    let mut tlv = Element::new(ns, dcbx::APPLICATION_PRIORITY_TLV_EXTENSION);
    let mut served = [false; 8];
    for entry in &a.entries {
        let Some(selector) = selector_identity(entry.selector) else { continue };
        let Some(seen) = served.get_mut(usize::from(entry.priority)) else { continue };
        if std::mem::replace(seen, true) {
            continue;
        }
        tlv.push(
            Element::new(ns, dcbx::APPLICATION_PRIORITY_TABLE)
                .with(leaf(ns, dcbx::APPLICATION_PRIORITY, entry.priority))
                .with(identity_leaf(
                    dcbx::APPLICATION_PRIORITY_SELECTOR,
                    "lldp-dcbx-tlv",
                    DCBX_NS,
                    selector,
                ))
                .with(leaf(ns, dcbx::APPLICATION_PRIORITY_PROTOCOL, entry.protocol)),
        );
    }
    tlv
}

#[cfg(test)]
mod tests {
    use super::*;
    use lldp::wire::{
        AppEntry, AppSelector, ChassisId, EtsConfig, EtsRecommendation, PortId, Tlv, Tsa,
    };

    #[test]
    fn a_peers_ets_and_app_tlvs_are_served_in_the_models_tables() {
        let mut tsa = [Tsa::STRICT; 8];
        tsa[..2].copy_from_slice(&[Tsa::ETS, Tsa::ETS]);
        tsa[7] = Tsa(4);
        let tables = EtsTables {
            priority_tc: [0, 0, 0, 1, 0, 0, 0, 15],
            tc_bandwidth: [50, 50, 0, 0, 0, 0, 0, 0],
            tsa,
        };
        let mut pdu = Lldpdu::new(
            ChassisId::MacAddress(Default::default()),
            PortId::InterfaceName("eth9".into()),
            120,
        );
        pdu.tlvs.push(Tlv::EtsConfig(EtsConfig { willing: true, cbs: false, max_tcs: 0, tables }));
        pdu.tlvs.push(Tlv::EtsRecommendation(EtsRecommendation { tables }));
        let roce = AppEntry { priority: 3, selector: AppSelector::UDP_DCCP_PORT, protocol: 4791 };
        let second = AppEntry { protocol: 4792, ..roce };
        pdu.tlvs.push(Tlv::AppPriority(AppPriority { entries: vec![roce, second] }));
        let mut e = Element::new(DCBX_NS, "remote-systems-data");
        push_peer_ets_app(&mut e, &pdu);
        let xml = e.to_xml();
        for shown in [
            "<willing>true</willing>",
            "<traffic-classes-supported>8</traffic-classes-supported>",
            "<priority-assignment-table><priority>3</priority>\
             <priority-traffic-class>1</priority-traffic-class></priority-assignment-table>",
            "<tc-bandwidth-table><traffic-class>1</traffic-class>\
             <percentage-bandwidth>50</percentage-bandwidth></tc-bandwidth-table>",
            ">dot1q-types:enhanced-transmission-selection</transmission-selection-algorithm>",
            "<ets-recommendation-tlv-extension><priority-assignment-table>",
            ">lldp-dcbx-tlv:pri-udp-dccp</application-priority-selector>\
             <application-priority-protocol>4791</application-priority-protocol>",
        ] {
            assert!(xml.contains(shown), "{shown} in {xml}");
        }
        // Traffic class 15 ("unassigned"), TSA 4, and a second entry at priority 3 have no
        // place in the model's tables.
        assert!(!xml.contains("<priority>7</priority>"), "{xml}");
        assert!(!xml.contains("<tsa-traffic-class>7</tsa-traffic-class>"), "{xml}");
        assert!(!xml.contains("4792"), "{xml}");
    }
}
