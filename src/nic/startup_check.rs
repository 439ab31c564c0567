//! Before pfcd changes anything (state directory, administrator, interfaces), each interface is
//! asked for its DCB objects with a GET, which changes nothing either: an interface whose
//! driver has no DCB operations cannot take PFC from pfcd, and pfcd refuses to start rather than
//! run half configured.

use pfc_dcb::{DcbError, DcbSocket};

/// What the operator can run instead, named in every refusal.
const THE_OTHER_KINDS: &str = "run these interfaces on pfcd's software bridge instead \
     (data-plane = \"bridge\" in [interfaces], the default), or use the embedded lab \
     (ports = \"lab\")";

/// Refuses every interface that does not answer DCB netlink, naming each and why, and the two
/// other kinds of port. NIC ports do not run yet, so interfaces that all answer are refused too,
/// saying so, rather than started half built.
pub fn check_before_start(names: &[String]) -> Result<(), String> {
    let mut dcb = DcbSocket::open().map_err(|e| format!("data-plane = \"nic\": {e}"))?;
    let refusals: Vec<String> = names
        .iter()
        .filter_map(|name| dcb.ieee_get(name).err().map(|e| refusal(name, &e)))
        .collect();
    if refusals.is_empty() {
        return Err(format!(
            "data-plane = \"nic\": {} answer DCB netlink, but pfcd does not program NICs yet; \
             {THE_OTHER_KINDS}. Nothing was changed",
            names.join(", ")
        ));
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
