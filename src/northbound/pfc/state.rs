//! A Bridge Port's `pfc` container from the port's snapshot: ieee802-dot1q-pfc-bridge's state
//! (Table 12-1 objects, the allowance in force and its source, the calculation's and the
//! measurement's results, each priority's pause state) and pfcd-pfc's beside it (the
//! itemised lines, the measurement's history and counters, each priority's buffer and
//! counts, the PAUSE and MAC Control counts); and the names of the identities and
//! enumerations the state and the notifications share.

use dataplane::headroom::allowance::{AllowanceSource, Clamp, Method};
use dataplane::headroom::measure::Outcome;
use dataplane::headroom::{Breakdown, Item};
use netconf_proto::xml::Element;
use pfc_yang_names::{ieee802_dot1q_pfc as ieee, pfcd_pfc as pfcd};

use crate::northbound::namespaces::{HEADROOM_NS, PFCD_PFC_NS, PFC_BRIDGE_NS};
use crate::northbound::xml::{leaf, pfc_enable_bits, pfc_identity_leaf};
use crate::ports::headroom::Results;
use crate::ports::intent::HeadroomMethod;
use crate::ports::PortSnapshot;

/// The `pfc` container's state for one port.
pub fn pfc_state(s: &PortSnapshot) -> Element {
    let ns = PFC_BRIDGE_NS;
    let a = &s.allowance;
    let (source, clamp) = source_identity(a.source);
    // The four Table 12-1 objects first, the two writable ones as in use (NMDA's operational
    // view of a configuration leaf): pfc-headroom-allowance is the automatic value.
    let intent = &s.intent;
    let mut pfc = Element::new(ns, ieee::PFC)
        .with(leaf(ns, ieee::PFC_LINK_DELAY_ALLOWANCE, intent.link_delay_allowance_bits))
        .with(leaf(ns, ieee::PFC_REQUESTS, s.pfc_requests))
        .with(leaf(ns, ieee::PFC_INDICATIONS, s.pfc_indications))
        .with(leaf(ns, ieee::PFC_HEADROOM_ALLOWANCE, headroom_allowance(s)))
        .with(leaf(ns, ieee::ALLOWANCE_IN_FORCE, a.bits))
        .with(pfc_identity_leaf(ns, ieee::ALLOWANCE_SOURCE, source));
    if let Some(clamp) = clamp {
        pfc.push(leaf(ns, ieee::ALLOWANCE_CLAMP, clamp_name(clamp)));
    }
    if let Some((method, bits)) = a.calculated {
        // The identities' names are kept in one place, with the configured methods'.
        let method = match method {
            Method::LinkDelay => HeadroomMethod::Calculated.as_str(),
            Method::Measurement => HeadroomMethod::Measured.as_str(),
        };
        pfc.push(leaf(ns, ieee::CALCULATED_ALLOWANCE, bits));
        pfc.push(pfc_identity_leaf(ns, ieee::CALCULATED_ALLOWANCE_METHOD, method));
    }
    pfc.push(leaf(ns, ieee::OPER_PFC_ENABLE, pfc_enable_bits(s.oper_pfc_enable)));
    let own = PFCD_PFC_NS;
    pfc.push(leaf(own, pfcd::RECEIVE_BUFFER_SIZE, s.receive_buffer_size));
    pfc.push(leaf(own, pfcd::PAUSE_FRAMES_SENT, s.pause_frames_sent));
    pfc.push(leaf(own, pfcd::PAUSE_FRAMES_RECEIVED, s.pause_frames_received));
    pfc.push(leaf(own, pfcd::PAUSE_FRAMES_IGNORED, s.pause_frames_ignored));
    pfc.push(leaf(own, pfcd::PFC_FRAMES_IGNORED, s.pfc_frames_ignored));
    pfc.push(leaf(own, pfcd::MAC_CONTROL_DISCARDED, s.mac_control_discarded));
    pfc.push(leaf(ns, ieee::DISCONTINUITY_TIME, mgmt::notify::format_time(s.discontinuity_time)));
    let mut headroom = Element::new(ns, ieee::HEADROOM).with(pfc_identity_leaf(
        ns,
        ieee::METHOD_IN_FORCE,
        s.method_in_force.as_str(),
    ));
    let r = &s.results;
    if let Some(bits) = r.calculation_bits {
        let mut calculation =
            Element::new(ns, ieee::CALCULATION).with(leaf(ns, ieee::HEADROOM, bits));
        if let Some(tlv) = r.calculation_peer_tlv {
            let source = if tlv { "local-delay-tlv" } else { "configured" };
            calculation.push(leaf(ns, ieee::PEER_DELAY_SOURCE, source));
        }
        calculation.push(leaf(own, pfcd::HEADROOM_OCTETS, bits.div_ceil(8)));
        push_lines(&mut calculation, r.calculation_lines.as_deref());
        headroom.push(calculation);
    }
    if let Some(quanta) = r.round_trip_quanta {
        let mut m = Element::new(ns, ieee::MEASUREMENT).with(leaf(ns, ieee::ROUND_TRIP, quanta));
        m.push(leaf(own, pfcd::RESULT_COUNT, r.accepted.len()));
        if let (Some(min), Some(max), Some(last)) =
            (r.accepted.iter().min(), r.accepted.iter().max(), r.accepted.last())
        {
            m.push(leaf(own, pfcd::ROUND_TRIP_MIN, min));
            m.push(leaf(own, pfcd::ROUND_TRIP_MAX, max));
            m.push(leaf(own, pfcd::ROUND_TRIP_LAST, last));
        }
        if let Some(bits) = r.measurement_bits {
            m.push(leaf(ns, ieee::HEADROOM, bits));
        }
        let mut breakdown = Element::new(own, pfcd::BREAKDOWN);
        push_lines(&mut breakdown, r.measurement_lines.as_deref());
        m.push(breakdown);
        push_history(&mut m, r);
        headroom.push(m);
    } else if !r.history.is_empty() {
        // Measured before, not now: the history and counters stay readable.
        let mut m = Element::new(ns, ieee::MEASUREMENT);
        push_history(&mut m, r);
        headroom.push(m);
    }
    pfc.push(headroom);
    pfc.push(allowance_bounds(s));
    for (n, p) in s.priorities.iter().enumerate() {
        pfc.push(
            Element::new(ns, ieee::PRIORITY)
                .with(leaf(ns, ieee::PRIORITY, n))
                .with(leaf(ns, ieee::PRIORITY_PAUSED, p.priority_paused))
                .with(leaf(ns, ieee::PAUSE_TIME_REMAINING, p.pause_time_remaining))
                .with(leaf(own, pfcd::ALLOCATION, p.allocation))
                .with(leaf(own, pfcd::XOFF_THRESHOLD, p.xoff_threshold))
                .with(leaf(own, pfcd::XON_THRESHOLD, p.xon_threshold))
                .with(leaf(own, pfcd::OCCUPANCY, p.occupancy))
                .with(leaf(own, pfcd::PEAK_OCCUPANCY, p.peak_occupancy))
                .with(leaf(own, pfcd::XOFF, p.xoff))
                .with(leaf(own, pfcd::XOFF_EVENTS, p.xoff_events))
                .with(leaf(own, pfcd::FRAMES_ACCEPTED, p.frames_accepted))
                .with(leaf(own, pfcd::FRAMES_DROPPED, p.frames_dropped))
                .with(leaf(own, pfcd::OCTETS_DROPPED, p.octets_dropped))
                .with(leaf(own, pfcd::PFC_FRAMES_SENT, p.pfc_requests))
                .with(leaf(own, pfcd::XON_SENT, p.xon_sent))
                .with(leaf(own, pfcd::PFC_FRAMES_RECEIVED, p.pfc_indications))
                .with(leaf(own, pfcd::TIME_PAUSED, p.time_paused_us)),
        );
    }
    pfc
}

