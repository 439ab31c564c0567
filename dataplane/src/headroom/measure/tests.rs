//! The machines driven by hand, one rule at a time, with the numbers worked out in comments.
//! Whole exchanges over simulated links are in `dataplane/tests/headroom_measurement.rs`.

use super::*;
use crate::headroom::allowance::Clamp;
use crate::time::{LinkSpeed, Picos};
use crate::wire::{Hmpdu, HmpduTuple, MacAddr, PathCode, TupleUse};

const A: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x0a]);
const B: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x0b]);
const U: Interface = Interface::Unprotected;

fn up(address: MacAddr, f: impl FnOnce(&mut MeasureConfig)) -> Participant {
    let mut cfg = MeasureConfig::new(LinkSpeed::G10, address);
    f(&mut cfg);
    let mut p = Participant::new(cfg).expect("valid configuration");
    p.set_oper_up(true);
    p
}

#[test]
fn one_exchange_gives_the_round_trip_worked_out_by_hand() {
    // 10 Gb/s: one quantum is 51.2 ns. A's request leaves at once: Request Adjustment =
    // ceil((20 ns PFC transmit allowance − 0) / 51.2 ns) = 1.
    let mut a = up(A, |_| {});
    let mut b = up(B, |_| {});
    let request = a.poll_transmit(Picos::ZERO, U, Picos::ZERO).expect("first request");
    assert_eq!(request.tuple1, Some(HmpduTuple::request(0, 1)));
    assert_eq!(a.next_deadline(), Some(a.config().repeat_interval()));
    // B answers exactly its 614.4 ns pause entry allowance after the request arrived: Response
    // Adjustment 0, so use code 1. B combines its own first request (prompted at hmOperUp).
    b.poll_transmit(Picos::ZERO, U, Picos::ZERO);
    b.receive(Picos::from_us(5), U, &request.to_vec());
    let response = b.poll_transmit(Picos(5_614_400), U, Picos::ZERO).expect("response");
    let tuple = response.tuple1.expect("response in tuple 1");
    assert_eq!((tuple.kind, tuple.request_timestamp), (TupleUse::ResponseNoAdjustment, 0));
    // Arrives at 10 us: counter 195 (195.3 quanta), upper bound 196 quanta = 10 035.2 ns, less
    // the response's own 67.2 ns on the wire = 9 968 ns = 194.7 quanta → 195, + 1 + 0 = 196.
    a.receive(Picos::from_us(10), U, &response.to_vec());
    let results = a.take_results();
    assert_eq!(
        results,
        [Measurement {
            at: Picos::from_us(10),
            raw_quanta: 196,
            quanta: 196,
            clamp: Clamp::None,
            discarded: None
        }]
    );
    assert_eq!(a.round_trip_quanta(), Some(196));
    // The true figure: 10 us − 67.2 ns + 20 ns = 9 952.8 ns = 194.4 quanta; within 2.
    assert_eq!(a.counters().responses_received, 1);
    // B's request rode along: A now owes a response, and (measuring) sends its second request.
    let next = a.poll_transmit(Picos::from_us(10), U, Picos::ZERO).expect("response + request");
    assert!(next.tuple1.is_some_and(|t| !t.is_request()));
    assert!(next.tuple2.is_some_and(|t| t.is_request()));
}

