//! The wait-for graph sampled from the running network: each sample builds a `fabric_graph`
//! view of every port's pause, XOFF and queue state, as a collector would from live devices,
//! and keeps each deadlock and congestion tree with when it was first and last seen.

use std::collections::{BTreeMap, BTreeSet};

use dataplane::time::Picos;
use dataplane::wire::PRIORITIES;
use fabric_graph::{CycleHop, Fabric, Flow, Hop, Nanos, Observation, PortRef};
use serde::Serialize;

use super::build::Topology;
use super::port::Port;

/// A deadlock as the samples saw it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeadlockSeen {
    pub priority: u8,
    pub cycle: Vec<CycleHop>,
    /// When the cycle first closed (the latest part of it to be held), microseconds.
    pub closed_at_us: f64,
    pub first_seen_us: f64,
    pub last_seen_us: f64,
    /// The first sample after `first_seen_us` without the cycle (it was broken), if any.
    pub broken_at_us: Option<f64>,
    /// The sample after the last time it was seen, when it was gone by the end of the run.
    pub cleared_at_us: Option<f64>,
    /// Times the cycle formed (again after being broken).
    pub episodes: u32,
}

/// A congestion tree as the samples saw it: the union of its ports and flows over time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TreeSeen {
    pub priority: u8,
    pub root: PortRef,
    pub paused: BTreeSet<PortRef>,
    pub xoff: BTreeSet<PortRef>,
    pub caught: BTreeSet<String>,
    pub victims: BTreeSet<String>,
    pub first_seen_us: f64,
    pub last_seen_us: f64,
    /// Samples that saw it.
    pub samples: u64,
}

pub(super) struct Observer {
    threshold: Nanos,
    flows: Vec<Flow>,
    /// Each cycle seen, and whether the last sample saw it.
    deadlocks: BTreeMap<(u8, Vec<CycleHop>), (DeadlockSeen, bool)>,
    trees: BTreeMap<(u8, PortRef), TreeSeen>,
    /// The devices and links, built once; each sample replaces the observations.
    fabric: Fabric,
    /// Each port's reference, by port index.
    refs: Vec<PortRef>,
    /// Per ingress and priority (`port * PRIORITIES + priority`): the egress ports its buffered
    /// frames wait in, refilled each sample.
    waits: Vec<Vec<usize>>,
}

fn us(t: Picos) -> f64 {
    t.as_ps() as f64 / 1e6
}

fn port_ref(topo: &Topology, p: usize) -> PortRef {
    let info = &topo.ports[p];
    PortRef::new(topo.nodes[info.node].name.clone(), info.name.clone())
}

impl Observer {
    pub fn new(topo: &Topology, threshold: Picos) -> Self {
        let name = |p: Option<usize>| p.map(|p| topo.ports[p].name.clone());
        let flows = topo
            .flows
            .iter()
            .map(|f| Flow {
                name: f.name.clone(),
                priority: f.priority,
                path: f
                    .hops
                    .iter()
                    .map(|(node, i, o)| Hop {
                        device: topo.nodes[*node].name.clone(),
                        in_port: name(*i),
                        out_port: name(*o),
                    })
                    .collect(),
            })
            .collect();
        let refs: Vec<PortRef> = (0..topo.ports.len()).map(|p| port_ref(topo, p)).collect();
        let mut fabric = Fabric::new();
        for (p, info) in topo.ports.iter().enumerate() {
            if let Some(peer) = info.peer.filter(|q| *q > p) {
                // Both ends exist and are distinct: the graph takes the link.
                let _ = fabric.add_link(refs[p].clone(), refs[peer].clone());
            }
        }
        Observer {
            threshold: threshold.as_ns(),
            flows,
            deadlocks: BTreeMap::new(),
            trees: BTreeMap::new(),
            fabric,
            refs,
            waits: vec![Vec::new(); topo.ports.len() * PRIORITIES],
        }
    }

