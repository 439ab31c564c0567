//! The headroom measurement protocol (P802.1Qdt 36.9, 36.10) between two stations over simulated
//! links, HMPDUs as real bytes: the four exchanges of Figure 36-14 as 36.9.6 tells them, the
//! 8-quantum accuracy goal of 36.9.1 over link lengths and speeds, and what the text says about
//! silent peers, garbage, duplicates, reordering and the limits.

use dataplane::headroom::allowance::{
    self, AllowanceConfig, AllowanceSource, AutomaticCalculation, CalculatedResults,
};
use dataplane::headroom::measure::{Discard, MeasureConfig};
use dataplane::sim::{
    Faults, MeasurePair, MeasurePairConfig, MeasurePairReport, Medium, Station, StationSetup,
    TwoStationConfig,
};
use dataplane::time::{LinkSpeed, Picos};
use dataplane::wire::PathCode;

/// Annex N's link: 10 Gb/s over 100 m of Cat6, 10GBASE-T delays; the round trip ID + LD is
/// 9.390312 us = 93 904 bit times rounded up (126 224 less two 16 160-bit frames).
fn annex_n() -> MeasurePairConfig {
    MeasurePairConfig::for_stations(&TwoStationConfig::annex_n(0, 0), 1)
}

fn run(cfg: MeasurePairConfig) -> MeasurePairReport {
    MeasurePair::new(cfg).expect("valid configuration").run()
}

/// Round trips, in thousandths, from `from` to the station's second result.
fn to_two_results(r: &MeasurePairReport, s: Station, from: Picos) -> u64 {
    let second = r.station(s).result_at(2).expect("two results");
    r.round_trips_milli(second - from)
}

#[test]
fn the_annex_n_round_trip() {
    let cfg = annex_n();
    assert_eq!(cfg.true_round_trip(), Picos(9_390_312));
    assert_eq!(LinkSpeed::G10.bits_in(cfg.true_round_trip()), 93_903);
}

#[test]
fn figure_36_14_example_1_both_ready_requests_and_responses_apart() {
    // B can receive and send within the one-way delay of A's first request, and sends its own
    // first request within that time. Requests and responses travel in separate HMPDUs (here
    // because PFC frames are unprotected and user data is MACsec protected: distinct paths).
    let mut cfg = annex_n();
    cfg.path = PathCode::DataProtected;
    cfg.b.ready_at = Picos::from_us(1);
    let r = run(cfg);
    for s in [Station::A, Station::B] {
        let o = r.station(s);
        assert_eq!(o.results.len(), 2, "{s:?} is satisfied with two results");
        assert!(!o.measuring);
        assert_eq!((o.counters.requests_sent, o.counters.responses_sent), (2, 2), "{s:?}");
        assert_eq!(r.count(s, true, false), 2, "{s:?}: requests alone");
        assert_eq!(r.count(s, false, true), 2, "{s:?}: responses alone");
        assert_eq!((o.counters.requests_repeated, o.counters.requests_after_loss), (0, 0));
        // Each response prompts the next request: two results in two round trips.
        let rtts = to_two_results(&r, s, o.first_request_at.expect("sent a request"));
        assert!((2_000..2_150).contains(&rtts), "{s:?}: {rtts} thousandths of a round trip");
    }
    assert_eq!(r.sent.len(), 8);
}

#[test]
fn figure_36_14_example_2_requests_ride_with_responses() {
    // Both ready; a common path, and each response carries a request. Two results each in about
    // one and a half round trips, three in the two that example 1 needs for two.
    let mut cfg = annex_n();
    cfg.b.ready_at = Picos::from_us(1);
    let r = run(cfg);
    for s in [Station::A, Station::B] {
        let o = r.station(s);
        assert_eq!(o.results.len(), 3, "{s:?}");
        assert_eq!((o.counters.requests_sent, o.counters.responses_sent), (3, 3), "{s:?}");
        assert_eq!(o.counters.requests_with_response, 2);
        assert_eq!(r.count(s, true, false), 1, "{s:?}: only the first request goes alone");
        assert_eq!(r.count(s, true, true), 2, "{s:?}: requests with responses");
        assert_eq!(r.count(s, false, true), 1, "{s:?}: the last response, once satisfied");
        // Counted from A's first request; B's followed 1 us later.
        let first = Picos::ZERO;
        let rtts = to_two_results(&r, s, first);
        assert!((1_500..1_650).contains(&rtts), "{s:?}: {rtts}");
        let third = r.round_trips_milli(o.result_at(3).expect("three results") - first);
        assert!((2_000..2_150).contains(&third), "{s:?}: {third}");
    }
}

