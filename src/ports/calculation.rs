//! Calculated headroom (36.8, 36.1.1) on a real interface, from the port's configuration:
//! `headroom/calculation-inputs` (the cable's length and medium, or the one-way delay; our own
//! delays; the frame sizes), YANG defaults filled in by the northbound side, at the port's
//! speed. The peer's delays are its PFC Local Delay TLV when DCBX has one (and
//! `use-peer-local-delay` allows it), else the configured ones. A commit that changes the
//! inputs, or a new TLV from the peer, makes the calculation run again.

use std::sync::Arc;

use dataplane::headroom::{calculate, HeadroomInputs, PeerDelay};
use dataplane::time::{LinkSpeed, FCS_OCTETS};
use tracing::{info, warn};

use crate::ports::headroom::Results;
use crate::ports::intent::CalculationInputs;
use crate::ports::lldp_view::LldpView;

/// The largest Delay of a peer's PFC Local Delay TLV taken, either sign, as an IEEE 1588
/// TimeInterval (nanoseconds × 2^16): 1 ms. A station's own delays as a PFC Receiver (items
/// g), h) and i) of 36.1.1) are a few microseconds (10GBASE-T's stack 3.8 µs, a 9216-octet
/// frame 7.4 µs at 10 Gb/s, 614.4 ns to pause); a thousandth of a second is beyond any real
/// one, and a Delay beyond it is a fault or an attack, not a link.
pub const PEER_LOCAL_DELAY_BOUND: i64 = 1_000_000 * 65_536;

/// A port's calculation and the inputs its results in force were calculated with.
#[derive(Debug, Clone)]
pub struct Calculation {
    speed: LinkSpeed,
    /// The largest frame the bridge forwards, octets with FCS.
    forwarded_frame_octets: u64,
    /// The inputs of the results in force.
    used: Option<HeadroomInputs>,
    /// Whether those inputs gave no headroom (not tried again until they change).
    failed: bool,
    /// Peer Local Delay TLVs refused as beyond [`PEER_LOCAL_DELAY_BOUND`], each new Delay
    /// counted once.
    pub peer_delays_refused: u64,
    /// The Delay last refused, while the peer still sends it.
    refused: Option<i64>,
}

impl Calculation {
    /// `max_frame`: the largest frame the bridge forwards, octets without FCS (the settings').
    pub fn new(speed: LinkSpeed, max_frame: u16) -> Self {
        Calculation {
            speed,
            forwarded_frame_octets: u64::from(max_frame) + FCS_OCTETS,
            used: None,
            failed: false,
            peer_delays_refused: 0,
            refused: None,
        }
    }

    /// The peer's Delay if it is within [`PEER_LOCAL_DELAY_BOUND`]; beyond it, refused
    /// (counted and logged once per Delay the peer sends) and `None`: the calculation then
    /// takes the configured peer delays, as with no TLV.
    pub fn sane_peer_delay(&mut self, port: &str, delay: Option<i64>) -> Option<i64> {
        match delay {
            Some(d) if d.unsigned_abs() > PEER_LOCAL_DELAY_BOUND.unsigned_abs() => {
                if self.refused != Some(d) {
                    self.peer_delays_refused += 1;
                    self.refused = Some(d);
                    warn!(
                        port,
                        delay = d,
                        bound = PEER_LOCAL_DELAY_BOUND,
                        "the peer's PFC Local Delay TLV is beyond 1 ms: refused, the configured \
                         peer delays (peer-interface-rtt, peer-pause-entry) are used instead"
                    );
                }
                None
            }
            d => {
                self.refused = None;
                d
            }
        }
    }

    /// The Delay of the peer's PFC Local Delay TLV, if it sends one.
    pub fn peer_delay(view: &LldpView) -> Option<i64> {
        view.ours.state().peer.dcbx().and_then(|d| d.local_delay).map(|d| d.delay.0)
    }

    /// The calculation's inputs from the configuration and the peer's TLV.
    pub fn inputs(&self, config: &CalculationInputs, peer: Option<i64>) -> HeadroomInputs {
        config.headroom_inputs(self.speed, peer, self.forwarded_frame_octets)
    }

    /// Whether the results in force were calculated with other inputs than `inputs`.
    pub fn stale(&self, inputs: &HeadroomInputs) -> bool {
        self.used.is_some_and(|used| used != *inputs)
    }

