//! ieee802-dot1ab-lldp with ieee802-dot1q-lldp-dcbx-tlv and ieee802-dot1q-lldp-pfc-tlv: each
//! port's LLDP agent and DCBX settings (read into the port's [`PortIntent`]) and their state
//! (counters, the peer as its LLDPDUs describe it, the DCBX outcome).
//!
//! A port runs LLDP when `/lldp/port` has an entry for it with the nearest bridge address;
//! without one it runs no agent and PFC runs on `pfc-enable` alone. A setting on the port entry
//! wins over the same setting at `/lldp`, which wins over the YANG default.

use lldp::agent::{AdminStatus, AgentConfig, RemoteStatistics};
use lldp::neighbours::RemoteSystem;
use lldp::wire::{ChassisId, PfcConfig, PfcFormat, PortId, SystemCapabilities, NEAREST_BRIDGE};
use mgmt::backend::BackendError;
use netconf_proto::xml::Element;

use super::xml::{child_text, child_u64, leaf, pfc_enable_bits, pfc_enable_mask};
use crate::ports::{DcbxIntent, LldpView, PortIntent, PortSnapshot};

pub const LLDP_NS: &str = "urn:ieee:std:802.1AB:yang:ieee802-dot1ab-lldp";
pub const DCBX_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-lldp-dcbx-tlv";
pub const PFC_TLV_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-lldp-pfc-tlv";

/// The modules this file serves.
pub const MODULES: [&str; 3] =
    ["ieee802-dot1ab-lldp", "ieee802-dot1q-lldp-dcbx-tlv", "ieee802-dot1q-lldp-pfc-tlv"];

/// The nearest bridge address as the YANG module writes it.
fn nearest_bridge() -> String {
    NEAREST_BRIDGE.to_string().to_uppercase()
}

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
    let Some(lldp) = root.child(LLDP_NS, "lldp") else { return Vec::new() };
    let mut refused = Vec::new();
    for entry in lldp.elements().filter(|e| e.is(LLDP_NS, "port")) {
        let name = child_text(entry, LLDP_NS, "name").unwrap_or_default();
        let dest = child_text(entry, LLDP_NS, "dest-mac-address").unwrap_or_default();
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
    let Some(lldp) = root.child(LLDP_NS, "lldp") else { return Ok(()) };
    let entry = lldp.elements().filter(|e| e.is(LLDP_NS, "port")).find(|e| {
        child_text(e, LLDP_NS, "name").as_deref() == Some(name)
            && child_text(e, LLDP_NS, "dest-mac-address")
                .is_some_and(|d| d.eq_ignore_ascii_case(&nearest_bridge()))
    });
    let Some(entry) = entry else { return Ok(()) };
    intent.lldp = Some(agent_config(lldp, entry, name)?);
    intent.dcbx = dcbx_intent(entry, name, intent.pfc_enable)?;
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
    if let Some(v) = number("message-tx-interval")? {
        config.message_tx_interval = small(v);
    }
    if let Some(v) = number("message-tx-hold-multiplier")? {
        config.message_tx_hold_multiplier = small(v);
    }
    if let Some(v) = number("message-fast-tx")? {
        config.message_fast_tx = small(v);
    }
    if let Some(v) = number("reinit-delay")? {
        config.reinit_delay = small(v);
    }
    if let Some(v) = number("tx-credit-max")? {
        config.tx_credit_max = u8::try_from(v).unwrap_or(u8::MAX);
    }
    if let Some(v) = number("tx-fast-init")? {
        config.tx_fast_init = u8::try_from(v).unwrap_or(u8::MAX);
    }
    if let Some(s) = child_text(entry, LLDP_NS, "admin-status") {
        config.admin_status = s
            .parse::<AdminStatus>()
            .map_err(|e| BackendError::new(e).at(port_path(name, "admin-status")))?;
    }
    config.validate().map_err(|e| {
        BackendError::new(format!("{e}: set it within the range.")).at(port_path(name, e.name))
    })?;
    Ok(config)
}