#[test]
fn figure_36_14_example_3_b_not_ready_for_a_first_request() {
    // B becomes ready after A's first request has reached it: B discards it. The HMPDUs after
    // B's first request carry both a request and a response; both stations have two results in
    // less than three round trips after B's first request.
    let mut cfg = annex_n();
    let rtt = cfg.true_round_trip();
    cfg.b.ready_at = Picos(rtt.as_ps() * 3 / 4);
    let r = run(cfg);
    assert_eq!(r.b.counters.discarded_not_operational, 1);
    let b_first = r.b.first_request_at.expect("B sent a request");
    assert_eq!(b_first, Picos(rtt.as_ps() * 3 / 4));
    for s in [Station::A, Station::B] {
        let o = r.station(s);
        assert_eq!(o.results.len(), 2, "{s:?}");
        assert_eq!(o.counters.responses_sent, 2, "{s:?}");
        assert!(to_two_results(&r, s, b_first) < 3_000, "{s:?}");
    }
    assert_eq!(r.a.counters.requests_sent, 3, "the first, lost, and two with responses");
    assert_eq!(r.b.counters.requests_sent, 2);
    assert_eq!((r.count(Station::A, true, true), r.count(Station::B, true, true)), (2, 1));
    let a = to_two_results(&r, Station::A, b_first);
    assert!((2_500..2_650).contains(&a), "two and a half round trips: {a}");
    assert_eq!(r.a.counters.requests_repeated, 0, "no timer was needed");
}

#[test]
fn figure_36_14_example_4_a_first_request_lost() {
    // A's first HMPDU is lost; requests and responses go separately. A sees two requests from B
    // with no response between them, concludes its request was lost and sends another; it has
    // two results in less than four round trips after B's first request.
    let mut cfg = annex_n();
    cfg.path = PathCode::DataProtected;
    cfg.a.lose_first = 1;
    cfg.b.ready_at = Picos::from_us(1);
    let r = run(cfg);
    let b_first = r.b.first_request_at.expect("B sent a request");
    assert_eq!(r.a.counters.requests_after_loss, 1);
    assert_eq!(r.a.counters.requests_sent, 3, "lost, repeated after loss, prompted");
    assert_eq!(r.b.counters.requests_sent, 2);
    assert_eq!((r.a.counters.responses_sent, r.b.counters.responses_sent), (2, 2));
    assert_eq!(r.b.counters.requests_received, 2, "B never saw A's first request");
    for s in [Station::A, Station::B] {
        assert_eq!(r.station(s).results.len(), 2, "{s:?}");
    }
    let a = to_two_results(&r, Station::A, b_first);
    assert!((3_500..4_000).contains(&a), "A: {a}");
    assert!(to_two_results(&r, Station::B, b_first) < 2_150);
}

#[test]
fn measured_round_trip_is_within_8_quanta_over_lengths_and_speeds() {
    // 36.9.1: within 8 pause quanta of the true value. Both stations wait up to 300 quanta for
    // the wire and up to 300 more before answering, and leave out Response Adjustments of 4 or
    // less (36.9.6), over 1 m to 1000 km of fibre at 10, 100 and 400 Gb/s.
    for speed in [LinkSpeed::G10, LinkSpeed::G100, LinkSpeed::G400] {
        for metres in [1, 100, 2_000, 10_000, 60_000, 1_000_000] {
            for seed in 0..3 {
                let mut cfg = annex_n();
                cfg.speed = speed;
                cfg.link_metres = metres;
                cfg.medium = Medium::Fibre;
                cfg.seed = seed;
                cfg.wire_wait_max = speed.quanta(300);
                cfg.response_wait_max = speed.quanta(300);
                let configure: fn(&mut MeasureConfig) = |c| {
                    c.results_wanted = 8;
                    c.omit_response_adjustment_up_to = 4;
                };
                cfg.a.configure = configure;
                cfg.b.configure = configure;
                let r = run(cfg);
                for s in [Station::A, Station::B] {
                    let o = r.station(s);
                    assert!(o.results.len() >= 8, "{speed} {metres} m {s:?}: {o:?}");
                    let error = r.error(s).expect("an estimate");
                    let limit = 8 * r.quantum.as_ps() as i64;
                    assert!(
                        error.abs() <= limit,
                        "{speed} {metres} m seed {seed} {s:?}: off by {error} ps"
                    );
                }
            }
        }
    }
}