/// PFCHeadroomAllowance as 12.23 d) names it, "the automatically calculated allowance": the
/// administrator's value when written (an override, in force); otherwise the latest calculated
/// or measured result, clamped, while automatic calculation has one; otherwise its default,
/// PFCLinkDelayAllowance. Running holds the written value alone, so the state never differs
/// from a value written there.
fn headroom_allowance(s: &PortSnapshot) -> u64 {
    let intent = &s.intent;
    match (intent.headroom_allowance_bits, s.allowance.calculated) {
        (Some(written), _) => written,
        (None, Some((_, bits))) => bits,
        (None, None) => intent.link_delay_allowance_bits,
    }
}

/// pfcd-headroom's `allowance-bounds`: the receive buffer's limit, why the allowance in force
/// was clamped, the peer's Local Delay TLVs refused.
fn allowance_bounds(s: &PortSnapshot) -> Element {
    use pfc_yang_names::pfcd_headroom as headroom;
    let ns = HEADROOM_NS;
    Element::new(ns, headroom::ALLOWANCE_BOUNDS)
        .with(leaf(ns, headroom::RECEIVE_BUFFER_LIMIT, s.receive_buffer_limit_bits))
        .with(leaf(ns, headroom::CLAMP_REASON, s.clamp.as_str()))
        .with(leaf(ns, headroom::PEER_LOCAL_DELAYS_REFUSED, s.peer_delays_refused))
}

