//! `pfcsim network --svg`: the topology with each direction of each link coloured by the share
//! of the run its egress was held paused (the deadlock's cycle drawn over it), and each flow's
//! throughput over time. Drawn by hand, as `pfcsim scenario --plot` is.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::results::NetworkResults;
use super::spec::NetworkFile;

const WIDTH: f64 = 960.0;
const MARGIN: f64 = 60.0;
const TOPOLOGY: f64 = 420.0;
const FLOWS: f64 = 240.0;
const LEGEND_ROW: f64 = 16.0;

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The device of a `device:port` name.
fn device(port: &str) -> &str {
    port.split(':').next().unwrap_or(port)
}

/// Grey when never paused, through orange to red when paused the whole run.
fn colour(share: f64) -> String {
    if share <= 0.0 {
        return "#bbbbbb".into();
    }
    let s = share.clamp(0.0, 1.0);
    let green = (200.0 * (1.0 - s)) as u8;
    format!("rgb(230,{green},0)")
}

/// Rows: hosts at the bottom, the bridges they hang off above them, every other bridge (a
/// spine) at the top; a network of hosts and three or more edge bridges only (a ring) is drawn
/// as a circle.
fn layout(file: &NetworkFile) -> BTreeMap<String, (f64, f64)> {
    let hosts: Vec<&str> = file.hosts.iter().map(|h| h.name.as_str()).collect();
    let edge = |bridge: &str| {
        file.links.iter().any(|l| {
            let (a, b) = (device(&l.a), device(&l.b));
            (a == bridge && hosts.contains(&b)) || (b == bridge && hosts.contains(&a))
        })
    };
    let (edges, cores): (Vec<&str>, Vec<&str>) =
        file.bridges.iter().map(|b| b.name.as_str()).partition(|b| edge(b));
    if cores.is_empty() && edges.len() > 2 {
        return ring(file, &edges, &hosts);
    }
    let rows: Vec<Vec<&str>> =
        [cores, edges, hosts].into_iter().filter(|row| !row.is_empty()).collect();
    let gap = TOPOLOGY / (rows.len() as f64 + 1.0);
    let mut at = BTreeMap::new();
    for (r, row) in rows.iter().enumerate() {
        let step = (WIDTH - 2.0 * MARGIN) / row.len() as f64;
        for (i, name) in row.iter().enumerate() {
            let x = MARGIN + step * (i as f64 + 0.5);
            at.insert((*name).to_string(), (x, 40.0 + gap * (r as f64 + 1.0)));
        }
    }
    at
}

/// Bridges on a circle (a ring such as Figure 36-7's), each host outside the bridge it hangs
/// off.
fn ring(file: &NetworkFile, bridges: &[&str], hosts: &[&str]) -> BTreeMap<String, (f64, f64)> {
    let (cx, cy) = (WIDTH / 2.0, 40.0 + TOPOLOGY / 2.0);
    let point = |angle: f64, radius: f64| (cx + radius * angle.cos(), cy + radius * angle.sin());
    let angle = |i: usize| {
        -std::f64::consts::FRAC_PI_2 + std::f64::consts::TAU * i as f64 / bridges.len() as f64
    };
    let mut at = BTreeMap::new();
    for (i, b) in bridges.iter().enumerate() {
        at.insert((*b).to_string(), point(angle(i), TOPOLOGY * 0.25));
    }
    let mut next_host = 0usize;
    for h in hosts {
        let bridge = file.links.iter().find_map(|l| {
            let (a, b) = (device(&l.a), device(&l.b));
            if a == *h {
                Some(b)
            } else if b == *h {
                Some(a)
            } else {
                None
            }
        });
        let i = bridge.and_then(|b| bridges.iter().position(|x| *x == b)).unwrap_or_else(|| {
            next_host += 1;
            next_host - 1
        });
        at.insert((*h).to_string(), point(angle(i), TOPOLOGY * 0.45));
    }
    at
}