#[test]
fn adjustments_account_for_waits_and_small_response_adjustments_may_be_omitted() {
    let mut a = up(A, |_| {});
    let mut b = up(B, |c| c.omit_response_adjustment_up_to = 4);
    b.poll_transmit(Picos::ZERO, U, Picos::ZERO);
    // A's request waits 1 us for the wire: ceil((20 − 1000) / 51.2) = ceil(−19.1) = −19.
    let request = a.poll_transmit(Picos::ZERO, U, Picos::from_us(1)).expect("request");
    assert_eq!(request.tuple1.map(|t| t.request_adjustment), Some(-19));
    // B answers 500 ns after arrival: ceil((614.4 − 500) / 51.2) = ceil(2.23) = 3, left out.
    b.receive(Picos::ZERO, U, &request.to_vec());
    let quick = b.poll_transmit(Picos::from_ns(500), U, Picos::ZERO).expect("response");
    assert_eq!(quick.tuple1.map(|t| t.kind), Some(TupleUse::ResponseNoAdjustment));
    assert_eq!(b.counters().response_adjustments_omitted, 1);
    // Another handed over 1 us after arrival and waiting 1 us for the wire:
    // ceil((614.4 − 2000) / 51.2) = ceil(−27.06) = −27.
    b.receive(Picos::from_us(1), U, &request.to_vec());
    let slow = b.poll_transmit(Picos::from_us(2), U, Picos::from_us(1)).expect("response");
    let t = slow.tuple1.expect("tuple 1");
    assert_eq!((t.kind, t.response_adjustment), (TupleUse::Response, -27));
}

#[test]
fn the_timestamp_counter_wraps_without_harm() {
    let mut a = up(A, |c| c.timestamp_origin = u32::MAX - 10);
    let request = a.poll_transmit(Picos::ZERO, U, Picos::ZERO).expect("request");
    assert_eq!(request.tuple1.map(|t| t.request_timestamp), Some(u32::MAX - 10));
    // 100 quanta later the counter reads 89; the wrapping difference is still 100.
    let at = LinkSpeed::G10.quanta(100);
    assert_eq!(a.timestamp(at), 89);
    let tuple = request.tuple1.expect("tuple").respond(0);
    let reply = Hmpdu::new(B, PathCode::Unprotected, Some(tuple), None);
    a.receive(at, U, &reply.to_vec());
    // (100 + 1) quanta − 67.2 ns (1.3 quanta) → 99.7 → 100, + 1 = 101.
    assert_eq!(a.take_results().first().map(|m| m.raw_quanta), Some(101));
}

#[test]
fn at_most_two_hmpdus_on_a_common_path() {
    let mut b = up(B, |_| {});
    b.poll_transmit(Picos::ZERO, U, Picos::ZERO);
    let request = |ts| Hmpdu::new(A, PathCode::Unprotected, Some(HmpduTuple::request(ts, 0)), None);
    for ts in 1..=3 {
        b.receive(Picos::from_us(ts.into()), U, &request(ts).to_vec());
    }
    let c = *b.counters();
    assert_eq!((c.hmpdus_processed, c.hmpdus_delayed, c.discarded_buffer_full), (1, 1, 1));
    // The first response goes (with a request, as B is measuring); then the held HMPDU is decoded.
    let first = b.poll_transmit(Picos::from_us(4), U, Picos::ZERO).expect("first response");
    assert_eq!(first.tuple1.map(|t| t.request_timestamp), Some(1));
    assert!(b.wants_transmit(Picos::from_us(4), U));
    let second = b.poll_transmit(Picos::from_us(4), U, Picos::ZERO).expect("second response");
    assert_eq!(second.tuple1.map(|t| t.request_timestamp), Some(2));
    assert_eq!(b.counters().responses_sent, 2);
}

#[test]
fn distinct_paths_take_requests_and_responses_from_their_own_interfaces() {
    let mut b = up(B, |c| c.path = PathCode::DataProtected);
    assert_eq!(b.paths(), Paths { request: U, response: Interface::Secy });
    let request =
        Hmpdu::new(A, PathCode::DataProtected, Some(HmpduTuple::request(7, 0)), None).to_vec();
    b.receive(Picos::ZERO, Interface::Secy, &request);
    assert_eq!(b.counters().discarded_wrong_interface, 1, "a request on the response path");
    b.receive(Picos::ZERO, U, &request);
    b.receive(Picos::ZERO, U, &request);
    assert_eq!(b.counters().discarded_buffer_full, 1, "one request at a time");
    // The request path carries only B's own request; the response goes on the Controlled Port.
    let own = b.poll_transmit(Picos::ZERO, U, Picos::ZERO).expect("B's request");
    assert!(own.tuple1.is_some_and(|t| t.is_request()) && own.tuple2.is_none());
    assert!(!b.wants_transmit(Picos::ZERO, U));
    let response = b.poll_transmit(Picos::ZERO, Interface::Secy, Picos::ZERO).expect("response");
    assert_eq!(response.tuple1.map(|t| t.request_timestamp), Some(7));
    b.receive(Picos::ZERO, Interface::ExpressPrivacy, &request);
    assert_eq!(b.counters().discarded_wrong_interface, 2);
}

