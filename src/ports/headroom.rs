//! A port's headroom results and the allowance in force: what the calculation (36.8.1) and
//! the measurement (36.9) gave, kept between configuration changes, the measurement's history,
//! and `allowance::select` deciding between them and the configuration (12.23). Where the
//! results come from is the port's own: the lab's simulated link (`crate::lab::headroom`), the
//! bridge and the configured cable on a real interface (`crate::real`).

use std::sync::Arc;
use std::time::SystemTime;

use dataplane::headroom::allowance::{self, Allowance, AllowanceConfig, CalculatedResults};
use dataplane::headroom::measure::{MeasureCounters, Measurement};
use dataplane::headroom::Breakdown;

use super::intent::PortIntent;

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

    /// Takes new measurement results, received at `time`: into the history (numbered on from
    /// the last, the oldest beyond [`HISTORY`] dropped) and, those not discarded, into the
    /// accepted results.
    pub fn record(&mut self, new: &[Measurement], time: SystemTime) {
        let mut history = (*self.history).clone();
        let first = history.last().map_or(1, |e: &HistoryEntry| e.sequence + 1);
        for (sequence, m) in (first..).zip(new) {
            history.push(HistoryEntry {
                sequence,
                time,
                raw_quanta: m.raw_quanta,
                quanta: m.quanta,
                clamp: m.clamp,
            });
        }
        let excess = history.len().saturating_sub(HISTORY);
        history.drain(..excess);
        self.history = Arc::new(history);
        self.accepted.extend(new.iter().filter(|m| m.discarded.is_none()).map(|m| m.quanta));
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
    pub time: SystemTime,
    pub raw_quanta: i64,
    pub quanta: u32,
    pub clamp: dataplane::headroom::allowance::Clamp,
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
