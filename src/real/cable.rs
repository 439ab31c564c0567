//! Calculated headroom (36.8, 36.1.1) on a real interface. Linux tells neither the cable's
//! medium nor its length, so they come from pfcd's settings (`[interfaces.cables]`); our own
//! delays are Annex N's for the speed and medium (what our PFC Local Delay TLV advertises), and
//! the peer's are its PFC Local Delay TLV when DCBX has one, else the same as ours (Annex N's
//! ID_s1 = ID_s2). A new TLV from the peer makes the calculation run again.

use std::sync::Arc;

use dataplane::headroom::{calculate, HeadroomInputs, LinkDelay, PeerDelay};
use dataplane::time::{LinkSpeed, FCS_OCTETS};
use tracing::{info, warn};

use crate::ports::headroom::Results;
use crate::ports::lldp_view::LldpView;
use crate::settings::Cable;

/// A port's cable and what its last calculation took from the peer.
#[derive(Debug, Clone)]
pub struct CableCalculation {
    cable: Cable,
    speed: LinkSpeed,
    /// The largest frame the port carries, octets without FCS.
    max_frame: u16,
    /// The peer's Local Delay (TLV value) the results in force were calculated with.
    used: Option<Option<i64>>,
}

impl CableCalculation {
    pub fn new(cable: Cable, speed: LinkSpeed, max_frame: u16) -> Self {
        CableCalculation { cable, speed, max_frame, used: None }
    }

    /// The Delay of the peer's PFC Local Delay TLV, if it sends one.
    pub fn peer_delay(view: &LldpView) -> Option<i64> {
        view.ours.state().peer.dcbx().and_then(|d| d.local_delay).map(|d| d.delay.0)
    }

    /// Whether the results in force were calculated with another peer delay than `peer`.
    pub fn stale(&self, peer: Option<i64>) -> bool {
        self.used.is_some_and(|used| used != peer)
    }

    /// Calculates into `results` when they have no calculation or it is stale.
    pub fn run(&mut self, port: &str, peer: Option<i64>, results: &mut Results) {
        if results.calculation_bits.is_some() && !self.stale(peer) {
            return;
        }
        match calculate(&self.inputs(peer)) {
            Ok(h) => {
                info!(
                    port,
                    bits = h.bits,
                    metres = self.cable.metres,
                    peer_local_delay = ?peer,
                    "headroom calculated for the configured cable"
                );
                results.calculation_bits = Some(h.bits);
                results.calculation_lines = Some(Arc::new(h.breakdown));
                self.used = Some(peer);
            }
            Err(e) => warn!(port, error = %e, "headroom calculation failed"),
        }
    }

    fn inputs(&self, peer: Option<i64>) -> HeadroomInputs {
        let medium = self.cable.medium();
        let link = LinkDelay::Cable { metres: self.cable.metres, medium };
        HeadroomInputs {
            peer: peer.map_or(PeerDelay::for_link(self.speed, medium), PeerDelay::LocalDelayTlv),
            max_frame_octets: u64::from(self.max_frame) + FCS_OCTETS,
            ..HeadroomInputs::for_link(self.speed, link)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::CableMedium;

    #[test]
    fn annex_n_s_link_gives_annex_n_s_headroom() {
        // 100 m of Cat6 at 10 Gb/s, 2000-octet frames with FCS, the peer like us: N.6.
        let cable = Cable { medium: CableMedium::Copper, metres: 100 };
        let mut calc = CableCalculation::new(cable, LinkSpeed::G10, 1996);
        let mut results = Results::default();
        calc.run("p", None, &mut results);
        assert_eq!(results.calculation_bits, Some(126_224));
        assert!(!calc.stale(None));
        // The peer's TLV, once it comes, is used instead.
        assert!(calc.stale(Some(0)));
        calc.run("p", Some(0), &mut results);
        assert!(results.calculation_bits.is_some_and(|b| b < 126_224), "{results:?}");
    }
}