#[test]
fn what_cannot_be_used_is_counted_and_ignored() {
    let mut b = Participant::new(MeasureConfig::new(LinkSpeed::G10, B)).expect("valid");
    let request = |path| Hmpdu::new(A, path, Some(HmpduTuple::request(7, 0)), None);
    b.receive(Picos::ZERO, U, &request(PathCode::Unprotected).to_vec());
    assert_eq!(b.counters().discarded_not_operational, 1);
    b.set_oper_up(true);
    b.receive(Picos::ZERO, U, &request(PathCode::Protected).to_vec());
    assert_eq!(b.counters().discarded_wrong_path, 1);
    let mut version_3 = request(PathCode::Unprotected);
    version_3.version = 3;
    b.receive(Picos::ZERO, U, &version_3.to_vec());
    assert_eq!((b.counters().other_version, b.counters().requests_received), (1, 1));
    let mut cim = request(PathCode::Unprotected).to_vec();
    cim[14] = 0x02;
    b.receive(Picos::ZERO, U, &cim);
    b.receive(Picos::ZERO, U, &[0xff; 7]);
    b.receive(Picos::ZERO, U, &Hmpdu::new(A, PathCode::Unprotected, None, None).to_vec());
    let mut unicast = request(PathCode::Unprotected);
    unicast.dst = MacAddr([0x02, 0, 0, 0, 0, 0x99]);
    b.receive(Picos::ZERO, U, &unicast.to_vec());
    let c = b.counters();
    assert_eq!((c.not_hmpdu, c.malformed, c.discarded_empty), (1, 1, 1));
    assert_eq!(c.discarded_wrong_destination, 1);
    assert_eq!(c.hmpdus_received, 7);
}

#[test]
fn a_duplicated_response_gives_one_result() {
    let mut a = up(A, |_| {});
    let request = a.poll_transmit(Picos::ZERO, U, Picos::ZERO).expect("request");
    let reply =
        Hmpdu::new(B, PathCode::Unprotected, request.tuple1.map(|t| t.respond(0)), None).to_vec();
    a.receive(Picos::from_us(10), U, &reply);
    a.receive(Picos::from_us(10), U, &reply);
    // The copy waits in HR's second buffer until A's prompted request has gone.
    assert_eq!(a.counters().hmpdus_delayed, 1);
    a.poll_transmit(Picos::from_us(10), U, Picos::ZERO).expect("next request");
    assert_eq!((a.counters().responses_received, a.counters().responses_unmatched), (1, 1));
    assert_eq!(a.estimate().count, 1);
}

#[test]
fn an_answer_overtaken_by_a_later_one_is_set_aside() {
    let mut a = up(A, |c| c.combine = false);
    let first = a.poll_transmit(Picos::ZERO, U, Picos::ZERO).expect("first request");
    let second = a.poll_transmit(a.config().repeat_interval(), U, Picos::ZERO).expect("repeat");
    let reply = |req: Hmpdu| {
        Hmpdu::new(B, PathCode::Unprotected, req.tuple1.map(|t| t.respond(0)), None).to_vec()
    };
    let at = a.config().repeat_interval() + Picos::from_us(10);
    a.receive(at, U, &reply(second));
    a.poll_transmit(at, U, Picos::ZERO).expect("prompted request");
    a.receive(at, U, &reply(first));
    assert_eq!((a.counters().responses_received, a.counters().responses_out_of_order), (1, 1));
    assert_eq!(a.estimate().count, 1);
}

