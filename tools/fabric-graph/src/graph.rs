//! The wait-for graph on port numbers: what [`Fabric`](crate::Fabric)'s results are computed
//! on, and what a caller that samples the same ports many times a second (a simulator) fills
//! directly. Ports are named once, when added; observations, deadlock cycles and congestion
//! trees work on their numbers, and names come back only in the results.

use std::collections::HashMap;

use super::names::{Flow, PortRef};
use super::{GraphError, Nanos, PRIORITIES};

/// A port's number in a [`PortGraph`], in the order the ports were added.
pub type PortId = usize;

/// What one (port, priority) shows, ports by number: [`Observation`](crate::Observation)'s
/// fields.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PortState<'a> {
    pub egress_paused_since: Option<Nanos>,
    pub ingress_xoff_since: Option<Nanos>,
    pub egress_backlog: bool,
    /// The egress ports (of the same device) the ingress buffer's frames wait for, in the
    /// order given; `None` when unknown.
    pub waits_on: Option<&'a [PortId]>,
}

/// One (port, priority)'s state as kept: the list's storage is reused from round to round.
#[derive(Debug, Clone, Default)]
pub(crate) struct State {
    pub observed: bool,
    pub paused_since: Option<Nanos>,
    pub xoff_since: Option<Nanos>,
    pub backlog: bool,
    pub waits_known: bool,
    pub waits: Vec<PortId>,
}

/// A flow by the ports it leaves and enters through.
#[derive(Debug, Clone, Default)]
pub(crate) struct FlowPorts {
    pub priority: u8,
    pub leaves: Vec<PortId>,
    pub enters: Vec<PortId>,
}

/// Ports (by number), their links, each (port, priority)'s state and the flows to sort into
/// congestion trees. Results come out in the order of the ports' names, as
/// [`Fabric`](crate::Fabric)'s do.
#[derive(Debug, Clone, Default)]
pub struct PortGraph {
    ports: Vec<PortRef>,
    ids: HashMap<PortRef, PortId>,
    /// Each port's device, numbered.
    device: Vec<usize>,
    devices: HashMap<String, usize>,
    peer: Vec<Option<PortId>>,
    /// Each port's place among all ports sorted by name (device, then port), and the ports in
    /// that order.
    rank: Vec<usize>,
    by_name: Vec<PortId>,
    states: [Vec<State>; PRIORITIES as usize],
    /// The ports observed per priority since the last clearing, in the order of their names.
    observed: [Vec<PortId>; PRIORITIES as usize],
    flows: Vec<Flow>,
    flow_ports: Vec<FlowPorts>,
}

impl PortGraph {
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of `port`, added if new.
    pub fn port(&mut self, port: &PortRef) -> PortId {
        if let Some(id) = self.ids.get(port) {
            return *id;
        }
        let id = self.ports.len();
        let devices = self.devices.len();
        let device = *self.devices.entry(port.device.clone()).or_insert(devices);
        self.ports.push(port.clone());
        self.ids.insert(port.clone(), id);
        self.device.push(device);
        self.peer.push(None);
        self.states.iter_mut().for_each(|s| s.push(State::default()));
        let at = self.by_name.partition_point(|p| self.ports[*p] < *port);
        self.by_name.insert(at, id);
        self.rank.push(0);
        for (r, p) in self.by_name.iter().enumerate().skip(at) {
            self.rank[*p] = r;
        }
        // Ranks only shift up past the new port: the observed lists keep their order.
        if !self.flows.is_empty() {
            self.flow_ports = self.resolve_flows();
        }
        id
    }

    /// How many ports there are (numbered from 0).
    pub fn len(&self) -> usize {
        self.ports.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ports.is_empty()
    }

    /// The number of `port`, if it was added.
    pub fn id(&self, port: &PortRef) -> Option<PortId> {
        self.ids.get(port).copied()
    }

    /// The name of port `id`.
    ///
    /// # Panics
    /// If no port has that number.
    pub fn name(&self, id: PortId) -> &PortRef {
        &self.ports[id]
    }

    /// Links ports `a` and `b` (a port takes one link: a later one replaces it; a caller that
    /// must refuse a second link checks first, as [`Fabric::add_link`](crate::Fabric::add_link)
    /// does).
    ///
    /// # Panics
    /// If `a` or `b` was not given by [`PortGraph::port`].
    pub fn link(&mut self, a: PortId, b: PortId) {
        self.peer[a] = Some(b);
        self.peer[b] = Some(a);
    }

