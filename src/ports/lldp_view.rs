//! What LLDP/DCBX on a port tells the rest of the port task, whichever agent runs it (the lab's
//! two agents over a simulated link, `crate::lab::link_lldp`; ours on a real interface,
//! `crate::ports::interface_lldp`): the view the northbound side reads, what one step did, and the DCBX
//! settings a configuration asks for.

use std::time::{Duration, Instant};

use lldp::agent::AgentEvent;
use lldp::dcbx::{DcbxAdmin, DcbxEvent, PfcAdmin, PfcOper};
use lldp::port::DcbxPort;
use lldp::wire::TimeInterval;

use super::intent::PortIntent;

/// What one side's agent looks like now, for state and the CLI.
#[derive(Debug, Clone)]
pub struct LldpView {
    /// Our port's agent and its DCBX outcome (neighbours, counters, operational values).
    pub ours: DcbxPort,
    /// The peer's operational PFC outcome and what it advertises.
    pub peer_oper: PfcOper,
    pub peer_admin: PfcAdmin,
    /// Whether our agent runs (the port has an LLDP entry).
    pub enabled: bool,
    /// The agent's clock at the view, and when the view was taken: the agent's clock runs on
    /// the wall clock, so a reader finds the agent's time at any later instant
    /// ([`LldpView::agent_time`]) for neighbours' ages and remaining TTL.
    pub now: Duration,
    pub taken: Instant,
}

impl LldpView {
    /// The agent's clock now.
    pub fn agent_time(&self) -> Duration {
        self.now + self.taken.elapsed()
    }

    /// The headroom methods both ends agreed (none without our agent).
    pub fn agreed_headroom(&self) -> lldp::dcbx::HeadroomMethods {
        if self.enabled {
            self.ours.state().pfc.headroom
        } else {
            Default::default()
        }
    }
}

/// What a step reports.
#[derive(Debug, Default)]
pub struct Step {
    /// Our agent's and our DCBX's events.
    pub agent_events: Vec<AgentEvent>,
    pub dcbx_events: Vec<DcbxEvent>,
    /// Anything worth a new view (a frame went either way, or an event).
    pub changed: bool,
}

/// The DCBX settings `intent` asks for: PFC Enable from the pfc container, the TLV bits, ETS
/// and APP from the LLDP module.
pub fn dcbx_admin(intent: &PortIntent, local_delay: TimeInterval) -> DcbxAdmin {
    let d = &intent.dcbx;
    DcbxAdmin {
        pfc: PfcAdmin {
            willing: d.willing,
            mbc: d.mbc,
            macsec_capable: d.macsec_capable,
            privacy_capable: d.privacy_capable,
            pfc_cap: d.pfc_cap,
            pfc_enable: intent.pfc_enable,
            rtm_hdrm: d.rtm_hdrm,
            ptp_hdrm: d.ptp_hdrm,
            legacy_tlv: d.legacy_tlv,
        },
        ets: d.ets.clone(),
        app: d.app.clone(),
        local_delay: d.local_delay_tx.then_some(local_delay),
    }
}
