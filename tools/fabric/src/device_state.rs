//! What one device's `<get>` reply says, as read from the YANG data: its chassis ID, each port's
//! LLDP neighbours, and each Bridge Port's per-priority pause state.
//!
//! Elements are matched by their local names along their path (`lldp/port/name`,
//! `interfaces/interface/bridge-port/pfc/priority/xoff`, ...): the reply holds only what the
//! subtree filter asked for, so names cannot collide.

use std::collections::BTreeMap;

use quick_xml::events::Event;
use quick_xml::Reader;

/// One neighbour a port's LLDP agent has heard (`remote-systems-data`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Neighbour {
    pub chassis_id: String,
    pub port_id: String,
}

/// One priority of one port.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PriorityState {
    /// `priority-paused`: our transmit of this priority is held by the peer's PFC.
    pub paused: bool,
    /// `xoff`: our receive buffer asks the peer to stop this priority.
    pub xoff: bool,
    /// Frames waiting to leave (pfcd-pipeline's `inflight` plus `external-fifo-depth`);
    /// `None` where the server does not serve them.
    pub backlog: Option<u64>,
}

/// One port: its neighbours and its priorities.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PortState {
    pub neighbours: Vec<Neighbour>,
    pub priorities: BTreeMap<u8, PriorityState>,
}

/// One device's state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceState {
    /// `local-system-data/chassis-id`.
    pub chassis_id: Option<String>,
    pub ports: BTreeMap<String, PortState>,
}

/// Why a reply could not be read; says which element and value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    #[error("the reply is not well-formed XML: {0}")]
    Xml(String),
    #[error("{path} is {value:?}: expected {expected}")]
    Value { path: String, value: String, expected: &'static str },
    #[error("{0} without its key")]
    MissingKey(String),
}

/// The list entries being read, from their start tags to their end tags.
#[derive(Default)]
struct Entries {
    lldp_port: Option<String>,
    neighbour: (Option<String>, Option<String>),
    interface: Option<String>,
    priority: Option<u8>,
    paused: Option<bool>,
    xoff: Option<bool>,
    depths: (Option<u64>, Option<u64>),
}

impl DeviceState {
    /// Reads the `<data>` of a reply to [`crate::query::filter`].
    pub fn from_data(xml: &str) -> Result<DeviceState, ReadError> {
        let mut reader = Reader::from_str(xml);
        let mut path: Vec<String> = Vec::new();
        let mut text = String::new();
        let mut state = DeviceState::default();
        let mut e = Entries::default();
        loop {
            let event = reader.read_event().map_err(|err| ReadError::Xml(err.to_string()))?;
            match event {
                Event::Start(s) => {
                    path.push(s.local_name().as_ref().to_string());
                    text.clear();
                }
                Event::Empty(s) => {
                    path.push(s.local_name().as_ref().to_string());
                    text.clear();
                    state.end(&path, "", &mut e)?;
                    path.pop();
                }
                Event::Text(t) => text.push_str(&t.xml10_content()),
                Event::CData(c) => text.push_str(&c.xml10_content()),
                Event::GeneralRef(r) => {
                    let resolved = if r.is_char_ref() {
                        r.resolve_char_ref().ok().flatten().map(String::from)
                    } else {
                        quick_xml::escape::resolve_predefined_entity(&r.xml10_content())
                            .map(str::to_string)
                    };
                    let resolved = resolved.ok_or_else(|| {
                        ReadError::Xml(format!("unknown entity &{};", r.xml10_content()))
                    })?;
                    text.push_str(&resolved);
                }
                Event::End(_) => {
                    state.end(&path, text.trim(), &mut e)?;
                    text.clear();
                    path.pop();
                }
                Event::Eof if path.is_empty() => break,
                Event::Eof => {
                    return Err(ReadError::Xml(format!("it ends inside <{}>", path.join("/"))))
                }
                _ => {}
            }
        }
        Ok(state)
    }

