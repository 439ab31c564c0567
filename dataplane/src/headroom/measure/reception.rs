//! HMPDU Reception (HR) and the Request and Response Processing machines (QP, RP) of 36.10,
//! Figures 36-16 and 36-17 — which the draft names but does not include, so this is our reading
//! of the text (see the module documentation and DECISIONS.md).
//!
//! HR validates, then decodes an HMPDU into rcvdRequest and rcvdResponse as one atomic step; QP
//! turns rcvdRequest into txResponse, RP turns rcvdResponse into a result and, while measuring,
//! a prompt. Here QP and RP run in the same call as HR, so rcvdRequest and rcvdResponse never
//! outlive it; what HR's buffering rules wait for is what they leave behind: txResponse not yet
//! sent, and a prompt stimulated by reception not yet sent.

use super::estimate::{raise, Discard, Measurement};
use super::participant::{Held, Participant, PendingResponse, Prompt};
use super::paths::Interface;
use crate::headroom::allowance::Clamp;
use crate::time::Picos;
use crate::wire::{Error as WireError, Hmpdu, HmpduTuple, MAC_CONTROL_GROUP};

/// `n / d` rounded towards +∞ (d > 0).
pub(super) fn div_ceil_signed(n: i128, d: i128) -> i128 {
    let q = n.div_euclid(d);
    if n.rem_euclid(d) == 0 {
        q
    } else {
        q + 1
    }
}

impl Participant {
    /// HR: a frame of EtherType 89-A2 arrived through the interface `via`, its last bit at the
    /// reference plane at `now`.
    pub fn receive(&mut self, now: Picos, via: Interface, frame: &[u8]) {
        self.counters.hmpdus_received += 1;
        let pdu = match Hmpdu::parse(frame) {
            Ok(pdu) => pdu,
            Err(WireError::UnknownHmpduSubtype(_)) => {
                self.counters.not_hmpdu += 1;
                return;
            }
            Err(_) => {
                self.counters.malformed += 1;
                return;
            }
        };
        if !self.oper_up {
            self.counters.discarded_not_operational += 1;
            return;
        }
        if !self.paths.carries(via) {
            self.counters.discarded_wrong_interface += 1;
            return;
        }
        if pdu.dst != MAC_CONTROL_GROUP && pdu.dst != self.cfg.address {
            self.counters.discarded_wrong_destination += 1;
            return;
        }
        if pdu.path != self.cfg.path {
            // A path that is not operational (36.9.7).
            self.counters.discarded_wrong_path += 1;
            return;
        }
        if pdu.version != 0 {
            self.counters.other_version += 1;
        }
        let (request, response) = self.decode(&pdu);
        // With distinct paths a request is taken only from the request path and a response only
        // from the response path.
        let mut dropped = false;
        let request = request.filter(|_| {
            let ok = via == self.paths.request;
            dropped |= !ok;
            ok
        });
        let response = response.filter(|_| {
            let ok = via == self.paths.response;
            dropped |= !ok;
            ok
        });
        match (request.is_some() || response.is_some(), dropped) {
            (false, true) => {
                self.counters.discarded_wrong_interface += 1;
                return;
            }
            (false, false) => {
                self.counters.discarded_empty += 1;
                return;
            }
            (true, true) => self.counters.extra_tuples_ignored += 1,
            (true, false) => {}
        }
        let len = frame.len() as u64;
        if self.paths.common() {
            if self.busy() {
                if self.held.is_none() {
                    self.held = Some(Held { at: now, pdu, len });
                    self.counters.hmpdus_delayed += 1;
                } else {
                    self.counters.discarded_buffer_full += 1;
                }
                return;
            }
        } else {
            // Distinct paths: one request and one response at a time.
            let request_busy = request.is_some() && self.tx_response.is_some();
            let response_busy = response.is_some() && self.prompt == Some(Prompt::Response);
            if request_busy || response_busy {
                self.counters.discarded_buffer_full += 1;
                return;
            }
        }
        self.process(now, request, response, len);
    }

    /// Common path: the previous HMPDU's response, or a request it prompted, is still to be sent.
    pub(super) fn busy(&self) -> bool {
        self.tx_response.is_some() || self.prompt.is_some_and(Prompt::stimulated_by_reception)
    }

    /// Decodes a held HMPDU once the previous one's consequences have been sent.
    pub(super) fn release_held(&mut self) {
        if self.busy() {
            return;
        }
        if let Some(held) = self.held.take() {
            let (request, response) = self.decode(&held.pdu);
            self.process(held.at, request, response, held.len);
        }
    }