#[test]
fn a_peer_that_never_answers_gets_a_request_per_maximum_round_trip() {
    // Requests are not repeated more often than the maximum acceptable round trip (36.9.6);
    // `measure` stays TRUE and the allowance stays at its initial value.
    let mut cfg = annex_n();
    cfg.b.silent = true;
    cfg.a.configure = |c| c.maximum_quanta = 1_000; // 51.2 us at 10 Gb/s
    cfg.duration = Picos::from_us(1_000);
    let r = run(cfg);
    assert_eq!(r.a.counters.requests_sent, 20, "at 0, 51.2, ..., 972.8 us");
    assert_eq!(r.a.counters.requests_repeated, 19);
    assert!(r.a.results.is_empty() && r.a.measuring && r.a.round_trip_quanta.is_none());
    assert_eq!(r.b.counters.requests_received, 20, "B processes them, its answers vanish");
    let config = AllowanceConfig { initial_bits: Some(200_000), ..AllowanceConfig::new(126_224) };
    let results = CalculatedResults { measurement_bits: None, ..Default::default() };
    let a = allowance::select(&config, AutomaticCalculation::Measurement, &results);
    assert_eq!(a.map(|a| (a.bits, a.source)), Ok((200_000, AllowanceSource::InitialValue)));
}

#[test]
fn a_peer_that_answers_garbage_is_counted_and_ignored() {
    let mut cfg = annex_n();
    cfg.b.faults = Faults { garbage_ppm: 1_000_000, ..Faults::default() };
    cfg.a.configure = |c| c.maximum_quanta = 1_000;
    cfg.duration = Picos::from_us(2_000);
    let r = run(cfg);
    let c = r.a.counters;
    assert!(r.a.results.is_empty() && r.a.measuring);
    let garbled = r.sent.iter().filter(|s| s.from == Station::B).count() as u64;
    assert!(garbled >= 30, "{garbled}");
    // Every kind of garbage lands in its own counter, and all of it is accounted for.
    assert!(c.malformed > 0 && c.not_hmpdu > 0 && c.responses_unmatched > 0);
    assert!(c.discarded_wrong_path > 0);
    let accounted = c.malformed + c.not_hmpdu + c.discarded_wrong_path + c.hmpdus_processed;
    assert_eq!(c.hmpdus_received, garbled);
    assert_eq!(accounted + c.discarded_empty, garbled);
    assert_eq!(c.requests_received + c.responses_received, 0);
    // A keeps asking at the maximum acceptable round trip, no faster.
    assert_eq!(c.requests_sent, 40);
}

/// The accuracy goal under a fault, checked for both stations.
fn accurate_despite(faults: Faults, seeds: u64, combine: bool) -> Vec<MeasurePairReport> {
    (0..seeds)
        .map(|seed| {
            let mut cfg = annex_n();
            cfg.seed = seed;
            cfg.speed = LinkSpeed::G100;
            cfg.link_metres = 2_000;
            cfg.medium = Medium::Fibre;
            cfg.wire_wait_max = LinkSpeed::G100.quanta(100);
            cfg.response_wait_max = LinkSpeed::G100.quanta(100);
            let configure: fn(&mut MeasureConfig) = if combine {
                |c| c.results_wanted = 8
            } else {
                |c| {
                    c.results_wanted = 8;
                    c.combine = false;
                }
            };
            let setup = StationSetup { faults, configure, ..StationSetup::default() };
            cfg.a = setup;
            cfg.b = setup;
            let r = run(cfg);
            for s in [Station::A, Station::B] {
                let o = r.station(s);
                assert_eq!(o.results.len() as u64, o.counters.responses_received);
                assert!(o.results.len() >= 8, "seed {seed} {s:?}: {o:?}");
                let error = r.error(s).expect("an estimate");
                assert!(error.abs() <= 8 * 5_120, "seed {seed} {s:?}: off by {error} ps");
            }
            r
        })
        .collect()
}

