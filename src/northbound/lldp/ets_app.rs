//! A port's ETS and Application Priority settings from ieee802-dot1q-lldp-dcbx-tlv's
//! `ets-configuration-tlv-extension`, `ets-recommendation-tlv-extension` and
//! `application-priority-tlv-extension` on its `/lldp/port` entry: what DCBX sends and
//! negotiates, and, on a NIC port, what is put on the NIC. Each refusal names the leaf and
//! what to set instead.

use lldp::dcbx::{AppAdmin, EtsAdmin};
use lldp::wire::{AppEntry, AppSelector, EtsTables, Tsa};
use mgmt::backend::BackendError;
use netconf_proto::xml::Element;
use pfc_yang_names::ieee802_dot1q_lldp_dcbx_tlv as dcbx;

use crate::northbound::namespaces::DCBX_NS;
use crate::northbound::xml::{child_text, child_u64, identity_name};

/// The module's prefix in the paths of refusals.
const PREFIX: &str = "ieee802-dot1q-lldp-dcbx-tlv";

/// The TSAs a NIC's DCB takes (`IEEE_8021QAZ_TSA_*`), by their ieee802-dot1q-types identity.
const TSAS: [(&str, Tsa); 4] = [
    ("strict-priority", Tsa::STRICT),
    ("credit-based-shaper", Tsa::CREDIT_BASED_SHAPER),
    ("enhanced-transmission-selection", Tsa::ETS),
    ("vendor-specific", Tsa::VENDOR),
];

/// The application selectors by their identity (D.2.11.3; `default` is the EtherType).
const SELECTORS: [(&str, AppSelector); 5] = [
    ("default", AppSelector::ETHERTYPE),
    ("pri-tcp-sctp", AppSelector::TCP_SCTP_PORT),
    ("pri-udp-dccp", AppSelector::UDP_DCCP_PORT),
    ("pri-tcp-sctp-udp-dccp", AppSelector::TCP_SCTP_UDP_DCCP_PORT),
    ("pri-dscp", AppSelector::DSCP),
];

/// The TSA identity's name for `tsa`, for the state.
pub fn tsa_identity(tsa: Tsa) -> Option<&'static str> {
    TSAS.iter().find(|(_, t)| *t == tsa).map(|(name, _)| *name)
}

/// The selector identity's name for `selector`, for the state.
pub fn selector_identity(selector: AppSelector) -> Option<&'static str> {
    SELECTORS.iter().find(|(_, s)| *s == selector).map(|(name, _)| *name)
}

/// Where a refusal points: `path_of(leaf)` is the full path of a leaf below the port's entry.
pub struct Refuse<'a> {
    pub path_of: &'a dyn Fn(&str) -> String,
}

impl Refuse<'_> {
    fn at(&self, below: &str, message: String) -> BackendError {
        BackendError::new(message).at((self.path_of)(&format!("{PREFIX}:{below}")))
    }
}

/// ETS as configured on the port entry: `None` when neither ETS container is there (no ETS TLV
/// is sent and the NIC's ETS is left as it is).
pub fn ets_admin(entry: &Element, refuse: &Refuse<'_>) -> Result<Option<EtsAdmin>, BackendError> {
    let config = entry.child(DCBX_NS, dcbx::ETS_CONFIGURATION_TLV_EXTENSION);
    let reco = entry.child(DCBX_NS, dcbx::ETS_RECOMMENDATION_TLV_EXTENSION);
    if config.is_none() && reco.is_none() {
        return Ok(None);
    }
    let mut admin = EtsAdmin::default();
    if let Some(c) = config {
        let flag = |leaf| child_text(c, DCBX_NS, leaf).is_some_and(|t| t == "true");
        admin.config.willing = flag(dcbx::WILLING);
        admin.config.cbs = flag(dcbx::CREDIT_BASED_SHAPER);
        if let Ok(Some(n)) = child_u64(c, DCBX_NS, dcbx::TRAFFIC_CLASSES_SUPPORTED) {
            // 8 is sent as 0 (3 bits).
            admin.config.max_tcs = (n % 8) as u8;
        }
        admin.config.tables = tables(c, dcbx::ETS_CONFIGURATION_TLV_EXTENSION, refuse)?;
    }
    if let Some(r) = reco {
        admin.recommendation = Some(tables(r, dcbx::ETS_RECOMMENDATION_TLV_EXTENSION, refuse)?);
    }
    Ok(Some(admin))
}

