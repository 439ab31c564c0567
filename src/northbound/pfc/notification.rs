//! The PFC notifications from the ports' events: ieee802-dot1q-pfc-bridge-notifications'
//! `headroom-allowance-changed`, pfcd-pfc's `receive-buffer-drop` and pfcd-headroom's
//! `allowance-clamped`.

use dataplane::headroom::allowance::Allowance;
use netconf_proto::xml::Element;
use pfc_yang_names::{
    ieee802_dot1q_pfc as ieee, ieee802_dot1q_pfc_bridge_notifications as notifications,
    ietf_interfaces as interfaces, pfcd_pfc as pfcd,
};

use super::state::{clamp_name, source_identity};
use crate::northbound::namespaces::{
    DOT1Q_NS, HEADROOM_NS, IF_NS, PFCD_PFC_NS, PFC_BRIDGE_NS, PFC_NS, PFC_NTF_NS,
};
use crate::northbound::xml::{leaf, pfc_identity_leaf};
use crate::ports::headroom::ClampReason;

/// `headroom-allowance-changed`, sent inside port `port`'s Bridge Port `pfc` container (RFC
/// 7950 §7.16.2): its allowance in force went from `old` to `new`.
pub fn allowance_changed(port: &str, old: &Allowance, new: &Allowance) -> Element {
    let ns = PFC_NTF_NS;
    let mut e = Element::new(ns, notifications::HEADROOM_ALLOWANCE_CHANGED)
        .with(leaf(ns, ieee::OLD_ALLOWANCE, old.bits))
        .with(source(ieee::OLD_SOURCE, old))
        .with(leaf(ns, ieee::NEW_ALLOWANCE, new.bits))
        .with(source(ieee::NEW_SOURCE, new));
    if let Some(clamp) = source_identity(new.source).1 {
        e.push(leaf(ns, ieee::CLAMP, clamp_name(clamp)));
    }
    let pfc = Element::new(PFC_BRIDGE_NS, ieee::PFC).with(with_prefix(e));
    Element::new(IF_NS, interfaces::INTERFACES).with(
        Element::new(IF_NS, interfaces::INTERFACE)
            .with(leaf(IF_NS, interfaces::NAME, port))
            .with(Element::new(DOT1Q_NS, "bridge-port").with(pfc)),
    )
}

/// pfcd-pfc's `receive-buffer-drop`: a lossless priority of port `port` dropped frames, `frames_dropped`
/// in all, with `allowance` in force.
pub fn receive_buffer_drop(
    port: &str,
    priority: u8,
    frames_dropped: u64,
    allowance: &Allowance,
) -> Element {
    let ns = PFCD_PFC_NS;
    let e = Element::new(ns, pfcd::RECEIVE_BUFFER_DROP)
        .with(leaf(ns, pfcd::INTERFACE, port))
        .with(leaf(ns, ieee::PRIORITY, priority))
        .with(leaf(ns, pfcd::FRAMES_DROPPED, frames_dropped))
        .with(leaf(ns, ieee::ALLOWANCE_IN_FORCE, allowance.bits))
        .with(pfc_identity_leaf(ns, ieee::ALLOWANCE_SOURCE, source_identity(allowance.source).0));
    with_prefix(e)
}

/// `allowance-clamped`: port `port`'s allowance `selected` was clamped to `allowance` for
/// `reason`; its receive buffer honours at most `limit_bits`.
pub fn allowance_clamped(
    port: &str,
    reason: ClampReason,
    selected: u64,
    allowance: &Allowance,
    limit_bits: u64,
) -> Element {
    let ns = HEADROOM_NS;
    Element::new(ns, "allowance-clamped")
        .with(leaf(ns, pfcd::INTERFACE, port))
        .with(leaf(ns, "reason", reason.as_str()))
        .with(leaf(ns, "selected-allowance", selected))
        .with(leaf(ns, ieee::ALLOWANCE_IN_FORCE, allowance.bits))
        .with(leaf(ns, "receive-buffer-limit", limit_bits))
}

/// A source leaf: the allowance's `allowance-source` identity.
fn source(name: &str, a: &Allowance) -> Element {
    pfc_identity_leaf(PFC_NTF_NS, name, source_identity(a.source).0)
}

/// The notification with ieee802-dot1q-pfc's prefix declared on it, as its identity values use.
fn with_prefix(mut e: Element) -> Element {
    e.namespaces_mut().push((Some(ieee::PFC.into()), PFC_NS.into()));
    e
}
