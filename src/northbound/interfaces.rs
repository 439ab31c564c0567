//! ietf-interfaces and ieee802-dot1q-bridge: the bridge, its component and the ports. The lab's
//! ports exist as long as pfcd runs; their configuration (an interface with a Bridge Port) is
//! written to running at the first start, so that a user finds them in `<get-config>` and can
//! change them. An interface with a Bridge Port that names no port of pfcd is refused.

use mgmt::backend::BackendError;
use netconf_proto::xml::Element;

use super::xml::{child_text, interface_path, leaf};
use super::{DOT1Q_NS, IANA_IF_NS, IF_NS, PFC_BRIDGE_NS, PFC_NS};
use crate::lab::links::{LabLink, Start};

/// The bridge and its one component.
pub const BRIDGE: &str = "br0";
pub const COMPONENT: &str = "c0";

/// The lab's first-start configuration: the bridge with its component, and per port an
/// interface with a Bridge Port and PFC on the lab's lossless priorities.
pub fn initial_config(links: &[LabLink]) -> String {
    let mut xml = bridge_config();
    for link in links {
        let method = match link.start {
            Start::Calculated => "calculated",
            Start::ManualDefault => "manual",
        };
        xml.push_str(&format!(
            "<interface><name>{name}</name>\
             <type xmlns:ianaift=\"{IANA_IF_NS}\">ianaift:ethernetCsmacd</type>\
             <bridge-port xmlns=\"{DOT1Q_NS}\"><bridge-name>{BRIDGE}</bridge-name>\
             <component-name>{COMPONENT}</component-name>\
             <pfc xmlns=\"{PFC_BRIDGE_NS}\"><pfc-enable>{enable}</pfc-enable>\
             <headroom><method xmlns:pfc=\"{PFC_NS}\">pfc:{method}</method></headroom>\
             </pfc></bridge-port></interface>",
            name = link.name,
            enable = link.first_pfc_enable(),
        ));
    }
    xml.push_str("</interfaces>");
    xml
}

/// The first-start configuration of real interfaces: the bridge with its component, and per
/// interface a Bridge Port with PFC off (the operator enables it) and the headroom as DCBX
/// agrees with the peer.
pub fn initial_config_for(names: &[&str]) -> String {
    let mut xml = bridge_config();
    for name in names {
        xml.push_str(&format!(
            "<interface><name>{name}</name>\
             <type xmlns:ianaift=\"{IANA_IF_NS}\">ianaift:ethernetCsmacd</type>\
             <bridge-port xmlns=\"{DOT1Q_NS}\"><bridge-name>{BRIDGE}</bridge-name>\
             <component-name>{COMPONENT}</component-name></bridge-port></interface>"
        ));
    }
    xml.push_str("</interfaces>");
    xml
}

/// The bridge with its component, and the start of `interfaces`.
fn bridge_config() -> String {
    format!(
        "<bridges xmlns=\"{DOT1Q_NS}\"><bridge><name>{BRIDGE}</name>\
         <address>02-00-00-00-00-01</address><bridge-type>customer-vlan-bridge</bridge-type>\
         <component><name>{COMPONENT}</name><type>c-vlan-component</type></component>\
         </bridge></bridges><interfaces xmlns=\"{IF_NS}\">"
    )
}

/// Every interface of `root` (running) that has a Bridge Port: its name and the port element.
pub fn bridge_ports(root: &Element) -> Vec<(String, &Element)> {
    let Some(interfaces) = root.child(IF_NS, "interfaces") else { return Vec::new() };
    interfaces
        .elements()
        .filter(|e| e.is(IF_NS, "interface"))
        .filter_map(|i| {
            let name = child_text(i, IF_NS, "name")?;
            Some((name, i.child(DOT1Q_NS, "bridge-port")?))
        })
        .collect()
}

/// Refuses a Bridge Port on an interface that is none of pfcd's ports.
pub fn check_port_exists(name: &str, ports: &[&str], described: &str) -> Result<(), BackendError> {
    if ports.contains(&name) {
        return Ok(());
    }
    Err(BackendError::new(format!(
        "pfcd has no port '{name}', so it cannot be a Bridge Port: use one of {} ({described}), \
         or remove bridge-port from interface '{name}'.",
        ports.join(", ")
    ))
    .at(format!("{}/ieee802-dot1q-bridge:bridge-port", interface_path(name))))
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
