//! A network file checked and resolved: nodes, ports with their peers and headroom, flows with
//! the ports they cross. Every refusal names what to change.

use std::collections::HashMap;

use dataplane::headroom::{calculate, BufferConfig, BufferPlan};
use dataplane::sim::{Medium, StationDelays, TwoStationConfig};
use dataplane::time::{LinkSpeed, Picos};
use dataplane::watchdog::WatchdogSetup;

use super::spec::NetworkFile;
use super::NetworkError;
use crate::storms;

/// A bridge or a host.
#[derive(Debug, Clone)]
pub(super) struct Node {
    pub name: String,
    pub host: bool,
    /// Priorities with PFC enabled (bit n = priority n); a host honours every priority's pause.
    pub pfc: u8,
    pub max_transit: Option<Picos>,
    pub watchdog: Option<WatchdogSetup>,
    pub ports: Vec<usize>,
}

/// One port; the link's far end is `peer`.
#[derive(Debug, Clone)]
pub(super) struct PortInfo {
    pub node: usize,
    pub name: String,
    pub peer: Option<usize>,
    pub speed: LinkSpeed,
    /// Cable plus both interfaces, one way.
    pub one_way: Picos,
    pub delays: StationDelays,
    /// The allowance in force on this port's link (36.8.1, calculated as pfcd does).
    pub headroom_bits: u64,
    /// The receive buffer per lossless priority: allocation, XOFF, XON (octets); bridges only.
    pub plan: Option<BufferPlan>,
}

/// A flow and the devices it crosses: (node, in port, out port).
#[derive(Debug, Clone)]
pub(super) struct FlowInfo {
    pub name: String,
    pub priority: u8,
    pub len: u32,
    pub interval: Picos,
    pub start: Picos,
    pub stop: Picos,
    pub hops: Vec<(usize, Option<usize>, Option<usize>)>,
}

#[derive(Debug, Clone)]
pub(super) struct Topology {
    pub nodes: Vec<Node>,
    pub ports: Vec<PortInfo>,
    pub flows: Vec<FlowInfo>,
}

fn transit(ms: Option<u64>) -> Result<Option<Picos>, NetworkError> {
    match ms {
        None => Ok(None),
        Some(v) if (1..=4_000).contains(&v) => Ok(Some(Picos::from_ms(v))),
        Some(v) => Err(NetworkError::Transit(v)),
    }
}

