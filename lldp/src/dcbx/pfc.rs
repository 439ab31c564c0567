//! PFC negotiation: symmetric attribute passing with the MAC-address tie-break (SPEC §5), and
//! the P802.1Qdt bits (SPEC §4.4).
//!
//! ```text
//! local willing | peer willing | PFC Enable in force        | reason
//! no            | no           | ours                       | NeitherWilling (misconfigured if they differ)
//! no            | yes          | ours (the peer adopts it)  | PeerAdoptsOurs
//! yes           | no           | the peer's                 | PeerNotWilling
//! yes           | yes          | the peer's if our MAC < its source address, else ours
//!                                                           | BothWillingOurMacLower / ...Higher
//! ```
//! MBC, PFC cap and the four new bits are never adopted: each end states its own facts, and
//! the new features run only when both ends state them.

use pfc_wire::MacAddr;

use super::{PeerDcbx, PfcAdmin};
use crate::wire::TimeInterval;

/// Whose PFC Enable is in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Our administrative value.
    Local,
    /// The peer's advertised value.
    Peer,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Local => "local",
            Source::Peer => "peer",
        }
    }
}

/// Why the PFC Enable in force is the one it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PfcReason {
    NoPeer,
    /// Several neighbours on the port: DCBX is point to point.
    MultiplePeers,
    /// The peer sent no usable PFC Configuration TLV.
    PeerSentNoPfcTlv,
    NeitherWilling,
    /// We are not willing and the peer is: it adopts ours.
    PeerAdoptsOurs,
    /// We are willing and the peer is not: we adopt its value.
    PeerNotWilling,
    /// Both willing, our MAC address is numerically lower: we adopt the peer's value.
    BothWillingOurMacLower,
    /// Both willing, our MAC address is higher: the peer adopts ours.
    BothWillingOurMacHigher,
    /// Both willing and the addresses are equal: neither can yield, both keep their own.
    BothWillingSameMac,
}

impl PfcReason {
    /// A kebab-case name for state and logs.
    pub fn as_str(self) -> &'static str {
        match self {
            PfcReason::NoPeer => "no-peer",
            PfcReason::MultiplePeers => "multiple-peers",
            PfcReason::PeerSentNoPfcTlv => "peer-sent-no-pfc-tlv",
            PfcReason::NeitherWilling => "neither-willing",
            PfcReason::PeerAdoptsOurs => "peer-adopts-ours",
            PfcReason::PeerNotWilling => "peer-not-willing",
            PfcReason::BothWillingOurMacLower => "both-willing-our-mac-lower",
            PfcReason::BothWillingOurMacHigher => "both-willing-our-mac-higher",
            PfcReason::BothWillingSameMac => "both-willing-same-mac",
        }
    }
}

/// Why PFC is misconfigured (SPEC §5): reported, never guessed around.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PfcMisconfiguration {
    /// Neither end adopted the other's PFC Enable and they differ.
    EnableMismatch { local: u8, peer: u8 },
    /// We adopted a PFC Enable with more priorities than our PFC cap.
    PeerExceedsPfcCap { peer_enabled: u8, pfc_cap: u8 },
}

impl std::fmt::Display for PfcMisconfiguration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PfcMisconfiguration::EnableMismatch { local, peer } => write!(
                f,
                "neither end is willing and the PFC Enable vectors differ (ours {local:#04x}, the \
                 peer's {peer:#04x}): set the same priorities on both ends or make one willing"
            ),
            PfcMisconfiguration::PeerExceedsPfcCap { peer_enabled, pfc_cap } => write!(
                f,
                "the peer enables {peer_enabled} priorities but this port supports PFC on at most \
                 {pfc_cap}: enable fewer priorities on the peer"
            ),
        }
    }
}

/// Which headroom methods run (SPEC §4.4): both may.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HeadroomMethods {
    /// Both ends set RTM HDRM: the measurement protocol runs (and wins when both run).
    pub measurement: bool,
    /// Both ends set PTP HDRM: the link-delay method is used.
    pub link_delay: bool,
}

