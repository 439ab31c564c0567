//! What an LLDP agent and its DCBX report, in the same words from every program that runs one
//! (pfcd's ports, real or the lab's, and `pfc-lldp`). The caller adds what only it does with an
//! event (a notification, a state file); the words are these.

use lldp::agent::AgentEvent;
use lldp::dcbx::DcbxEvent;
use lldp::neighbours::NeighbourEvent;
use tracing::{debug, info, warn};

/// Logs an event of `port`'s LLDP agent (802.1AB 9): neighbours and discards.
pub fn agent_event(port: &str, e: &AgentEvent) {
    match e {
        AgentEvent::Neighbour(n) => match n {
            NeighbourEvent::Inserted { remote_index, msap } => info!(
                port,
                remote_index,
                chassis = ?msap.chassis_id,
                port_id = ?msap.port_id,
                "LLDP neighbour inserted"
            ),
            NeighbourEvent::Updated { remote_index, .. } => {
                debug!(port, remote_index, "LLDP neighbour updated")
            }
            NeighbourEvent::Deleted { remote_index, reason, .. } => {
                info!(port, remote_index, ?reason, "LLDP neighbour deleted")
            }
            NeighbourEvent::AgedOut { remote_index, .. } => {
                info!(port, remote_index, "LLDP neighbour aged out")
            }
            NeighbourEvent::Dropped { msap } => {
                warn!(port, chassis = ?msap.chassis_id, "too many LLDP neighbours: LLDPDU dropped")
            }
        },
        AgentEvent::FrameDiscarded { source_mac, error } => {
            warn!(port, source_mac = ?source_mac, error = %error, "LLDPDU discarded")
        }
        AgentEvent::TlvDiscarded { source_mac, error } => {
            warn!(port, source_mac = %source_mac, error = %error, "LLDP TLV discarded")
        }
        AgentEvent::LengthError { left_out } => {
            warn!(port, left_out, "our LLDPDU is too long for a frame: optional TLVs left out")
        }
    }
}

/// Logs an event of `port`'s DCBX (clause 38): operational values and misconfiguration.
pub fn dcbx_event(port: &str, e: &DcbxEvent) {
    match e {
        DcbxEvent::PfcChanged { from, to, source, reason } => info!(
            port,
            from = format!("{from:#04x}"),
            to = format!("{to:#04x}"),
            source = source.as_str(),
            reason = reason.as_str(),
            "DCBX: operational PFC Enable"
        ),
        DcbxEvent::QdtChanged { macsec, privacy, headroom } => info!(
            port,
            macsec,
            privacy,
            measurement = headroom.measurement,
            link_delay = headroom.link_delay,
            "DCBX: P802.1Qdt operational"
        ),
        DcbxEvent::EtsChanged => info!(port, "DCBX: operational ETS changed"),
        DcbxEvent::AppChanged => info!(port, "DCBX: operational application priorities changed"),
        DcbxEvent::MisconfigurationRaised(m) => {
            warn!(port, misconfiguration = %m, "DCBX: PFC misconfigured")
        }
        DcbxEvent::MisconfigurationCleared => info!(port, "DCBX: PFC misconfiguration cleared"),
    }
}
