//! A view as text for a terminal: devices, links, what is held, deadlocks, congestion trees.

use std::fmt::Write as _;

use fabric_graph::Nanos;

use crate::view::View;

/// Seconds on the collector's clock, to the millisecond.
fn secs(t: Nanos) -> String {
    format!("{:.3} s", t as f64 / 1e9)
}

/// The whole view, one section after another.
pub fn render(v: &View) -> String {
    let mut o = String::new();
    let answered = v.answered().count();
    let _ = writeln!(
        o,
        "refresh {} at {}: {} of {} devices answered, {} links",
        v.refresh,
        secs(v.at),
        answered,
        v.devices.len(),
        v.links.len()
    );
    let _ = writeln!(o, "devices:");
    for d in &v.devices {
        match (&d.error, &d.chassis_id) {
            (Some(e), _) => _ = writeln!(o, "  {}  NOT ANSWERING: {e}", d.name),
            (None, Some(c)) => _ = writeln!(o, "  {}  chassis {c}", d.name),
            (None, None) => _ = writeln!(o, "  {}  (no chassis ID: no LLDP?)", d.name),
        }
    }
    let _ = writeln!(o, "links:");
    for l in &v.links {
        let _ = writeln!(o, "  {} -- {}", l.a, l.b);
    }
    for e in &v.link_errors {
        let _ = writeln!(o, "  not a link: {e}");
    }
    for n in &v.outside {
        let _ = writeln!(
            o,
            "  {} -- {} port {} (not a listed device)",
            n.port, n.chassis_id, n.port_id
        );
    }
    if v.held.is_empty() {
        let _ = writeln!(o, "paused or XOFF: none");
    } else {
        let _ = writeln!(o, "paused or XOFF:");
        for h in &v.held {
            let mut what = Vec::new();
            if let Some(t) = h.egress_paused_since {
                what.push(format!("egress paused since {}", secs(t)));
            }
            if let Some(t) = h.ingress_xoff_since {
                what.push(format!("ingress XOFF since {}", secs(t)));
            }
            if let Some(b) = h.backlog {
                what.push(format!("backlog {b} frames"));
            }
            let _ = writeln!(o, "  {} priority {}: {}", h.port, h.priority, what.join(", "));
        }
    }
    if v.deadlocks.is_empty() {
        let _ = writeln!(o, "deadlocks: none (held {} or more)", secs(v.threshold));
    } else {
        let _ = writeln!(o, "DEADLOCKS:");
        for d in &v.deadlocks {
            let hops: Vec<String> =
                d.cycle.iter().map(|h| format!("{} (paused by {})", h.egress, h.ingress)).collect();
            let _ = writeln!(
                o,
                "  priority {}, closed at {}: {} -> back to {}",
                d.priority,
                secs(d.closed_at),
                hops.join(" -> "),
                d.cycle.first().map(|h| h.egress.to_string()).unwrap_or_default()
            );
        }
    }
    if v.congestion_trees.is_empty() {
        let _ = writeln!(o, "congestion trees: none");
    } else {
        let _ = writeln!(o, "congestion trees:");
        for t in &v.congestion_trees {
            let list = |ports: &[fabric_graph::PortRef]| {
                ports.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
            };
            let _ = writeln!(
                o,
                "  priority {}, root {}: pauses [{}], XOFF at [{}]",
                t.priority,
                t.root,
                list(&t.paused),
                list(&t.xoff)
            );
            if !v.flows.is_empty() {
                let _ = writeln!(
                    o,
                    "    caught [{}], victims [{}]",
                    t.caught.join(", "),
                    t.victims.join(", ")
                );
            }
        }
    }
    for e in &v.flow_errors {
        let _ = writeln!(o, "  not in the trees: {e}");
    }
    o
}