/// The measurement's history and counters (pfcd-pfc's) into `measurement`.
fn push_history(m: &mut Element, r: &Results) {
    let ns = PFCD_PFC_NS;
    for e in r.history.iter() {
        m.push(
            Element::new(ns, pfcd::HISTORY)
                .with(leaf(ns, pfcd::SEQUENCE, e.sequence))
                .with(leaf(ns, pfcd::TIME, mgmt::notify::format_time(e.time)))
                .with(leaf(ns, pfcd::RAW_ROUND_TRIP, e.raw_quanta))
                .with(leaf(ns, ieee::ROUND_TRIP, e.quanta))
                .with(leaf(ns, pfcd::CLAMP, clamp_name(e.clamp)))
                .with(leaf(ns, pfcd::OUTCOME, outcome_name(e.outcome))),
        );
    }
    let mut counters = Element::new(ns, pfcd::COUNTERS);
    for (name, value) in r.counters.named() {
        counters.push(leaf(ns, &name.replace('_', "-"), value));
    }
    m.push(counters);
}

/// A headroom's itemised lines (pfcd-pfc's `line` list entries) into `parent`.
fn push_lines(parent: &mut Element, breakdown: Option<&Breakdown>) {
    let ns = PFCD_PFC_NS;
    let letter = |item: Item| item.label().trim_end_matches(')');
    for (i, line) in breakdown.map(|b| b.lines.as_slice()).unwrap_or_default().iter().enumerate() {
        parent.push(
            Element::new(ns, pfcd::LINE)
                .with(leaf(ns, pfcd::INDEX, i + 1))
                .with(leaf(ns, pfcd::FIRST_ITEM, letter(line.items.first)))
                .with(leaf(ns, pfcd::LAST_ITEM, letter(line.items.last)))
                .with(leaf(ns, pfcd::DESCRIPTION, &line.description))
                .with(leaf(ns, pfcd::BITS, line.bits)),
        );
    }
}

/// The `allowance-source` identity of `source` (without prefix), and its clamp if calculated.
pub fn source_identity(source: AllowanceSource) -> (&'static str, Option<Clamp>) {
    match source {
        AllowanceSource::LinkDelayAllowance => ("link-delay-allowance", None),
        AllowanceSource::Calculated { method: Method::LinkDelay, clamp } => {
            ("link-delay-result", Some(clamp))
        }
        AllowanceSource::Calculated { method: Method::Measurement, clamp } => {
            ("measurement-result", Some(clamp))
        }
        AllowanceSource::InitialValue => ("initial-value", None),
        AllowanceSource::AdministrativeOverride => ("administrative-override", None),
    }
}

