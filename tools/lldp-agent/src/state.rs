//! The state the tool shows: per port, the LLDP agent (settings, counters, neighbours with every
//! TLV) and DCBX (administrative, peer and operational values, and why). Names follow the
//! `ieee802-dot1ab-lldp` YANG leaves where one exists; octets are lowercase hex. Every port of
//! the settings is there, with its `status`: `open`, or not open and why.

use std::time::Duration;

use dataplane::io::IoError;
use lldp::dcbx::{AppAdmin, AppOper, DcbxAdmin, EtsOper, Peer, PeerDcbx, PfcAdmin, PfcOper};
use lldp::neighbours::RemoteSystem;
use lldp::port::DcbxPort;
use lldp::wire::{
    AppEntry, ChassisId, EtsConfig, EtsTables, PfcConfig, PfcFormat, PortId, TimeInterval, Tlv,
};
use serde_json::{json, Map, Value};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Bit n set = priority n, as a list `[3, 4]`.
fn priorities(vector: u8) -> Vec<u8> {
    (0..8).filter(|p| vector & (1 << p) != 0).collect()
}

fn chassis(id: &ChassisId) -> Value {
    let value = match id {
        ChassisId::MacAddress(m) => m.to_string(),
        ChassisId::NetworkAddress(a) => a.to_string(),
        ChassisId::ChassisComponent(t)
        | ChassisId::InterfaceAlias(t)
        | ChassisId::PortComponent(t)
        | ChassisId::InterfaceName(t)
        | ChassisId::Local(t) => t.to_string(),
        ChassisId::Other { id, .. } => hex(id),
    };
    json!({ "subtype": id.subtype(), "id": value })
}

fn port_id(id: &PortId) -> Value {
    let value = match id {
        PortId::MacAddress(m) => m.to_string(),
        PortId::NetworkAddress(a) => a.to_string(),
        PortId::InterfaceAlias(t)
        | PortId::PortComponent(t)
        | PortId::InterfaceName(t)
        | PortId::Local(t) => t.to_string(),
        PortId::AgentCircuitId(id) | PortId::Other { id, .. } => hex(id),
    };
    json!({ "subtype": id.subtype(), "id": value })
}

fn delay(d: TimeInterval) -> Value {
    json!({ "time-interval": d.0, "text": d.to_string() })
}

fn tables(t: &EtsTables) -> Value {
    json!({
        "priority-tc": t.priority_tc,
        "tc-bandwidth": t.tc_bandwidth,
        "tsa": t.tsa.iter().map(|t| t.to_string()).collect::<Vec<_>>(),
    })
}

fn pfc_tlv(p: &PfcConfig) -> Value {
    json!({
        "willing": p.willing,
        "mbc": p.mbc,
        "macsec-capable": p.macsec_capable,
        "privacy-capable": p.privacy_capable,
        "pfc-cap": p.pfc_cap,
        "enable": priorities(p.pfc_enable),
        "rtm-hdrm": p.rtm_hdrm,
        "ptp-hdrm": p.ptp_hdrm,
        "tlv-length": match &p.format {
            PfcFormat::Legacy => 6,
            PfcFormat::Qdt => 7,
            PfcFormat::Extended(extra) => 7 + extra.len(),
        },
    })
}

fn ets_config(e: &EtsConfig) -> Value {
    json!({ "willing": e.willing, "cbs": e.cbs, "max-tcs": e.traffic_classes(), "tables": tables(&e.tables) })
}

fn app_entries(entries: &[AppEntry]) -> Value {
    entries
        .iter()
        .map(|e| json!({ "priority": e.priority, "selector": e.selector.to_string(), "protocol": e.protocol }))
        .collect()
}

/// One TLV: its type, a name, and its information string as octets.
fn tlv(t: &Tlv) -> Value {
    let name = match t {
        Tlv::EtsConfig(_) => "ETS Configuration".to_string(),
        Tlv::EtsRecommendation(_) => "ETS Recommendation".to_string(),
        Tlv::PfcConfig(_) => "PFC Configuration".to_string(),
        Tlv::AppPriority(_) => "Application Priority".to_string(),
        Tlv::PfcLocalDelay(_) => "PFC Local Delay".to_string(),
        Tlv::Org(o) => format!("organizationally specific {} subtype {}", o.oui, o.subtype),
        Tlv::Malformed { error, .. } => format!("discarded: {error}"),
        other => other.tlv_type().to_string(),
    };
    let bytes = t.to_vec().unwrap_or_default();
    json!({ "type": t.tlv_type().0, "name": name, "info": hex(bytes.get(2..).unwrap_or_default()) })
}

fn neighbour(r: &RemoteSystem, now: Duration) -> Value {
    let pdu = &r.lldpdu;
    json!({
        "remote-index": r.remote_index,
        "source-mac": r.source_mac.to_string(),
        "chassis-id": chassis(&pdu.chassis_id),
        "port-id": port_id(&pdu.port_id),
        "ttl": pdu.ttl,
        "expires-in-ms": r.expires_at.saturating_sub(now).as_millis() as u64,
        "system-name": pdu.system_name().map(|n| n.0.to_string()),
        "port-desc": pdu.port_description().map(|n| n.0.to_string()),
        "tlvs": pdu.tlvs.iter().map(tlv).collect::<Vec<_>>(),
    })
}

