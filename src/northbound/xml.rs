//! Small helpers for reading and building mgmt's XML elements.

use netconf_proto::xml::Element;

/// A leaf with a value written by `Display`.
pub fn leaf(ns: &str, name: &str, value: impl std::fmt::Display) -> Element {
    Element::leaf(ns, name, value.to_string())
}

/// A leaf whose value is an identity of ieee802-dot1q-pfc (`pfc:measurement`), with the prefix
/// declared on the leaf itself so that the value resolves wherever the leaf is copied to
/// (RFC 7950 §9.10.3: the prefix must be in scope where the value appears).
pub fn pfc_identity_leaf(ns: &str, name: &str, identity: &str) -> Element {
    let mut e = Element::leaf(ns, name, format!("pfc:{identity}"));
    e.namespaces_mut().push((Some("pfc".into()), super::namespaces::PFC_NS.into()));
    e
}

/// The trimmed text of child `name`, if present.
pub fn child_text(e: &Element, ns: &str, name: &str) -> Option<String> {
    e.child(ns, name).map(|c| c.text().trim().to_string())
}

/// Child `name` as a number; `Err` holds the text that is not one.
pub fn child_u64(e: &Element, ns: &str, name: &str) -> Result<Option<u64>, String> {
    match child_text(e, ns, name) {
        None => Ok(None),
        Some(t) => t.parse().map(Some).map_err(|_| t),
    }
}

/// An identity value without its prefix (`pfc:measurement` → `measurement`).
pub fn identity_name(value: &str) -> &str {
    value.rsplit_once(':').map_or(value, |(_, n)| n)
}

/// A `pfc-enable-type` bits value (`p0 p3`) as a mask; unknown bits are ignored (YANG refuses
/// them before the daemon sees them).
pub fn pfc_enable_mask(value: &str) -> u8 {
    value
        .split_whitespace()
        .filter_map(|b| b.strip_prefix('p')?.parse::<u8>().ok())
        .filter(|n| *n < 8)
        .fold(0, |mask, n| mask | (1 << n))
}

/// A mask as a `pfc-enable-type` value.
pub fn pfc_enable_bits(mask: u8) -> String {
    (0..8).filter(|n| mask & (1 << n) != 0).map(|n| format!("p{n}")).collect::<Vec<_>>().join(" ")
}

/// The JSON-style path of interface `name` (for rpc-error paths).
pub fn interface_path(name: &str) -> String {
    format!("/ietf-interfaces:interfaces/interface[name='{name}']")
}

/// The path of `leaf` (relative, e.g. `headroom/minimum-allowance`) in a port's pfc container.
pub fn pfc_path(name: &str, leaf: &str) -> String {
    let base = format!(
        "{}/ieee802-dot1q-bridge:bridge-port/ieee802-dot1q-pfc-bridge:pfc",
        interface_path(name)
    );
    if leaf.is_empty() {
        base
    } else {
        format!("{base}/{leaf}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pfc_enable_round_trips() {
        assert_eq!(pfc_enable_mask("p3 p4"), 0b0001_1000);
        assert_eq!(pfc_enable_bits(0b0001_1001), "p0 p3 p4");
        assert_eq!(pfc_enable_mask(""), 0);
        assert_eq!(identity_name("pfc:measurement"), "measurement");
        let xml = pfc_identity_leaf("urn:x", "source", "measurement-result").to_xml();
        assert!(
            xml.contains(&format!("xmlns:pfc=\"{}\"", super::super::namespaces::PFC_NS)),
            "the prefix is declared: {xml}"
        );
    }
}
