//! The allowance in force on a lab port: dataplane's calculator (36.8.1) over the simulated
//! link's stations, and the measurement protocol (36.9) simulated by `MeasurePair` over the
//! same link, give the results that `ports::headroom` selects from (12.23).

use std::sync::Arc;
use std::time::SystemTime;

use dataplane::headroom::allowance::Allowance;
use dataplane::headroom::{calculate, measured_headroom, WorstCase};
use dataplane::sim::{MeasurePair, TwoStationConfig};
use tracing::{info, warn};

use crate::ports::headroom::{select_allowance, ReceiveBuffer, Results};
use crate::ports::intent::PortIntent;

/// Runs what `intent`'s method needs and not yet run, then selects the allowance (at most what
/// `receive_buffer` holds).
pub fn allowance_for(
    name: &str,
    intent: &PortIntent,
    agreed: lldp::dcbx::HeadroomMethods,
    stations: &TwoStationConfig,
    results: &mut Results,
    receive_buffer: ReceiveBuffer,
) -> Allowance {
    use dataplane::headroom::allowance::AutomaticCalculation as A;
    let automatic = intent.method.in_force(agreed).automatic();
    if matches!(automatic, A::LinkDelay | A::Both) && results.calculation_bits.is_none() {
        let inputs = stations.headroom_inputs();
        match inputs.and_then(|i| calculate(&i).map(|h| (h, i))) {
            Ok((h, i)) => {
                results.calculation_bits = Some(h.bits);
                results.calculation_lines = Some(Arc::new(h.breakdown));
                results.calculation_peer_tlv =
                    Some(matches!(i.peer, dataplane::headroom::PeerDelay::LocalDelayTlv(_)));
            }
            Err(e) => warn!(port = name, error = %e, "headroom calculation failed"),
        }
    }
    if matches!(automatic, A::Measurement | A::Both) && results.measurement_bits.is_none() {
        let wd = WorstCase { max_frame_octets: stations.max_frame_octets_with_fcs() };
        let measured = match MeasurePair::measure_at_b(stations) {
            Err(e) => Err(e.to_string()),
            Ok(outcome) => {
                results.record(&outcome.results, SystemTime::now());
                results.counters = results.counters.sum(&outcome.counters);
                match outcome.round_trip_quanta {
                    None => Err("the protocol gave no result: the peer sent no response".into()),
                    Some(quanta) => measured_headroom(stations.speed, u64::from(quanta), &wd)
                        .map(|h| (quanta, h))
                        .map_err(|e| e.to_string()),
                }
            }
        };
        match measured {
            Ok((quanta, h)) => {
                info!(
                    port = name,
                    round_trip_quanta = quanta,
                    headroom_bits = h.bits,
                    "headroom measured"
                );
                results.round_trip_quanta = Some(quanta);
                results.measurement_bits = Some(h.bits);
                results.measurement_lines = Some(Arc::new(h.breakdown));
            }
            Err(e) => warn!(port = name, error = %e, "headroom measurement failed"),
        }
    }
    select_allowance(intent, automatic, results, receive_buffer)
}