/// The SVG of a run of `file`.
pub fn network_svg(file: &NetworkFile, r: &NetworkResults) -> String {
    let at = layout(file);
    let duration = r.duration_us.max(1) as f64;
    // Each direction's worst priority.
    let mut paused: BTreeMap<(String, String), f64> = BTreeMap::new();
    for l in &r.links {
        let share = paused.entry((l.egress.clone(), l.peer.clone())).or_default();
        *share = share.max(l.paused_us / duration);
    }
    let in_cycle: Vec<(String, String)> = r
        .deadlocks
        .iter()
        .flat_map(|d| d.cycle.iter())
        .map(|h| {
            (
                format!("{}:{}", h.egress.device, h.egress.port),
                format!("{}:{}", h.ingress.device, h.ingress.port),
            )
        })
        .collect();
    let legend_rows = r.flows.len() as f64;
    let height = 40.0 + TOPOLOGY + 40.0 + FLOWS + 40.0 + legend_rows * LEGEND_ROW + 20.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let title = format!(
        "{} — links by time paused (grey never, red always){}",
        r.name,
        if r.deadlocks.is_empty() { "" } else { "; deadlock cycle dashed" }
    );
    let _ = writeln!(s, r#"<text x="{MARGIN}" y="24" font-size="14">{}</text>"#, escape(&title));
    for ((egress, peer), share) in &paused {
        let (Some(&(x1, y1)), Some(&(x2, y2))) = (at.get(device(egress)), at.get(device(peer)))
        else {
            continue;
        };
        // Each direction is the half of the line at its egress, a little to one side, so that
        // both directions of a link show.
        let (mx, my) = ((x1 + x2) / 2.0, (y1 + y2) / 2.0);
        let (dx, dy) = (y2 - y1, x1 - x2);
        let norm = (dx * dx + dy * dy).sqrt().max(1.0);
        let (ox, oy) = (3.0 * dx / norm, 3.0 * dy / norm);
        let _ = writeln!(
            s,
            r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{}" stroke-width="5"><title>{} → {}: paused {:.0} % of the run</title></line>"#,
            x1 + ox,
            y1 + oy,
            mx + ox,
            my + oy,
            colour(*share),
            escape(egress),
            escape(peer),
            share * 100.0
        );
        if in_cycle.contains(&(egress.clone(), peer.clone())) {
            let _ = writeln!(
                s,
                r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="black" stroke-width="2" stroke-dasharray="6 4"/>"#,
                x1 + ox,
                y1 + oy,
                mx + ox,
                my + oy
            );
        }
    }
    for (name, (x, y)) in &at {
        let host = file.hosts.iter().any(|h| &h.name == name);
        let shape = if host {
            format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="9" fill="white" stroke="black"/>"#)
        } else {
            format!(
                r#"<rect x="{:.1}" y="{:.1}" width="28" height="18" fill="white" stroke="black"/>"#,
                x - 14.0,
                y - 9.0
            )
        };
        let _ = writeln!(s, "{shape}");
        let _ = writeln!(
            s,
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle" font-size="10">{}</text>"#,
            y + 24.0,
            escape(name)
        );
    }
    flows_panel(&mut s, r, 40.0 + TOPOLOGY + 40.0);
    s.push_str("</svg>\n");
    s
}

/// Each flow's throughput per window, one polyline each, and the legend under it.
fn flows_panel(s: &mut String, r: &NetworkResults, top: f64) {
    const PALETTE: [&str; 8] =
        ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
    let plot_w = WIDTH - 2.0 * MARGIN;
    let most = r.flows.iter().flat_map(|f| f.windows_gbps.iter().copied()).fold(0.0, f64::max);
    let most = if most > 0.0 { most } else { 1.0 };
    let windows = r.flows.iter().map(|f| f.windows_gbps.len()).max().unwrap_or(0).max(1) as f64;
    let _ = writeln!(
        s,
        r#"<rect x="{MARGIN}" y="{top}" width="{plot_w}" height="{FLOWS}" fill="none" stroke="black"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="{MARGIN}" y="{:.1}">throughput per {} µs window, Gb/s (top: {most:.1}); time → {} µs</text>"#,
        top - 8.0,
        r.window_us,
        r.duration_us
    );
    for (i, f) in r.flows.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        let points: Vec<String> = f
            .windows_gbps
            .iter()
            .enumerate()
            .map(|(w, g)| {
                let x = MARGIN + (w as f64 + 0.5) / windows * plot_w;
                let y = top + FLOWS - g / most * FLOWS;
                format!("{x:.1},{y:.1}")
            })
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="1.5"/>"#,
            points.join(" ")
        );
        let y = top + FLOWS + 24.0 + i as f64 * LEGEND_ROW;
        let _ = writeln!(
            s,
            r#"<rect x="{MARGIN}" y="{:.1}" width="12" height="4" fill="{colour}"/><text x="{:.1}" y="{y:.1}">{} (priority {}): {:.2} Gb/s over the run, {} lost</text>"#,
            y - 6.0,
            MARGIN + 18.0,
            escape(&f.name),
            f.priority,
            f.throughput_gbps,
            f.lost_frames.buffer + f.lost_frames.watchdog + f.lost_frames.transit
        );
    }
}
