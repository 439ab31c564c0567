//! Common Path Transmission (CT), and Request Path and Response Path Transmission when
//! requestPath != responsePath (36.10, Figures 36-18 and 36-19, read from the text).
//!
//! The caller offers a transmit opportunity on an interface and says how long the HMPDU will wait
//! before its first bit goes on the wire (a frame in progress, a closed transmission gate). That
//! wait, and a response's time since its request arrived, are what the adjustments account for:
//!
//! - Request Adjustment = PFC transmit allowance (items a) to c)) − wait, in quanta rounded up;
//! - Response Adjustment = pause entry allowance (item h)) − (time since the request arrived +
//!   wait), rounded up, sent as 0 (use code 1) when its magnitude is within the configured
//!   omission limit (at most 4, 36.9.6).
//!
//! Both round towards more headroom, and saturate at the 16-bit limits (counted).

use super::participant::{Outstanding, Participant, PendingResponse, Prompt, OUTSTANDING_MAX};
use super::paths::Interface;
use super::reception::div_ceil_signed;
use crate::time::Picos;
use crate::wire::{Hmpdu, HmpduTuple};

impl Participant {
    /// Whether this participant has an HMPDU for `via` at `now`: the caller then offers a
    /// transmit opportunity with [`poll_transmit`](Self::poll_transmit).
    pub fn wants_transmit(&self, now: Picos, via: Interface) -> bool {
        if !self.oper_up || !self.paths.carries(via) {
            return false;
        }
        if self.paths.common() {
            self.tx_response.is_some() || self.request_due(now)
        } else if via == self.paths.request {
            self.request_due(now)
        } else {
            self.tx_response.is_some()
        }
    }

    /// A transmit opportunity on `via`: the HMPDU to send, if any. It is handed over now and its
    /// first bit goes on the wire `wire_delay` later.
    pub fn poll_transmit(
        &mut self,
        now: Picos,
        via: Interface,
        wire_delay: Picos,
    ) -> Option<Hmpdu> {
        if !self.oper_up || !self.paths.carries(via) {
            return None;
        }
        let pdu = if self.paths.common() {
            self.common_path(now, wire_delay)
        } else if via == self.paths.request {
            self.request_path(now, wire_delay)
        } else {
            self.response_path(now, wire_delay)
        };
        if pdu.is_some() {
            self.counters.hmpdus_sent += 1;
        }
        if self.paths.common() {
            self.release_held();
        }
        pdu
    }

    /// Whether a request may go now: while measuring, when prompted, or when the maximum
    /// acceptable round trip has passed since the last (36.9.6).
    fn request_due(&self, now: Picos) -> bool {
        self.measure
            && (self.prompt.is_some()
                || self.last_request_at.is_none_or(|t| now >= t + self.cfg.repeat_interval()))
    }

    /// CT: the response first (one shall be sent for every request); a request rides with it
    /// when combining, or goes alone.
    fn common_path(&mut self, now: Picos, wire_delay: Picos) -> Option<Hmpdu> {
        let pending = self.tx_response.take();
        let with_response = pending.is_some();
        let send_request = if self.cfg.combine {
            self.request_due(now) || (self.measure && with_response && self.may_ride(now))
        } else {
            !with_response && self.request_due(now)
        };
        let response = pending.map(|p| self.make_response(now, wire_delay, p));
        let request = send_request.then(|| self.make_request(now, wire_delay, with_response));
        match response {
            Some(response) => Some(self.hmpdu(Some(response), request)),
            None => request.map(|request| self.hmpdu(Some(request), None)),
        }
    }

    /// Whether a request may ride with a response unprompted: only while fewer than two of our
    /// requests are in flight (sent within the maximum acceptable round trip and unanswered).
    /// Without this limit a duplicated request would double the requests in flight on every
    /// exchange (the "successive doubling" of 36.9.7).
    fn may_ride(&self, now: Picos) -> bool {
        let interval = self.cfg.repeat_interval();
        self.outstanding.iter().filter(|o| now < o.sent_at + interval).count() < 2
    }

    /// Request Path Transmission: requests alone.
    fn request_path(&mut self, now: Picos, wire_delay: Picos) -> Option<Hmpdu> {
        if !self.request_due(now) {
            return None;
        }
        let request = self.make_request(now, wire_delay, false);
        Some(self.hmpdu(Some(request), None))
    }

    /// Response Path Transmission: responses alone.
    fn response_path(&mut self, now: Picos, wire_delay: Picos) -> Option<Hmpdu> {
        let pending = self.tx_response.take()?;
        let response = self.make_response(now, wire_delay, pending);
        Some(self.hmpdu(Some(response), None))
    }

    /// Format Identifier bits 4-3 name our path, which is the request's (HR discards an HMPDU
    /// naming another), so a response reflects them; bits 2-1 go as zero in requests and
    /// responses alike (36.9.5; DECISIONS.md, "HMPDU Format Identifier bits 2-1").
    fn hmpdu(&self, tuple1: Option<HmpduTuple>, tuple2: Option<HmpduTuple>) -> Hmpdu {
        Hmpdu::new(self.cfg.address, self.cfg.path, tuple1, tuple2)
    }

    fn make_request(&mut self, now: Picos, wire_delay: Picos, with_response: bool) -> HmpduTuple {
        let cause = self.prompt.take();
        let repeat = self.last_request_at.is_some_and(|t| now >= t + self.cfg.repeat_interval());
        self.counters.requests_sent += 1;
        if with_response {
            self.counters.requests_with_response += 1;
        }
        match cause {
            Some(Prompt::LostRequest) => self.counters.requests_after_loss += 1,
            None if repeat && !with_response => self.counters.requests_repeated += 1,
            _ => {}
        }
        let timestamp = self.timestamp(now);
        let adjustment = self.adjustment(self.cfg.timing.pfc_transmit, wire_delay);
        if self.outstanding.len() == OUTSTANDING_MAX {
            self.outstanding.pop_front();
        }
        self.outstanding.push_back(Outstanding { timestamp, sent_at: now });
        self.last_request_at = Some(now);
        self.requests_since_response = 0;
        HmpduTuple::request(timestamp, adjustment)
    }

    fn make_response(
        &mut self,
        now: Picos,
        wire_delay: Picos,
        pending: PendingResponse,
    ) -> HmpduTuple {
        let taken = (now - pending.received_at) + wire_delay;
        let mut adjustment = self.adjustment(self.cfg.timing.pause_entry, taken);
        if adjustment != 0 && adjustment.unsigned_abs() <= self.cfg.omit_response_adjustment_up_to {
            adjustment = 0;
            self.counters.response_adjustments_omitted += 1;
        }
        self.counters.responses_sent += 1;
        pending.request.respond(adjustment)
    }

    /// (allowed − actual) in quanta, rounded up, saturated to 16 bits.
    fn adjustment(&mut self, allowed: Picos, actual: Picos) -> i16 {
        let quantum = i128::from(self.cfg.speed.quantum().as_ps());
        let diff = i128::from(allowed.as_ps()) - i128::from(actual.as_ps());
        let quanta = div_ceil_signed(diff, quantum);
        i16::try_from(quanta).unwrap_or_else(|_| {
            self.counters.adjustments_saturated += 1;
            if quanta < 0 {
                i16::MIN
            } else {
                i16::MAX
            }
        })
    }
}
