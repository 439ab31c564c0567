//! The PFC headroom measurement protocol (P802.1Qdt 36.9, 36.10) as pure state machines: events
//! and time in (`receive`, `poll_transmit`, hmOperUp, path changes), HMPDUs and results out. No
//! I/O, no threads, no clock of its own; [`crate::sim`] runs two participants over simulated
//! links.
//!
//! A requester stamps a request with a free-running 32-bit counter of pause quanta; the peer
//! reflects it in a response. On receipt (36.9.4):
//!
//! ```text
//! round trip = ResponseDelay + Request Adjustment + Response Adjustment        (pause quanta)
//! ResponseDelay = (counter now − Request Timestamp + 1)                    (wrapping; +1: the
//!                  − fixed local delays − the response's own transmission    upper bound)
//! ```
//!
//! Each result is raised to the minimum; one above the maximum (the round trip of the longest
//! link the port may have) or an isolated one far above the rest is discarded and counted; the
//! estimate is the lower median of the last eight taken (`estimate.rs`). [`Participant::headroom`]
//! adds the worst-case delay WD.
//!
//! # Our reading of Figures 36-16 to 36-19
//!
//! The draft names the machines of Figure 36-15 but the figures themselves are missing. From the
//! text of 36.9.6, 36.9.7 and 36.10 we model:
//!
//! - **Variables.** BEGIN ([`Participant::begin`]), hmOperUp ([`Participant::set_oper_up`];
//!   FALSE on a path change), `measure` (TRUE when hmOperUp becomes TRUE, FALSE once
//!   `results_wanted` ≥ 2 responses have been processed; [`Participant::request_measurement`]
//!   sets it again), requestPath and responsePath ([`Paths`], from the path code), rcvdRequest
//!   and rcvdResponse (set together by HR, consumed at once by QP and RP), txResponse, and
//!   `prompt` (kept with its cause, [`Prompt`]).
//! - **HR.** Discards, each counted: frames that do not parse (malformed; subtype ≠ 1 is
//!   `not_hmpdu`), anything while hmOperUp is FALSE, HMPDUs from an interface that is neither
//!   path, HMPDUs naming another path code (a path that is not operational), HMPDUs to another
//!   unicast address. Version ≠ 0 is processed as 0 and counted. With distinct paths, a request
//!   is taken only from the request path and only while no txResponse is waiting; a response
//!   only from the response path and only while no prompt it caused is waiting. On a common path
//!   an HMPDU is decoded only when no txResponse and no reception-caused prompt is waiting;
//!   otherwise one HMPDU is held and any further one discarded — never more than two HMPDUs per
//!   path (36.10).
//! - **QP.** Every request processed becomes txResponse (a response shall be sent for every
//!   request, 36.9.6). The second request since our last request sent or response received
//!   means our last request was lost (36.9.7): while measuring, prompt a new one.
//! - **RP.** A response whose timestamp matches none of our last four requests is counted
//!   (`responses_unmatched`) and ignored, so duplicated, stale or foreign responses cannot
//!   poison the estimate; so is one answering a request older than one already answered
//!   (`responses_out_of_order`): it was held up somewhere on the way and would overstate the
//!   round trip. Otherwise: a result, offered to the estimate; while still measuring, prompt
//!   the next request (pacing by the link, 36.9.6).
//! - **CT** (requestPath == responsePath): on a transmit opportunity, txResponse first; a request
//!   rides in the same HMPDU whenever one is prompted or due, and — with `combine` (examples 2
//!   and 3) — whenever a response goes out while measuring and fewer than two of our requests
//!   are in flight (otherwise duplicated requests would double the requests in flight at every
//!   exchange, the "successive doubling" 36.9.7 warns of). Without `combine` a prompted request
//!   waits for the next opportunity (example 1).
//! - **Request / Response Path Transmission** (distinct paths): requests alone on the request
//!   path, responses alone on the response path. CT is unused and vice versa.
//! - **Repeats.** Unprompted requests are not sent more often than the maximum acceptable round
//!   trip (the same 36.11 maximum that bounds results, derived from the longest link the port
//!   may have): a lost first request costs one such interval, and a peer that never answers gets
//!   one request per interval, for as long as `measure` stays TRUE.
//!
//! The adjustments are worked out in `transmit.rs`; the result in `reception.rs`.

mod config;
mod counters;
mod estimate;
mod participant;
mod paths;
mod reception;
mod transmit;

#[cfg(test)]
mod tests;

pub use config::{
    LocalTiming, MeasureConfig, MeasureError, DEFAULT_LONGEST_LINK_METRES, ESTIMATE_WINDOW,
    MAX_OMITTED_RESPONSE_ADJUSTMENT,
};
pub use counters::MeasureCounters;
pub use estimate::{Discard, Estimate, Measurement, Outcome, OUTLIER_MARGIN_QUANTA};
pub use participant::{Participant, Prompt};
pub use paths::{Interface, Paths};
