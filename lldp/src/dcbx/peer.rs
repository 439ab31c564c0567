//! What DCBX takes from the one neighbour on a port.

use pfc_wire::MacAddr;

use crate::neighbours::{Neighbours, RemoteSystem};
use crate::wire::{
    AppPriority, EtsConfig, EtsRecommendation, Oui, PfcConfig, PfcLocalDelay, Tlv,
    PFC_CONFIG_SUBTYPE,
};

/// The DCBX TLVs of the peer's last LLDPDU (the first of each kind; malformed ones ignored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerDcbx {
    /// Source address of the peer's LLDPDUs: the PFC willing tie-break compares it with ours.
    pub source_mac: MacAddr,
    pub pfc: Option<PfcConfig>,
    /// The peer sent a PFC Configuration TLV we had to discard (e.g. 5 octets long).
    pub pfc_malformed: bool,
    pub ets_config: Option<EtsConfig>,
    pub ets_recommendation: Option<EtsRecommendation>,
    pub app: Option<AppPriority>,
    pub local_delay: Option<PfcLocalDelay>,
}

impl PeerDcbx {
    pub fn from_remote(r: &RemoteSystem) -> Self {
        let pdu = &r.lldpdu;
        let pfc_malformed = pdu.tlvs.iter().any(|t| match t {
            Tlv::Malformed { raw, .. } => {
                raw.info.get(..3) == Some(&Oui::IEEE_802_1.0[..])
                    && raw.info.get(3) == Some(&PFC_CONFIG_SUBTYPE)
            }
            _ => false,
        });
        PeerDcbx {
            source_mac: r.source_mac,
            pfc: pdu.pfc_config().cloned(),
            pfc_malformed,
            ets_config: pdu.ets_config().copied(),
            ets_recommendation: pdu.ets_recommendation().copied(),
            app: pdu.app_priority().cloned(),
            local_delay: pdu.pfc_local_delay().copied(),
        }
    }
}

/// Whom DCBX negotiates with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Peer {
    /// No neighbour on the port.
    None,
    /// More than one neighbour: DCBX is point to point, so none of them is used.
    Multiple(usize),
    One(PeerDcbx),
}

impl Peer {
    pub fn of(neighbours: &Neighbours) -> Self {
        match neighbours.len() {
            0 => Peer::None,
            1 => neighbours.single().map_or(Peer::None, |r| Peer::One(PeerDcbx::from_remote(r))),
            n => Peer::Multiple(n),
        }
    }

    pub fn dcbx(&self) -> Option<&PeerDcbx> {
        match self {
            Peer::One(p) => Some(p),
            _ => None,
        }
    }
}
