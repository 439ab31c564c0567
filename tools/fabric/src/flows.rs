//! The flows file (`--flows FILE`): the flows an operator knows run through the fabric, so that
//! a congestion tree can name the flows caught in it and its victims.
//!
//! It is TOML in the form of pfcsim's network scenarios, whose `[[flow]]` and `[[link]]` tables
//! it reads (any other table or key is ignored), so a scenario is a flows file as it stands:
//!
//! ```toml
//! [[flow]]
//! name = "victim-2"
//! path = ["h2-2", "lf2", "sp1", "lf3", "lf3:h2"]   # hosts and devices, in order
//! priority = 3                                      # default 3
//!
//! [[link]]                                          # where a host named in a path is
//! a = "h2-2"
//! b = "lf2:h2"
//! ```
//!
//! A path's inner elements are devices; its ends are a device (the flow starts or ends there),
//! a host given as `DEVICE:PORT` (the host behind that port of the device next to it), or a
//! host's name that a `[[link]]` joins to a `DEVICE:PORT`. Between two devices the flow takes
//! the link LLDP found between them ([`crate::flow_hops`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use fabric_graph::{PortRef, PRIORITIES};
use serde::Deserialize;

/// One flow as the file gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowSpec {
    pub name: String,
    pub priority: u8,
    /// Devices, and at the ends hosts as `DEVICE:PORT` or names of [`Flows::hosts`].
    pub path: Vec<String>,
}

/// The flows of a file, and where each host it names is attached.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Flows {
    pub flows: Vec<FlowSpec>,
    /// Host name → the device port it is attached to (from `[[link]]`).
    pub hosts: BTreeMap<String, PortRef>,
}

#[derive(Deserialize)]
struct FileText {
    #[serde(default, rename = "flow")]
    flows: Vec<FlowText>,
    #[serde(default, rename = "link")]
    links: Vec<LinkText>,
}

#[derive(Deserialize)]
struct FlowText {
    name: String,
    path: Vec<String>,
    #[serde(default = "default_priority")]
    priority: u8,
}

#[derive(Deserialize)]
struct LinkText {
    a: String,
    b: String,
}

fn default_priority() -> u8 {
    3
}

/// `DEVICE:PORT` split, when the text has that form.
pub fn device_port(text: &str) -> Option<PortRef> {
    let (device, port) = text.split_once(':')?;
    (!device.is_empty() && !port.is_empty() && !port.contains(':'))
        .then(|| PortRef::new(device, port))
}

impl Flows {
    /// Reads and checks a flows file.
    pub fn load(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the flows file {}: {e}", path.display()))?;
        Self::parse(&text).map_err(|e| format!("flows file {}: {e}", path.display()))
    }

    /// Checks what the file can say alone: names given once, priorities 0 to 7, paths of two
    /// elements or more, `DEVICE:PORT` only at a path's ends.
    pub fn parse(text: &str) -> Result<Self, String> {
        let file: FileText = toml::from_str(text).map_err(|e| e.to_string())?;
        if file.flows.is_empty() {
            return Err("no [[flow]] in it: give each flow's name and path".into());
        }
        let mut hosts = BTreeMap::new();
        for l in &file.links {
            // A link between two device ports is the fabric's, which LLDP gives; a host's
            // link names its port.
            match (device_port(&l.a), device_port(&l.b)) {
                (None, Some(port)) => _ = hosts.insert(l.a.clone(), port),
                (Some(port), None) => _ = hosts.insert(l.b.clone(), port),
                _ => {}
            }
        }
        let mut names = BTreeSet::new();
        let mut flows = Vec::new();
        for f in file.flows {
            let name = &f.name;
            if name.is_empty() {
                return Err("a flow without a name: give each flow a name".into());
            }
            if !names.insert(name.clone()) {
                return Err(format!("flow {name} given twice: name each flow once"));
            }
            if f.priority >= PRIORITIES {
                return Err(format!(
                    "flow {name}: priority {} does not exist (0 to 7)",
                    f.priority
                ));
            }
            if f.path.len() < 2 {
                return Err(format!(
                    "flow {name}: its path has {} element(s): give at least its source and \
                     destination",
                    f.path.len()
                ));
            }
            let last = f.path.len() - 1;
            if let Some(inner) = f.path[1..last].iter().find(|e| device_port(e).is_some()) {
                return Err(format!(
                    "flow {name}: {inner} inside the path: DEVICE:PORT names a host, at the \
                     path's ends only"
                ));
            }
            flows.push(FlowSpec { name: f.name, priority: f.priority, path: f.path });
        }
        Ok(Flows { flows, hosts })
    }