/// The PFC TLV settings. The TLV's `enable` is pfc-enable (of the pfc container): a different
/// value written here is refused rather than one of the two silently ignored.
fn dcbx_intent(entry: &Element, name: &str, pfc_enable: u8) -> Result<DcbxIntent, BackendError> {
    let mut d = DcbxIntent::default();
    let flag = |e: &Element, ns: &str, leaf: &str| child_text(e, ns, leaf).map(|t| t == "true");
    if let Some(tlv) = entry.child(DCBX_NS, "pfc-tlv-extension") {
        d.willing = flag(tlv, DCBX_NS, "willing").unwrap_or(false);
        d.mbc = flag(tlv, DCBX_NS, "macsec-bypass-capable").unwrap_or(false);
        if let Ok(Some(n)) = child_u64(tlv, DCBX_NS, "number-tc-capable") {
            d.pfc_cap = u8::try_from(n).unwrap_or(8);
        }
        d.macsec_capable = flag(tlv, PFC_TLV_NS, "macsec-capable").unwrap_or(false);
        d.privacy_capable = flag(tlv, PFC_TLV_NS, "privacy-capable").unwrap_or(false);
        d.rtm_hdrm = flag(tlv, PFC_TLV_NS, "rtm-hdrm").unwrap_or(false);
        d.ptp_hdrm = flag(tlv, PFC_TLV_NS, "ptp-hdrm").unwrap_or(false);
        d.legacy_tlv = flag(tlv, PFC_TLV_NS, "legacy-tlv").unwrap_or(false);
        if let Some(bits) = child_text(tlv, DCBX_NS, "enable") {
            let written = pfc_enable_mask(&bits);
            if written != pfc_enable {
                return Err(BackendError::new(format!(
                    "pfc-tlv-extension/enable ({}) differs from port {name}'s pfc-enable ({}): \
                     the PFC Configuration TLV sends pfc-enable. Remove enable here, or write \
                     the same priorities in both.",
                    show_bits(written),
                    show_bits(pfc_enable)
                ))
                .at(port_path(name, "ieee802-dot1q-lldp-dcbx-tlv:pfc-tlv-extension/enable")));
            }
        }
    }
    if let Some(ld) = entry.child(PFC_TLV_NS, "pfc-local-delay-tlv-extension") {
        d.local_delay_tx = flag(ld, PFC_TLV_NS, "tx-enable").unwrap_or(true);
    }
    Ok(d)
}

fn show_bits(mask: u8) -> String {
    let bits = pfc_enable_bits(mask);
    if bits.is_empty() {
        "none".into()
    } else {
        bits
    }
}

/// `/lldp`'s state: the remote table's counters over every port, our system, and per port
/// with an LLDP entry its identity, counters, neighbours and DCBX outcome.
pub fn state(ports: &[std::sync::Arc<PortSnapshot>]) -> Element {
    let ns = LLDP_NS;
    let totals = remote_totals(ports.iter().map(|s| s.lldp.ours.agent().statistics().remote));
    let mut lldp = Element::new(ns, "lldp").with(
        Element::new(ns, "remote-statistics")
            .with(leaf(ns, "remote-inserts", counter32(totals.remote_inserts)))
            .with(leaf(ns, "remote-deletes", counter32(totals.remote_deletes)))
            .with(leaf(ns, "remote-drops", counter32(totals.remote_drops)))
            .with(leaf(ns, "remote-ageouts", counter32(totals.remote_ageouts))),
    );
    if let Some(first) = ports.first() {
        lldp.push(local_system(&first.lldp));
    }
    for s in ports.iter().filter(|s| s.lldp.enabled) {
        lldp.push(port_state(s));
    }
    lldp
}

/// The remote table's counters summed over ports (`/lldp/remote-statistics` is system-wide).
pub fn remote_totals(ports: impl Iterator<Item = RemoteStatistics>) -> RemoteStatistics {
    ports.fold(RemoteStatistics::default(), |t, r| RemoteStatistics {
        remote_inserts: t.remote_inserts + r.remote_inserts,
        remote_deletes: t.remote_deletes + r.remote_deletes,
        remote_drops: t.remote_drops + r.remote_drops,
        remote_ageouts: t.remote_ageouts + r.remote_ageouts,
    })
}

/// A count as a YANG counter32: it wraps.
pub fn counter32(v: u64) -> u64 {
    v % (1 << 32)
}

fn local_system(view: &LldpView) -> Element {
    let ns = LLDP_NS;
    let local = view.ours.agent().local();
    let mut e = Element::new(ns, "local-system-data");
    push_chassis(&mut e, &local.chassis_id);
    for t in &local.tlvs {
        match t {
            lldp::wire::Tlv::SystemName(n) => e.push(leaf(ns, "system-name", n.0.to_string())),
            lldp::wire::Tlv::SystemDescription(d) => {
                e.push(leaf(ns, "system-description", d.0.to_string()))
            }
            lldp::wire::Tlv::SystemCapabilities(c) => push_capabilities(&mut e, c),
            _ => {}
        }
    }
    e
}

