//! The fabric as observed: devices, links, and each (device, port, priority)'s pause state.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::graph::{PortGraph, PortState};
use super::names::PortRef;
use super::{GraphError, Nanos, PRIORITIES};

/// A link between two ports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    pub a: PortRef,
    pub b: PortRef,
}

/// What one (device, port, priority) shows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    /// Our transmit on the port and priority is held by the peer's PFC, since this time.
    pub egress_paused_since: Option<Nanos>,
    /// We send XOFF on the port and priority (the ingress buffer is above XOFF), since this time.
    pub ingress_xoff_since: Option<Nanos>,
    /// Frames wait to leave on the port and priority.
    pub egress_backlog: bool,
    /// The egress ports of the same device the ingress buffer's frames wait for; `None` when
    /// unknown (then every paused or backlogged egress of the device and priority but this one).
    pub waits_on: Option<Vec<String>>,
}

impl Observation {
    /// An egress held paused since `since`, with frames waiting.
    pub fn paused(since: Nanos) -> Self {
        Observation { egress_paused_since: Some(since), egress_backlog: true, ..Self::default() }
    }

    /// An ingress in XOFF since `since` whose frames wait for the egress ports `waits_on`.
    pub fn xoff(since: Nanos, waits_on: &[&str]) -> Self {
        Observation {
            ingress_xoff_since: Some(since),
            waits_on: Some(waits_on.iter().map(|p| p.to_string()).collect()),
            ..Self::default()
        }
    }

    /// This observation and `other` on the same port and priority: each side's state kept.
    fn merge(&mut self, other: Observation) {
        self.egress_paused_since = other.egress_paused_since.or(self.egress_paused_since);
        self.ingress_xoff_since = other.ingress_xoff_since.or(self.ingress_xoff_since);
        self.egress_backlog |= other.egress_backlog;
        if other.waits_on.is_some() {
            self.waits_on = other.waits_on;
        }
    }
}

/// Devices, links and observations: the input of the wait-for graph. It serialises as lists
/// (`devices`, `links`, `observations` of port, priority and observation) and is checked again
/// when read back.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "FabricLists", try_from = "FabricLists")]
pub struct Fabric {
    devices: BTreeSet<String>,
    links: Vec<Link>,
    peers: BTreeMap<PortRef, PortRef>,
    /// Per priority, each port's observation (looked up by a borrowed port).
    observations: [BTreeMap<PortRef, Observation>; PRIORITIES as usize],
}

impl Fabric {
    pub fn new() -> Self {
        Self::default()
    }

    /// A device (devices named by links and observations are added as well).
    pub fn add_device(&mut self, name: &str) -> Result<(), GraphError> {
        if name.is_empty() {
            return Err(GraphError::EmptyDevice);
        }
        if !self.devices.contains(name) {
            self.devices.insert(name.to_string());
        }
        Ok(())
    }

    /// A link between two ports; a port takes one link.
    pub fn add_link(&mut self, a: PortRef, b: PortRef) -> Result<(), GraphError> {
        if a == b {
            return Err(GraphError::LinkToItself { device: a.device, port: a.port });
        }
        for (this, other) in [(&a, &b), (&b, &a)] {
            if let Some(peer) = self.peers.get(this).filter(|p| *p != other) {
                return Err(GraphError::PortLinkedTwice {
                    device: this.device.clone(),
                    port: this.port.clone(),
                    peer: peer.to_string(),
                });
            }
        }
        self.add_device(&a.device)?;
        self.add_device(&b.device)?;
        if self.peers.insert(a.clone(), b.clone()).is_none() {
            self.peers.insert(b.clone(), a.clone());
            self.links.push(Link { a, b });
        }
        Ok(())
    }

    /// What `port` shows on `priority` (merged with what was observed there before).
    pub fn observe(
        &mut self,
        port: PortRef,
        priority: u8,
        observation: Observation,
    ) -> Result<(), GraphError> {
        if priority >= PRIORITIES {
            return Err(GraphError::Priority(priority));
        }
        self.add_device(&port.device)?;
        self.observations[usize::from(priority)].entry(port).or_default().merge(observation);
        Ok(())
    }

    /// Forgets every observation and keeps the devices and links: a collector that sees the
    /// same topology round after round builds it once.
    pub fn clear_observations(&mut self) {
        self.observations.iter_mut().for_each(BTreeMap::clear);
    }

    pub fn devices(&self) -> impl Iterator<Item = &str> {
        self.devices.iter().map(String::as_str)
    }

    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// The port at the far end of `port`'s link.
    pub fn peer(&self, port: &PortRef) -> Option<&PortRef> {
        self.peers.get(port)
    }

    pub fn observation(&self, port: &PortRef, priority: u8) -> Option<&Observation> {
        self.observations.get(usize::from(priority))?.get(port)
    }

    /// The ports, links and observations numbered, for the searches.
    pub(crate) fn graph(&self) -> PortGraph {
        let mut graph = PortGraph::new();
        for link in &self.links {
            let (a, b) = (graph.port(&link.a), graph.port(&link.b));
            graph.link(a, b);
        }
        let mut waits = Vec::new();
        for (priority, observed) in (0..PRIORITIES).zip(&self.observations) {
            for (port, o) in observed {
                let id = graph.port(port);
                waits.clear();
                for name in o.waits_on.iter().flatten() {
                    waits.push(graph.port(&PortRef::new(port.device.clone(), name.clone())));
                }
                let state = PortState {
                    egress_paused_since: o.egress_paused_since,
                    ingress_xoff_since: o.ingress_xoff_since,
                    egress_backlog: o.egress_backlog,
                    waits_on: o.waits_on.as_ref().map(|_| waits.as_slice()),
                };
                // The priority was checked when observed.
                let _ = graph.observe(id, priority, state);
            }
        }
        graph
    }
}

/// One (port, priority)'s observation, as [`Fabric`] serialises it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observed {
    pub port: PortRef,
    pub priority: u8,
    pub observation: Observation,
}

/// [`Fabric`] as lists, for serde.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct FabricLists {
    devices: Vec<String>,
    links: Vec<Link>,
    observations: Vec<Observed>,
}

impl From<Fabric> for FabricLists {
    fn from(f: Fabric) -> Self {
        FabricLists {
            devices: f.devices.into_iter().collect(),
            links: f.links,
            observations: (0..PRIORITIES)
                .zip(f.observations)
                .flat_map(|(priority, ports)| {
                    ports.into_iter().map(move |(port, observation)| Observed {
                        port,
                        priority,
                        observation,
                    })
                })
                .collect(),
        }
    }
}

impl TryFrom<FabricLists> for Fabric {
    type Error = GraphError;

    fn try_from(lists: FabricLists) -> Result<Self, GraphError> {
        let mut f = Fabric::new();
        for d in &lists.devices {
            f.add_device(d)?;
        }
        for l in lists.links {
            f.add_link(l.a, l.b)?;
        }
        for o in lists.observations {
            f.observe(o.port, o.priority, o.observation)?;
        }
        Ok(f)
    }
}