/// The three tables of one ETS container, over the defaults (every priority in traffic class
/// 0, ETS everywhere, all the bandwidth to class 0 unless the bandwidth table is given).
fn tables(tlv: &Element, container: &str, refuse: &Refuse<'_>) -> Result<EtsTables, BackendError> {
    let mut t = EtsAdmin::default().config.tables;
    let number = |e: &Element, leaf: &str| -> Option<u8> {
        child_u64(e, DCBX_NS, leaf).ok().flatten().and_then(|n| u8::try_from(n).ok())
    };
    let list = |name: &'static str| tlv.elements().filter(move |e| e.is(DCBX_NS, name));
    for e in list(dcbx::PRIORITY_ASSIGNMENT_TABLE) {
        let (Some(p), Some(tc)) =
            (number(e, dcbx::PRIORITY), number(e, dcbx::PRIORITY_TRAFFIC_CLASS))
        else {
            continue;
        };
        // YANG bounds both to 0..7 before pfcd sees them; a value beyond is not indexed.
        if let Some(slot) = t.priority_tc.get_mut(usize::from(p)) {
            *slot = tc;
        }
    }
    let bandwidth: Vec<(u8, u8)> = list(dcbx::TC_BANDWIDTH_TABLE)
        .filter_map(|e| {
            Some((number(e, dcbx::TRAFFIC_CLASS)?, number(e, dcbx::PERCENTAGE_BANDWIDTH)?))
        })
        .collect();
    if !bandwidth.is_empty() {
        t.tc_bandwidth = [0; 8];
        for (tc, percent) in &bandwidth {
            if let Some(slot) = t.tc_bandwidth.get_mut(usize::from(*tc)) {
                *slot = *percent;
            }
        }
        let sum: u32 = t.tc_bandwidth.iter().map(|b| u32::from(*b)).sum();
        if sum != 100 {
            let given: Vec<String> =
                bandwidth.iter().map(|(tc, p)| format!("traffic class {tc}: {p}%")).collect();
            return Err(refuse.at(
                &format!("{container}/tc-bandwidth-table"),
                format!(
                    "The traffic classes' bandwidths add up to {sum}%, not 100% ({}): change \
                     percentage-bandwidth so that they add up to 100.",
                    given.join(", ")
                ),
            ));
        }
    }
    for e in list(dcbx::TSA_ASSIGNMENT_TABLE) {
        let (Some(tc), Some(value)) = (
            number(e, dcbx::TSA_TRAFFIC_CLASS),
            child_text(e, DCBX_NS, dcbx::TRANSMISSION_SELECTION_ALGORITHM),
        ) else {
            continue;
        };
        let name = identity_name(&value);
        let Some((_, tsa)) = TSAS.iter().find(|(n, _)| *n == name) else {
            let known: Vec<&str> = TSAS.iter().map(|(n, _)| *n).collect();
            return Err(refuse.at(
                &format!(
                    "{container}/tsa-assignment-table[tsa-traffic-class='{tc}']/\
                     transmission-selection-algorithm"
                ),
                format!(
                    "pfcd cannot run the transmission selection algorithm '{name}' on traffic \
                     class {tc}: neither DCBX's ETS TLVs as Linux DCB sets them nor a NIC take it; \
                     use one of {}.",
                    known.join(", ")
                ),
            ));
        };
        if let Some(slot) = t.tsa.get_mut(usize::from(tc)) {
            *slot = *tsa;
        }
    }
    Ok(t)
}

/// Application Priority as configured: `None` when the container is not there. `willing` is
/// the ETS Configuration's (the TLV has no Willing bit of its own).
pub fn app_admin(
    entry: &Element,
    willing: bool,
    refuse: &Refuse<'_>,
) -> Result<Option<AppAdmin>, BackendError> {
    let Some(tlv) = entry.child(DCBX_NS, dcbx::APPLICATION_PRIORITY_TLV_EXTENSION) else {
        return Ok(None);
    };
    let mut entries: Vec<AppEntry> = Vec::new();
    for e in tlv.elements().filter(|e| e.is(DCBX_NS, dcbx::APPLICATION_PRIORITY_TABLE)) {
        let priority = child_u64(e, DCBX_NS, dcbx::APPLICATION_PRIORITY).ok().flatten();
        let Some(priority) = priority.and_then(|p| u8::try_from(p).ok()) else { continue };
        let at = |leaf: &str| {
            format!(
                "{}/{}[application-priority='{priority}']/{leaf}",
                dcbx::APPLICATION_PRIORITY_TLV_EXTENSION,
                dcbx::APPLICATION_PRIORITY_TABLE
            )
        };
        let selector = child_text(e, DCBX_NS, dcbx::APPLICATION_PRIORITY_SELECTOR);
        let protocol = child_u64(e, DCBX_NS, dcbx::APPLICATION_PRIORITY_PROTOCOL).ok().flatten();
        let (Some(selector), Some(protocol)) = (selector, protocol) else {
            return Err(refuse.at(
                &at(dcbx::APPLICATION_PRIORITY_SELECTOR),
                format!(
                    "The entry for priority {priority} needs both application-priority-selector \
                     and application-priority-protocol: set the one missing."
                ),
            ));
        };
        let name = identity_name(&selector);
        let Some((_, selector)) = SELECTORS.iter().find(|(n, _)| *n == name) else {
            return Err(refuse.at(
                &at(dcbx::APPLICATION_PRIORITY_SELECTOR),
                format!("'{name}' is not an application priority selector pfcd knows."),
            ));
        };
        let protocol = u16::try_from(protocol).unwrap_or(u16::MAX);
        let entry = AppEntry { priority, selector: *selector, protocol };
        if let Some(first) =
            entries.iter().find(|o| o.selector == entry.selector && o.protocol == protocol)
        {
            return Err(refuse.at(
                &at(dcbx::APPLICATION_PRIORITY_PROTOCOL),
                format!(
                    "{name} {protocol} is given priority {} and priority {priority}: an \
                     application has one priority; delete one of the two entries.",
                    first.priority
                ),
            ));
        }
        entries.push(entry);
    }
    Ok(Some(AppAdmin { willing, entries }))
}