fn pfc_admin(p: &PfcAdmin) -> Value {
    pfc_tlv(&p.tlv())
}

fn admin(a: &DcbxAdmin) -> Value {
    json!({
        "pfc": pfc_admin(&a.pfc),
        "ets": a.ets.as_ref().map(|e| json!({
            "config": ets_config(&e.config),
            "recommendation": e.recommendation.as_ref().map(tables),
        })),
        "app": a.app.as_ref().map(|AppAdmin { willing, entries }| json!({
            "willing": willing, "entries": app_entries(entries)
        })),
        "local-delay": a.local_delay.map(delay),
    })
}

fn peer(p: &Peer) -> Value {
    match p {
        Peer::None => json!({ "status": "none" }),
        Peer::Multiple(n) => json!({ "status": "multiple", "neighbours": n }),
        Peer::One(PeerDcbx {
            source_mac,
            pfc,
            pfc_malformed,
            ets_config: ets,
            ets_recommendation,
            app,
            local_delay,
        }) => json!({
            "status": "one",
            "source-mac": source_mac.to_string(),
            "pfc": pfc.as_ref().map(pfc_tlv),
            "pfc-tlv-discarded": pfc_malformed,
            "ets-config": ets.as_ref().map(ets_config),
            "ets-recommendation": ets_recommendation.as_ref().map(|r| tables(&r.tables)),
            "app": app.as_ref().map(|a| app_entries(&a.entries)),
            "local-delay": local_delay.map(|d| delay(d.delay)),
        }),
    }
}

fn pfc_oper(p: &PfcOper) -> Value {
    json!({
        "enable": priorities(p.pfc_enable),
        "source": p.source.as_str(),
        "reason": p.reason.as_str(),
        "misconfigured": p.misconfiguration.is_some(),
        "misconfiguration": p.misconfiguration.map(|m| m.to_string()),
        "macsec": p.macsec,
        "privacy": p.privacy,
        "headroom-measurement": p.headroom.measurement,
        "headroom-link-delay": p.headroom.link_delay,
        "peer-local-delay": p.peer_local_delay.map(delay),
        "peer-mbc": p.peer_mbc,
    })
}

fn ets_oper(e: &EtsOper) -> Value {
    json!({ "tables": tables(&e.tables), "source": e.source.as_str(), "reason": e.reason.as_str() })
}

fn app_oper(a: &AppOper) -> Value {
    json!({ "entries": app_entries(&a.entries), "source": a.source.as_str() })
}

/// One port's state.
pub fn port(p: &DcbxPort, now: Duration) -> Value {
    let agent = p.agent();
    let c = agent.config();
    let s = agent.statistics();
    let state = p.state();
    json!({
        "status": "open",
        "mac-address": agent.port_mac().to_string(),
        "port-enabled": agent.port_enabled(),
        "admin-status": c.admin_status.as_str(),
        "message-tx-interval": c.message_tx_interval,
        "message-tx-hold-multiplier": c.message_tx_hold_multiplier,
        "ttl": c.ttl(),
        "tx-statistics": {
            "total-frames": s.tx.total_frames,
            "total-length-errors": s.tx.total_length_errors,
        },
        "rx-statistics": {
            "total-ageouts": s.rx.total_ageouts,
            "total-discarded-frames": s.rx.total_discarded_frames,
            "error-frames": s.rx.error_frames,
            "total-frames": s.rx.total_frames,
            "total-discarded-tlvs": s.rx.total_discarded_tlvs,
            "total-unrecognized-tlvs": s.rx.total_unrecognized_tlvs,
        },
        "remote-statistics": {
            "remote-inserts": s.remote.remote_inserts,
            "remote-deletes": s.remote.remote_deletes,
            "remote-drops": s.remote.remote_drops,
            "remote-ageouts": s.remote.remote_ageouts,
        },
        "remote-too-many-neighbors": agent.neighbours().too_many_neighbours(),
        "neighbours": agent.neighbours().iter().map(|r| neighbour(r, now)).collect::<Vec<_>>(),
        "dcbx": {
            "admin": admin(p.admin()),
            "peer": peer(&state.peer),
            "oper": {
                "pfc": pfc_oper(&state.pfc),
                "ets": state.ets.as_ref().map(ets_oper),
                "app": state.app.as_ref().map(app_oper),
            },
            "misconfigured": state.misconfigured(),
        },
    })
}

/// A port of the settings that is not open, and why.
pub struct NotOpen<'a> {
    pub name: &'a str,
    pub error: &'a IoError,
}

/// A port that is not open: waiting for its interface to appear, or for it to become usable.
/// Both are tried again on every link change and SIGHUP.
pub fn not_open(p: &NotOpen) -> Value {
    let status = match p.error {
        IoError::NoSuchInterface(_) => "waiting for the interface",
        IoError::Os { .. } => "cannot be opened",
    };
    json!({ "status": status, "error": p.error.to_string() })
}

/// Every port of the settings, keyed by name: the open ones and those that are not.
pub fn all<'a>(
    ports: impl Iterator<Item = &'a DcbxPort>,
    not_open_ports: impl Iterator<Item = NotOpen<'a>>,
    now: Duration,
) -> Value {
    let mut map: Map<String, Value> = ports.map(|p| (p.name().to_string(), port(p, now))).collect();
    map.extend(not_open_ports.map(|p| (p.name.to_string(), not_open(&p))));
    json!({ "ports": map })
}