fn port_state(s: &PortSnapshot) -> Element {
    let ns = LLDP_NS;
    let agent = s.lldp.ours.agent();
    let stats = agent.statistics();
    let mut port = Element::new(ns, "port").with(leaf(ns, "name", &s.name)).with(leaf(
        ns,
        "dest-mac-address",
        nearest_bridge(),
    ));
    push_port_id(&mut port, &agent.local().port_id);
    port.push(leaf(ns, "port-desc", &s.name));
    port.push(
        Element::new(ns, "tx-statistics")
            .with(leaf(ns, "total-frames", counter32(stats.tx.total_frames)))
            .with(leaf(ns, "total-length-errors", counter32(stats.tx.total_length_errors))),
    );
    let rx = &stats.rx;
    port.push(
        Element::new(ns, "rx-statistics")
            .with(leaf(ns, "total-ageouts", counter32(rx.total_ageouts)))
            .with(leaf(ns, "total-discarded-frames", counter32(rx.total_discarded_frames)))
            .with(leaf(ns, "error-frames", counter32(rx.error_frames)))
            .with(leaf(ns, "total-frames", counter32(rx.total_frames)))
            .with(leaf(ns, "total-discarded-tlvs", counter32(rx.total_discarded_tlvs)))
            .with(leaf(ns, "total-unrecognized-tlvs", counter32(rx.total_unrecognized_tlvs))),
    );
    let too_many = agent.neighbours().too_many_neighbours();
    for r in agent.neighbours().iter() {
        port.push(remote_system(r, too_many));
    }
    if let Some(delay) = s.lldp.ours.admin().local_delay {
        port.push(
            Element::new(PFC_TLV_NS, "pfc-local-delay-tlv-extension")
                .with(leaf(PFC_TLV_NS, "delay", delay.0)),
        );
    }
    port.push(pfc_dcbx(&s.lldp));
    port
}

/// One neighbour as its LLDPDU describes it.
fn remote_system(r: &RemoteSystem, too_many: bool) -> Element {
    let ns = LLDP_NS;
    let pdu = &r.lldpdu;
    let ticks = u32::try_from(r.time_mark.as_millis() / 10).unwrap_or(u32::MAX);
    let mut e = Element::new(ns, "remote-systems-data")
        .with(leaf(ns, "time-mark", ticks))
        .with(leaf(ns, "remote-index", r.remote_index))
        .with(leaf(ns, "remote-too-many-neighbors", too_many));
    push_chassis(&mut e, &pdu.chassis_id);
    push_port_id(&mut e, &pdu.port_id);
    if let Some(d) = pdu.port_description() {
        e.push(leaf(ns, "port-desc", d.0.to_string()));
    }
    if let Some(n) = pdu.system_name() {
        e.push(leaf(ns, "system-name", n.0.to_string()));
    }
    if let Some(d) = pdu.system_description() {
        e.push(leaf(ns, "system-description", d.0.to_string()));
    }
    if let Some(c) = pdu.system_capabilities() {
        push_capabilities(&mut e, c);
    }
    if let Some(p) = pdu.pfc_config() {
        e.push(pfc_tlv(p));
    }
    if let Some(d) = pdu.pfc_local_delay() {
        e.push(
            Element::new(PFC_TLV_NS, "pfc-local-delay-tlv-extension")
                .with(leaf(PFC_TLV_NS, "delay", d.delay.0)),
        );
    }
    e
}

/// A received PFC Configuration TLV.
fn pfc_tlv(p: &PfcConfig) -> Element {
    let (d, q) = (DCBX_NS, PFC_TLV_NS);
    let mut e = Element::new(d, "pfc-tlv-extension")
        .with(leaf(d, "willing", p.willing))
        .with(leaf(d, "macsec-bypass-capable", p.mbc));
    // number-tc-capable ranges over 1..8; pfc-cap carries the field as sent.
    if (1..=8).contains(&p.pfc_cap) {
        e.push(leaf(d, "number-tc-capable", p.pfc_cap));
    }
    e.push(leaf(d, "enable", pfc_enable_bits(p.pfc_enable)));
    let length = match &p.format {
        PfcFormat::Legacy => 6,
        PfcFormat::Qdt => 7,
        PfcFormat::Extended(extra) => 7 + extra.len(),
    };
    e.push(leaf(q, "macsec-capable", p.macsec_capable));
    e.push(leaf(q, "privacy-capable", p.privacy_capable));
    e.push(leaf(q, "rtm-hdrm", p.rtm_hdrm));
    e.push(leaf(q, "ptp-hdrm", p.ptp_hdrm));
    e.push(leaf(q, "pfc-cap", p.pfc_cap));
    e.push(leaf(q, "tlv-length", length));
    e
}

