//! LLDP's configuration: each port's `/lldp/port` entry (nearest bridge) into the agent's
//! settings and DCBX's, in the port's [`PortIntent`]; the entries pfcd cannot run; the first
//! start's entries.

use lldp::agent::{AdminStatus, AgentConfig};
use mgmt::backend::BackendError;
use netconf_proto::xml::Element;
use pfc_yang_names::{
    ieee802_dot1ab_lldp as dot1ab, ieee802_dot1q_lldp_dcbx_tlv as dcbx,
    ieee802_dot1q_lldp_pfc_tlv as tlv, pfcd_lldp as pfcd,
};

use super::ets_app::{app_admin, ets_admin, Refuse};
use super::nearest_bridge;
use crate::northbound::namespaces::{DCBX_NS, LLDP_NS, PFCD_LLDP_NS, PFC_TLV_NS};
use crate::northbound::xml::{child_text, child_u64};
use crate::ports::{DcbxIntent, PortIntent};

/// The path of a port's LLDP entry (for rpc-error paths).
fn port_path(name: &str, leaf: &str) -> String {
    format!(
        "/ieee802-dot1ab-lldp:lldp/port[name='{name}'][dest-mac-address='{}']{}{leaf}",
        nearest_bridge(),
        if leaf.is_empty() { "" } else { "/" }
    )
}

/// The LLDP entries pfcd cannot run, each with its refusal: a port it does not have, another
/// destination address.
pub fn check_entries(root: &Element, ports: &[&str]) -> Vec<BackendError> {
    let Some(lldp) = root.child(LLDP_NS, dot1ab::LLDP) else { return Vec::new() };
    let mut refused = Vec::new();
    for entry in lldp.elements().filter(|e| e.is(LLDP_NS, dot1ab::PORT)) {
        let name = child_text(entry, LLDP_NS, tlv::NAME).unwrap_or_default();
        let dest = child_text(entry, LLDP_NS, tlv::DEST_MAC_ADDRESS).unwrap_or_default();
        let path =
            format!("/ieee802-dot1ab-lldp:lldp/port[name='{name}'][dest-mac-address='{dest}']");
        if !ports.contains(&name.as_str()) {
            refused.push(
                BackendError::new(format!(
                    "pfcd has no port '{name}' to run LLDP on: use one of {}.",
                    ports.join(", ")
                ))
                .at(path),
            );
        } else if !dest.eq_ignore_ascii_case(&nearest_bridge()) {
            refused.push(
                BackendError::new(format!(
                    "pfcd runs LLDP to the nearest bridge address only ({}), where DCBX runs; \
                 dest-mac-address {dest} is not supported: use {}.",
                    nearest_bridge(),
                    nearest_bridge()
                ))
                .at(path),
            );
        }
    }
    refused
}

/// Fills `intent`'s LLDP and DCBX settings from `root` (running-to-be) for port `name`.
pub fn fill_intent(
    root: &Element,
    name: &str,
    intent: &mut PortIntent,
) -> Result<(), BackendError> {
    let Some(lldp) = root.child(LLDP_NS, dot1ab::LLDP) else { return Ok(()) };
    let entry = lldp.elements().filter(|e| e.is(LLDP_NS, dot1ab::PORT)).find(|e| {
        child_text(e, LLDP_NS, tlv::NAME).as_deref() == Some(name)
            && child_text(e, LLDP_NS, tlv::DEST_MAC_ADDRESS)
                .is_some_and(|d| d.eq_ignore_ascii_case(&nearest_bridge()))
    });
    let Some(entry) = entry else { return Ok(()) };
    intent.lldp = Some(agent_config(lldp, entry, name)?);
    intent.dcbx = dcbx_intent(entry);
    let path_of = |leaf: &str| port_path(name, leaf);
    let refuse = Refuse { path_of: &path_of };
    intent.dcbx.ets = ets_admin(entry, &refuse)?;
    let willing = intent.dcbx.ets.as_ref().is_some_and(|e| e.config.willing);
    intent.dcbx.app = app_admin(entry, willing, &refuse)?;
    Ok(())
}

