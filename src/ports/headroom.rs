//! The allowance in force on a simulated port: dataplane's calculator (36.8.1) and measurement
//! protocol (36.9, simulated by `MeasurePair` over the port's link) give the results, and
//! `allowance::select` decides between them and the configuration (12.23).

use dataplane::headroom::allowance::{self, Allowance, AllowanceConfig, CalculatedResults};
use std::sync::Arc;

use dataplane::headroom::{calculate, measured_headroom, Breakdown, WorstCase};
use dataplane::sim::TwoStationConfig;
use tracing::{info, warn};

use super::intent::PortIntent;
use dataplane::headroom::measure::MeasureCounters;
use dataplane::sim::{MeasurePair, StationOutcome};

/// Adds a run's results to the history and its counters to the sums.
fn record(results: &mut Results, outcome: &StationOutcome) {
    let mut history = (*results.history).clone();
    let first = history.last().map_or(1, |e: &HistoryEntry| e.sequence + 1);
    let now = std::time::SystemTime::now();
    for (sequence, m) in (first..).zip(&outcome.results) {
        history.push(HistoryEntry {
            sequence,
            time: now,
            raw_quanta: m.raw_quanta,
            quanta: m.quanta,
            clamp: m.clamp,
        });
    }
    let excess = history.len().saturating_sub(HISTORY);
    history.drain(..excess);
    results.history = Arc::new(history);
    results
        .accepted
        .extend(outcome.results.iter().filter(|m| m.discarded.is_none()).map(|m| m.quanta));
    results.counters = add_counters(&results.counters, &outcome.counters);
}

/// Two sets of counters added field by field.
fn add_counters(a: &MeasureCounters, b: &MeasureCounters) -> MeasureCounters {
    macro_rules! sum {
        ($($f:ident),*) => { MeasureCounters { $($f: a.$f + b.$f),* } };
    }
    sum!(
        hmpdus_sent,
        requests_sent,
        requests_with_response,
        requests_repeated,
        requests_after_loss,
        responses_sent,
        response_adjustments_omitted,
        adjustments_saturated,
        hmpdus_received,
        hmpdus_processed,
        hmpdus_delayed,
        requests_received,
        responses_received,
        responses_unmatched,
        responses_out_of_order,
        results_clamped_to_minimum,
        results_discarded_above_maximum,
        results_discarded_outlier,
        malformed,
        not_hmpdu,
        other_version,
        discarded_not_operational,
        discarded_wrong_interface,
        discarded_wrong_path,
        discarded_buffer_full,
        discarded_wrong_destination,
        discarded_empty,
        extra_tuples_ignored
    )
}

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
    /// The measurement's results, oldest first, at most [`HISTORY`] of them.
    pub history: Arc<Vec<HistoryEntry>>,
    /// The measurement participant's counters, summed over its runs.
    pub counters: MeasureCounters,
    /// The results accepted since the estimate was last reset, in quanta.
    pub accepted: Vec<u32>,
}

impl Results {
    /// No results, for a method newly in force; the history and counters stay.
    pub fn fresh(&self) -> Results {
        Results { history: self.history.clone(), counters: self.counters, ..Results::default() }
    }

    /// The measurement's latest result forgotten (measure-headroom): until the measurement
    /// has run again, the allowance in force cannot rest on it.
    pub fn forget_measurement(&mut self) {
        self.round_trip_quanta = None;
        self.measurement_bits = None;
        self.measurement_lines = None;
    }
}

/// Results kept in `history`: the eight the estimate takes, four times over.
pub const HISTORY: usize = 32;

/// One measurement result (`headroom/measurement/history`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryEntry {
    /// From 1 since the port started.
    pub sequence: u64,
    pub time: std::time::SystemTime,
    pub raw_quanta: i64,
    pub quanta: u32,
    pub clamp: dataplane::headroom::allowance::Clamp,
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
        let wd = WorstCase { max_frame_octets: stations.max_frame_octets_with_fcs() };
        let measured = match MeasurePair::measure_at_b(stations) {
            Err(e) => Err(e.to_string()),
            Ok(outcome) => {
                record(results, &outcome);
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
    select_allowance(intent, automatic, results)
}

/// The allowance in force (12.23) from the configuration and the results at hand.
pub fn select_allowance(
    intent: &PortIntent,
    automatic: dataplane::headroom::allowance::AutomaticCalculation,
    results: &Results,
) -> Allowance {
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
