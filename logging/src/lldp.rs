//! What an LLDP agent and its DCBX report, in the same words from every program that runs one
//! (pfcd's ports, real or the lab's, and `pfc-lldp`). The caller adds what only it does with an
//! event (a notification, a state file); the words are these. A peer decides how often these
//! events come, so each kind is rate-limited per port ([`crate::limit`]).

use lldp::agent::AgentEvent;
use lldp::dcbx::DcbxEvent;
use lldp::neighbours::NeighbourEvent;
use tracing::{debug, info, warn, Level};

use crate::limit;

pub const NEIGHBOUR_INSERTED: &str = "LLDP neighbour inserted";
pub const NEIGHBOUR_UPDATED: &str = "LLDP neighbour updated";
pub const NEIGHBOUR_DELETED: &str = "LLDP neighbour deleted";
pub const NEIGHBOUR_AGED_OUT: &str = "LLDP neighbour aged out";
pub const TOO_MANY_NEIGHBOURS: &str = "too many LLDP neighbours: LLDPDU dropped";
pub const LLDPDU_DISCARDED: &str = "LLDPDU discarded";
pub const TLVS_DISCARDED: &str = "LLDP TLVs discarded";
pub const LENGTH_ERROR: &str = "our LLDPDU is too long for a frame: optional TLVs left out";
pub const PFC_CHANGED: &str = "DCBX: operational PFC Enable";
pub const QDT_CHANGED: &str = "DCBX: P802.1Qdt operational";
pub const ETS_CHANGED: &str = "DCBX: operational ETS changed";
pub const APP_CHANGED: &str = "DCBX: operational application priorities changed";
pub const MISCONFIGURED: &str = "DCBX: PFC misconfigured";
pub const MISCONFIGURATION_CLEARED: &str = "DCBX: PFC misconfiguration cleared";

/// The words and level of an agent event.
fn agent_kind(e: &AgentEvent) -> (&'static str, Level) {
    match e {
        AgentEvent::Neighbour(n) => match n {
            NeighbourEvent::Inserted { .. } => (NEIGHBOUR_INSERTED, Level::INFO),
            NeighbourEvent::Updated { .. } => (NEIGHBOUR_UPDATED, Level::DEBUG),
            NeighbourEvent::Deleted { .. } => (NEIGHBOUR_DELETED, Level::INFO),
            NeighbourEvent::AgedOut { .. } => (NEIGHBOUR_AGED_OUT, Level::INFO),
            NeighbourEvent::Dropped { .. } => (TOO_MANY_NEIGHBOURS, Level::WARN),
        },
        AgentEvent::FrameDiscarded { .. } => (LLDPDU_DISCARDED, Level::WARN),
        AgentEvent::TlvDiscarded { .. } => (TLVS_DISCARDED, Level::WARN),
        AgentEvent::LengthError { .. } => (LENGTH_ERROR, Level::WARN),
    }
}

/// Logs an event of `port`'s LLDP agent (802.1AB 9): neighbours and discards.
pub fn agent_event(port: &str, e: &AgentEvent) {
    let (kind, level) = agent_kind(e);
    if !limit::admit(port, kind, level) {
        return;
    }
    match e {
        AgentEvent::Neighbour(n) => match n {
            NeighbourEvent::Inserted { remote_index, msap } => info!(
                port,
                remote_index,
                chassis = ?msap.chassis_id,
                port_id = ?msap.port_id,
                "{kind}"
            ),
            NeighbourEvent::Updated { remote_index, .. } => debug!(port, remote_index, "{kind}"),
            NeighbourEvent::Deleted { remote_index, reason, .. } => {
                info!(port, remote_index, ?reason, "{kind}")
            }
            NeighbourEvent::AgedOut { remote_index, .. } => info!(port, remote_index, "{kind}"),
            NeighbourEvent::Dropped { msap } => warn!(port, chassis = ?msap.chassis_id, "{kind}"),
        },
        AgentEvent::FrameDiscarded { source_mac, error } => {
            warn!(port, source_mac = ?source_mac, error = %error, "{kind}")
        }
        AgentEvent::TlvDiscarded { source_mac, count, error } => {
            warn!(port, source_mac = %source_mac, count, first_error = %error, "{kind}")
        }
        AgentEvent::LengthError { left_out } => warn!(port, left_out, "{kind}"),
    }
}

/// The words and level of a DCBX event.
fn dcbx_kind(e: &DcbxEvent) -> (&'static str, Level) {
    match e {
        DcbxEvent::PfcChanged { .. } => (PFC_CHANGED, Level::INFO),
        DcbxEvent::QdtChanged { .. } => (QDT_CHANGED, Level::INFO),
        DcbxEvent::EtsChanged => (ETS_CHANGED, Level::INFO),
        DcbxEvent::AppChanged => (APP_CHANGED, Level::INFO),
        DcbxEvent::MisconfigurationRaised(_) => (MISCONFIGURED, Level::WARN),
        DcbxEvent::MisconfigurationCleared => (MISCONFIGURATION_CLEARED, Level::INFO),
    }
}

/// A PFC Enable vector as the YANG `pfc-enable-type` writes it: bit n is `pN`, `p0 p3`.
fn priorities(vector: u8) -> String {
    (0..8).filter(|n| vector & (1 << n) != 0).map(|n| format!("p{n}")).collect::<Vec<_>>().join(" ")
}

/// Logs an event of `port`'s DCBX (clause 38): operational values and misconfiguration.
pub fn dcbx_event(port: &str, e: &DcbxEvent) {
    let (kind, level) = dcbx_kind(e);
    if !limit::admit(port, kind, level) {
        return;
    }
    match e {
        // The fields are the YANG leaves' names (oper-pfc-enable, pfc-enable-source, reason,
        // headroom-measurement, ...), the values as the leaves write them.
        DcbxEvent::PfcChanged { from, to, source, reason } => info!(
            port,
            oper_pfc_enable = priorities(*to),
            oper_pfc_enable_before = priorities(*from),
            pfc_enable_source = source.as_str(),
            reason = reason.as_str(),
            "{kind}"
        ),
        DcbxEvent::QdtChanged { macsec, privacy, headroom } => info!(
            port,
            macsec,
            privacy,
            headroom_measurement = headroom.measurement,
            headroom_link_delay = headroom.link_delay,
            "{kind}"
        ),
        DcbxEvent::EtsChanged | DcbxEvent::AppChanged | DcbxEvent::MisconfigurationCleared => {
            info!(port, "{kind}")
        }
        DcbxEvent::MisconfigurationRaised(m) => warn!(port, misconfiguration = %m, "{kind}"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_pfc_enable_vector_reads_as_the_yang_bits() {
        assert_eq!(super::priorities(0b0001_1001), "p0 p3 p4");
        assert_eq!(super::priorities(0), "");
    }
}