#[test]
fn two_requests_without_a_response_mean_ours_was_lost() {
    let mut a = up(A, |c| c.path = PathCode::DataProtected);
    a.poll_transmit(Picos::ZERO, U, Picos::ZERO).expect("first request, lost");
    let request = |ts| {
        Hmpdu::new(B, PathCode::DataProtected, Some(HmpduTuple::request(ts, 0)), None).to_vec()
    };
    a.receive(Picos::from_us(1), U, &request(1));
    assert!(!a.wants_transmit(Picos::from_us(1), U), "one request proves nothing");
    a.poll_transmit(Picos::from_us(1), Interface::Secy, Picos::ZERO).expect("response");
    a.receive(Picos::from_us(2), U, &request(2));
    let again = a.poll_transmit(Picos::from_us(2), U, Picos::ZERO).expect("a new request");
    assert!(again.tuple1.is_some_and(|t| t.is_request()));
    assert_eq!((a.counters().requests_sent, a.counters().requests_after_loss), (2, 1));
}

#[test]
fn measurement_stops_after_the_results_wanted_and_repeats_wait_for_the_maximum() {
    let mut a = up(A, |c| c.maximum_quanta = 1_000);
    let interval = LinkSpeed::G10.quanta(1_000);
    assert_eq!(interval, Picos::from_ns(51_200));
    let first = a.poll_transmit(Picos::ZERO, U, Picos::ZERO).expect("first request");
    assert!(!a.wants_transmit(interval - Picos(1), U));
    assert!(a.wants_transmit(interval, U));
    let repeat = a.poll_transmit(interval, U, Picos::ZERO).expect("repeat");
    assert_eq!(a.counters().requests_repeated, 1);
    for (at, req) in [(60, first), (70, repeat)] {
        let reply = Hmpdu::new(B, PathCode::Unprotected, req.tuple1.map(|t| t.respond(0)), None);
        a.receive(Picos::from_us(at), U, &reply.to_vec());
        // Each result prompts the next request while measuring.
        a.poll_transmit(Picos::from_us(at), U, Picos::ZERO);
    }
    assert_eq!(a.counters().requests_sent, 3);
    // The first answer waited 60 us: above the maximum of 1000 quanta (51.2 us), it cannot be
    // the link's round trip and is left out; the second, 10 us after its request, is taken.
    let results = a.take_results();
    assert_eq!(
        results.iter().map(|m| m.discarded).collect::<Vec<_>>(),
        [Some(Discard::AboveMaximum), None]
    );
    assert_eq!(a.counters().results_discarded_above_maximum, 1);
    assert_eq!(a.estimate().count, 1);
    assert!(!a.measuring());
    assert_eq!(a.next_deadline(), None);
    assert!(!a.wants_transmit(Picos::from_ms(1), U));
    a.request_measurement();
    assert!(a.wants_transmit(Picos::from_us(70) + interval, U));
}

#[test]
fn adjustments_beyond_16_bits_saturate() {
    let mut a = up(A, |_| {});
    // 40 000 quanta of wait at 10G is 2.048 ms: the adjustment would be −39 999.
    let request = a.poll_transmit(Picos::ZERO, U, LinkSpeed::G10.quanta(40_000)).expect("request");
    assert_eq!(request.tuple1.map(|t| t.request_adjustment), Some(i16::MIN));
    assert_eq!(a.counters().adjustments_saturated, 1);
}

#[test]
fn a_path_change_takes_the_participant_down_and_forgets_the_estimate() {
    let mut a = up(A, |_| {});
    let request = a.poll_transmit(Picos::ZERO, U, Picos::ZERO).expect("request");
    let reply = Hmpdu::new(B, PathCode::Unprotected, request.tuple1.map(|t| t.respond(0)), None);
    a.receive(Picos::from_us(10), U, &reply.to_vec());
    assert!(a.round_trip_quanta().is_some());
    a.set_path(PathCode::Protected);
    assert!(!a.oper_up());
    assert_eq!(a.round_trip_quanta(), None);
    assert_eq!(a.paths().request, Interface::Secy);
}