    /// The first request and the first response of an HMPDU; any further tuple of the same kind
    /// is counted and ignored.
    fn decode(&mut self, pdu: &Hmpdu) -> (Option<HmpduTuple>, Option<HmpduTuple>) {
        let (mut request, mut response) = (None, None);
        for tuple in [pdu.tuple1, pdu.tuple2].into_iter().flatten() {
            let slot = if tuple.is_request() { &mut request } else { &mut response };
            if slot.is_some() {
                self.counters.extra_tuples_ignored += 1;
            } else {
                *slot = Some(tuple);
            }
        }
        (request, response)
    }

    /// rcvdRequest and rcvdResponse set together; RP then QP.
    fn process(
        &mut self,
        at: Picos,
        request: Option<HmpduTuple>,
        response: Option<HmpduTuple>,
        len: u64,
    ) {
        self.counters.hmpdus_processed += 1;
        if let Some(response) = response {
            self.process_response(at, response, len);
        }
        if let Some(request) = request {
            self.process_request(at, request);
        }
    }

    /// QP: a response shall be sent for every request received (36.9.6). Two requests with no
    /// response between them mean our last request was lost: prompt a new one (36.9.7).
    fn process_request(&mut self, at: Picos, request: HmpduTuple) {
        self.counters.requests_received += 1;
        self.tx_response = Some(PendingResponse { request, received_at: at });
        self.requests_since_response += 1;
        if self.requests_since_response >= 2 && self.measure {
            self.requests_since_response = 0;
            if self.prompt.is_none() {
                self.prompt = Some(Prompt::LostRequest);
            }
        }
    }

    /// RP: round trip = ResponseDelay + Request Adjustment + Response Adjustment (36.9.4), raised
    /// to the minimum (36.9.6), offered to the estimate, which discards what cannot be the link's
    /// round trip; while measuring, prompt the next request.
    fn process_response(&mut self, at: Picos, response: HmpduTuple, len: u64) {
        self.requests_since_response = 0;
        let Some(i) =
            self.outstanding.iter().position(|o| o.timestamp == response.request_timestamp)
        else {
            self.counters.responses_unmatched += 1;
            return;
        };
        self.outstanding.remove(i);
        let ts = response.request_timestamp;
        // Wrapping comparison: positive means `ts` was stamped before the newest answered.
        if self.newest_answered.is_some_and(|n| (n.wrapping_sub(ts) as i32) > 0) {
            self.counters.responses_out_of_order += 1;
            return;
        }
        self.newest_answered = Some(ts);
        let raw = self.round_trip(at, &response, len);
        let (quanta, clamp) = raise(raw, self.cfg.minimum_quanta);
        if clamp == Clamp::RaisedToMinimum {
            self.counters.results_clamped_to_minimum += 1;
        }
        let discarded = self.estimate.offer(quanta, self.cfg.maximum_quanta);
        match discarded {
            Some(Discard::AboveMaximum) => self.counters.results_discarded_above_maximum += 1,
            Some(Discard::Outlier) => self.counters.results_discarded_outlier += 1,
            None => {}
        }
        self.results.push(Measurement { at, raw_quanta: raw, quanta, clamp, discarded });
        self.counters.responses_received += 1;
        self.responses_since_up += 1;
        if self.responses_since_up >= self.cfg.results_wanted {
            self.measure = false;
        }
        if self.measure {
            self.prompt = Some(Prompt::Response);
        }
    }

    /// The round trip a response gives, in quanta. The counter resolves whole quanta, so the
    /// elapsed time is taken as its upper bound, one quantum more than the counters' difference
    /// (rounding towards more headroom). Deducted: the fixed local delays and the response's own
    /// transmission, from its first bit to its last — the data frame A was sending when it
    /// stopped is counted in WD, not in the round trip.
    fn round_trip(&self, at: Picos, response: &HmpduTuple, len: u64) -> i64 {
        let quantum = i128::from(self.cfg.speed.quantum().as_ps());
        let elapsed = self.timestamp(at).wrapping_sub(response.request_timestamp);
        let upper = (i128::from(elapsed) + 1) * quantum;
        let timing = &self.cfg.timing;
        let fixed = timing.request_transmit_fixed
            + timing.response_receive_fixed
            + self.cfg.speed.frame_time(len);
        let response_delay = div_ceil_signed(upper - i128::from(fixed.as_ps()), quantum);
        let total = response_delay
            + i128::from(response.request_adjustment)
            + i128::from(response.response_adjustment);
        // At most 2^32 + 2^16: always fits.
        i64::try_from(total).unwrap_or(i64::MAX)
    }
}