/// The agent's settings: the port's leaf, else `/lldp`'s, else the default.
fn agent_config(lldp: &Element, entry: &Element, name: &str) -> Result<AgentConfig, BackendError> {
    let mut config = AgentConfig::default();
    let number = |leaf: &'static str| -> Result<Option<u64>, BackendError> {
        let own = child_u64(entry, LLDP_NS, leaf);
        let global = child_u64(lldp, LLDP_NS, leaf);
        let bad = |t: String| {
            BackendError::new(format!("'{t}' is not a number of seconds or LLDPDUs."))
                .at(port_path(name, leaf))
        };
        Ok(own.map_err(bad)?.or(global.map_err(bad)?))
    };
    let small = |v: u64| u16::try_from(v).unwrap_or(u16::MAX);
    if let Some(v) = number(dot1ab::MESSAGE_TX_INTERVAL)? {
        config.message_tx_interval = small(v);
    }
    if let Some(v) = number(dot1ab::MESSAGE_TX_HOLD_MULTIPLIER)? {
        config.message_tx_hold_multiplier = small(v);
    }
    if let Some(v) = number(dot1ab::MESSAGE_FAST_TX)? {
        config.message_fast_tx = small(v);
    }
    if let Some(v) = number(dot1ab::REINIT_DELAY)? {
        config.reinit_delay = small(v);
    }
    if let Some(v) = number(dot1ab::TX_CREDIT_MAX)? {
        config.tx_credit_max = u8::try_from(v).unwrap_or(u8::MAX);
    }
    if let Some(v) = number(dot1ab::TX_FAST_INIT)? {
        config.tx_fast_init = u8::try_from(v).unwrap_or(u8::MAX);
    }
    if let Some(s) = child_text(entry, LLDP_NS, dot1ab::ADMIN_STATUS) {
        config.admin_status = s
            .parse::<AdminStatus>()
            .map_err(|e| BackendError::new(e).at(port_path(name, dot1ab::ADMIN_STATUS)))?;
    }
    config.validate().map_err(|e| {
        BackendError::new(format!("{e}: set it within the range.")).at(port_path(name, e.name))
    })?;
    Ok(config)
}

/// The PFC TLV settings. The PFC Enable the TLV advertises is the Bridge Port's pfc-enable, the
/// one administrative PFC Enable (the TLV's own `enable` is deviated not-supported).
fn dcbx_intent(entry: &Element) -> DcbxIntent {
    let mut d = DcbxIntent::default();
    let flag = |e: &Element, ns: &str, leaf: &str| child_text(e, ns, leaf).map(|t| t == "true");
    if let Some(tlv) = entry.child(DCBX_NS, dcbx::PFC_TLV_EXTENSION) {
        d.willing = flag(tlv, DCBX_NS, dcbx::WILLING).unwrap_or(false);
        d.mbc = flag(tlv, DCBX_NS, dcbx::MACSEC_BYPASS_CAPABLE).unwrap_or(false);
        if let Ok(Some(n)) = child_u64(tlv, DCBX_NS, dcbx::NUMBER_TC_CAPABLE) {
            d.pfc_cap = u8::try_from(n).unwrap_or(8);
        }
        d.macsec_capable = flag(tlv, PFC_TLV_NS, tlv::MACSEC_CAPABLE).unwrap_or(false);
        d.privacy_capable = flag(tlv, PFC_TLV_NS, tlv::PRIVACY_CAPABLE).unwrap_or(false);
        d.rtm_hdrm = flag(tlv, PFC_TLV_NS, tlv::RTM_HDRM).unwrap_or(false);
        d.ptp_hdrm = flag(tlv, PFC_TLV_NS, tlv::PTP_HDRM).unwrap_or(false);
        d.legacy_tlv = flag(tlv, PFCD_LLDP_NS, pfcd::LEGACY_TLV).unwrap_or(false);
    }
    if let Some(ld) = entry.child(PFC_TLV_NS, tlv::PFC_LOCAL_DELAY_TLV_EXTENSION) {
        d.local_delay_tx = flag(ld, PFC_TLV_NS, tlv::TX_ENABLE).unwrap_or(true);
    }
    d
}