    /// Fills the fabric with what every port shows at `now`.
    fn observe(&mut self, now: Picos, topo: &Topology, ports: &[Port]) {
        self.fabric.clear_observations();
        // Per ingress and priority: the egress ports its buffered frames wait for.
        self.waits.iter_mut().for_each(Vec::clear);
        for (p, port) in ports.iter().enumerate() {
            for (n, queue) in port.queues.iter().enumerate() {
                for i in queue.iter().filter_map(|q| q.ingress) {
                    let waits = &mut self.waits[i as usize * PRIORITIES + n];
                    if waits.last() != Some(&p) {
                        waits.push(p);
                    }
                }
            }
        }
        for (p, port) in ports.iter().enumerate() {
            for n in 0..PRIORITIES {
                let paused =
                    port.paused[n].held_since(now).filter(|_| port.rx.priority_paused(now, n));
                let xoff = port.xoff_since[n].filter(|_| port.tx.xoff() & (1 << n) != 0);
                let backlog = !port.queues[n].is_empty();
                if paused.is_none() && xoff.is_none() && !backlog {
                    continue;
                }
                let mut waits_on: Vec<String> = self.waits[p * PRIORITIES + n]
                    .iter()
                    .map(|e| topo.ports[*e].name.clone())
                    .collect();
                waits_on.sort_unstable();
                waits_on.dedup();
                let observation = Observation {
                    egress_paused_since: paused.map(Picos::as_ns),
                    ingress_xoff_since: xoff.map(Picos::as_ns),
                    egress_backlog: backlog,
                    waits_on: Some(waits_on),
                };
                let _ = self.fabric.observe(self.refs[p].clone(), n as u8, observation);
            }
        }
    }

    pub fn sample(&mut self, now: Picos, topo: &Topology, ports: &[Port]) {
        self.observe(now, topo, ports);
        let at = us(now);
        let mut present = BTreeSet::new();
        for d in self.fabric.deadlocks(now.as_ns(), self.threshold) {
            let key = (d.priority, d.cycle.clone());
            present.insert(key.clone());
            let (seen, was_present) = self.deadlocks.entry(key).or_insert_with(|| {
                let seen = DeadlockSeen {
                    priority: d.priority,
                    cycle: d.cycle.clone(),
                    closed_at_us: d.closed_at as f64 / 1e3,
                    first_seen_us: at,
                    last_seen_us: at,
                    broken_at_us: None,
                    cleared_at_us: None,
                    episodes: 0,
                };
                (seen, false)
            });
            if !*was_present {
                seen.episodes += 1;
            }
            *was_present = true;
            seen.last_seen_us = at;
            seen.cleared_at_us = None;
        }
        for (key, (seen, was_present)) in &mut self.deadlocks {
            if *was_present && !present.contains(key) {
                *was_present = false;
                seen.broken_at_us.get_or_insert(at);
                seen.cleared_at_us = Some(at);
            }
        }
        for t in self.fabric.congestion_trees(&self.flows) {
            let seen = self.trees.entry((t.priority, t.root.clone())).or_insert_with(|| TreeSeen {
                priority: t.priority,
                root: t.root.clone(),
                paused: BTreeSet::new(),
                xoff: BTreeSet::new(),
                caught: BTreeSet::new(),
                victims: BTreeSet::new(),
                first_seen_us: at,
                last_seen_us: at,
                samples: 0,
            });
            seen.paused.extend(t.paused);
            seen.xoff.extend(t.xoff);
            seen.caught.extend(t.caught);
            seen.victims.extend(t.victims);
            seen.last_seen_us = at;
            seen.samples += 1;
        }
    }

    pub fn deadlocks(&self) -> Vec<DeadlockSeen> {
        let mut all: Vec<DeadlockSeen> = self.deadlocks.values().map(|(d, _)| d.clone()).collect();
        all.sort_by(|a, b| a.first_seen_us.total_cmp(&b.first_seen_us));
        all
    }

    pub fn trees(&self) -> Vec<TreeSeen> {
        self.trees.values().cloned().collect()
    }
}