/// The outcome of PFC negotiation on one port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PfcOper {
    /// Operational PFC Enable: bit n = priority n.
    pub pfc_enable: u8,
    pub source: Source,
    pub reason: PfcReason,
    pub misconfiguration: Option<PfcMisconfiguration>,
    /// PFC frames are MACsec protected: both ends MACsec capable and PFC enabled somewhere.
    pub macsec: bool,
    /// PFC frames use the Express Privacy Channel: both Privacy capable, PFC enabled.
    pub privacy: bool,
    pub headroom: HeadroomMethods,
    /// The peer's PFC Local Delay TLV, when it sent one.
    pub peer_local_delay: Option<TimeInterval>,
    /// The peer's MBC bit (true: it cannot bypass MACsec), when it sent a PFC TLV.
    pub peer_mbc: Option<bool>,
}

impl PfcOper {
    /// No peer to negotiate with: our own values, none of the new features.
    pub fn local_only(admin: &PfcAdmin, reason: PfcReason) -> Self {
        PfcOper {
            pfc_enable: admin.pfc_enable,
            source: Source::Local,
            reason,
            misconfiguration: None,
            macsec: false,
            privacy: false,
            headroom: HeadroomMethods::default(),
            peer_local_delay: None,
            peer_mbc: None,
        }
    }
}

/// Negotiates PFC with `peer` (`None`: no single peer, `reason` says why).
pub fn negotiate(admin: &PfcAdmin, port_mac: MacAddr, peer: &PeerDcbx) -> PfcOper {
    let admin = admin.as_advertised();
    let Some(theirs) = &peer.pfc else {
        let mut oper = PfcOper::local_only(&admin, PfcReason::PeerSentNoPfcTlv);
        oper.peer_local_delay = peer.local_delay.map(|d| d.delay);
        return oper;
    };
    let (source, reason) = match (admin.willing, theirs.willing) {
        (false, false) => (Source::Local, PfcReason::NeitherWilling),
        (false, true) => (Source::Local, PfcReason::PeerAdoptsOurs),
        (true, false) => (Source::Peer, PfcReason::PeerNotWilling),
        (true, true) => match port_mac.as_u64().cmp(&peer.source_mac.as_u64()) {
            std::cmp::Ordering::Less => (Source::Peer, PfcReason::BothWillingOurMacLower),
            std::cmp::Ordering::Greater => (Source::Local, PfcReason::BothWillingOurMacHigher),
            std::cmp::Ordering::Equal => (Source::Local, PfcReason::BothWillingSameMac),
        },
    };
    let pfc_enable = match source {
        Source::Local => admin.pfc_enable,
        Source::Peer => theirs.pfc_enable,
    };
    let neither_adopted =
        matches!(reason, PfcReason::NeitherWilling | PfcReason::BothWillingSameMac);
    let peer_enabled = theirs.pfc_enable.count_ones() as u8;
    let misconfiguration = if neither_adopted && admin.pfc_enable != theirs.pfc_enable {
        Some(PfcMisconfiguration::EnableMismatch {
            local: admin.pfc_enable,
            peer: theirs.pfc_enable,
        })
    } else if source == Source::Peer && peer_enabled > admin.pfc_cap {
        Some(PfcMisconfiguration::PeerExceedsPfcCap { peer_enabled, pfc_cap: admin.pfc_cap })
    } else {
        None
    };
    let enabled = pfc_enable != 0;
    PfcOper {
        pfc_enable,
        source,
        reason,
        misconfiguration,
        macsec: enabled && admin.macsec_capable && theirs.macsec_capable,
        privacy: enabled && admin.privacy_capable && theirs.privacy_capable,
        headroom: HeadroomMethods {
            measurement: admin.rtm_hdrm && theirs.rtm_hdrm,
            link_delay: admin.ptp_hdrm && theirs.ptp_hdrm,
        },
        peer_local_delay: peer.local_delay.map(|d| d.delay),
        peer_mbc: Some(theirs.mbc),
    }
}