#[test]
fn duplicated_hmpdus_do_not_disturb_the_estimate() {
    let runs = accurate_despite(Faults { duplicate_ppm: 500_000, ..Faults::default() }, 10, true);
    let dups: u64 = runs.iter().map(|r| r.a.duplicated + r.b.duplicated).sum();
    let unmatched: u64 = runs
        .iter()
        .map(|r| r.a.counters.responses_unmatched + r.b.counters.responses_unmatched)
        .sum();
    let full: u64 = runs
        .iter()
        .map(|r| r.a.counters.discarded_buffer_full + r.b.counters.discarded_buffer_full)
        .sum();
    assert!(dups > 20, "{dups}");
    // A duplicated response matches no outstanding request any more; a third HMPDU while two
    // are buffered is discarded.
    assert!(unmatched > 0 && full > 0, "unmatched {unmatched}, buffer full {full}");
}

#[test]
fn reordered_hmpdus_do_not_disturb_the_estimate() {
    // Responses and the requests they prompt go in separate HMPDUs back to back, so there is
    // something to swap with.
    let runs = accurate_despite(Faults { reorder_ppm: 300_000, ..Faults::default() }, 10, false);
    let reordered: u64 = runs.iter().map(|r| r.a.reordered + r.b.reordered).sum();
    assert!(reordered > 10, "{reordered}");
}

#[test]
fn a_result_above_the_maximum_is_discarded_and_counted() {
    // 9.39 us is 183.4 quanta at 10 Gb/s; with the maximum at 150 no result can be this link's
    // round trip: each is counted and left out, and A has no estimate (its allowance stays at
    // its initial or link-delay value).
    let mut cfg = annex_n();
    cfg.a.configure = |c| c.maximum_quanta = 150;
    let r = run(cfg);
    assert!(r.a.results.len() >= 2, "{:?}", r.a);
    assert!(r.a.results.iter().all(|m| m.discarded == Some(Discard::AboveMaximum)));
    assert!(r.a.results.iter().all(|m| m.raw_quanta > 150));
    assert_eq!(r.a.counters.results_discarded_above_maximum, r.a.results.len() as u64);
    assert_eq!(r.a.round_trip_quanta, None);
    assert_eq!(r.b.counters.results_discarded_above_maximum, 0);
}

#[test]
fn one_response_held_for_the_maximum_round_trip_spoils_nothing() {
    // A holds its second response for B's maximum acceptable round trip (the one B derives
    // from the link): B counts it (above the maximum, an outlier, or overtaken by a later
    // answer) and B's estimate stays within 8 quanta of the truth.
    for (speed, metres) in
        [(LinkSpeed::G10, 1), (LinkSpeed::G100, 2_000), (LinkSpeed::G400, 60_000)]
    {
        for seed in 0..4 {
            let mut cfg = annex_n();
            cfg.speed = speed;
            cfg.link_metres = metres;
            cfg.medium = Medium::Fibre;
            cfg.seed = seed;
            cfg.wire_wait_max = speed.quanta(50);
            cfg.response_wait_max = speed.quanta(50);
            let eight: fn(&mut MeasureConfig) = |c| c.results_wanted = 8;
            cfg.a.configure = eight;
            cfg.b.configure = eight;
            let maximum = MeasureConfig::for_link(speed, Default::default(), metres).maximum_quanta;
            cfg.a.hold_response = Some((2, speed.quanta(u64::from(maximum))));
            let r = run(cfg);
            let what = format!("{speed} {metres} m seed {seed}: {:?}", r.b);
            assert_eq!(r.a.held_responses, 1, "{what}");
            let c = r.b.counters;
            let set_aside = c.results_discarded_above_maximum
                + c.results_discarded_outlier
                + c.responses_out_of_order;
            assert_eq!(set_aside, 1, "{what}");
            let error = r.error(Station::B).expect("an estimate");
            assert!(error.abs() <= 8 * r.quantum.as_ps() as i64, "{what}: off by {error} ps");
        }
    }
}

