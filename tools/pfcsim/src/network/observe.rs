//! The wait-for graph sampled from the running network: each sample builds a `fabric_graph`
//! view of every port's pause, XOFF and queue state, as a collector would from live devices,
//! and keeps each deadlock and congestion tree with when it was first and last seen.

use std::collections::{BTreeMap, BTreeSet};

use dataplane::time::Picos;
use dataplane::wire::PRIORITIES;
use fabric_graph::{CycleHop, Flow, Hop, Nanos, PortGraph, PortId, PortRef, PortState};
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

/// A congestion tree as the samples saw it, by port numbers and flow indices.
struct TreeSeenIds {
    paused: BTreeSet<PortId>,
    xoff: BTreeSet<PortId>,
    caught: BTreeSet<usize>,
    victims: BTreeSet<usize>,
    first_seen_us: f64,
    last_seen_us: f64,
    samples: u64,
}

/// The priorities whose bits are set in `mask`, lowest first.
fn priorities(mask: u8) -> impl Iterator<Item = usize> {
    let mut rest = mask;
    std::iter::from_fn(move || {
        let n = rest.trailing_zeros() as usize;
        rest &= rest.wrapping_sub(1);
        (n < PRIORITIES).then_some(n)
    })
}

pub(super) struct Observer {
    threshold: Nanos,
    /// Each cycle seen, and whether the last sample saw it.
    deadlocks: BTreeMap<(u8, Vec<CycleHop>), (DeadlockSeen, bool)>,
    /// By priority and the root's place in the order of port names (the order of the results).
    trees: BTreeMap<(u8, usize), (PortId, TreeSeenIds)>,
    /// The ports, links and flows, numbered once; each sample replaces the observations.
    graph: PortGraph,
    /// Each port's number in the graph, by port index.
    ids: Vec<PortId>,
    /// Each graph port's place in the order of port names.
    name_rank: Vec<usize>,
    /// Per ingress and priority (`port * PRIORITIES + priority`): the egress ports its buffered
    /// frames wait in, refilled each sample.
    waits: Vec<Vec<usize>>,
    /// The entries of `waits` filled this sample.
    waits_filled: Vec<usize>,
    /// One observation's waits, as graph numbers.
    waits_on: Vec<PortId>,
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
        let flows: Vec<Flow> = topo
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
        let mut graph = PortGraph::new();
        let ids: Vec<PortId> =
            (0..topo.ports.len()).map(|p| graph.port(&port_ref(topo, p))).collect();
        for (p, info) in topo.ports.iter().enumerate() {
            if let Some(peer) = info.peer.filter(|q| *q > p) {
                graph.link(ids[p], ids[peer]);
            }
        }
        graph.set_flows(&flows);
        let mut by_name: Vec<PortId> = (0..graph.len()).collect();
        by_name.sort_by(|a, b| graph.name(*a).cmp(graph.name(*b)));
        let mut name_rank = vec![0; graph.len()];
        for (rank, id) in by_name.into_iter().enumerate() {
            name_rank[id] = rank;
        }
        Observer {
            threshold: threshold.as_ns(),
            deadlocks: BTreeMap::new(),
            trees: BTreeMap::new(),
            graph,
            ids,
            name_rank,
            waits: vec![Vec::new(); topo.ports.len() * PRIORITIES],
            waits_filled: Vec::new(),
            waits_on: Vec::new(),
        }
    }

    /// Fills the graph with what every port shows at `now`.
    fn observe(&mut self, now: Picos, ports: &[Port]) {
        self.graph.clear_observations();
        // Per ingress and priority: the egress ports its buffered frames wait for.
        for k in self.waits_filled.drain(..) {
            self.waits[k].clear();
        }
        for (p, port) in ports.iter().enumerate() {
            for n in priorities(port.waiting()) {
                for i in port.holding(n) {
                    let k = i as usize * PRIORITIES + n;
                    if self.waits[k].is_empty() {
                        self.waits_filled.push(k);
                    }
                    self.waits[k].push(p);
                }
            }
        }
        for (p, port) in ports.iter().enumerate() {
            // The priorities that may show something: most of a port's show nothing.
            let shown = port.held_open() | port.tx.xoff() | port.waiting();
            for n in priorities(shown) {
                let paused =
                    port.paused[n].held_since(now).filter(|_| port.rx().priority_paused(now, n));
                let xoff = port.xoff_since[n].filter(|_| port.tx.xoff() & (1 << n) != 0);
                let backlog = port.waiting() & (1 << n) != 0;
                if paused.is_none() && xoff.is_none() && !backlog {
                    continue;
                }
                // The egresses by name, each once (they are ports of this one's device).
                self.waits_on.clear();
                self.waits_on.extend(self.waits[p * PRIORITIES + n].iter().map(|e| self.ids[*e]));
                let rank = &self.name_rank;
                self.waits_on.sort_unstable_by_key(|e| rank[*e]);
                self.waits_on.dedup();
                let state = PortState {
                    egress_paused_since: paused.map(Picos::as_ns),
                    ingress_xoff_since: xoff.map(Picos::as_ns),
                    egress_backlog: backlog,
                    waits_on: Some(&self.waits_on),
                };
                // A port's priorities are 0 to 7: the graph takes each.
                let _ = self.graph.observe(self.ids[p], n as u8, state);
            }
        }
    }

    pub fn sample(&mut self, now: Picos, ports: &[Port]) {
        self.observe(now, ports);
        let at = us(now);
        let mut present = BTreeSet::new();
        for d in self.graph.deadlocks(now.as_ns(), self.threshold) {
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
        for t in self.graph.congestion_tree_ids() {
            let key = (t.priority, self.name_rank[t.root]);
            let (_, seen) = self.trees.entry(key).or_insert_with(|| {
                let seen = TreeSeenIds {
                    paused: BTreeSet::new(),
                    xoff: BTreeSet::new(),
                    caught: BTreeSet::new(),
                    victims: BTreeSet::new(),
                    first_seen_us: at,
                    last_seen_us: at,
                    samples: 0,
                };
                (t.root, seen)
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

    pub fn trees(&self, topo: &Topology) -> Vec<TreeSeen> {
        let ports =
            |ids: &BTreeSet<PortId>| ids.iter().map(|p| self.graph.name(*p).clone()).collect();
        let flows = |fs: &BTreeSet<usize>| fs.iter().map(|f| topo.flows[*f].name.clone()).collect();
        self.trees
            .iter()
            .map(|((priority, _), (root, seen))| TreeSeen {
                priority: *priority,
                root: self.graph.name(*root).clone(),
                paused: ports(&seen.paused),
                xoff: ports(&seen.xoff),
                caught: flows(&seen.caught),
                victims: flows(&seen.victims),
                first_seen_us: seen.first_seen_us,
                last_seen_us: seen.last_seen_us,
                samples: seen.samples,
            })
            .collect()
    }
}