    /// Calculates into `results` when they have no calculation (and `inputs` did not fail
    /// before) or it is stale. A calculation
    /// that fails leaves none: the old inputs' result no longer describes the link.
    pub fn run(&mut self, port: &str, inputs: HeadroomInputs, results: &mut Results) {
        let same = self.used == Some(inputs);
        if same && (self.failed || results.calculation_bits.is_some()) {
            return;
        }
        if inputs.max_frame_octets < self.forwarded_frame_octets {
            // Items d) and i) count the largest frame in progress: a larger one forwarded
            // makes the calculated headroom short.
            warn!(
                port,
                max_frame = inputs.max_frame_octets,
                forwarded = self.forwarded_frame_octets,
                "calculation-inputs max-frame is below the largest frame the bridge forwards \
                 (interfaces.max-frame with FCS): the calculated headroom may be short"
            );
        }
        self.used = Some(inputs);
        self.failed = false;
        match calculate(&inputs) {
            Ok(h) => {
                info!(
                    port,
                    bits = h.bits,
                    link = %inputs.link_delay,
                    peer = ?inputs.peer,
                    "headroom calculated from calculation-inputs"
                );
                results.calculation_bits = Some(h.bits);
                results.calculation_lines = Some(Arc::new(h.breakdown));
                results.calculation_peer_tlv =
                    Some(matches!(inputs.peer, PeerDelay::LocalDelayTlv(_)));
            }
            Err(e) => {
                warn!(port, error = %e, "headroom calculation failed: check calculation-inputs");
                self.failed = true;
                results.calculation_bits = None;
                results.calculation_lines = None;
                results.calculation_peer_tlv = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dataplane::headroom::{LinkDelay, Medium};

    #[test]
    fn annex_n_s_link_gives_annex_n_s_headroom() {
        // The YANG defaults: 100 m of Cat6 at 10 Gb/s, 2000-octet frames with FCS, the peer
        // like us: N.6.
        let config = CalculationInputs::default();
        let mut calc = Calculation::new(LinkSpeed::G10, 1996);
        let mut results = Results::default();
        let inputs = calc.inputs(&config, None);
        calc.run("p", inputs, &mut results);
        assert_eq!(results.calculation_bits, Some(126_224));
        assert!(!calc.stale(&inputs));
        // The peer's TLV, once it comes, is used instead.
        let with_tlv = calc.inputs(&config, Some(0));
        assert!(calc.stale(&with_tlv));
        calc.run("p", with_tlv, &mut results);
        assert!(results.calculation_bits.is_some_and(|b| b < 126_224), "{results:?}");
    }

    #[test]
    fn a_peer_local_delay_beyond_the_bound_is_refused_and_counted_once() {
        let mut calc = Calculation::new(LinkSpeed::G10, 1996);
        assert_eq!(calc.sane_peer_delay("p", Some(65_536)), Some(65_536));
        assert_eq!(calc.sane_peer_delay("p", Some(-65_536)), Some(-65_536));
        assert_eq!(calc.sane_peer_delay("p", None), None);
        assert_eq!(calc.peer_delays_refused, 0);
        for _ in 0..3 {
            assert_eq!(calc.sane_peer_delay("p", Some(i64::MAX)), None);
        }
        assert_eq!(calc.peer_delays_refused, 1, "one Delay, however often sent");
        assert_eq!(calc.sane_peer_delay("p", Some(i64::MIN)), None);
        assert_eq!(calc.peer_delays_refused, 2);
        // What the calculation then gives: the configured peer's, Annex N's.
        let config = CalculationInputs::default();
        let mut results = Results::default();
        let peer = calc.sane_peer_delay("p", Some(i64::MAX));
        calc.run("p", calc.inputs(&config, peer), &mut results);
        assert_eq!(results.calculation_bits, Some(126_224));
    }

    #[test]
    fn a_new_cable_is_calculated_anew() {
        let mut calc = Calculation::new(LinkSpeed::G10, 1996);
        let mut results = Results::default();
        let config = CalculationInputs::default();
        calc.run("p", calc.inputs(&config, None), &mut results);
        let longer = CalculationInputs {
            link_delay: LinkDelay::Cable { metres: 1_000, medium: Medium::Fibre },
            ..config
        };
        let inputs = calc.inputs(&longer, None);
        assert!(calc.stale(&inputs));
        calc.run("p", inputs, &mut results);
        let expected = calculate(&HeadroomInputs::for_link(LinkSpeed::G10, longer.link_delay));
        assert_eq!(results.calculation_bits, expected.ok().map(|h| h.bits));
        // Inputs that give no headroom leave no result standing.
        let nowhere = CalculationInputs {
            link_delay: LinkDelay::Cable {
                metres: 1,
                medium: Medium::Other { metres_per_second: 0 },
            },
            ..config
        };
        calc.run("p", calc.inputs(&nowhere, None), &mut results);
        assert_eq!(results.calculation_bits, None);
    }
}