/// The lab's first-start LLDP configuration: an agent on every port, DCBX not willing (the
/// configured PFC Enable is offered to the peer), the measurement protocol supported.
pub fn initial_config(ports: &[&str]) -> String {
    let mut xml = format!("<lldp xmlns=\"{LLDP_NS}\">");
    for name in ports {
        xml.push_str(&format!(
            "<port><name>{name}</name><dest-mac-address>{}</dest-mac-address>\
             <pfc-tlv-extension xmlns=\"{DCBX_NS}\"><willing>false</willing>\
             <rtm-hdrm xmlns=\"{PFC_TLV_NS}\">true</rtm-hdrm></pfc-tlv-extension></port>",
            nearest_bridge()
        ));
    }
    xml.push_str("</lldp>");
    xml
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::lldp_view::dcbx_admin;

    #[test]
    fn every_pfc_tlv_leaf_reaches_the_agents_dcbx_settings() {
        let xml = format!(
            "<port xmlns=\"{LLDP_NS}\"><name>p1</name>\
             <pfc-tlv-extension xmlns=\"{DCBX_NS}\">\
             <macsec-capable xmlns=\"{PFC_TLV_NS}\">true</macsec-capable>\
             <privacy-capable xmlns=\"{PFC_TLV_NS}\">true</privacy-capable>\
             <rtm-hdrm xmlns=\"{PFC_TLV_NS}\">true</rtm-hdrm>\
             <ptp-hdrm xmlns=\"{PFC_TLV_NS}\">true</ptp-hdrm>\
             <legacy-tlv xmlns=\"{PFCD_LLDP_NS}\">true</legacy-tlv></pfc-tlv-extension>\
             <pfc-local-delay-tlv-extension xmlns=\"{PFC_TLV_NS}\"><tx-enable>false</tx-enable>\
             </pfc-local-delay-tlv-extension></port>"
        );
        let entry = netconf_proto::xml::parse(xml.as_bytes()).expect("XML");
        let intent = PortIntent { dcbx: dcbx_intent(&entry), ..PortIntent::default() };
        let admin = dcbx_admin(&intent, lldp::wire::TimeInterval::from_nanos(1_000));
        let p = admin.pfc;
        assert!(p.macsec_capable && p.privacy_capable && p.rtm_hdrm && p.ptp_hdrm && p.legacy_tlv);
        assert_eq!(admin.local_delay, None, "tx-enable false sends no Local Delay TLV");
        // The defaults send none of the bits, and the Local Delay TLV.
        let default =
            dcbx_admin(&PortIntent::default(), lldp::wire::TimeInterval::from_nanos(1_000));
        assert!(!default.pfc.macsec_capable && !default.pfc.legacy_tlv);
        assert!(default.local_delay.is_some());
    }

    /// `/lldp` with one port entry for `p1` holding `inner` (the DCBX TLV module's prefix is
    /// `t`, ieee802-dot1q-types' `dot1q-types`).
    fn lldp_root(inner: &str) -> Element {
        let xml = format!(
            "<data><lldp xmlns=\"{LLDP_NS}\"><port><name>p1</name>\
             <dest-mac-address>{}</dest-mac-address>{inner}</port></lldp></data>",
            nearest_bridge()
        )
        .replacen(
            "<port>",
            &format!("<port xmlns:t=\"{DCBX_NS}\" xmlns:dot1q-types=\"{TYPES}\">"),
            1,
        );
        netconf_proto::xml::parse(xml.as_bytes()).expect("XML")
    }

    const TYPES: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-types";

    fn intent_of(inner: &str) -> Result<PortIntent, BackendError> {
        let mut intent = PortIntent::default();
        fill_intent(&lldp_root(inner), "p1", &mut intent).map(|()| intent)
    }

    /// RoCE's usual set-up: priority 3 alone in traffic class 1 with 50%, the rest in class 0.
    const ETS_AND_APP: &str = "<t:ets-configuration-tlv-extension><t:willing>false</t:willing>\
        <t:priority-assignment-table><t:priority>3</t:priority>\
        <t:priority-traffic-class>1</t:priority-traffic-class></t:priority-assignment-table>\
        <t:tc-bandwidth-table><t:traffic-class>0</t:traffic-class>\
        <t:percentage-bandwidth>50</t:percentage-bandwidth></t:tc-bandwidth-table>\
        <t:tc-bandwidth-table><t:traffic-class>1</t:traffic-class>\
        <t:percentage-bandwidth>50</t:percentage-bandwidth></t:tc-bandwidth-table>\
        <t:tsa-assignment-table><t:tsa-traffic-class>2</t:tsa-traffic-class>\
        <t:transmission-selection-algorithm>dot1q-types:strict-priority\
        </t:transmission-selection-algorithm></t:tsa-assignment-table>\
        </t:ets-configuration-tlv-extension>\
        <t:ets-recommendation-tlv-extension><t:priority-assignment-table>\
        <t:priority>3</t:priority><t:priority-traffic-class>1</t:priority-traffic-class>\
        </t:priority-assignment-table></t:ets-recommendation-tlv-extension>\
        <t:application-priority-tlv-extension><t:application-priority-table>\
        <t:application-priority>3</t:application-priority>\
        <t:application-priority-selector>t:pri-udp-dccp</t:application-priority-selector>\
        <t:application-priority-protocol>4791</t:application-priority-protocol>\
        </t:application-priority-table></t:application-priority-tlv-extension>";

    #[test]
    fn ets_configuration_recommendation_and_app_entries_are_sent_in_their_tlvs() {
        use lldp::wire::{AppEntry, AppSelector, Tlv, Tsa};
        let intent = intent_of(ETS_AND_APP).expect("taken");
        let tlvs = dcbx_admin(&intent, lldp::wire::TimeInterval::from_nanos(1_000)).tlvs();
        let config = tlvs.iter().find_map(|t| match t {
            Tlv::EtsConfig(c) => Some(*c),
            _ => None,
        });
        let config = config.expect("an ETS Configuration TLV");
        assert!(!config.willing);
        assert_eq!(config.tables.priority_tc, [0, 0, 0, 1, 0, 0, 0, 0]);
        assert_eq!(config.tables.tc_bandwidth, [50, 50, 0, 0, 0, 0, 0, 0]);
        assert_eq!(config.tables.tsa[..3], [Tsa::ETS, Tsa::ETS, Tsa::STRICT]);
        let reco = tlvs.iter().find_map(|t| match t {
            Tlv::EtsRecommendation(r) => Some(r.tables),
            _ => None,
        });
        assert_eq!(reco.expect("an ETS Recommendation TLV").priority_tc, [0, 0, 0, 1, 0, 0, 0, 0]);
        let app = tlvs.iter().find_map(|t| match t {
            Tlv::AppPriority(a) => Some(a.entries.clone()),
            _ => None,
        });
        let roce = AppEntry { priority: 3, selector: AppSelector::UDP_DCCP_PORT, protocol: 4791 };
        assert_eq!(app.expect("an Application Priority TLV"), [roce]);
        // Without the containers, neither is sent.
        let none = dcbx_admin(&intent_of("").expect("taken"), Default::default()).tlvs();
        assert!(!none.iter().any(|t| matches!(
            t,
            Tlv::EtsConfig(_) | Tlv::EtsRecommendation(_) | Tlv::AppPriority(_)
        )));
    }

    fn refusal(inner: &str) -> BackendError {
        intent_of(inner).expect_err("refused")
    }

    #[test]
    fn a_bandwidth_table_not_adding_up_to_100_is_refused_at_the_table_saying_so() {
        let bad = ETS_AND_APP.replacen(">50<", ">60<", 1);
        let e = refusal(&bad);
        let expected = format!(
            "/ieee802-dot1ab-lldp:lldp/port[name='p1'][dest-mac-address='{}']\
             /ieee802-dot1q-lldp-dcbx-tlv:ets-configuration-tlv-extension/tc-bandwidth-table",
            nearest_bridge()
        );
        assert_eq!(e.path.as_deref(), Some(expected.as_str()));
        assert!(e.message.contains("add up to 110%, not 100%"), "{}", e.message);
        assert!(e.message.contains("traffic class 0: 60%, traffic class 1: 50%"), "{}", e.message);
        assert!(e.message.contains("so that they add up to 100"), "{}", e.message);
    }

    #[test]
    fn a_tsa_a_nic_cannot_run_is_refused_at_its_leaf_naming_the_ones_it_can() {
        let bad = ETS_AND_APP.replace("strict-priority", "asynchronous-traffic-shaping");
        let e = refusal(&bad);
        let path = e.path.unwrap_or_default();
        assert!(
            path.ends_with(
                "ets-configuration-tlv-extension/tsa-assignment-table[tsa-traffic-class='2']\
                 /transmission-selection-algorithm"
            ),
            "{path}"
        );
        assert!(e.message.contains("'asynchronous-traffic-shaping'"), "{}", e.message);
        assert!(
            e.message.contains("use one of strict-priority, credit-based-shaper"),
            "{}",
            e.message
        );
    }

    #[test]
    fn one_application_at_two_priorities_is_refused_at_the_second_entry() {
        let second = "<t:application-priority-table>\
            <t:application-priority>5</t:application-priority>\
            <t:application-priority-selector>t:pri-udp-dccp</t:application-priority-selector>\
            <t:application-priority-protocol>4791</t:application-priority-protocol>\
            </t:application-priority-table></t:application-priority-tlv-extension>";
        let bad = ETS_AND_APP.replace("</t:application-priority-tlv-extension>", second);
        let e = refusal(&bad);
        let path = e.path.unwrap_or_default();
        assert!(
            path.ends_with(
                "application-priority-table[application-priority='5']\
                 /application-priority-protocol"
            ),
            "{path}"
        );
        assert!(
            e.message.contains("pri-udp-dccp 4791 is given priority 3 and priority 5"),
            "{}",
            e.message
        );
        assert!(e.message.contains("delete one of the two entries"), "{}", e.message);
    }
}