pub(super) fn build(file: &NetworkFile) -> Result<Topology, NetworkError> {
    let run = &file.run;
    if run.duration_us == 0 || run.sample_us == 0 || run.window_us == 0 {
        return Err(NetworkError::RunTimes);
    }
    let max_frame = file.flows.iter().map(|f| f.frame_len).max().unwrap_or(1_000).max(60);
    let mut nodes = Vec::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    let mut port_names: HashMap<(usize, String), usize> = HashMap::new();
    let mut ports: Vec<PortInfo> = Vec::new();
    let new_port = |node: usize, name: &str, ports: &mut Vec<PortInfo>| {
        ports.push(PortInfo {
            node,
            name: name.to_string(),
            peer: None,
            speed: LinkSpeed::G10,
            one_way: Picos::ZERO,
            delays: StationDelays::default(),
            headroom_bits: 0,
            plan: None,
        });
        ports.len() - 1
    };
    for b in &file.bridges {
        let id = nodes.len();
        if by_name.insert(b.name.clone(), id).is_some() || b.name.is_empty() {
            return Err(NetworkError::Name(b.name.clone()));
        }
        let mut pfc = 0u8;
        for &p in &b.pfc_priorities {
            if p > 7 {
                return Err(NetworkError::Priority(p));
            }
            pfc |= 1 << p;
        }
        let watchdog = b.watchdog.as_ref().map(storms::setup).transpose()?;
        let mut node = Node {
            name: b.name.clone(),
            host: false,
            pfc,
            max_transit: transit(b.max_transit_ms)?,
            watchdog,
            ports: Vec::new(),
        };
        for p in &b.ports {
            let port = new_port(id, p, &mut ports);
            if port_names.insert((id, p.clone()), port).is_some() || p.is_empty() {
                return Err(NetworkError::PortName { bridge: b.name.clone(), port: p.clone() });
            }
            node.ports.push(port);
        }
        nodes.push(node);
    }
    for h in &file.hosts {
        let id = nodes.len();
        if by_name.insert(h.name.clone(), id).is_some() || h.name.is_empty() {
            return Err(NetworkError::Name(h.name.clone()));
        }
        let port = new_port(id, "nic", &mut ports);
        nodes.push(Node {
            name: h.name.clone(),
            host: true,
            pfc: 0xff,
            max_transit: None,
            watchdog: None,
            ports: vec![port],
        });
    }
    let endpoint = |text: &str| -> Result<usize, NetworkError> {
        let (node, port) = match text.split_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (text, None),
        };
        let id = *by_name.get(node).ok_or_else(|| NetworkError::Endpoint(text.to_string()))?;
        match (port, nodes[id].host) {
            (None, true) => Ok(nodes[id].ports[0]),
            (Some(p), false) => port_names
                .get(&(id, p.to_string()))
                .copied()
                .ok_or_else(|| NetworkError::Endpoint(text.to_string())),
            _ => Err(NetworkError::Endpoint(text.to_string())),
        }
    };
    let mut links: HashMap<(usize, usize), Vec<usize>> = HashMap::new();
    for l in &file.links {
        let (a, b) = (endpoint(&l.a)?, endpoint(&l.b)?);
        let speed: LinkSpeed = l.speed.parse()?;
        for (this, other) in [(a, b), (b, a)] {
            if ports[this].peer.is_some() || this == other {
                return Err(NetworkError::LinkedTwice(if this == a { &l.a } else { &l.b }.clone()));
            }
            ports[this].peer = Some(other);
        }
        let mut stations = TwoStationConfig::annex_n(0, 0);
        stations.speed = speed;
        stations.link_metres = l.metres;
        stations.medium = Medium::Fibre;
        stations.delays = StationDelays::for_link(speed, Medium::Fibre);
        stations.frame_len = max_frame;
        stations.reverse_frame_len = Some(max_frame);
        if u32::try_from(l.metres).is_err() {
            return Err(NetworkError::TooLong(l.metres));
        }
        let headroom = calculate(&stations.headroom_inputs()?)?.bits;
        for port in [a, b] {
            let node = &nodes[ports[port].node];
            let p = &mut ports[port];
            p.speed = speed;
            p.one_way = stations.one_way();
            p.delays = stations.delays;
            p.headroom_bits = headroom;
            if !node.host {
                let allocation =
                    file.bridges.iter().find(|b| b.name == node.name).and_then(|b| b.buffer_octets);
                let config = BufferConfig {
                    max_frame_octets: u64::from(max_frame),
                    allocation_octets: allocation,
                    ..BufferConfig::default()
                };
                p.plan = Some(BufferPlan::new(headroom, &config)?);
            }
        }
        let key = (ports[a].node.min(ports[b].node), ports[a].node.max(ports[b].node));
        links.entry(key).or_default().push(a);
    }
    // The port of `from` whose link leads to `to`.
    let port_towards = |from: usize, to: usize| -> Result<usize, NetworkError> {
        let key = (from.min(to), from.max(to));
        let joined = links.get(&key).map(Vec::as_slice).unwrap_or_default();
        let (from_name, to_name) = (nodes[from].name.clone(), nodes[to].name.clone());
        match joined {
            [one] => {
                Ok(if ports[*one].node == from { *one } else { ports[*one].peer.unwrap_or(*one) })
            }
            [] => Err(NetworkError::NotLinked(from_name, to_name)),
            _ => Err(NetworkError::Ambiguous(from_name, to_name)),
        }
    };
    let mut flows = Vec::new();
    for f in &file.flows {
        if f.priority > 7 {
            return Err(NetworkError::Priority(f.priority));
        }
        let ids = f
            .path
            .iter()
            .map(|n| by_name.get(n).copied().ok_or_else(|| NetworkError::FlowNode(n.clone())))
            .collect::<Result<Vec<_>, _>>()?;
        let ends_are_hosts = ids.len() >= 3
            && nodes[ids[0]].host
            && nodes[ids[ids.len() - 1]].host
            && ids[1..ids.len() - 1].iter().all(|n| !nodes[*n].host);
        if !ends_are_hosts {
            return Err(NetworkError::FlowPath(f.name.clone()));
        }
        let mut hops = Vec::new();
        for (k, &node) in ids.iter().enumerate() {
            let in_port = if k == 0 { None } else { Some(port_towards(node, ids[k - 1])?) };
            let out_port =
                if k + 1 == ids.len() { None } else { Some(port_towards(node, ids[k + 1])?) };
            hops.push((node, in_port, out_port));
        }
        let first = hops[0].2.map(|p| ports[p].speed).unwrap_or(LinkSpeed::G10);
        if f.rate_mbps == 0 || f.rate_mbps > first.gbps() * 1_000 {
            return Err(NetworkError::Rate { flow: f.name.clone(), max: first.gbps() * 1_000 });
        }
        let stop = f.stop_us.unwrap_or(run.duration_us);
        if stop <= f.start_us {
            return Err(NetworkError::FlowTimes(f.name.clone()));
        }
        let len = f.frame_len.max(60);
        // The frame's time on the wire at its rate (preamble and gap included, as the link
        // counts them).
        let wire_bits = first.bits_in(first.frame_time(u64::from(len)));
        let interval = Picos(wire_bits * 1_000_000 / f.rate_mbps);
        flows.push(FlowInfo {
            name: f.name.clone(),
            priority: f.priority,
            len,
            interval,
            start: Picos::from_us(f.start_us),
            stop: Picos::from_us(stop),
            hops,
        });
    }
    Ok(Topology { nodes, ports, flows })
}
