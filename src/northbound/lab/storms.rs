//! pfcd-lab's `peer-storms`: the storms the lab's peers are asked to run, read from a
//! configuration and checked against the lab.

use dataplane::watchdog::{CLASSES, LINK_PAUSE};
use mgmt::backend::BackendError;
use netconf_proto::xml::Element;

use crate::northbound::namespaces::LAB_NS;
use crate::northbound::xml::child_text;

/// One `storm` entry: a port's name and its class (a priority, or [`LINK_PAUSE`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Storm {
    pub port: String,
    pub class: usize,
}

/// The storms of a configuration's `peer-storms` (entries whose class does not parse, which
/// the schema does not let in, are left out).
pub fn storms(root: &Element) -> Vec<Storm> {
    let Some(list) = root.child(LAB_NS, "peer-storms") else { return Vec::new() };
    list.elements()
        .filter(|e| e.is(LAB_NS, "storm"))
        .filter_map(|e| {
            let port = child_text(e, LAB_NS, "port")?;
            let class = class_of(&child_text(e, LAB_NS, "class")?)?;
            Some(Storm { port, class })
        })
        .collect()
}

/// A class's index from its name in the module.
fn class_of(name: &str) -> Option<usize> {
    if name == "link-pause" {
        return Some(LINK_PAUSE);
    }
    name.parse::<usize>().ok().filter(|n| *n < LINK_PAUSE)
}

/// Each port's asked classes (bit n = class n), in the order of `ports`.
pub fn asked(storms: &[Storm], ports: &[&str]) -> Vec<u16> {
    ports
        .iter()
        .map(|p| {
            storms.iter().filter(|s| s.port == *p).fold(0u16, |v, s| v | (1 << (s.class % CLASSES)))
        })
        .collect()
}

/// The storms `new` brings that the lab cannot run: a port it does not have, any storm when
/// its peers send no traffic. Those already in `old` are kept (unused), so that a start or an
/// unrelated change never fails on them.
pub fn refusal(
    old: &[Storm],
    new: &[Storm],
    ports: &[&str],
    traffic: bool,
) -> Option<BackendError> {
    new.iter().filter(|s| !old.contains(s)).find_map(|s| refuse(s, ports, traffic))
}

/// Why the lab cannot run the storm `added`, if it cannot.
fn refuse(added: &Storm, ports: &[&str], traffic: bool) -> Option<BackendError> {
    let at = format!(
        "/pfcd-lab:peer-storms/storm[port='{}'][class='{}']",
        added.port,
        crate::northbound::watchdog::class_name(added.class)
    );
    if !ports.contains(&added.port.as_str()) {
        let message =
            format!("The lab has no port '{}'; its ports are {}.", added.port, ports.join(", "));
        return Some(BackendError::new(message).at(at));
    }
    if !traffic {
        return Some(
            BackendError::new(
                "The lab runs without traffic ([lab] traffic = false in the settings): no frame \
                 waits behind a peer's storm, so no watchdog can find it. Set [lab] traffic = \
                 true to run storms.",
            )
            .at(at),
        );
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(xml: &str) -> Element {
        netconf_proto::xml::parse(xml.as_bytes()).expect("xml")
    }

    #[test]
    fn storms_are_read_per_port_and_new_ones_the_lab_cannot_run_are_refused() {
        let root = parse(&format!(
            "<data><peer-storms xmlns=\"{LAB_NS}\">\
             <storm><port>lab1</port><class>3</class></storm>\
             <storm><port>lab1</port><class>link-pause</class></storm>\
             <storm><port>lab9</port><class>0</class></storm>\
             </peer-storms></data>"
        ));
        let new = storms(&root);
        assert_eq!(new.len(), 3);
        assert_eq!(asked(&new, &["lab0", "lab1"]), vec![0, (1 << 3) | (1 << LINK_PAUSE)]);
        let ports = ["lab0", "lab1"];
        let e = refusal(&[], &new, &ports, true).expect("lab9 refused");
        assert!(e.message.contains("no port 'lab9'"), "{}", e.message);
        assert!(refusal(&new, &new, &ports, true).is_none(), "already stored: kept");
        let e = refusal(&[], &new[..1], &ports, false).expect("an idle lab refuses");
        assert!(e.message.contains("traffic = true"), "{}", e.message);
        assert!(refusal(&[], &new[..2], &ports, true).is_none());
    }
}
