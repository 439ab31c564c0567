//! DCBX (IEEE 802.1Q clause 38, with the P802.1Qdt additions): from a port's administrative
//! settings and what its one peer advertises, the operational values the daemon applies —
//! PFC Enable, MACsec or Privacy for PFC frames, which headroom methods run, the peer's local
//! delay — and, for each, whose settings are in force and why.
//!
//! - [`pfc`]: symmetric passing with the MAC-address tie-break, misconfiguration (SPEC §4.4, §5).
//! - [`ets`]: asymmetric passing (a willing port takes the peer's recommendation).
//! - [`app`]: Application Priority merge.
//!
//! [`negotiate`] is a pure function of (admin, our port MAC, the neighbour table); [`changes`]
//! turns two successive results into events. A port with no neighbour, or with more than one,
//! runs on its administrative values; a neighbour that ages out or shuts down therefore brings
//! the port back to them at once.

mod admin;
pub mod app;
pub mod ets;
mod peer;
pub mod pfc;

use pfc_wire::MacAddr;

pub use admin::{AppAdmin, DcbxAdmin, EtsAdmin, PfcAdmin};
pub use app::AppOper;
pub use ets::{EtsOper, EtsReason};
pub use peer::{Peer, PeerDcbx};
pub use pfc::{HeadroomMethods, PfcMisconfiguration, PfcOper, PfcReason, Source};

use crate::neighbours::Neighbours;

/// One port's negotiated DCBX state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DcbxState {
    /// The peer as DCBX sees it.
    pub peer: Peer,
    pub pfc: PfcOper,
    /// `None` when ETS is not configured on this port.
    pub ets: Option<EtsOper>,
    /// `None` when Application Priority is not configured on this port.
    pub app: Option<AppOper>,
}

impl DcbxState {
    /// True when any feature is misconfigured.
    pub fn misconfigured(&self) -> bool {
        self.pfc.misconfiguration.is_some()
    }
}

/// Negotiates every feature of one port.
pub fn negotiate(admin: &DcbxAdmin, port_mac: MacAddr, neighbours: &Neighbours) -> DcbxState {
    let peer = Peer::of(neighbours);
    let pfc = match &peer {
        Peer::None => PfcOper::local_only(&admin.pfc, PfcReason::NoPeer),
        Peer::Multiple(_) => PfcOper::local_only(&admin.pfc, PfcReason::MultiplePeers),
        Peer::One(p) => pfc::negotiate(&admin.pfc, port_mac, p),
    };
    let ets = admin.ets.as_ref().map(|e| ets::negotiate(e, peer.dcbx()));
    let app = admin.app.as_ref().map(|a| app::negotiate(a, peer.dcbx()));
    DcbxState { peer, pfc, ets, app }
}

/// A change of a port's operational DCBX state, for logs and notifications.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DcbxEvent {
    /// The operational PFC Enable, or whose value it is, changed.
    PfcChanged {
        from: u8,
        to: u8,
        source: Source,
        reason: PfcReason,
    },
    /// MACsec / Privacy for PFC frames or the headroom methods changed.
    QdtChanged {
        macsec: bool,
        privacy: bool,
        headroom: HeadroomMethods,
    },
    EtsChanged,
    AppChanged,
    MisconfigurationRaised(PfcMisconfiguration),
    MisconfigurationCleared,
}

/// The events that lead from `old` to `new`.
pub fn changes(old: &DcbxState, new: &DcbxState) -> Vec<DcbxEvent> {
    let mut events = Vec::new();
    let (o, n) = (&old.pfc, &new.pfc);
    if (o.pfc_enable, o.source, o.reason) != (n.pfc_enable, n.source, n.reason) {
        events.push(DcbxEvent::PfcChanged {
            from: o.pfc_enable,
            to: n.pfc_enable,
            source: n.source,
            reason: n.reason,
        });
    }
    if (o.macsec, o.privacy, o.headroom) != (n.macsec, n.privacy, n.headroom) {
        events.push(DcbxEvent::QdtChanged {
            macsec: n.macsec,
            privacy: n.privacy,
            headroom: n.headroom,
        });
    }
    if old.ets != new.ets {
        events.push(DcbxEvent::EtsChanged);
    }
    if old.app != new.app {
        events.push(DcbxEvent::AppChanged);
    }
    match (o.misconfiguration, n.misconfiguration) {
        (_, Some(m)) if o.misconfiguration != Some(m) => {
            events.push(DcbxEvent::MisconfigurationRaised(m))
        }
        (Some(_), None) => events.push(DcbxEvent::MisconfigurationCleared),
        _ => {}
    }
    events
}

#[cfg(test)]
mod tests;
