//! A port's headroom results and the allowance in force: what the calculation (36.8.1) and
//! the measurement (36.9) gave, kept between configuration changes, the measurement's history,
//! and `allowance::select` deciding between them and the configuration (12.23). Where the
//! results come from is the port's own: the lab's simulated link (`crate::lab::headroom`), the
//! bridge and the configured cable on a real interface (`crate::real`).

use std::sync::Arc;
use std::time::SystemTime;

use dataplane::headroom::allowance::{self, Allowance, AllowanceConfig, CalculatedResults, Method};
use dataplane::headroom::measure::{MeasureCounters, Measurement, Outcome};
use dataplane::headroom::{trigger_overshoot, Breakdown, BufferConfig, WorstCase};
use dataplane::time::FCS_OCTETS;

use super::intent::{PortIntent, PRIORITIES};

/// Results kept between configuration changes: the measurement runs once when measured headroom
/// comes into force (the measure-headroom RPC, to come, will re-run it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Results {
    pub calculation_bits: Option<u64>,
    /// The calculation's items (36.1.1 a) … k)), shared with every snapshot.
    pub calculation_lines: Option<Arc<Breakdown>>,
    /// Whether the calculation took the peer's delays (g) to i)) from its PFC Local Delay TLV
    /// (else they were configured); with a calculation result.
    pub calculation_peer_tlv: Option<bool>,
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
                outcome: m.outcome(),
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
    /// Used, raised to the minimum, or discarded (kept here all the same, flagged).
    pub outcome: Outcome,
}

/// A port's receive buffer for its priorities with PFC together, and the largest frame the
/// port receives, FCS included: the system's one maximum-frame figure (the settings'
/// `max-frame` plus FCS on real interfaces), which the XOFF overshoot, the XON hysteresis,
/// the measured headroom's worst case and the calculation all take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReceiveBuffer {
    pub octets: u64,
    pub max_frame_octets: u64,
}

impl ReceiveBuffer {
    /// `octets` of buffer on a port that receives frames of up to `max_frame` octets without
    /// FCS (the settings' `max-frame`).
    pub fn for_max_frame(octets: u64, max_frame: u16) -> Self {
        ReceiveBuffer { octets, max_frame_octets: u64::from(max_frame) + FCS_OCTETS }
    }

    /// What the measurement cannot see (36.8 b)): one of the port's largest frames in
    /// progress at each end.
    pub fn worst_case(&self) -> WorstCase {
        WorstCase { max_frame_octets: self.max_frame_octets }
    }

    /// A priority's buffer with `allocation_octets` written (or `None`).
    pub fn priority_config(&self, allocation_octets: Option<u64>) -> BufferConfig {
        BufferConfig {
            max_frame_octets: self.max_frame_octets,
            allocation_octets,
            xon_hysteresis_octets: None,
        }
    }
}

/// The largest allowance, bits, that `buffer` can honour for the priorities with PFC in
/// `intent`: each with a written `buffer-allocation` must hold the allowance above the frame
/// that prompts PFC, the others share what is left at twice the allowance each (rounded up to
/// whole KiB, as `BufferPlan` allocates them). With no priority enabled, the whole buffer.
pub fn receive_buffer_limit_bits(intent: &PortIntent, buffer: ReceiveBuffer) -> u64 {
    let buffer_octets = buffer.octets;
    let overshoot = trigger_overshoot(buffer.max_frame_octets);
    let enabled = (0..PRIORITIES).filter(|n| intent.enabled(*n));
    let mut limit_octets = buffer_octets;
    let (mut fixed, mut shared) = (0u64, 0u64);
    for n in enabled {
        match intent.buffer_allocation_octets[n] {
            Some(a) => {
                fixed = fixed.saturating_add(a);
                limit_octets = limit_octets.min(a.saturating_sub(overshoot));
            }
            None => shared += 1,
        }
    }
    if let Some(each) = buffer_octets.saturating_sub(fixed).checked_div(shared) {
        let whole_kib = each - each % 1_024;
        limit_octets = limit_octets.min(whole_kib / 2).min(whole_kib.saturating_sub(overshoot));
    }
    limit_octets.saturating_mul(8)
}

