//! pfcd-watchdog's state: each class of a port's watchdog, under its Bridge Port's
//! `pfc-watchdog` container.

use netconf_proto::xml::Element;

use super::class_name;
use crate::northbound::namespaces::WD_NS;
use crate::northbound::xml::leaf;
use crate::ports::watchdog::WatchdogView;

/// The `pfc-watchdog` container's state: one `class` entry per priority and the link pause.
pub fn port_state(view: &WatchdogView) -> Element {
    let ns = WD_NS;
    let mut e = Element::new(ns, "pfc-watchdog");
    for (n, c) in view.iter().enumerate() {
        let mut class = Element::new(ns, "class")
            .with(leaf(ns, "name", class_name(n)))
            .with(leaf(ns, "status", if c.stormed { "stormed" } else { "operational" }))
            .with(leaf(ns, "action", c.action.name()))
            .with(leaf(ns, "storms-detected", c.storms_detected))
            .with(leaf(ns, "restorations", c.restorations))
            .with(leaf(ns, "frames-dropped", c.frames_dropped));
        for (name, t) in
            [("last-storm-start", c.last_storm_start), ("last-storm-end", c.last_storm_end)]
        {
            if let Some(t) = t {
                class.push(leaf(ns, name, mgmt::notify::format_time(t)));
            }
        }
        e.push(class);
    }
    e
}