#[test]
fn losing_both_first_hmpdus_costs_one_interval_derived_from_the_link() {
    // Neither station hears the other's first HMPDU, so neither sees two requests without a
    // response: only the repeat after the maximum acceptable round trip restarts the exchange.
    // That interval comes from the link: 20.012 us for 1 m, 391 quanta at 10 Gb/s.
    let mut cfg = annex_n();
    cfg.link_metres = 1;
    cfg.medium = Medium::Fibre;
    cfg.a.lose_first = 1;
    cfg.b.lose_first = 1;
    let r = run(cfg);
    let interval = LinkSpeed::G10.quanta(391);
    for s in [Station::A, Station::B] {
        let o = r.station(s);
        assert_eq!(o.counters.requests_repeated, 1, "{s:?}");
        let second = o.result_at(2).expect("two results");
        assert!(second < interval + r.link_round_trip * 4, "{s:?}: {second}");
    }
}

#[test]
fn a_result_below_the_minimum_is_raised_to_it() {
    let mut cfg = annex_n();
    cfg.a.configure = |c| c.minimum_quanta = 250;
    let r = run(cfg);
    assert!(r.a.results.iter().all(|m| m.quanta == 250 && m.raw_quanta < 250));
    assert_eq!(r.a.counters.results_clamped_to_minimum, r.a.results.len() as u64);
    assert_eq!(r.a.round_trip_quanta, Some(250));
    // Unclamped at B: 183.4 quanta true, measured 184 to 186.
    let b = r.b.round_trip_quanta.expect("B's estimate");
    assert!((184..=186).contains(&b), "{b}");
}

#[test]
fn macsec_on_the_measured_path_gives_the_calculated_allowance() {
    // User data MACsec protected, PFC frames not (path code 1): requests go unprotected, responses
    // through A's transmit SecY and B's receive SecY, each the 36.4.1 bound (19 360 bit times at
    // 10 Gb/s, 1.936 us held in time above). B's allowance by measurement must be the calculated
    // one for the same link within the measurement error, never a SecY delay more.
    use dataplane::headroom::{calculate, measured_headroom, secy_delay, Macsec, WorstCase};
    // With PFC frames protected too (path code 2), requests cross the other two SecYs.
    let links = [(LinkSpeed::G10, 100), (LinkSpeed::G100, 2_000), (LinkSpeed::G400, 1)];
    let paths = [PathCode::DataProtected, PathCode::Protected];
    for ((speed, metres), path) in links.into_iter().flat_map(|l| paths.map(|p| (l, p))) {
        let mut stations = TwoStationConfig::annex_n(0, 1);
        stations.speed = speed;
        stations.link_metres = metres;
        stations.medium = Medium::Fibre;
        let inputs = dataplane::headroom::HeadroomInputs {
            macsec: Macsec::from(path),
            ..stations.headroom_inputs().expect("valid")
        };
        let calculated = calculate(&inputs).expect("valid").bits;
        let secy = secy_delay(speed, inputs.max_frame_octets, None).bits as u64;
        let mut cfg = MeasurePairConfig::for_stations(&stations, 7);
        cfg.path = path;
        cfg.secy_delay = speed.bits_time(secy);
        cfg.wire_wait_max = speed.quanta(100);
        cfg.response_wait_max = speed.quanta(100);
        let r = run(cfg);
        let quanta = r.b.round_trip_quanta.expect("B measured");
        let wd = WorstCase { max_frame_octets: inputs.max_frame_octets };
        let measured = measured_headroom(speed, u64::from(quanta), &wd).expect("valid").bits;
        let config = AllowanceConfig::new(0);
        let results = CalculatedResults { measurement_bits: Some(measured), ..Default::default() };
        let allowance = allowance::select(&config, AutomaticCalculation::Measurement, &results)
            .expect("valid")
            .bits;
        let what =
            format!("{speed} {metres} m {path:?}: measured {allowance}, calculated {calculated}");
        assert!(allowance >= calculated, "{what}");
        assert!(allowance - calculated <= 8 * 512, "{what}");
        assert!(allowance < calculated + secy, "{what}: a SecY counted twice");
    }
}
