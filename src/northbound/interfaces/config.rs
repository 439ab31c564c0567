//! The interfaces' and the bridge's configuration: the first start's, the interfaces with a
//! Bridge Port in running, and each Bridge Port's Traffic Class Table (8.6.6, 12.6.3): which
//! traffic class, the transmit queue, each priority's frames wait in. A pause of a priority
//! holds its whole class (36.1), so the table decides what a PFC pause stops. It is read into
//! the port's [`PortIntent::traffic_class`](crate::ports::PortIntent); the bridge on real
//! interfaces runs it, the lab's simulated pipeline cannot (priority n is its class n), so
//! another table on a lab port is refused.

use mgmt::backend::BackendError;
use netconf_proto::xml::Element;

use super::{BRIDGE, COMPONENT};
use crate::lab::links::{LabLink, Start};
use crate::northbound::namespaces::{DOT1Q_NS, IANA_IF_NS, IF_NS, PFC_BRIDGE_NS, PFC_NS};
use crate::northbound::xml::{child_text, child_u64, interface_path};
use crate::ports::PRIORITIES;
use pfc_bridge::port::{TrafficClasses, IDENTITY_CLASSES};

/// The lab's first-start configuration: the bridge with its component, and per port an
/// interface with a Bridge Port and PFC on the lab's lossless priorities.
pub fn initial_config(links: &[LabLink]) -> String {
    let mut xml = bridge_config();
    for link in links {
        let method = match link.start {
            Start::Calculated => "link-delay",
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

/// The bridge and component the Bridge Ports of pfcd's `ports` name (the first that names
/// both): where pfcd's bridge component is configured.
pub fn ports_component(root: &Element, ports: &[&str]) -> Option<(String, String)> {
    bridge_ports(root).into_iter().filter(|(name, _)| ports.contains(&name.as_str())).find_map(
        |(_, port)| {
            let bridge = child_text(port, DOT1Q_NS, "bridge-name")?;
            Some((bridge, child_text(port, DOT1Q_NS, "component-name")?))
        },
    )
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

/// The path of `leaf` (empty: the table itself) in port `name`'s traffic class table.
pub fn table_path(name: &str, leaf: &str) -> String {
    let base = format!(
        "{}/ieee802-dot1q-bridge:bridge-port/traffic-class/traffic-class-table",
        interface_path(name)
    );
    if leaf.is_empty() {
        base
    } else {
        format!("{base}/{leaf}")
    }
}

/// The `traffic-class-table` of a Bridge Port, if written.
pub fn table(bridge_port: &Element) -> Option<&Element> {
    bridge_port.child(DOT1Q_NS, "traffic-class")?.child(DOT1Q_NS, "traffic-class-table")
}

/// Priority n's traffic class at index n, from port `name`'s table. Absent table: the
/// identity. A priority the table does not name keeps its own number as class, lowered to the
/// last class (`number-of-traffic-classes` - 1) when the table gives the number of classes.
/// (YANG's `must` makes each `priorityN` written below the number of classes, and so the
/// number present with any of them.)
pub fn classes(name: &str, table: Option<&Element>) -> Result<TrafficClasses, BackendError> {
    let Some(table) = table else { return Ok(IDENTITY_CLASSES) };
    let bad = |leaf: &str, text: String, most: u64| {
        BackendError::new(format!(
            "'{text}' is not a traffic class count or index pfcd can run (at most {most})."
        ))
        .at(table_path(name, leaf))
    };
    let number = match child_u64(table, DOT1Q_NS, "number-of-traffic-classes") {
        Ok(None) => None,
        Ok(Some(n)) if (1..=PRIORITIES as u64).contains(&n) => Some(n as u8),
        Ok(Some(n)) => return Err(bad("number-of-traffic-classes", n.to_string(), 8)),
        Err(text) => return Err(bad("number-of-traffic-classes", text, 8)),
    };
    let last = number.unwrap_or(PRIORITIES as u8) - 1;
    let mut classes = IDENTITY_CLASSES;
    for (n, class) in classes.iter_mut().enumerate() {
        let leaf = format!("priority{n}");
        *class = match child_u64(table, DOT1Q_NS, &leaf) {
            Ok(None) => (*class).min(last),
            Ok(Some(c)) if c <= u64::from(last) => c as u8,
            Ok(Some(c)) => return Err(bad(&leaf, c.to_string(), u64::from(last))),
            Err(text) => return Err(bad(&leaf, text, u64::from(last))),
        };
    }
    Ok(classes)
}

/// The refusal of a table the lab's simulated ports cannot run (any but the identity), naming
/// the first leaf that makes it another: a `priorityN` written, else the number of classes.
/// `None` for the identity or a table that does not read (refused with its reason elsewhere).
pub fn lab_refusal(name: &str, table: Option<&Element>) -> Option<BackendError> {
    let classes = classes(name, table).ok()?;
    let moved: Vec<usize> = (0..PRIORITIES).filter(|n| usize::from(classes[*n]) != *n).collect();
    if moved.is_empty() {
        return None;
    }
    let written =
        |n: &usize| table.is_some_and(|t| t.child(DOT1Q_NS, &format!("priority{n}")).is_some());
    let leaf = moved
        .iter()
        .find(|n| written(n))
        .map_or("number-of-traffic-classes".to_string(), |n| format!("priority{n}"));
    let these = moved
        .iter()
        .map(|n| format!("priority {n} to traffic class {}", classes[*n]))
        .collect::<Vec<_>>()
        .join(", ");
    Some(
        BackendError::new(format!(
            "The lab's simulated ports map priority n to traffic class n and cannot run this \
             table (it maps {these}). The table is applied on real interfaces \
             (ports = \"interfaces\" in pfcd's settings); on the lab remove traffic-class-table \
             from port {name} or make it the identity."
        ))
        .at(table_path(name, &leaf)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Port p1's mapping from a table with these leaves.
    fn mapping(leaves: &str) -> Result<TrafficClasses, BackendError> {
        classes("p1", Some(&table_of(leaves)))
    }

    /// Where an error points.
    fn path(e: &BackendError) -> &str {
        e.path.as_deref().unwrap_or_default()
    }

    /// A `traffic-class-table` element with these leaves.
    fn table_of(leaves: &str) -> Element {
        let xml =
            format!("<traffic-class-table xmlns=\"{DOT1Q_NS}\">{leaves}</traffic-class-table>");
        netconf_proto::xml::parse(xml.as_bytes()).expect("XML")
    }

    #[test]
    fn no_table_is_the_identity() {
        assert_eq!(classes("p1", None).expect("read"), IDENTITY_CLASSES);
        assert_eq!(mapping("").expect("read"), IDENTITY_CLASSES);
        assert!(lab_refusal("lab0", None).is_none());
    }

    #[test]
    fn priorities_not_named_keep_their_own_class() {
        let four_in_three =
            "<number-of-traffic-classes>8</number-of-traffic-classes><priority4>3</priority4>";
        assert_eq!(mapping(four_in_three).expect("read"), [0, 1, 2, 3, 3, 5, 6, 7]);
        // Without the number (YANG's must does not let this through, but the rule holds).
        let swapped = "<priority0>1</priority0><priority1>0</priority1>";
        assert_eq!(mapping(swapped).expect("read"), [1, 0, 2, 3, 4, 5, 6, 7]);
    }

    #[test]
    fn priorities_not_named_are_lowered_to_the_last_class() {
        let four = "<number-of-traffic-classes>4</number-of-traffic-classes>\
                    <priority0>1</priority0><priority1>0</priority1><priority6>2</priority6>";
        assert_eq!(mapping(four).expect("read"), [1, 0, 2, 3, 3, 3, 2, 3]);
        let one = "<number-of-traffic-classes>1</number-of-traffic-classes>";
        assert_eq!(mapping(one).expect("read"), [0; 8]);
        let eight = "<number-of-traffic-classes>8</number-of-traffic-classes>";
        assert_eq!(mapping(eight).expect("read"), IDENTITY_CLASSES);
    }

    #[test]
    fn a_class_beyond_the_number_is_refused_at_its_leaf() {
        let two =
            "<number-of-traffic-classes>2</number-of-traffic-classes><priority5>2</priority5>";
        let e = mapping(two).expect_err("refused");
        assert!(path(&e).ends_with("traffic-class-table/priority5"), "{e:?}");
        let nine = mapping("<number-of-traffic-classes>9</number-of-traffic-classes>");
        assert!(nine.is_err(), "{nine:?}");
    }

    #[test]
    fn the_lab_takes_the_identity_only_and_names_what_moves() {
        let identity = table_of(
            "<number-of-traffic-classes>8</number-of-traffic-classes><priority3>3</priority3>",
        );
        assert!(lab_refusal("lab0", Some(&identity)).is_none());
        let t = table_of(
            "<number-of-traffic-classes>8</number-of-traffic-classes><priority4>3</priority4>",
        );
        let e = lab_refusal("lab0", Some(&t)).expect("refused");
        assert!(path(&e).ends_with("traffic-class-table/priority4"), "{e:?}");
        assert!(e.message.contains("map priority n to traffic class n"), "{e}");
        assert!(e.message.contains("priority 4 to traffic class 3"), "{e}");
        assert!(e.message.contains("ports = \"interfaces\""), "{e}");
        // Fewer classes move priorities without naming them: the number is the leaf.
        let t = table_of("<number-of-traffic-classes>7</number-of-traffic-classes>");
        let e = lab_refusal("lab0", Some(&t)).expect("refused");
        assert!(path(&e).ends_with("traffic-class-table/number-of-traffic-classes"), "{e:?}");
        assert!(e.message.contains("priority 7 to traffic class 6"));
    }
}
