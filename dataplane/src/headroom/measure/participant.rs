//! One participant of the headroom measurement protocol: the shared variables of Figure 36-15 and
//! the events that set them from outside (BEGIN, hmOperUp, a path change, a request for a new
//! measurement). Reception (HR, QP, RP) is in `reception.rs`, transmission (CT and the two path
//! machines) in `transmit.rs`.

use std::collections::VecDeque;

use super::config::{MeasureConfig, MeasureError};
use super::counters::MeasureCounters;
use super::estimate::{Estimate, Measurement};
use super::paths::{Interface, Paths};
use crate::headroom::{measured_headroom, Headroom, HeadroomError, WorstCase};
use crate::time::Picos;
use crate::wire::{Hmpdu, HmpduTuple, PathCode};

/// Requests remembered for matching responses. Responses normally come back in order and at most
/// two requests are in flight (36.9.7); four leaves room for a repeat crossing a late response.
pub(super) const OUTSTANDING_MAX: usize = 4;

/// Why a request is to be sent (the variable `prompt` of 36.10, with its cause kept for the
/// counters and for HR's buffering rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Prompt {
    /// hmOperUp became TRUE with `measure` set: the first request.
    OperUp,
    /// A response was processed and measurement continues (36.9.6).
    Response,
    /// Two requests arrived with no response between them: ours was lost (36.9.7).
    LostRequest,
}

impl Prompt {
    /// Prompts that reception stimulated: HR holds further HMPDUs until they are sent.
    pub(super) fn stimulated_by_reception(self) -> bool {
        matches!(self, Prompt::Response | Prompt::LostRequest)
    }
}

/// A request received and not yet answered (txResponse).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct PendingResponse {
    pub request: HmpduTuple,
    /// When the request arrived: the Response Adjustment counts from here.
    pub received_at: Picos,
}

/// An HMPDU held by HR on the common path until the previous one's consequences are sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Held {
    pub at: Picos,
    pub pdu: Hmpdu,
    /// Frame length, octets without FCS.
    pub len: u64,
}

/// A request in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Outstanding {
    pub timestamp: u32,
    pub sent_at: Picos,
}

/// A participant: pure state, driven by [`receive`](Self::receive),
/// [`poll_transmit`](Self::poll_transmit) and the configuration events; no I/O, no clock.
#[derive(Debug, Clone)]
pub struct Participant {
    pub(super) cfg: MeasureConfig,
    pub(super) paths: Paths,
    /// hmOperUp.
    pub(super) oper_up: bool,
    /// measure.
    pub(super) measure: bool,
    /// txResponse.
    pub(super) tx_response: Option<PendingResponse>,
    /// prompt.
    pub(super) prompt: Option<Prompt>,
    pub(super) held: Option<Held>,
    pub(super) outstanding: VecDeque<Outstanding>,
    pub(super) last_request_at: Option<Picos>,
    /// The Request Timestamp of the newest of our requests answered so far: an answer to an
    /// older one arrives out of order and is ignored.
    pub(super) newest_answered: Option<u32>,
    /// Requests received since the last response received or request sent.
    pub(super) requests_since_response: u32,
    /// Responses processed since hmOperUp last became TRUE (or a new measurement was asked for).
    pub(super) responses_since_up: u32,
    pub(super) estimate: Estimate,
    pub(super) results: Vec<Measurement>,
    pub(super) counters: MeasureCounters,
}

impl Participant {
    /// A participant after BEGIN: hmOperUp FALSE, nothing measured.
    pub fn new(cfg: MeasureConfig) -> Result<Self, MeasureError> {
        cfg.validate()?;
        Ok(Participant {
            paths: Paths::for_path(cfg.path),
            cfg,
            oper_up: false,
            measure: false,
            tx_response: None,
            prompt: None,
            held: None,
            outstanding: VecDeque::with_capacity(OUTSTANDING_MAX),
            last_request_at: None,
            newest_answered: None,
            requests_since_response: 0,
            responses_since_up: 0,
            estimate: Estimate::default(),
            results: Vec::new(),
            counters: MeasureCounters::default(),
        })
    }

