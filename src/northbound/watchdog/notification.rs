//! pfcd-watchdog's notifications: `storm-detected` and `storm-restored`, from the ports'
//! events.

use std::time::SystemTime;

use dataplane::watchdog::Action;
use netconf_proto::xml::Element;

use super::class_name;
use crate::northbound::namespaces::WD_NS;
use crate::northbound::xml::leaf;

/// `storm-detected`: port `port`'s `class` is in a storm since `at`; `action` applies.
pub fn storm_detected(port: &str, class: usize, action: Action, at: SystemTime) -> Element {
    let ns = WD_NS;
    Element::new(ns, "storm-detected")
        .with(leaf(ns, "interface", port))
        .with(leaf(ns, "class", class_name(class)))
        .with(leaf(ns, "action", action.name()))
        .with(leaf(ns, "detected-at", mgmt::notify::format_time(at)))
}

/// `storm-restored`: the storm found at `began` on port `port`'s `class` was over at `at`.
pub fn storm_restored(port: &str, class: usize, began: SystemTime, at: SystemTime) -> Element {
    let ns = WD_NS;
    Element::new(ns, "storm-restored")
        .with(leaf(ns, "interface", port))
        .with(leaf(ns, "class", class_name(class)))
        .with(leaf(ns, "storm-began", mgmt::notify::format_time(began)))
        .with(leaf(ns, "restored-at", mgmt::notify::format_time(at)))
}
