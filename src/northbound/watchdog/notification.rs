//! pfcd-watchdog's notifications: `storm-detected` and `storm-restored`, from the ports'
//! events.

use pfc_yang_names::pfcd_watchdog as wd;
use std::time::SystemTime;

use dataplane::watchdog::Action;
use netconf_proto::xml::Element;

use super::class_name;
use crate::northbound::namespaces::WD_NS;
use crate::northbound::xml::leaf;

/// `storm-detected`: port `port`'s `class` is in a storm since `at`; `action` applies.
pub fn storm_detected(port: &str, class: usize, action: Action, at: SystemTime) -> Element {
    let ns = WD_NS;
    Element::new(ns, wd::STORM_DETECTED)
        .with(leaf(ns, wd::INTERFACE, port))
        .with(leaf(ns, wd::CLASS, class_name(class)))
        .with(leaf(ns, wd::ACTION, action.name()))
        .with(leaf(ns, wd::DETECTED_AT, mgmt::notify::format_time(at)))
}

/// `storm-restored`: the storm found at `began` on port `port`'s `class` was over at `at`.
pub fn storm_restored(port: &str, class: usize, began: SystemTime, at: SystemTime) -> Element {
    let ns = WD_NS;
    Element::new(ns, wd::STORM_RESTORED)
        .with(leaf(ns, wd::INTERFACE, port))
        .with(leaf(ns, wd::CLASS, class_name(class)))
        .with(leaf(ns, wd::STORM_BEGAN, mgmt::notify::format_time(began)))
        .with(leaf(ns, wd::RESTORED_AT, mgmt::notify::format_time(at)))
}
