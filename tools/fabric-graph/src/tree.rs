//! Congestion trees (36.2.4, Figure 36-6): from an egress that drains slower than it is fed,
//! the ports it pauses transitively, and the flows caught in them.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::graph::{PortGraph, PortId};
use super::names::{Flow, PortRef};
use super::{Fabric, PRIORITIES};

/// A congestion tree on one priority.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CongestionTree {
    pub priority: u8,
    /// The congested egress: waited on by an XOFF ingress, not itself paused.
    pub root: PortRef,
    /// The egresses the root pauses, transitively (sorted).
    pub paused: Vec<PortRef>,
    /// The ingresses in XOFF between them (sorted).
    pub xoff: Vec<PortRef>,
    /// The flows that cross a port of the tree (sorted).
    pub caught: Vec<String>,
    /// Those of `caught` that do not leave through the root.
    pub victims: Vec<String>,
}

/// A congestion tree by numbers: ports as [`PortId`]s of its [`PortGraph`], flows as indices
/// into the graph's flows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeIds {
    pub priority: u8,
    pub root: PortId,
    /// In the order of their names.
    pub paused: Vec<PortId>,
    pub xoff: Vec<PortId>,
    /// In the order of the flows.
    pub caught: Vec<usize>,
    pub victims: Vec<usize>,
}

impl Fabric {
    /// Every congestion tree, sorted by priority and root, with `flows` sorted into caught and
    /// victims.
    pub fn congestion_trees(&self, flows: &[Flow]) -> Vec<CongestionTree> {
        let mut graph = self.graph();
        graph.set_flows(flows);
        graph.congestion_trees()
    }
}

impl PortGraph {
    /// As [`Fabric::congestion_trees`], with the flows given to [`PortGraph::set_flows`].
    pub fn congestion_trees(&self) -> Vec<CongestionTree> {
        let name = |ids: &[PortId]| ids.iter().map(|p| self.name(*p).clone()).collect();
        let flow_names = |ids: &[usize]| {
            let mut names: Vec<String> =
                ids.iter().map(|f| self.flows()[*f].name.clone()).collect();
            names.sort();
            names
        };
        self.congestion_tree_ids()
            .into_iter()
            .map(|t| CongestionTree {
                priority: t.priority,
                root: self.name(t.root).clone(),
                paused: name(&t.paused),
                xoff: name(&t.xoff),
                caught: flow_names(&t.caught),
                victims: flow_names(&t.victims),
            })
            .collect()
    }

    /// The congestion trees by numbers, by priority and then by the root's name.
    pub fn congestion_tree_ids(&self) -> Vec<TreeIds> {
        let mut trees = Vec::new();
        let mut in_tree = vec![false; self.len()];
        for priority in 0..PRIORITIES {
            let waiting = self.waiting(priority);
            for root in self.roots(priority, &waiting) {
                trees.push(self.tree(priority, root, &waiting, &mut in_tree));
            }
        }
        trees
    }

    /// `(egress, ingress)` for each XOFF ingress and each egress it waits on, by egress.
    fn waiting(&self, priority: u8) -> Vec<(PortId, PortId)> {
        let mut waiting = Vec::new();
        for (ingress, s) in self.observed_on(priority) {
            if s.xoff_since.is_some() {
                self.each_wait(ingress, priority, |egress| waiting.push((egress, ingress)));
            }
        }
        waiting.sort_by_key(|(egress, _)| *egress);
        waiting
    }

    /// The egresses not paused that an XOFF ingress waits on, in the order of their names.
    fn roots(&self, priority: u8, waiting: &[(PortId, PortId)]) -> Vec<PortId> {
        let mut roots: Vec<PortId> = waiting
            .iter()
            .map(|(egress, _)| *egress)
            .filter(|egress| self.paused_since(*egress, priority).is_none())
            .collect();
        roots.dedup();
        roots.sort_by_key(|p| self.rank(*p));
        roots
    }

    /// Upstream from `root`: XOFF ingresses waiting on an egress of the tree, and the paused
    /// egresses across their links. `in_tree` is all false before and after.
    fn tree(
        &self,
        priority: u8,
        root: PortId,
        waiting: &[(PortId, PortId)],
        in_tree: &mut [bool],
    ) -> TreeIds {
        let mut paused = Vec::new();
        let mut xoff = Vec::new();
        let mut frontier = VecDeque::from([root]);
        while let Some(egress) = frontier.pop_front() {
            let from = waiting.partition_point(|(e, _)| *e < egress);
            for (_, ingress) in waiting[from..].iter().take_while(|(e, _)| *e == egress) {
                if in_tree[*ingress] {
                    continue;
                }
                in_tree[*ingress] = true;
                xoff.push(*ingress);
                let Some(upstream) = self.peer(*ingress) else { continue };
                // A port is an ingress and an egress at once: the marks for each are apart.
                if upstream != root
                    && self.paused_since(upstream, priority).is_some()
                    && !paused.contains(&upstream)
                {
                    paused.push(upstream);
                    frontier.push_back(upstream);
                }
            }
        }
        for i in &xoff {
            in_tree[*i] = false;
        }
        let mut caught = Vec::new();
        let mut victims = Vec::new();
        for (f, flow) in
            self.flow_ports().iter().enumerate().filter(|(_, f)| f.priority == priority)
        {
            let through_root = flow.leaves.contains(&root);
            let in_tree = through_root
                || paused.iter().any(|e| flow.leaves.contains(e))
                || xoff.iter().any(|i| flow.enters.contains(i));
            if in_tree {
                caught.push(f);
                if !through_root {
                    victims.push(f);
                }
            }
        }
        paused.sort_by_key(|p| self.rank(*p));
        xoff.sort_by_key(|p| self.rank(*p));
        TreeIds { priority, root, paused, xoff, caught, victims }
    }
}