    /// The element at the end of `path` has ended with `text`.
    fn end(&mut self, path: &[String], text: &str, e: &mut Entries) -> Result<(), ReadError> {
        let p: Vec<&str> = path.iter().map(String::as_str).collect();
        match p.as_slice() {
            [.., "lldp", "local-system-data", "chassis-id"] => {
                self.chassis_id = Some(text.to_string())
            }
            [.., "lldp", "port", "name"] => e.lldp_port = Some(text.to_string()),
            [.., "lldp", "port", "remote-systems-data", "chassis-id"] => {
                e.neighbour.0 = Some(text.to_string())
            }
            [.., "lldp", "port", "remote-systems-data", "port-id"] => {
                e.neighbour.1 = Some(text.to_string())
            }
            [.., "lldp", "port", "remote-systems-data"] => {
                let port = e.lldp_port.clone().ok_or(ReadError::MissingKey("lldp port".into()))?;
                // A neighbour without both IDs cannot be placed on the topology.
                if let (Some(chassis_id), Some(port_id)) = std::mem::take(&mut e.neighbour) {
                    let entry = self.ports.entry(port).or_default();
                    let n = Neighbour { chassis_id, port_id };
                    if !entry.neighbours.contains(&n) {
                        entry.neighbours.push(n);
                    }
                }
            }
            [.., "lldp", "port"] => e.lldp_port = None,
            [.., "interfaces", "interface", "name"] => e.interface = Some(text.to_string()),
            [.., "bridge-port", "pfc" | "pipeline", "priority", "priority"] => {
                e.priority = Some(priority(text)?)
            }
            [.., "bridge-port", "pfc", "priority", "priority-paused"] => {
                e.paused = Some(boolean("priority-paused", text)?)
            }
            [.., "bridge-port", "pfc", "priority", "xoff"] => e.xoff = Some(boolean("xoff", text)?),
            [.., "bridge-port", "pipeline", "priority", "inflight"] => {
                e.depths.0 = Some(count("inflight", text)?)
            }
            [.., "bridge-port", "pipeline", "priority", "external-fifo-depth"] => {
                e.depths.1 = Some(count("external-fifo-depth", text)?)
            }
            [.., "bridge-port", "pfc", "priority"] => {
                let slot = self.priority_slot(e, "pfc priority")?;
                slot.paused = e.paused.take().unwrap_or(false);
                slot.xoff = e.xoff.take().unwrap_or(false);
            }
            [.., "bridge-port", "pipeline", "priority"] => {
                let depths = std::mem::take(&mut e.depths);
                let backlog = match depths {
                    (None, None) => None,
                    (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
                };
                self.priority_slot(e, "pipeline priority")?.backlog = backlog;
            }
            [.., "interfaces", "interface"] => e.interface = None,
            _ => {}
        }
        Ok(())
    }

    /// The priority entry being read, of the interface being read.
    fn priority_slot(
        &mut self,
        e: &mut Entries,
        what: &str,
    ) -> Result<&mut PriorityState, ReadError> {
        let interface =
            e.interface.clone().ok_or(ReadError::MissingKey(format!("{what}'s interface")))?;
        let n = e.priority.take().ok_or(ReadError::MissingKey(what.to_string()))?;
        Ok(self.ports.entry(interface).or_default().priorities.entry(n).or_default())
    }
}

fn priority(text: &str) -> Result<u8, ReadError> {
    text.parse::<u8>().ok().filter(|n| *n < 8).ok_or_else(|| ReadError::Value {
        path: "priority".into(),
        value: text.into(),
        expected: "a priority, 0 to 7",
    })
}

fn boolean(leaf: &str, text: &str) -> Result<bool, ReadError> {
    match text {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(ReadError::Value {
            path: leaf.into(),
            value: text.into(),
            expected: "true or false",
        }),
    }
}

fn count(leaf: &str, text: &str) -> Result<u64, ReadError> {
    text.parse().map_err(|_| ReadError::Value {
        path: leaf.into(),
        value: text.into(),
        expected: "a count (unsigned integer)",
    })
}
