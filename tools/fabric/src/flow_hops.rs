//! The flows of a file laid on the topology a refresh found: each path becomes the wait-for
//! graph's hops (device, port in, port out). Device A's port toward device B is the LLDP link
//! between them; a host's port is the one the file names, which must not lead to a device.

use fabric_graph::{Fabric, Flow, Hop, PortRef};

use crate::flows::{device_port, FlowSpec, Flows};

/// The flows that lie on this topology, and for each that does not, why (a link not found
/// yet, a path through two parallel links, a host port that leads to a device).
pub fn lay(flows: &Flows, fabric: &Fabric) -> (Vec<Flow>, Vec<String>) {
    let mut laid = Vec::new();
    let mut errors = Vec::new();
    for f in &flows.flows {
        match hops(f, flows, fabric) {
            Ok(path) => laid.push(Flow { name: f.name.clone(), priority: f.priority, path }),
            Err(e) => errors.push(format!("flow {}: {e}", f.name)),
        }
    }
    (laid, errors)
}

/// The host port an end of a path names, if it names a host.
fn host_port(element: &str, flows: &Flows) -> Option<PortRef> {
    device_port(element).or_else(|| flows.hosts.get(element).cloned())
}

fn hops(f: &FlowSpec, flows: &Flows, fabric: &Fabric) -> Result<Vec<Hop>, String> {
    let is_device = |e: &str| fabric.devices().any(|d| d == e);
    let mut elements: &[String] = &f.path;
    // The ends that are hosts: their ports become the first device's way in and the last
    // one's way out.
    let mut first_in = None;
    let mut last_out = None;
    if let Some(e) = elements.first().filter(|e| !is_device(e)) {
        first_in = Some((e.clone(), host_port(e, flows).ok_or(format!("{e} is no device"))?));
        elements = &elements[1..];
    }
    if let Some(e) = elements.last().filter(|e| !is_device(e)) {
        last_out = Some((e.clone(), host_port(e, flows).ok_or(format!("{e} is no device"))?));
        elements = &elements[..elements.len() - 1];
    }
    if let Some(e) = elements.iter().find(|e| !is_device(e)) {
        return Err(format!("{e} is no device read"));
    }
    if elements.is_empty() {
        return Err("its path names no device read".into());
    }
    let mut path: Vec<Hop> =
        elements.iter().map(|d| Hop { device: d.clone(), in_port: None, out_port: None }).collect();
    if let Some((host, port)) = first_in {
        path[0].in_port = Some(host_side(fabric, &host, port, &path[0].device)?);
    }
    if let Some((host, port)) = last_out {
        let last = path.len() - 1;
        path[last].out_port = Some(host_side(fabric, &host, port, &path[last].device)?);
    }
    for i in 1..path.len() {
        let (a, b) = (&path[i - 1].device, &path[i].device);
        let (out, into) = link_between(fabric, a, b)?;
        path[i - 1].out_port = Some(out);
        path[i].in_port = Some(into);
    }
    Ok(path)
}

/// The port of `device` that host `host` is behind: it must be that device's, and no link to
/// a device may end there.
fn host_side(fabric: &Fabric, host: &str, port: PortRef, device: &str) -> Result<String, String> {
    if port.device != device {
        return Err(format!("host {host} is behind {port}, but the path joins it to {device}"));
    }
    if let Some(peer) = fabric.peer(&port) {
        return Err(format!(
            "host {host}'s port {port} leads to device {}, not to a host",
            peer.device
        ));
    }
    Ok(port.port)
}

/// A's port and B's port of the one link between A and B.
fn link_between(fabric: &Fabric, a: &str, b: &str) -> Result<(String, String), String> {
    let found: Vec<(String, String)> = fabric
        .links()
        .iter()
        .filter_map(|l| match (l.a.device.as_str(), l.b.device.as_str()) {
            (x, y) if x == a && y == b => Some((l.a.port.clone(), l.b.port.clone())),
            (x, y) if x == b && y == a => Some((l.b.port.clone(), l.a.port.clone())),
            _ => None,
        })
        .collect();
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(format!("no link between {a} and {b} seen (yet) in LLDP")),
        many => Err(format!(
            "{} links join {a} and {b}: its path cannot say which it takes",
            many.len()
        )),
    }
}
