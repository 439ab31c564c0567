//! One refresh's view of the fabric: from what each device answered to the wait-for graph's
//! input (devices, links from LLDP, observations), and what the graph finds in it.

use std::collections::{BTreeMap, BTreeSet};

use fabric_graph::{CongestionTree, Deadlock, Fabric, Flow, Link, Nanos, Observation, PortRef};
use serde::Serialize;

use crate::device_state::DeviceState;
use crate::first_seen::{FirstSeen, Kind, StateKey};
use crate::flow_hops;
use crate::flows::Flows;

/// What one device said this refresh.
pub struct Answer {
    pub name: String,
    /// Its state, or why there is none (no session, an rpc-error, a reply not understood).
    pub state: Result<DeviceState, String>,
}

/// A device as the view reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceReport {
    pub name: String,
    pub chassis_id: Option<String>,
    /// Why the device is not in this refresh; `None` when it answered.
    pub error: Option<String>,
}

/// A neighbour that is none of the devices (a host, or a device not listed).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Outside {
    pub port: PortRef,
    pub chassis_id: String,
    pub port_id: String,
}

/// A (port, priority) with its egress paused or its ingress in XOFF, and since when (the
/// collector's clock).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Held {
    pub port: PortRef,
    pub priority: u8,
    pub egress_paused_since: Option<Nanos>,
    pub ingress_xoff_since: Option<Nanos>,
    /// Frames waiting to leave, where the device's model says.
    pub backlog: Option<u64>,
}

/// One refresh.
#[derive(Debug, Clone, Serialize)]
pub struct View {
    /// 1 for the first refresh.
    pub refresh: u64,
    /// When the refresh's replies were in, on the collector's clock (ns since it started).
    pub at: Nanos,
    /// How long a deadlock's every part must have held to be reported (ns).
    pub threshold: Nanos,
    pub devices: Vec<DeviceReport>,
    pub links: Vec<Link>,
    /// Neighbours LLDP saw that cannot be a link (two devices with one chassis ID, a port
    /// claimed twice), each saying why.
    pub link_errors: Vec<String>,
    pub outside: Vec<Outside>,
    pub held: Vec<Held>,
    pub deadlocks: Vec<Deadlock>,
    /// Each with the flows of the flows file caught in it and, of those, its victims.
    pub congestion_trees: Vec<CongestionTree>,
    /// The flows of the flows file laid on this refresh's topology.
    pub flows: Vec<Flow>,
    /// The flows that could not be laid on it, each saying why (left out of the trees).
    pub flow_errors: Vec<String>,
    /// The wait-for graph's input, for a caller that wants to ask more of it.
    #[serde(skip)]
    pub fabric: Fabric,
}

impl View {
    /// The devices that answered.
    pub fn answered(&self) -> impl Iterator<Item = &DeviceReport> {
        self.devices.iter().filter(|d| d.error.is_none())
    }
}

/// The view of `answers` at `now`, its states' times kept in `first_seen`, `flows` laid on
/// the topology found.
pub fn build(
    refresh: u64,
    answers: &[Answer],
    first_seen: &mut FirstSeen,
    now: Nanos,
    threshold: Nanos,
    flows: &Flows,
) -> View {
    let mut fabric = Fabric::new();
    let mut devices = Vec::new();
    let mut link_errors = Vec::new();
    let mut by_chassis: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for a in answers {
        let (chassis_id, error) = match &a.state {
            Ok(s) => (s.chassis_id.clone(), None),
            Err(e) => (None, Some(e.clone())),
        };
        if let Ok(Some(c)) = a.state.as_ref().map(|s| s.chassis_id.as_deref()) {
            by_chassis.entry(c).or_default().push(&a.name);
        }
        if !a.name.is_empty() {
            let _ = fabric.add_device(&a.name);
        }
        devices.push(DeviceReport { name: a.name.clone(), chassis_id, error });
    }
    for (chassis, names) in by_chassis.iter().filter(|(_, n)| n.len() > 1) {
        link_errors.push(format!(
            "devices {} all report chassis ID {chassis}: links to it are left out (give each \
             device its own chassis ID)",
            names.join(", ")
        ));
    }

    let mut outside = Vec::new();
    let mut on: BTreeSet<StateKey> = BTreeSet::new();
    for (name, state) in answers.iter().filter_map(|a| Some((&a.name, a.state.as_ref().ok()?))) {
        for (port_name, port) in &state.ports {
            let here = PortRef::new(name.clone(), port_name.clone());
            for n in &port.neighbours {
                match by_chassis.get(n.chassis_id.as_str()).map(Vec::as_slice) {
                    Some([peer]) => {
                        let there = PortRef::new(*peer, n.port_id.clone());
                        if let Err(e) = fabric.add_link(here.clone(), there) {
                            link_errors.push(format!("{here} hears {}:{}: {e}", peer, n.port_id));
                        }
                    }
                    Some(_) => {}
                    None => outside.push(Outside {
                        port: here.clone(),
                        chassis_id: n.chassis_id.clone(),
                        port_id: n.port_id.clone(),
                    }),
                }
            }
            for (n, p) in &port.priorities {
                if p.paused {
                    on.insert((here.clone(), *n, Kind::Paused));
                }
                if p.xoff {
                    on.insert((here.clone(), *n, Kind::Xoff));
                }
            }
        }
    }
    first_seen.refresh(on, now);

    let mut held = Vec::new();
    for (name, state) in answers.iter().filter_map(|a| Some((&a.name, a.state.as_ref().ok()?))) {
        for (port_name, port) in &state.ports {
            let here = PortRef::new(name.clone(), port_name.clone());
            for (n, p) in &port.priorities {
                let observation = Observation {
                    egress_paused_since: first_seen.since(&here, *n, Kind::Paused),
                    ingress_xoff_since: first_seen.since(&here, *n, Kind::Xoff),
                    egress_backlog: p.backlog.is_some_and(|b| b > 0),
                    waits_on: None,
                };
                if observation == Observation::default() {
                    continue;
                }
                if observation.egress_paused_since.is_some()
                    || observation.ingress_xoff_since.is_some()
                {
                    held.push(Held {
                        port: here.clone(),
                        priority: *n,
                        egress_paused_since: observation.egress_paused_since,
                        ingress_xoff_since: observation.ingress_xoff_since,
                        backlog: p.backlog,
                    });
                }
                // Priorities come from the reply, already checked to be 0 to 7.
                let _ = fabric.observe(here.clone(), *n, observation);
            }
        }
    }
    outside.sort();
    let (flows, flow_errors) = flow_hops::lay(flows, &fabric);
    View {
        refresh,
        at: now,
        threshold,
        devices,
        links: fabric.links().to_vec(),
        link_errors,
        outside,
        held,
        deadlocks: fabric.deadlocks(now, threshold),
        congestion_trees: fabric.congestion_trees(&flows),
        flows,
        flow_errors,
        fabric,
    }
}