    /// What port `id` shows on `priority` (merged with what was observed there before, as
    /// [`Fabric::observe`](crate::Fabric::observe) does).
    ///
    /// # Panics
    /// If `id` (or a port it waits on) was not given by [`PortGraph::port`].
    pub fn observe(
        &mut self,
        id: PortId,
        priority: u8,
        state: PortState<'_>,
    ) -> Result<(), GraphError> {
        let Some(states) = self.states.get_mut(usize::from(priority)) else {
            return Err(GraphError::Priority(priority));
        };
        let s = &mut states[id];
        if !s.observed {
            s.observed = true;
            let observed = &mut self.observed[usize::from(priority)];
            let rank = &self.rank;
            let at = observed.partition_point(|p| rank[*p] < rank[id]);
            observed.insert(at, id);
        }
        s.paused_since = state.egress_paused_since.or(s.paused_since);
        s.xoff_since = state.ingress_xoff_since.or(s.xoff_since);
        s.backlog |= state.egress_backlog;
        if let Some(waits) = state.waits_on {
            s.waits_known = true;
            s.waits.clear();
            s.waits.extend_from_slice(waits);
        }
        Ok(())
    }

    /// Forgets every observation and keeps the ports, links and flows.
    pub fn clear_observations(&mut self) {
        for (states, observed) in self.states.iter_mut().zip(&mut self.observed) {
            for id in observed.drain(..) {
                let s = &mut states[id];
                s.observed = false;
                s.paused_since = None;
                s.xoff_since = None;
                s.backlog = false;
                s.waits_known = false;
                s.waits.clear();
            }
        }
    }

    /// The flows congestion trees sort into caught and victims, numbered in this order.
    pub fn set_flows(&mut self, flows: &[Flow]) {
        self.flows = flows.to_vec();
        self.flow_ports = self.resolve_flows();
    }

    pub(crate) fn flows(&self) -> &[Flow] {
        &self.flows
    }

    pub(crate) fn flow_ports(&self) -> &[FlowPorts] {
        &self.flow_ports
    }

    fn resolve_flows(&self) -> Vec<FlowPorts> {
        let ports = |flow: &Flow, side: fn(&super::Hop) -> Option<&String>| -> Vec<PortId> {
            flow.path
                .iter()
                .filter_map(|h| {
                    let port = side(h)?;
                    self.id(&PortRef::new(h.device.clone(), port.clone()))
                })
                .collect()
        };
        self.flows
            .iter()
            .map(|f| FlowPorts {
                priority: f.priority,
                leaves: ports(f, |h| h.out_port.as_ref()),
                enters: ports(f, |h| h.in_port.as_ref()),
            })
            .collect()
    }

    pub(crate) fn peer(&self, id: PortId) -> Option<PortId> {
        self.peer[id]
    }

    /// Port `id`'s place in the order of names.
    pub(crate) fn rank(&self, id: PortId) -> usize {
        self.rank[id]
    }

    /// `(port, state)` of every port observed on `priority`, in the order of their names.
    pub(crate) fn observed_on(&self, priority: u8) -> impl Iterator<Item = (PortId, &State)> {
        let states = &self.states[usize::from(priority)];
        self.observed[usize::from(priority)].iter().map(move |p| (*p, &states[*p]))
    }

    pub(crate) fn state(&self, id: PortId, priority: u8) -> Option<&State> {
        Some(&self.states[usize::from(priority)][id]).filter(|s| s.observed)
    }

    pub(crate) fn paused_since(&self, id: PortId, priority: u8) -> Option<Nanos> {
        self.state(id, priority)?.paused_since
    }

    pub(crate) fn xoff_since(&self, id: PortId, priority: u8) -> Option<Nanos> {
        self.state(id, priority)?.xoff_since
    }

    /// Calls `each` with every egress the ingress `id` waits on, on `priority`: as observed
    /// (itself included: a router in a routing loop sends frames back out of the port they came
    /// in by), or, unknown, every other observed egress of its device that is paused or has a
    /// backlog (a bridge never sends a frame back out of its reception port), in name order.
    pub(crate) fn each_wait(&self, id: PortId, priority: u8, mut each: impl FnMut(PortId)) {
        match self.state(id, priority).filter(|s| s.waits_known) {
            Some(s) => s.waits.iter().for_each(|e| each(*e)),
            None => self
                .observed_on(priority)
                .filter(|(e, s)| self.waited_on_when_unknown(id, *e, s))
                .for_each(|(e, _)| each(e)),
        }
    }

    /// Whether an ingress whose waits are unknown waits on `egress`.
    pub(crate) fn waited_on_when_unknown(
        &self,
        ingress: PortId,
        egress: PortId,
        s: &State,
    ) -> bool {
        self.device[egress] == self.device[ingress]
            && egress != ingress
            && (s.paused_since.is_some() || s.backlog)
    }
}