    /// Checks the flows against the devices read: every inner element of a path is one, and
    /// every end is one, a `DEVICE:PORT` of one, or a host a `[[link]]` attaches to one.
    pub fn check_devices(&self, devices: &BTreeSet<&str>) -> Result<(), String> {
        for f in &self.flows {
            let last = f.path.len() - 1;
            for (i, e) in f.path.iter().enumerate() {
                if devices.contains(e.as_str()) {
                    continue;
                }
                let end = i == 0 || i == last;
                let attached = device_port(e).or_else(|| self.hosts.get(e).cloned());
                match attached {
                    Some(p) if end && devices.contains(p.device.as_str()) => {}
                    Some(p) if end => {
                        return Err(format!(
                            "flow {}: host {e} is attached to {p}, but {} is not a device \
                             given with --device",
                            f.name, p.device
                        ))
                    }
                    _ if end => {
                        return Err(format!(
                            "flow {}: {e} is no device given with --device: name a host as \
                             DEVICE:PORT, or attach it with a [[link]] a = \"{e}\", b = \
                             \"DEVICE:PORT\"",
                            f.name
                        ))
                    }
                    _ => {
                        return Err(format!(
                            "flow {}: {e} is no device given with --device (between a path's \
                             ends, only devices)",
                            f.name
                        ))
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pfcsim_scenario_is_a_flows_file() {
        let text = r#"
            name = "s"
            [run]
            duration_us = 10
            [[bridge]]
            name = "lf2"
            ports = ["h1", "s1"]
            [[link]]
            a = "h2-1"
            b = "lf2:h1"
            speed = "10G"
            [[link]]
            a = "lf2:s1"
            b = "sp1:l2"
            speed = "10G"
            [[flow]]
            name = "incast-2"
            path = ["h2-1", "lf2", "sp1", "lf1:h1"]
            rate_mbps = 7000
            [[flow]]
            name = "other"
            path = ["lf2", "sp1"]
            priority = 5
        "#;
        let f = Flows::parse(text).expect("reads");
        assert_eq!(f.flows.len(), 2);
        assert_eq!(f.flows[0].priority, 3, "the default, as pfcsim's");
        assert_eq!(f.flows[1].priority, 5);
        assert_eq!(f.hosts.len(), 1, "only the host's link names a host: {:?}", f.hosts);
        assert_eq!(f.hosts["h2-1"], PortRef::new("lf2", "h1"));
        let devices: BTreeSet<&str> = ["lf1", "lf2", "sp1"].into();
        f.check_devices(&devices).expect("every element known");
        let without_lf1: BTreeSet<&str> = ["lf2", "sp1"].into();
        let err = f.check_devices(&without_lf1).expect_err("lf1 is not read");
        assert!(err.contains("lf1 is not a device given with --device"), "{err}");
    }

    #[test]
    fn a_bad_flows_file_is_refused_with_what_to_fix() {
        let refused = |text: &str| Flows::parse(text).expect_err(text);
        assert!(refused("").contains("no [[flow]]"));
        let twice = "[[flow]]\nname = \"f\"\npath = [\"a\", \"b\"]\n".repeat(2);
        assert!(refused(&twice).contains("flow f given twice"));
        assert!(refused("[[flow]]\nname = \"f\"\npath = [\"a\", \"b\"]\npriority = 8\n")
            .contains("priority 8 does not exist"));
        assert!(refused("[[flow]]\nname = \"f\"\npath = [\"a\"]\n").contains("at least"));
        assert!(refused("[[flow]]\nname = \"f\"\npath = [\"a\", \"b:x\", \"c\"]\n")
            .contains("at the path's ends only"));
        assert!(refused("[[flow]]\nname = \"f\"\n").contains("path"), "a path is required");
        let f =
            Flows::parse("[[flow]]\nname = \"f\"\npath = [\"h9\", \"a\", \"b\"]\n").expect("reads");
        let err = f.check_devices(&["a", "b"].into()).expect_err("h9 unknown");
        assert!(err.contains("name a host as DEVICE:PORT"), "{err}");
        let f = Flows::parse("[[flow]]\nname = \"f\"\npath = [\"a:x\", \"m\", \"b\"]\n")
            .expect("reads");
        let err = f.check_devices(&["a", "b"].into()).expect_err("m unknown");
        assert!(err.contains("m is no device given with --device (between"), "{err}");
    }
}
