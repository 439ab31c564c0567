//! A plan put on the NIC: each object its own request, in the plan's order, so that a driver
//! refusing one (no buffer operations, a mode it will not take) leaves the others applied; and
//! what the NIC's PFC counters say, read back with an IEEE GET.

use dataplane::mac::MacCounters;
use pfc_dcb::{DcbSocket, IeeePfc, Request};

use super::plan::{Plan, PlannedObject};

/// One object the driver refused, and its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub object: PlannedObject,
    pub error: String,
}

/// What became of a plan's requests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    pub applied: Vec<PlannedObject>,
    pub refused: Vec<Refusal>,
}

/// Sends each of `plan`'s requests about `interface` and waits for each answer.
pub fn apply(dcb: &mut DcbSocket, interface: &str, plan: &Plan) -> Applied {
    apply_with(plan, |request| dcb.request(interface, request).map(drop).map_err(|e| e.to_string()))
}

/// Puts each of `plan`'s requests to `send` (the kernel, or a stand-in for a driver), in order,
/// whatever became of the ones before.
pub fn apply_with(plan: &Plan, mut send: impl FnMut(&Request) -> Result<(), String>) -> Applied {
    let mut out = Applied::default();
    for (object, request) in plan.requests() {
        match send(&request) {
            Ok(()) => out.applied.push(object),
            Err(error) => out.refused.push(Refusal { object, error }),
        }
    }
    out
}

/// The NIC's PFC frame counters as the port reports them: PFCRequests (`ieee_pfc.requests`, PFC
/// frames the NIC sent) and PFCIndications (`indications`, received), per priority and in all,
/// counted from `base`, what they were when the port's counters were last cleared (a NIC's
/// counters cannot be reset through DCB netlink). A counter below its base (the driver started
/// again) counts from zero.
pub fn pfc_counters(read: &IeeePfc, base: &IeeePfc) -> (MacCounters, MacCounters) {
    let since = |now: u64, then: u64| now.checked_sub(then).unwrap_or(now);
    let mut sent = MacCounters::default();
    let mut received = MacCounters::default();
    for p in 0..read.requests.len() {
        sent.pfc_requests_per_priority[p] = since(read.requests[p], base.requests[p]);
        received.pfc_indications_per_priority[p] = since(read.indications[p], base.indications[p]);
    }
    sent.pfc_requests = sent.pfc_requests_per_priority.iter().fold(0, |a, n| a.saturating_add(*n));
    received.pfc_indications =
        received.pfc_indications_per_priority.iter().fold(0, |a, n| a.saturating_add(*n));
    (sent, received)
}
