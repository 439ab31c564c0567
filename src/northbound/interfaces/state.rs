//! The interfaces' state, each with its Bridge Port's (the PFC model's `pfc` container and
//! pfcd-pipeline's `pipeline`), and the bridge's.

use std::sync::Arc;

use netconf_proto::xml::Element;

use super::{BRIDGE, COMPONENT};
use crate::northbound::namespaces::{DOT1Q_NS, IF_NS, PFC_NS};
use crate::northbound::pfc::state::pfc_state;
use crate::northbound::pipeline::state::{frame_discards, io_path, port_state};
use crate::northbound::watchdog::state::port_state as watchdog_state;
use crate::northbound::xml::leaf;
use crate::ports::set::PortSet;
use crate::ports::PortSnapshot;
use dataplane::pipeline::PipelineSnapshot;

/// `/interfaces`' state: per port of `set` (its `snapshots`, in port order) the interface, its
/// speed and its Bridge Port with the port's PFC state and its share of the pipeline `pipe`.
pub fn interfaces(
    set: &dyn PortSet,
    snapshots: &[Arc<PortSnapshot>],
    pipe: &PipelineSnapshot,
) -> Element {
    let mut interfaces = Element::new(IF_NS, "interfaces");
    for (i, s) in snapshots.iter().enumerate() {
        let mut pfc = pfc_state(s);
        pfc.namespaces_mut().push((Some("pfc".into()), PFC_NS.into()));
        // Port i is Bridge Port number i + 1: a static filtering entry's port-ref names it.
        let mut bridge_port = Element::new(DOT1Q_NS, "bridge-port")
            .with(leaf(DOT1Q_NS, "port-number", i + 1))
            .with(pfc);
        if let Some(mut p) = port_state(pipe, i) {
            p.push(frame_discards(&s.frame_discards));
            if let Some(io) = &s.io_path {
                p.push(io_path(io));
            }
            bridge_port.push(p);
        }
        bridge_port.push(watchdog_state(&s.watchdog, s.watchdog_discontinuity_time));
        interfaces.push(
            Element::new(IF_NS, "interface")
                .with(leaf(IF_NS, "name", &s.name))
                .with(leaf(IF_NS, "oper-status", "up"))
                .with(leaf(IF_NS, "speed", set.speed(i).bits_per_second()))
                .with(bridge_port),
        );
    }
    interfaces
}

/// The bridge's state: its ports (the interfaces whose Bridge Port is configured), the
/// component's ports, and its up-time.
pub fn bridge_state(ports: &[String], up_time_secs: u64) -> Element {
    let ns = DOT1Q_NS;
    let mut bridge = Element::new(ns, "bridge").with(leaf(ns, "name", BRIDGE));
    let mut component = Element::new(ns, "component").with(leaf(ns, "name", COMPONENT));
    // `ports` ranges over 1..4095: a bridge without ports has no such leaf.
    if !ports.is_empty() {
        bridge.push(leaf(ns, "ports", ports.len()));
        component.push(leaf(ns, "ports", ports.len()));
    }
    for p in ports {
        component.push(leaf(ns, "bridge-port", p));
    }
    bridge.push(leaf(ns, "up-time", up_time_secs.min(u64::from(u32::MAX))));
    bridge.push(leaf(ns, "components", 1));
    bridge.push(component);
    Element::new(ns, "bridges").with(bridge)
}