    /// BEGIN: every machine back to its initial state, hmOperUp FALSE. The estimate and the
    /// counters are kept (36.9.6 lets a prior estimate persist).
    pub fn begin(&mut self) {
        self.set_oper_up(false);
        self.measure = false;
    }

    /// hmOperUp: TRUE when this entity can both send and receive HMPDUs on the current request
    /// and response paths. Becoming TRUE sets `measure` and prompts the first request (36.9.6
    /// a)); becoming FALSE drops everything buffered.
    pub fn set_oper_up(&mut self, up: bool) {
        if up == self.oper_up {
            return;
        }
        self.oper_up = up;
        self.tx_response = None;
        self.held = None;
        self.outstanding.clear();
        self.requests_since_response = 0;
        self.responses_since_up = 0;
        self.last_request_at = None;
        self.newest_answered = None;
        self.prompt = None;
        if up {
            self.measure = true;
            self.prompt = Some(Prompt::OperUp);
        }
    }

    /// A new path (MACsec or MAC Privacy became operational or stopped): requestPath and
    /// responsePath change, so hmOperUp becomes FALSE until the caller says the new paths work,
    /// and the estimate, which was for the old path, is forgotten.
    pub fn set_path(&mut self, path: PathCode) {
        if path == self.cfg.path {
            return;
        }
        self.cfg.path = path;
        self.paths = Paths::for_path(path);
        self.set_oper_up(false);
        self.estimate.reset();
    }

    /// Asks for a new measurement (36.9.6 b) to d)): `measure` is set until another
    /// `results_wanted` responses have been processed. The next request still waits for the
    /// maximum acceptable round trip since the last one.
    pub fn request_measurement(&mut self) {
        self.measure = true;
        self.responses_since_up = 0;
    }

    pub fn config(&self) -> &MeasureConfig {
        &self.cfg
    }

    pub fn paths(&self) -> Paths {
        self.paths
    }

    /// hmOperUp.
    pub fn oper_up(&self) -> bool {
        self.oper_up
    }

    /// measure: TRUE until enough responses have been processed.
    pub fn measuring(&self) -> bool {
        self.measure
    }

    pub fn counters(&self) -> &MeasureCounters {
        &self.counters
    }

    pub fn estimate(&self) -> &Estimate {
        &self.estimate
    }

    /// The round-trip estimate in pause quanta, once there is a result.
    pub fn round_trip_quanta(&self) -> Option<u32> {
        self.estimate.quanta()
    }

    /// Results since the last call, oldest first.
    pub fn take_results(&mut self) -> Vec<Measurement> {
        std::mem::take(&mut self.results)
    }

    /// The headroom the estimate gives: round trip × 512 + WD (Annex N), once there is one.
    pub fn headroom(&self, wd: &WorstCase) -> Option<Result<Headroom, HeadroomError>> {
        self.round_trip_quanta().map(|q| measured_headroom(self.cfg.speed, u64::from(q), wd))
    }

    /// When to poll again if nothing else happens: the time a request may be repeated, while
    /// measuring. Transmissions wanted now are told by [`wants_transmit`](Self::wants_transmit).
    pub fn next_deadline(&self) -> Option<Picos> {
        if !(self.oper_up && self.measure) {
            return None;
        }
        self.last_request_at.map(|t| t + self.cfg.repeat_interval())
    }

    /// The free-running quantum counter at `now`: the Request Timestamp (SPEC §4.3). It wraps;
    /// only differences are used.
    pub fn timestamp(&self, now: Picos) -> u32 {
        // Truncating to 32 bits is the counter wrapping.
        let quanta = (now.as_ps() / self.cfg.speed.quantum().as_ps()) as u32;
        self.cfg.timestamp_origin.wrapping_add(quanta)
    }

    /// txResponse: a response is waiting for a transmit opportunity.
    pub fn response_pending(&self) -> bool {
        self.tx_response.is_some()
    }

    /// Whether the interface `via` carries HMPDUs of this participant at all.
    pub fn uses(&self, via: Interface) -> bool {
        self.paths.carries(via)
    }
}
