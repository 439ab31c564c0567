//! pfcd-watchdog's state: each class of a port's watchdog, under its Bridge Port's
//! `pfc-watchdog` container.

use std::time::SystemTime;

use netconf_proto::xml::Element;
use pfc_yang_names::pfcd_watchdog as wd;

use super::class_name;
use crate::northbound::namespaces::WD_NS;
use crate::northbound::xml::leaf;
use crate::ports::watchdog::WatchdogView;

/// The `pfc-watchdog` container's state: when its counters started, and one `class` entry per
/// priority and the link pause.
pub fn port_state(view: &WatchdogView, discontinuity_time: SystemTime) -> Element {
    let ns = WD_NS;
    let mut e = Element::new(ns, wd::PFC_WATCHDOG).with(leaf(
        ns,
        wd::DISCONTINUITY_TIME,
        mgmt::notify::format_time(discontinuity_time),
    ));
    for (n, c) in view.iter().enumerate() {
        let mut class = Element::new(ns, wd::CLASS)
            .with(leaf(ns, wd::NAME, class_name(n)))
            .with(leaf(ns, wd::STATUS, if c.stormed { "stormed" } else { "operational" }))
            .with(leaf(ns, wd::ACTION, c.action.name()))
            .with(leaf(ns, wd::STORMS_DETECTED, c.storms_detected))
            .with(leaf(ns, wd::RESTORATIONS, c.restorations))
            .with(leaf(ns, wd::FRAMES_DROPPED, c.frames_dropped));
        for (name, t) in
            [(wd::LAST_STORM_START, c.last_storm_start), (wd::LAST_STORM_END, c.last_storm_end)]
        {
            if let Some(t) = t {
                class.push(leaf(ns, name, mgmt::notify::format_time(t)));
            }
        }
        e.push(class);
    }
    e
}
