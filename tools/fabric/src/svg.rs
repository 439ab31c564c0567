//! A view as SVG: the devices on a circle, each link a line coloured by its pause state (grey:
//! nothing paused; orange: an egress of the link paused; red and thick: part of a deadlock
//! cycle), its ports named at its ends, and the state in words underneath.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use fabric_graph::PortRef;

use crate::view::View;

const SIZE: f64 = 640.0;
const RADIUS: f64 = 230.0;

/// Text safe inside an SVG element or attribute.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The whole picture.
pub fn render(v: &View) -> String {
    let names: Vec<&str> = v.devices.iter().map(|d| d.name.as_str()).collect();
    let at = |name: &str| -> (f64, f64) {
        let i = names.iter().position(|n| *n == name).unwrap_or(0) as f64;
        let angle = std::f64::consts::TAU * i / names.len().max(1) as f64;
        (SIZE / 2.0 + RADIUS * angle.sin(), SIZE / 2.0 - RADIUS * angle.cos())
    };
    let paused: BTreeSet<&PortRef> =
        v.held.iter().filter(|h| h.egress_paused_since.is_some()).map(|h| &h.port).collect();
    let in_cycle: BTreeSet<&PortRef> = v
        .deadlocks
        .iter()
        .flat_map(|d| d.cycle.iter().flat_map(|h| [&h.egress, &h.ingress]))
        .collect();
    let lines = 4 + v.deadlocks.len() + v.congestion_trees.len();
    let height = SIZE + 18.0 * lines as f64;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{SIZE}\" height=\"{height}\" \
         font-family=\"sans-serif\" font-size=\"12\">"
    );
    let _ = writeln!(o, "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>");
    for l in &v.links {
        let ((x1, y1), (x2, y2)) = (at(&l.a.device), at(&l.b.device));
        let cycle = in_cycle.contains(&l.a) && in_cycle.contains(&l.b);
        let held = paused.contains(&l.a) || paused.contains(&l.b);
        let (colour, width, class) = match (cycle, held) {
            (true, _) => ("#d00000", 6, "link deadlock"),
            (false, true) => ("#f08000", 4, "link paused"),
            _ => ("#909090", 2, "link"),
        };
        let _ = writeln!(
            o,
            "<line class=\"{class}\" x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" \
             stroke=\"{colour}\" stroke-width=\"{width}\"><title>{} -- {}</title></line>",
            esc(&l.a.to_string()),
            esc(&l.b.to_string())
        );
        for (port, (x, y), (ox, oy)) in [(&l.a, (x1, y1), (x2, y2)), (&l.b, (x2, y2), (x1, y1))] {
            let (lx, ly) = (x + (ox - x) * 0.2, y + (oy - y) * 0.2);
            let weight = if paused.contains(port) { "bold" } else { "normal" };
            let _ = writeln!(
                o,
                "<text x=\"{lx:.1}\" y=\"{ly:.1}\" font-weight=\"{weight}\" \
                 text-anchor=\"middle\">{}</text>",
                esc(&port.port)
            );
        }
    }
    for d in &v.devices {
        let (x, y) = at(&d.name);
        let fill = if d.error.is_some() { "#e0e0e0" } else { "#cfe2ff" };
        let stroke = if d.error.is_some() { "stroke-dasharray=\"4 3\" " } else { "" };
        let _ = writeln!(
            o,
            "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"28\" fill=\"{fill}\" stroke=\"black\" \
             {stroke}/><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            y + 4.0,
            esc(&d.name)
        );
    }
    let mut y = SIZE;
    let mut say = |o: &mut String, text: String, colour: &str| {
        let _ = writeln!(o, "<text x=\"10\" y=\"{y:.1}\" fill=\"{colour}\">{}</text>", esc(&text));
        y += 18.0;
    };
    let answered = v.answered().count();
    say(
        &mut o,
        format!(
            "refresh {}: {answered} of {} devices answered, {} links, {} ports paused or in XOFF",
            v.refresh,
            v.devices.len(),
            v.links.len(),
            v.held.len()
        ),
        "black",
    );
    say(&mut o, "grey: no pause; orange: an egress paused; red: deadlock cycle".into(), "black");
    for d in &v.deadlocks {
        let hops: Vec<String> = d.cycle.iter().map(|h| h.egress.to_string()).collect();
        let text = format!("DEADLOCK priority {}: {}", d.priority, hops.join(" -> "));
        say(&mut o, text, "#d00000");
    }
    for t in &v.congestion_trees {
        let text = format!(
            "congestion tree priority {}: root {}, {} paused",
            t.priority,
            t.root,
            t.paused.len()
        );
        say(&mut o, text, "#f08000");
    }
    o.push_str("</svg>\n");
    o
}
