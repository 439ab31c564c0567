//! LLDP's state: the remote table's counters over every port, our system, and per port with
//! an LLDP entry its identity, counters, neighbours and DCBX outcome.

use pfc_yang_names::{
    ieee802_dot1ab_lldp as dot1ab, ieee802_dot1q_lldp_dcbx_tlv as dcbx,
    ieee802_dot1q_lldp_pfc_tlv as tlv, pfcd_lldp as pfcd,
};
use std::time::Duration;

use lldp::agent::RemoteStatistics;
use lldp::neighbours::RemoteSystem;
use lldp::wire::{ChassisId, PfcConfig, PfcFormat, PortId, SystemCapabilities};
use netconf_proto::xml::Element;

use super::ets_app_state::push_peer_ets_app;
use super::nearest_bridge;
use super::wire_text::wire_text;
use crate::northbound::namespaces::{DCBX_NS, LLDP_NS, PFCD_LLDP_NS, PFC_TLV_NS};
use crate::northbound::xml::{leaf, pfc_enable_bits};
use crate::ports::{LldpView, PortSnapshot};

/// `/lldp`'s state: the remote table's counters over every port, our system, and per port
/// with an LLDP entry its identity, counters, neighbours and DCBX outcome.
pub fn state(ports: &[std::sync::Arc<PortSnapshot>]) -> Element {
    let ns = LLDP_NS;
    let totals = remote_totals(ports.iter().map(|s| s.lldp.ours.agent().statistics().remote));
    let mut lldp = Element::new(ns, dot1ab::LLDP).with(
        Element::new(ns, dot1ab::REMOTE_STATISTICS)
            .with(leaf(ns, dot1ab::REMOTE_INSERTS, counter32(totals.remote_inserts)))
            .with(leaf(ns, dot1ab::REMOTE_DELETES, counter32(totals.remote_deletes)))
            .with(leaf(ns, dot1ab::REMOTE_DROPS, counter32(totals.remote_drops)))
            .with(leaf(ns, dot1ab::REMOTE_AGEOUTS, counter32(totals.remote_ageouts))),
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
    let mut e = Element::new(ns, dot1ab::LOCAL_SYSTEM_DATA);
    push_chassis(&mut e, &local.chassis_id);
    for t in &local.tlvs {
        match t {
            lldp::wire::Tlv::SystemName(n) => {
                e.push(leaf(ns, dot1ab::SYSTEM_NAME, wire_text(&n.0.to_string())))
            }
            lldp::wire::Tlv::SystemDescription(d) => {
                e.push(leaf(ns, dot1ab::SYSTEM_DESCRIPTION, wire_text(&d.0.to_string())))
            }
            lldp::wire::Tlv::SystemCapabilities(c) => push_capabilities(&mut e, c),
            _ => {}
        }
    }
    e
}

/// pfcd-lldp's leaves: the TTL the neighbour advertises and the age of its information.
fn push_times(e: &mut Element, r: &RemoteSystem, now: Duration) {
    let ns = PFCD_LLDP_NS;
    let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    e.push(leaf(ns, pfcd::TTL, r.lldpdu.ttl));
    e.push(leaf(ns, pfcd::AGE, ms(now.saturating_sub(r.time_mark))));
    e.push(leaf(ns, pfcd::LAST_UPDATE, ms(now.saturating_sub(r.last_seen))));
    e.push(leaf(ns, pfcd::EXPIRES_IN, ms(r.expires_at.saturating_sub(now))));
}

fn port_state(s: &PortSnapshot) -> Element {
    let ns = LLDP_NS;
    let agent = s.lldp.ours.agent();
    let stats = agent.statistics();
    let mut port = Element::new(ns, dot1ab::PORT).with(leaf(ns, tlv::NAME, &s.name)).with(leaf(
        ns,
        tlv::DEST_MAC_ADDRESS,
        nearest_bridge(),
    ));
    push_port_id(&mut port, &agent.local().port_id);
    port.push(leaf(ns, dot1ab::PORT_DESC, &s.name));
    port.push(
        Element::new(ns, dot1ab::TX_STATISTICS)
            .with(leaf(ns, dot1ab::TOTAL_FRAMES, counter32(stats.tx.total_frames)))
            .with(leaf(ns, dot1ab::TOTAL_LENGTH_ERRORS, counter32(stats.tx.total_length_errors))),
    );
    let rx = &stats.rx;
    port.push(
        Element::new(ns, dot1ab::RX_STATISTICS)
            .with(leaf(ns, dot1ab::TOTAL_AGEOUTS, counter32(rx.total_ageouts)))
            .with(leaf(ns, dot1ab::TOTAL_DISCARDED_FRAMES, counter32(rx.total_discarded_frames)))
            .with(leaf(ns, dot1ab::ERROR_FRAMES, counter32(rx.error_frames)))
            .with(leaf(ns, dot1ab::TOTAL_FRAMES, counter32(rx.total_frames)))
            .with(leaf(ns, dot1ab::TOTAL_DISCARDED_TLVS, counter32(rx.total_discarded_tlvs)))
            .with(leaf(ns, dot1ab::TOTAL_UNRECOGNIZED_TLVS, counter32(rx.total_unrecognized_tlvs))),
    );
    let too_many = agent.neighbours().too_many_neighbours();
    for r in agent.neighbours().iter() {
        port.push(remote_system(r, too_many, s.lldp.agent_time()));
    }
    if let Some(delay) = s.lldp.ours.admin().local_delay {
        port.push(Element::new(PFC_TLV_NS, tlv::PFC_LOCAL_DELAY_TLV_EXTENSION).with(leaf(
            PFC_TLV_NS,
            tlv::DELAY,
            delay.0,
        )));
    }
    port.push(pfc_dcbx(&s.lldp));
    port
}

/// One neighbour as its LLDPDU describes it, with pfcd-lldp's times as of `now`.
fn remote_system(r: &RemoteSystem, too_many: bool, now: Duration) -> Element {
    let ns = LLDP_NS;
    let pdu = &r.lldpdu;
    let ticks = u32::try_from(r.time_mark.as_millis() / 10).unwrap_or(u32::MAX);
    let mut e = Element::new(ns, dot1ab::REMOTE_SYSTEMS_DATA)
        .with(leaf(ns, dot1ab::TIME_MARK, ticks))
        .with(leaf(ns, dot1ab::REMOTE_INDEX, r.remote_index))
        .with(leaf(ns, dot1ab::REMOTE_TOO_MANY_NEIGHBORS, too_many));
    push_chassis(&mut e, &pdu.chassis_id);
    push_port_id(&mut e, &pdu.port_id);
    if let Some(d) = pdu.port_description() {
        e.push(leaf(ns, dot1ab::PORT_DESC, wire_text(&d.0.to_string())));
    }
    if let Some(n) = pdu.system_name() {
        e.push(leaf(ns, dot1ab::SYSTEM_NAME, wire_text(&n.0.to_string())));
    }
    if let Some(d) = pdu.system_description() {
        e.push(leaf(ns, dot1ab::SYSTEM_DESCRIPTION, wire_text(&d.0.to_string())));
    }
    if let Some(c) = pdu.system_capabilities() {
        push_capabilities(&mut e, c);
    }
    push_peer_ets_app(&mut e, pdu);
    if let Some(p) = pdu.pfc_config() {
        e.push(pfc_tlv(p));
    }
    if let Some(d) = pdu.pfc_local_delay() {
        e.push(Element::new(PFC_TLV_NS, tlv::PFC_LOCAL_DELAY_TLV_EXTENSION).with(leaf(
            PFC_TLV_NS,
            tlv::DELAY,
            d.delay.0,
        )));
    }
    push_times(&mut e, r, now);
    e
}

/// A received PFC Configuration TLV.
fn pfc_tlv(p: &PfcConfig) -> Element {
    let (d, q) = (DCBX_NS, PFC_TLV_NS);
    let mut e = Element::new(d, dcbx::PFC_TLV_EXTENSION)
        .with(leaf(d, dcbx::WILLING, p.willing))
        .with(leaf(d, dcbx::MACSEC_BYPASS_CAPABLE, p.mbc));
    // number-tc-capable ranges over 1..8; pfc-cap carries the field as sent.
    if (1..=8).contains(&p.pfc_cap) {
        e.push(leaf(d, dcbx::NUMBER_TC_CAPABLE, p.pfc_cap));
    }
    e.push(leaf(d, dcbx::ENABLE, pfc_enable_bits(p.pfc_enable)));
    let length = match &p.format {
        PfcFormat::Legacy => 6,
        PfcFormat::Qdt => 7,
        PfcFormat::Extended(extra) => 7 + extra.len(),
    };
    e.push(leaf(q, tlv::MACSEC_CAPABLE, p.macsec_capable));
    e.push(leaf(q, tlv::PRIVACY_CAPABLE, p.privacy_capable));
    e.push(leaf(q, tlv::RTM_HDRM, p.rtm_hdrm));
    e.push(leaf(q, tlv::PTP_HDRM, p.ptp_hdrm));
    e.push(leaf(q, tlv::PFC_CAP, p.pfc_cap));
    e.push(leaf(q, tlv::TLV_LENGTH, length));
    e
}

/// The port's DCBX outcome for PFC.
fn pfc_dcbx(view: &LldpView) -> Element {
    let ns = PFC_TLV_NS;
    let pfc = &view.ours.state().pfc;
    let mut e = Element::new(ns, tlv::PFC_DCBX)
        .with(leaf(ns, tlv::PFC_ENABLE_SOURCE, pfc.source.as_str()))
        .with(leaf(PFCD_LLDP_NS, pfcd::REASON, pfc.reason.as_str()));
    if let lldp::dcbx::Peer::One(p) = &view.ours.state().peer {
        e.push(leaf(ns, tlv::PEER_ADDRESS, p.source_mac.to_string().to_uppercase()));
    }
    e.push(leaf(ns, tlv::MISCONFIGURED, pfc.misconfiguration.is_some()));
    if let Some(m) = pfc.misconfiguration {
        e.push(leaf(ns, tlv::MISCONFIGURATION, misconfiguration_name(m)));
        e.push(leaf(PFCD_LLDP_NS, pfcd::MISCONFIGURATION_DESCRIPTION, m.to_string()));
    }
    e.push(leaf(ns, tlv::MACSEC, pfc.macsec));
    e.push(leaf(ns, tlv::PRIVACY, pfc.privacy));
    e.push(leaf(ns, tlv::HEADROOM_MEASUREMENT, pfc.headroom.measurement));
    e.push(leaf(ns, tlv::HEADROOM_LINK_DELAY, pfc.headroom.link_delay));
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
    let value = wire_text(&value);
    if !value.is_empty() {
        e.push(leaf(ns, dot1ab::CHASSIS_ID_SUBTYPE, subtype));
        e.push(leaf(ns, dot1ab::CHASSIS_ID, value));
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
    let value = wire_text(&value);
    if !value.is_empty() {
        e.push(leaf(ns, dot1ab::PORT_ID_SUBTYPE, subtype));
        e.push(leaf(ns, dot1ab::PORT_ID, value));
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
    e.push(leaf(LLDP_NS, dot1ab::SYSTEM_CAPABILITIES_SUPPORTED, bits(c.capabilities)));
    e.push(leaf(LLDP_NS, dot1ab::SYSTEM_CAPABILITIES_ENABLED, bits(c.enabled)));
}
