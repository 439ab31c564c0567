//! Deadlocks: cycles in the wait-for graph (36.2.5, Figure 36-7), each paused egress waiting on
//! the next through the peer's XOFF ingress.

use serde::{Deserialize, Serialize};

use super::graph::{PortGraph, PortId};
use super::{Fabric, Nanos, PortRef, PRIORITIES};

/// The most cycles [`Fabric::deadlocks`] reports (elementary cycles can be exponentially many in
/// a dense fabric; each found one is already a deadlock to break).
pub const MAX_CYCLES: usize = 1_000;

/// One step of a cycle: `egress` is held paused by its peer's `ingress`, which is in XOFF and
/// waits on the next step's egress.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CycleHop {
    pub egress: PortRef,
    pub ingress: PortRef,
}

/// A circular buffer dependency on one priority.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Deadlock {
    pub priority: u8,
    /// The cycle, starting at its least egress (device, then port).
    pub cycle: Vec<CycleHop>,
    /// When the cycle closed: the latest time one of its egresses became paused or one of its
    /// ingresses went into XOFF.
    pub closed_at: Nanos,
}

impl Deadlock {
    /// The devices of the cycle, in its order.
    pub fn devices(&self) -> Vec<&str> {
        self.cycle.iter().map(|h| h.egress.device.as_str()).collect()
    }
}

impl Fabric {
    /// Every deadlock whose every part has held at least `threshold` at `now`, each once, sorted
    /// (at most [`MAX_CYCLES`]).
    pub fn deadlocks(&self, now: Nanos, threshold: Nanos) -> Vec<Deadlock> {
        self.graph().deadlocks(now, threshold)
    }
}

impl PortGraph {
    /// As [`Fabric::deadlocks`].
    pub fn deadlocks(&self, now: Nanos, threshold: Nanos) -> Vec<Deadlock> {
        let held = |since: Option<Nanos>| since.filter(|s| now.saturating_sub(*s) >= threshold);
        let mut found = Vec::new();
        // Each port's place among the nodes of the priority's graph, if it is one.
        let mut node_of = vec![usize::MAX; self.len()];
        for priority in 0..PRIORITIES {
            // In the order of the egresses' names: each paused egress, its peer's ingress, the
            // latest since of the two, and the egresses that ingress waits on.
            let mut nodes: Vec<(PortId, PortId, Nanos, Vec<PortId>)> = Vec::new();
            for (egress, s) in self.observed_on(priority) {
                let Some(paused) = held(s.paused_since) else { continue };
                let Some(ingress) = self.peer(egress) else { continue };
                let Some(xoff) = held(self.xoff_since(ingress, priority)) else { continue };
                let mut waits = Vec::new();
                self.each_wait(ingress, priority, |e| {
                    if held(self.paused_since(e, priority)).is_some() {
                        waits.push(e);
                    }
                });
                nodes.push((egress, ingress, paused.max(xoff), waits));
            }
            if nodes.is_empty() {
                continue;
            }
            for (i, node) in nodes.iter().enumerate() {
                node_of[node.0] = i;
            }
            let successors: Vec<Vec<usize>> = nodes
                .iter()
                .map(|n| n.3.iter().map(|e| node_of[*e]).filter(|i| *i != usize::MAX).collect())
                .collect();
            cycles(&successors, |cycle| {
                if found.len() >= MAX_CYCLES {
                    return;
                }
                let hops: Vec<CycleHop> = cycle
                    .iter()
                    .map(|i| CycleHop {
                        egress: self.name(nodes[*i].0).clone(),
                        ingress: self.name(nodes[*i].1).clone(),
                    })
                    .collect();
                let closed_at = cycle.iter().map(|i| nodes[*i].2).max().unwrap_or(0);
                found.push(Deadlock { priority, cycle: hops, closed_at });
            });
            for node in &nodes {
                node_of[node.0] = usize::MAX;
            }
        }
        found.sort();
        found
    }
}

/// Every elementary cycle of the graph (nodes numbered in their order), each once and starting
/// at its least node: from each node in order, a depth-first search through greater nodes only
/// back to it.
fn cycles(successors: &[Vec<usize>], mut report: impl FnMut(&[usize])) {
    let mut reported = 0usize;
    for start in 0..successors.len() {
        let mut path = vec![start];
        let mut on_path = vec![false; successors.len()];
        on_path[start] = true;
        // Each frame: (node, next successor to try).
        let mut stack = vec![(start, 0usize)];
        while let Some((node, i)) = stack.pop() {
            let Some(&succ) = successors[node].get(i) else {
                on_path[node] = false;
                path.pop();
                continue;
            };
            stack.push((node, i + 1));
            if succ == start {
                report(&path);
                reported += 1;
                if reported >= MAX_CYCLES {
                    return;
                }
            } else if succ > start && !on_path[succ] {
                on_path[succ] = true;
                path.push(succ);
                stack.push((succ, 0));
            }
        }
    }
}