/// The allowance in force (12.23) from the configuration and the results at hand, never more
/// than the port's receive `buffer` can honour
/// ([`receive_buffer_limit_bits`]): a calculated result above it is lowered to it as to a
/// maximum, so that neither a long link nor a peer's Local Delay TLV makes PFC's buffers larger
/// than the port has.
pub fn select_allowance(
    intent: &PortIntent,
    automatic: dataplane::headroom::allowance::AutomaticCalculation,
    results: &Results,
    buffer: ReceiveBuffer,
) -> Allowance {
    let limit = receive_buffer_limit_bits(intent, buffer);
    let config = AllowanceConfig {
        link_delay_allowance_bits: intent.link_delay_allowance_bits,
        minimum_bits: intent.minimum_bits.min(limit),
        maximum_bits: intent.maximum_bits.unwrap_or(u64::MAX).min(limit),
        initial_bits: intent.initial_bits,
        headroom_allowance_bits: intent.headroom_allowance_bits,
    };
    let calculated = CalculatedResults {
        link_delay_bits: results.calculation_bits,
        measurement_bits: results.measurement_bits,
    };
    // prepare refused minimum above maximum (YANG does too), the only error select has; should
    // one slip through, PFCLinkDelayAllowance stands.
    let selected = allowance::select(&config, automatic, &calculated).unwrap_or(Allowance {
        bits: intent.link_delay_allowance_bits,
        source: allowance::AllowanceSource::LinkDelayAllowance,
        calculated: None,
    });
    // A configured value the commit found to fit is never above the limit; one that a change
    // of PFC Enable no longer lets fit is lowered too.
    Allowance { bits: selected.bits.min(limit), ..selected }
}

/// Why the allowance in force differs from the one selected (pfcd-headroom's `clamp-reason`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ClampReason {
    #[default]
    None,
    /// A calculated result was raised to `minimum-allowance`.
    MinimumAllowance,
    /// A calculated result was lowered to `maximum-allowance`.
    MaximumAllowance,
    /// The selected allowance was lowered to what the receive buffer can honour.
    ReceiveBuffer,
}

impl ClampReason {
    /// The name of the `clamp-reason` enum.
    pub fn as_str(self) -> &'static str {
        match self {
            ClampReason::None => "none",
            ClampReason::MinimumAllowance => "minimum-allowance",
            ClampReason::MaximumAllowance => "maximum-allowance",
            ClampReason::ReceiveBuffer => "receive-buffer",
        }
    }
}

