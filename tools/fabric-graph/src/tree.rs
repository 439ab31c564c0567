//! Congestion trees (36.2.4, Figure 36-6): from an egress that drains slower than it is fed,
//! the ports it pauses transitively, and the flows caught in them.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};

use super::{Fabric, PortRef, PRIORITIES};

/// One device a flow crosses: where it comes in and where it leaves (a host that starts or ends
/// the flow has no port on that side).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hop {
    pub device: String,
    pub in_port: Option<String>,
    pub out_port: Option<String>,
}

/// A flow: its path through the fabric and its priority.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flow {
    pub name: String,
    pub priority: u8,
    pub path: Vec<Hop>,
}

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

impl CongestionTree {
    /// Whether `flow` leaves some device through `port`.
    fn leaves_through(flow: &Flow, port: &PortRef) -> bool {
        flow.path
            .iter()
            .any(|h| h.device == port.device && h.out_port.as_deref() == Some(port.port.as_str()))
    }

    fn enters_through(flow: &Flow, port: &PortRef) -> bool {
        flow.path
            .iter()
            .any(|h| h.device == port.device && h.in_port.as_deref() == Some(port.port.as_str()))
    }
}

/// The XOFF ingresses waiting on each egress of one priority, by egress (device, port).
type Waiting<'a> = BTreeMap<(&'a str, &'a str), Vec<&'a PortRef>>;

impl Fabric {
    /// Every congestion tree, sorted by priority and root, with `flows` sorted into caught and
    /// victims.
    pub fn congestion_trees(&self, flows: &[Flow]) -> Vec<CongestionTree> {
        let mut trees = Vec::new();
        for priority in 0..PRIORITIES {
            let waiting = self.waiting(priority);
            for root in self.roots(priority, &waiting) {
                trees.push(self.tree(priority, root, &waiting, flows));
            }
        }
        trees.sort();
        trees
    }

    /// For each egress an XOFF ingress waits on, those ingresses.
    fn waiting(&self, priority: u8) -> Waiting<'_> {
        let mut waiting: Waiting<'_> = BTreeMap::new();
        for (ingress, o) in self.observed_on(priority) {
            if o.ingress_xoff_since.is_none() {
                continue;
            }
            let device = ingress.device.as_str();
            match &o.waits_on {
                Some(ports) => {
                    for port in ports {
                        waiting.entry((device, port.as_str())).or_default().push(ingress);
                    }
                }
                None => {
                    for (egress, _) in self
                        .observed_on(priority)
                        .filter(|(e, _)| self.waits_on_port(ingress, priority, e))
                    {
                        waiting.entry((device, egress.port.as_str())).or_default().push(ingress);
                    }
                }
            }
        }
        waiting
    }

    /// The egresses not paused that an XOFF ingress waits on.
    fn roots(&self, priority: u8, waiting: &Waiting<'_>) -> BTreeSet<PortRef> {
        waiting
            .keys()
            .map(|(device, port)| PortRef::new(*device, *port))
            .filter(|egress| self.paused_since(egress, priority).is_none())
            .collect()
    }

    /// Upstream from `root`: XOFF ingresses waiting on an egress of the tree, and the paused
    /// egresses across their links.
    fn tree(
        &self,
        priority: u8,
        root: PortRef,
        waiting: &Waiting<'_>,
        flows: &[Flow],
    ) -> CongestionTree {
        let mut paused = BTreeSet::new();
        let mut xoff = BTreeSet::new();
        let mut frontier = VecDeque::from([root.clone()]);
        while let Some(egress) = frontier.pop_front() {
            let key = (egress.device.as_str(), egress.port.as_str());
            for ingress in waiting.get(&key).into_iter().flatten() {
                if !xoff.insert((*ingress).clone()) {
                    continue;
                }
                let Some(upstream) = self.peer(ingress) else { continue };
                if *upstream != root
                    && self.paused_since(upstream, priority).is_some()
                    && paused.insert(upstream.clone())
                {
                    frontier.push_back(upstream.clone());
                }
            }
        }
        let mut caught = Vec::new();
        let mut victims = Vec::new();
        for flow in flows.iter().filter(|f| f.priority == priority) {
            let through_root = CongestionTree::leaves_through(flow, &root);
            let in_tree = through_root
                || paused.iter().any(|e| CongestionTree::leaves_through(flow, e))
                || xoff.iter().any(|i| CongestionTree::enters_through(flow, i));
            if in_tree {
                caught.push(flow.name.clone());
                if !through_root {
                    victims.push(flow.name.clone());
                }
            }
        }
        caught.sort();
        victims.sort();
        CongestionTree {
            priority,
            root,
            paused: paused.into_iter().collect(),
            xoff: xoff.into_iter().collect(),
            caught,
            victims,
        }
    }
}