#[test]
fn configurations_the_protocol_cannot_run_with_are_refused() {
    let base = MeasureConfig::new(LinkSpeed::G100, A);
    let with = |f: fn(&mut MeasureConfig)| {
        let mut c = base;
        f(&mut c);
        Participant::new(c).map(|_| ())
    };
    assert_eq!(with(|c| c.results_wanted = 1), Err(MeasureError::TooFewResults(1)));
    assert_eq!(with(|c| c.maximum_quanta = 0), Err(MeasureError::ZeroMaximum));
    assert_eq!(
        with(|c| c.minimum_quanta = c.maximum_quanta + 1),
        Err(MeasureError::MinimumAboveMaximum { minimum: 238_283, maximum: 238_282 })
    );
    assert_eq!(with(|c| c.omit_response_adjustment_up_to = 5), Err(MeasureError::OmitTooLarge(5)));
    // 100 km unless configured: 12 ns a metre there and back, plus 20 us for the stations,
    // 1.22 ms = 238 281.25 quanta of 5.12 ns at 100 Gb/s, rounded up.
    assert_eq!(base.maximum_quanta, 238_282);
    // A 1 m link: 20.012 us, 391 quanta at 10 Gb/s — what a lost first request costs.
    assert_eq!(MeasureConfig::for_link(LinkSpeed::G10, A, 1).maximum_quanta, 391);
}

#[test]
fn a_response_reflects_the_path_and_sends_bits_2_1_as_zero() {
    // 36.9.5: bits 2-1 are transmitted as zero and ignored on receipt; 36.9.6 would reflect bits
    // 4-1. We reflect the path (bits 4-3, which must be ours anyway) and send bits 2-1 as zero.
    let mut b = up(B, |c| c.path = PathCode::Protected);
    b.poll_transmit(Picos::ZERO, Interface::Secy, Picos::ZERO);
    let mut request =
        Hmpdu::new(A, PathCode::Protected, Some(HmpduTuple::request(9, 0)), None).to_vec();
    request[15] |= 0b11; // Format Identifier, the octet after Version/Subtype
    let parsed = Hmpdu::parse(&request).expect("parses");
    assert_eq!((parsed.reserved, parsed.path), (0b11, PathCode::Protected));
    b.receive(Picos::ZERO, Interface::Secy, &request);
    assert_eq!(b.counters().requests_received, 1, "bits 2-1 are ignored on receipt");
    let response = b.poll_transmit(Picos::ZERO, Interface::Secy, Picos::ZERO).expect("response");
    assert_eq!(response.tuple1.map(|t| t.request_timestamp), Some(9));
    let bytes = response.to_vec();
    assert_eq!(bytes[15] & 0b1111, 0b1000, "path 2 reflected, bits 2-1 zero");
}

#[test]
fn a_peers_negative_adjustments_never_bring_a_result_below_our_own_delays() {
    // Our own delays at 10 Gb/s: 20 ns to transmit PFC + 67.2 ns for the PFC frame on the
    // wire = 87.2 ns = 1.7 quanta, rounded up to 2.
    let own = MeasureConfig::own_delays_quanta(LinkSpeed::G10, &LocalTiming::default());
    assert_eq!(own, 2);
    let mut a = up(A, |_| {});
    assert_eq!(a.config().minimum_quanta, own);
    let mut b = up(B, |_| {});
    b.poll_transmit(Picos::ZERO, U, Picos::ZERO);
    let request = a.poll_transmit(Picos::ZERO, U, Picos::ZERO).expect("request");
    b.receive(Picos::from_us(5), U, &request.to_vec());
    let mut response = b.poll_transmit(Picos(5_614_400), U, Picos::ZERO).expect("response");
    // The peer claims it held the response for 32 768 quanta (1.68 ms at 10 Gb/s).
    let tuple = response.tuple1.expect("response in tuple 1");
    response.tuple1 =
        Some(HmpduTuple { kind: TupleUse::Response, response_adjustment: i16::MIN, ..tuple });
    a.receive(Picos::from_us(10), U, &response.to_vec());
    let results = a.take_results();
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].raw_quanta < 0, "{results:?}");
    assert_eq!((results[0].quanta, results[0].clamp), (own, Clamp::RaisedToMinimum));
    assert_eq!(a.round_trip_quanta(), Some(own));
}