/// Why [`select_allowance`] gave `allowance` for `intent` and `results` with a receive
/// `buffer`, and the allowance selected before any clamp (the calculated result, or
/// the configured value the buffer lowered).
pub fn clamp_reason(
    intent: &PortIntent,
    allowance: &Allowance,
    results: &Results,
    buffer: ReceiveBuffer,
) -> (ClampReason, u64) {
    use dataplane::headroom::allowance::{AllowanceSource as S, Clamp};
    let limit = receive_buffer_limit_bits(intent, buffer);
    let calculated = match allowance.source {
        S::Calculated { method: Method::LinkDelay, .. } => results.calculation_bits,
        S::Calculated { method: Method::Measurement, .. } => results.measurement_bits,
        _ => None,
    }
    .unwrap_or(allowance.bits);
    match allowance.source {
        S::Calculated { clamp: Clamp::RaisedToMinimum, .. } if intent.minimum_bits <= limit => {
            (ClampReason::MinimumAllowance, calculated)
        }
        S::Calculated { clamp: Clamp::LoweredToMaximum, .. }
            if intent.maximum_bits.is_some_and(|m| m < limit) =>
        {
            (ClampReason::MaximumAllowance, calculated)
        }
        S::Calculated { clamp: Clamp::None, .. } => (ClampReason::None, calculated),
        S::Calculated { .. } => (ClampReason::ReceiveBuffer, calculated),
        S::LinkDelayAllowance | S::AdministrativeOverride | S::InitialValue => {
            let configured = match allowance.source {
                S::AdministrativeOverride => intent.headroom_allowance_bits,
                S::InitialValue => intent.initial_bits,
                _ => None,
            }
            .unwrap_or(intent.link_delay_allowance_bits);
            if configured > allowance.bits {
                (ClampReason::ReceiveBuffer, configured)
            } else {
                (ClampReason::None, configured)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dataplane::headroom::allowance::{AllowanceSource, AutomaticCalculation, Clamp};

    /// 1 MiB of receive buffer for 2000-octet frames.
    const MIB: ReceiveBuffer = ReceiveBuffer { octets: 1 << 20, max_frame_octets: 2_000 };

    fn calculated_on_3() -> PortIntent {
        PortIntent { pfc_enable: 1 << 3, ..PortIntent::default() }
    }

    #[test]
    fn a_calculated_allowance_beyond_the_receive_buffer_is_lowered_to_what_it_holds() {
        // What a peer's Local Delay TLV of 0x7fff_ffff_ffff_ffff made the calculation give.
        let results =
            Results { calculation_bits: Some(1_407_374_883_750_992), ..Results::default() };
        let intent = calculated_on_3();
        let a = select_allowance(&intent, AutomaticCalculation::LinkDelay, &results, MIB);
        assert!(a.bits <= MIB.octets * 8, "{a}");
        assert_eq!(a.bits, receive_buffer_limit_bits(&intent, MIB));
        assert_eq!(
            a.source,
            AllowanceSource::Calculated {
                method: Method::LinkDelay,
                clamp: Clamp::LoweredToMaximum
            }
        );
        // Twice the allowance, the default allocation, still fits the buffer.
        let plan = dataplane::headroom::BufferPlan::new(a.bits, &MIB.priority_config(None));
        assert!(plan.is_ok_and(|p| p.allocation_octets <= MIB.octets), "{a}");
    }

    #[test]
    fn the_clamp_says_why() {
        let intent = calculated_on_3();
        let huge = Results { calculation_bits: Some(1 << 50), ..Results::default() };
        let a = select_allowance(&intent, AutomaticCalculation::LinkDelay, &huge, MIB);
        assert_eq!(clamp_reason(&intent, &a, &huge, MIB), (ClampReason::ReceiveBuffer, 1 << 50));
        let capped = PortIntent { maximum_bits: Some(200_000), ..intent.clone() };
        let a = select_allowance(&capped, AutomaticCalculation::LinkDelay, &huge, MIB);
        assert_eq!(a.bits, 200_000);
        assert_eq!(clamp_reason(&capped, &a, &huge, MIB).0, ClampReason::MaximumAllowance);
        let fits = Results { calculation_bits: Some(126_224), ..Results::default() };
        let a = select_allowance(&intent, AutomaticCalculation::LinkDelay, &fits, MIB);
        assert_eq!(clamp_reason(&intent, &a, &fits, MIB), (ClampReason::None, 126_224));
    }

    #[test]
    fn an_allowance_the_buffer_holds_is_kept() {
        let results = Results { calculation_bits: Some(126_224), ..Results::default() };
        let a =
            select_allowance(&calculated_on_3(), AutomaticCalculation::LinkDelay, &results, MIB);
        assert_eq!(a.bits, 126_224);
        assert_eq!(
            a.source,
            AllowanceSource::Calculated { method: Method::LinkDelay, clamp: Clamp::None }
        );
    }

    #[test]
    fn written_allocations_bound_the_allowance_too() {
        let mut intent = calculated_on_3();
        intent.buffer_allocation_octets[3] = Some(64 * 1_024);
        let limit = receive_buffer_limit_bits(&intent, MIB);
        assert_eq!(limit, (64 * 1_024 - 1_999) * 8);
        // No priority with PFC: the whole buffer.
        assert_eq!(receive_buffer_limit_bits(&PortIntent::default(), MIB), MIB.octets * 8);
        // Jumbo frames: the frame that prompts PFC may overshoot by one of 9220 octets.
        let jumbo = ReceiveBuffer { max_frame_octets: 9_220, ..MIB };
        assert_eq!(receive_buffer_limit_bits(&intent, jumbo), (64 * 1_024 - 9_219) * 8);
    }
}
