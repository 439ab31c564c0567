//! The allowance in force on a simulated port: dataplane's calculator (36.8.1) and measurement
//! protocol (36.9, simulated by `MeasurePair` over the port's link) give the results, and
//! `allowance::select` decides between them and the configuration (12.23).

use dataplane::headroom::allowance::{self, Allowance, AllowanceConfig, CalculatedResults};
use std::sync::Arc;

use dataplane::headroom::{calculate, measured_headroom, Breakdown, WorstCase};
use dataplane::sim::TwoStationConfig;
use tracing::{info, warn};

use super::intent::PortIntent;
use crate::scenario::{max_frame_octets, measure};

/// Results kept between configuration changes: the measurement runs once when measured headroom
/// comes into force (the measure-headroom RPC, to come, will re-run it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Results {
    pub calculation_bits: Option<u64>,
    /// The calculation's items (36.1.1 a) … k)), shared with every snapshot.
    pub calculation_lines: Option<Arc<Breakdown>>,
    pub round_trip_quanta: Option<u32>,
    pub measurement_bits: Option<u64>,
    pub measurement_lines: Option<Arc<Breakdown>>,
}

/// Runs what `intent`'s method needs and not yet run, then selects the allowance.
pub fn allowance_for(
    name: &str,
    intent: &PortIntent,
    agreed: lldp::dcbx::HeadroomMethods,
    stations: &TwoStationConfig,
    results: &mut Results,
) -> Allowance {
    use dataplane::headroom::allowance::AutomaticCalculation as A;
    let automatic = intent.method.in_force(agreed).automatic();
    if matches!(automatic, A::LinkDelay | A::Both) && results.calculation_bits.is_none() {
        match stations.headroom_inputs().and_then(|i| calculate(&i)) {
            Ok(h) => {
                results.calculation_bits = Some(h.bits);
                results.calculation_lines = Some(Arc::new(h.breakdown));
            }
            Err(e) => warn!(port = name, error = %e, "headroom calculation failed"),
        }
    }
    if matches!(automatic, A::Measurement | A::Both) && results.measurement_bits.is_none() {
        let wd = WorstCase { max_frame_octets: max_frame_octets(stations) };
        let measured = measure(stations).and_then(|quanta| {
            Ok((quanta, measured_headroom(stations.speed, u64::from(quanta), &wd)?))
        });
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
    let config = AllowanceConfig {
        link_delay_allowance_bits: intent.link_delay_allowance_bits,
        minimum_bits: intent.minimum_bits,
        maximum_bits: intent.maximum_bits.unwrap_or(u64::MAX),
        initial_bits: intent.initial_bits,
        headroom_allowance_bits: intent.headroom_allowance_bits,
    };
    let calculated = CalculatedResults {
        link_delay_bits: results.calculation_bits,
        measurement_bits: results.measurement_bits,
    };
    // prepare refused minimum above maximum (YANG does too), the only error select has; should
    // one slip through, PFCLinkDelayAllowance stands.
    allowance::select(&config, automatic, &calculated).unwrap_or(Allowance {
        bits: intent.link_delay_allowance_bits,
        source: allowance::AllowanceSource::LinkDelayAllowance,
        calculated: None,
    })
}
