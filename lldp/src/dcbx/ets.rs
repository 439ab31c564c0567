//! ETS negotiation: asymmetric attribute passing (SPEC §5). A willing port uses its peer's ETS
//! Recommendation; otherwise, or without one, its own configuration. Nothing is compared, so
//! ETS is never misconfigured.

use super::{EtsAdmin, PeerDcbx, Source};
use crate::wire::EtsTables;

/// Why the ETS tables in force are the ones they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EtsReason {
    NotWilling,
    NoPeer,
    PeerSentNoRecommendation,
    /// Willing, and the peer recommends: its recommendation is in force.
    PeerRecommendation,
}

impl EtsReason {
    pub fn as_str(self) -> &'static str {
        match self {
            EtsReason::NotWilling => "not-willing",
            EtsReason::NoPeer => "no-peer",
            EtsReason::PeerSentNoRecommendation => "peer-sent-no-recommendation",
            EtsReason::PeerRecommendation => "peer-recommendation",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EtsOper {
    pub tables: EtsTables,
    pub source: Source,
    pub reason: EtsReason,
}

pub fn negotiate(admin: &EtsAdmin, peer: Option<&PeerDcbx>) -> EtsOper {
    let local = |reason| EtsOper { tables: admin.config.tables, source: Source::Local, reason };
    if !admin.config.willing {
        return local(EtsReason::NotWilling);
    }
    let Some(peer) = peer else { return local(EtsReason::NoPeer) };
    match &peer.ets_recommendation {
        Some(reco) => EtsOper {
            tables: reco.tables,
            source: Source::Peer,
            reason: EtsReason::PeerRecommendation,
        },
        None => local(EtsReason::PeerSentNoRecommendation),
    }
}
