//! Before pfcd changes anything (state directory, administrator, interfaces), each interface is
//! asked for its DCB objects with a GET, which changes nothing either: an interface whose
//! driver has no DCB operations cannot take PFC from pfcd, and pfcd refuses to start rather than
//! run half configured.

use pfc_dcb::{DcbError, DcbSocket, DcbxMode, IeeeObjects};

/// What the operator can run instead, named in every refusal.
const THE_OTHER_KINDS: &str = "run these interfaces on pfcd's software bridge instead \
     (data-plane = \"bridge\" in [interfaces], the default), or use the embedded lab \
     (ports = \"lab\")";

/// What an interface answered: its IEEE objects and its DCBX mode.
pub type Found = (IeeeObjects, Option<DcbxMode>);

/// What each interface answered, in order; or, when any does not answer, a refusal naming each
/// that does not and why, and the two other kinds of port.
pub fn check_before_start(names: &[String]) -> Result<Vec<Found>, String> {
    let mut dcb = DcbSocket::open().map_err(|e| format!("data-plane = \"nic\": {e}"))?;
    let mut found = Vec::new();
    let mut refusals = Vec::new();
    for name in names {
        match dcb.ieee_get(name) {
            Ok(answer) => found.push(answer),
            Err(e) => refusals.push(refusal(name, &e)),
        }
    }
    if refusals.is_empty() {
        return Ok(found);
    }
    Err(format!(
        "data-plane = \"nic\" needs interfaces whose NIC takes PFC through DCB netlink: {}; \
         {THE_OTHER_KINDS}. Nothing was changed",
        refusals.join("; ")
    ))
}

fn refusal(name: &str, e: &DcbError) -> String {
    if e.not_supported() {
        format!(
            "{name} has no DCB operations (its driver answers EOPNOTSUPP, as veth and most \
             virtual devices do)"
        )
    } else {
        e.to_string()
    }
}