/// The `measurement-outcome` enum of a history entry.
fn outcome_name(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Used => "used",
        Outcome::RaisedToMinimum => "raised-to-minimum",
        Outcome::DiscardedAboveMaximum => "discarded-above-maximum",
        Outcome::DiscardedOutlier => "discarded-outlier",
    }
}

pub fn clamp_name(clamp: Clamp) -> &'static str {
    match clamp {
        Clamp::None => "none",
        Clamp::RaisedToMinimum => "raised-to-minimum",
        Clamp::LoweredToMaximum => "lowered-to-maximum",
    }
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use dataplane::headroom::measure::MeasureConfig;
    use dataplane::sim::{MeasurePair, MeasurePairConfig, Station, TwoStationConfig};
    use netconf_proto::xml::Element;

    use super::{push_history, PFCD_PFC_NS, PFC_BRIDGE_NS};
    use crate::ports::headroom::Results;

    /// The maximum acceptable round trip station B is configured with: the Annex N link's true
    /// round trip is 183.4 quanta, measured as 185 to 187 as the waits for the wire fall, so a
    /// maximum of 185 (one set too low for the link) leaves some results above it.
    const MAXIMUM: u32 = 185;

    fn text(e: &Element, name: &str) -> String {
        e.child(PFCD_PFC_NS, name).map(Element::text).unwrap_or_default()
    }

    #[test]
    fn a_result_above_the_maximum_is_in_the_history_flagged_discarded_and_not_in_the_estimate() {
        let mut cfg = MeasurePairConfig::for_stations(&TwoStationConfig::annex_n(0, 0), 7);
        cfg.wire_wait_max = cfg.speed.quanta(200);
        cfg.response_wait_max = cfg.speed.quanta(200);
        cfg.a.configure = |c: &mut MeasureConfig| c.results_wanted = 16;
        cfg.b.configure = |c: &mut MeasureConfig| {
            c.results_wanted = 16;
            c.maximum_quanta = MAXIMUM;
        };
        let outcome = MeasurePair::new(cfg).expect("a valid run").run().station(Station::B).clone();
        let mut results = Results::default();
        results.record(&outcome.results, SystemTime::UNIX_EPOCH);
        results.round_trip_quanta = outcome.round_trip_quanta;

        let mut measurement = Element::new(PFC_BRIDGE_NS, "measurement");
        push_history(&mut measurement, &results);
        let history: Vec<&Element> =
            measurement.elements().filter(|e| e.is(PFCD_PFC_NS, "history")).collect();
        assert_eq!(history.len(), outcome.results.len(), "every result is in the history");
        let round_trip = |e: &Element| text(e, "round-trip").parse::<u32>().expect("round-trip");
        let (above, within): (Vec<&Element>, Vec<&Element>) =
            history.iter().partition(|e| round_trip(e) > MAXIMUM);
        assert!(
            !above.is_empty() && !within.is_empty(),
            "the run has both: {}",
            measurement.to_xml()
        );
        for e in &above {
            assert_eq!(text(e, "outcome"), "discarded-above-maximum", "{}", e.to_xml());
            assert_eq!(text(e, "clamp"), "none", "not lowered to the maximum: {}", e.to_xml());
            assert_eq!(text(e, "raw-round-trip"), round_trip(e).to_string(), "{}", e.to_xml());
        }
        let used: Vec<u32> = history
            .iter()
            .filter(|e| matches!(text(e, "outcome").as_str(), "used" | "raised-to-minimum"))
            .map(|e| round_trip(e))
            .collect();
        assert!(!used.is_empty(), "{}", measurement.to_xml());
        assert!(used.iter().all(|&q| q <= MAXIMUM));
        // The estimate in force is the lower median of the last eight used results: a result
        // above the maximum neither enters it nor is lowered into it.
        let mut last_eight = used[used.len().saturating_sub(8)..].to_vec();
        last_eight.sort_unstable();
        let median = last_eight[(last_eight.len() - 1) / 2];
        assert_eq!(results.round_trip_quanta, Some(median));
        assert_eq!(results.accepted, used);
    }
}