/// The port's DCBX outcome for PFC.
fn pfc_dcbx(view: &LldpView) -> Element {
    let ns = PFC_TLV_NS;
    let pfc = &view.ours.state().pfc;
    let mut e = Element::new(ns, "pfc-dcbx")
        .with(leaf(ns, "oper-pfc-enable", pfc_enable_bits(pfc.pfc_enable)))
        .with(leaf(ns, "pfc-enable-source", pfc.source.as_str()))
        .with(leaf(ns, "reason", pfc.reason.as_str()));
    if let lldp::dcbx::Peer::One(p) = &view.ours.state().peer {
        e.push(leaf(ns, "peer-address", p.source_mac.to_string().to_uppercase()));
    }
    e.push(leaf(ns, "misconfigured", pfc.misconfiguration.is_some()));
    if let Some(m) = pfc.misconfiguration {
        e.push(leaf(ns, "misconfiguration", misconfiguration_name(m)));
        e.push(leaf(ns, "misconfiguration-description", m.to_string()));
    }
    e.push(leaf(ns, "macsec", pfc.macsec));
    e.push(leaf(ns, "privacy", pfc.privacy));
    e.push(leaf(ns, "headroom-measurement", pfc.headroom.measurement));
    e.push(leaf(ns, "headroom-link-delay", pfc.headroom.link_delay));
    e
}

pub fn misconfiguration_name(m: lldp::dcbx::PfcMisconfiguration) -> &'static str {
    match m {
        lldp::dcbx::PfcMisconfiguration::EnableMismatch { .. } => "enable-mismatch",
        lldp::dcbx::PfcMisconfiguration::PeerExceedsPfcCap { .. } => "peer-exceeds-pfc-cap",
    }
}

fn push_chassis(e: &mut Element, id: &ChassisId) {
    let ns = LLDP_NS;
    let (subtype, value) = match id {
        ChassisId::ChassisComponent(t) => ("chassis-component", t.to_string()),
        ChassisId::InterfaceAlias(t) => ("interface-alias", t.to_string()),
        ChassisId::PortComponent(t) => ("port-component", t.to_string()),
        ChassisId::MacAddress(m) => ("mac-address", m.to_string().to_uppercase()),
        ChassisId::NetworkAddress(a) => ("network-address", a.to_string()),
        ChassisId::InterfaceName(t) => ("interface-name", t.to_string()),
        ChassisId::Local(t) => ("local", t.to_string()),
        ChassisId::Other { .. } => return,
    };
    if !value.is_empty() {
        e.push(leaf(ns, "chassis-id-subtype", subtype));
        e.push(leaf(ns, "chassis-id", value));
    }
}

fn push_port_id(e: &mut Element, id: &PortId) {
    let ns = LLDP_NS;
    let (subtype, value) = match id {
        PortId::InterfaceAlias(t) => ("interface-alias", t.to_string()),
        PortId::PortComponent(t) => ("port-component", t.to_string()),
        PortId::MacAddress(m) => ("mac-address", m.to_string().to_uppercase()),
        PortId::NetworkAddress(a) => ("network-address", a.to_string()),
        PortId::InterfaceName(t) => ("interface-name", t.to_string()),
        PortId::Local(t) => ("local", t.to_string()),
        PortId::AgentCircuitId(_) | PortId::Other { .. } => return,
    };
    if !value.is_empty() {
        e.push(leaf(ns, "port-id-subtype", subtype));
        e.push(leaf(ns, "port-id", value));
    }
}

/// The two capability maps as YANG bits.
fn push_capabilities(e: &mut Element, c: &SystemCapabilities) {
    const NAMES: [&str; 11] = [
        "other",
        "repeater",
        "bridge",
        "wlan-access-point",
        "router",
        "telephone",
        "docsis-cable-device",
        "station-only",
        "cvlan-component",
        "svlan-component",
        "two-port-mac-relay",
    ];
    let bits = |map: u16| {
        NAMES
            .iter()
            .enumerate()
            .filter(|(n, _)| map & (1 << n) != 0)
            .map(|(_, name)| *name)
            .collect::<Vec<_>>()
            .join(" ")
    };
    e.push(leaf(LLDP_NS, "system-capabilities-supported", bits(c.capabilities)));
    e.push(leaf(LLDP_NS, "system-capabilities-enabled", bits(c.enabled)));
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
