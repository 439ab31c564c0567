//! `show pipeline`: the pause mode and external memory, then the Pause FSM state and FIFO
//! depths per port and priority (priorities idle in every respect are left out), then per real
//! port its traffic classes where they are not the identity and how fast the peer's pauses
//! took hold (the software bridge measures it; the lab has none).

use serde_json::Value;

use super::table::{pairs, Align, Table};
use super::units::grouped;
use super::{interfaces, name_of, or_dash};
use crate::data::{at, flag, list, number, text};

pub fn render(v: &Value) -> String {
    let empty = Value::Null;
    let p = at(v, "pipeline").unwrap_or(&empty);
    let n = |v: &Value, path| number(v, path).map(grouped).unwrap_or_else(|| "-".into());
    let mut out = String::from("pipeline\n");
    out += &pairs(&[
        ("pause mode", or_dash(text(p, "mode"))),
        (
            "external memory",
            format!(
                "{} of {} FDs used{}",
                n(p, "external-memory/used"),
                n(p, "external-memory/capacity"),
                // Shown when the server keeps it (the model makes it optional).
                number(p, "external-memory/peak-used")
                    .map(|x| format!(", peak {}", grouped(x)))
                    .unwrap_or_default()
            ),
        ),
        ("departed frames", n(p, "statistics/departed")),
        ("pause indications", n(p, "statistics/pause-indications")),
    ]);
    let mut t = Table::new(&[
        ("PORT", Align::Left),
        ("PRIO", Align::Right),
        ("FSM STATE", Align::Left),
        ("PAUSE", Align::Left),
        ("EXT FIFO", Align::Right),
        ("ON-CHIP", Align::Right),
        ("IN FLIGHT", Align::Right),
        ("DEPARTED", Align::Right),
    ]);
    for i in interfaces(v) {
        for q in list(i, "bridge-port/pipeline/priority") {
            let busy = flag(q, "pause") == Some(true)
                || ["external-fifo-depth", "onchip-fifo-depth", "inflight", "departed"]
                    .iter()
                    .any(|f| number(q, f).is_some_and(|x| x > 0.0));
            if !busy {
                continue;
            }
            t.row(vec![
                name_of(i),
                or_dash(text(q, "priority")),
                or_dash(text(q, "fsm-state")),
                if flag(q, "pause") == Some(true) { "yes" } else { "no" }.into(),
                n(q, "external-fifo-depth"),
                n(q, "onchip-fifo-depth"),
                n(q, "inflight"),
                n(q, "departed"),
            ]);
        }
    }
    out + "\n" + &t.render() + &per_port(v)
}

/// Each port's traffic classes (when not priority n in class n) and pause reaction.
fn per_port(v: &Value) -> String {
    let mut out = String::new();
    for i in interfaces(v) {
        let classes: Vec<String> = list(i, "bridge-port/pipeline/priority")
            .iter()
            .map(|q| or_dash(text(q, "traffic-class")))
            .collect();
        let identity = classes.iter().enumerate().all(|(n, c)| *c == n.to_string() || c == "-");
        if !identity {
            out += &format!(
                "{}: traffic class of priorities 0-7: {}\n",
                name_of(i),
                classes.join(" ")
            );
        }
        let Some(r) = at(i, "bridge-port/pipeline/pause-reaction") else { continue };
        let ns =
            |f: &str| number(r, f).map_or_else(|| "-".into(), |x| format!("{} ns", grouped(x)));
        let count = |f: &str| number(r, f).map_or_else(|| "-".into(), grouped);
        out += &format!(
            "{}: pause reaction over {} pauses, pauses with a frame of the priority begun\n  \
             after the PFC indication: {} (36.3.3; max {})\n  \
             after the frame's arrival: {} (p50 {}, p99 {}, max {})\n",
            name_of(i),
            count("pauses"),
            count("late-after-indication"),
            ns("indication-max"),
            count("late-after-arrival"),
            ns("arrival-p50"),
            ns("arrival-p99"),
            ns("arrival-max"),
        );
    }
    if out.is_empty() {
        out
    } else {
        format!("\n{out}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_port_shows_its_classes_and_pause_reaction_the_lab_neither() {
        let priority =
            |n: u8, class: u8| serde_json::json!({"priority": n, "traffic-class": class});
        let real = serde_json::json!({"interfaces": {"interface": [{
            "name": "p2",
            "bridge-port": {"pfcd-pipeline:pipeline": {
                "priority": (0..8u8).map(|n| priority(n, if n == 4 { 3 } else { n })).collect::<Vec<_>>(),
                "pause-reaction": {"pauses": "329", "late-after-indication": "0",
                    "indication-max": "0", "late-after-arrival": "182",
                    "arrival-p50": "170", "arrival-p99": "1193", "arrival-max": "13541"}
            }}
        }]}});
        let text = per_port(&real);
        assert!(text.contains("p2: traffic class of priorities 0-7: 0 1 2 3 3 5 6 7"), "{text}");
        assert!(text.contains("over 329 pauses"), "{text}");
        assert!(text.contains("after the PFC indication: 0 (36.3.3"), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= 80), "fits 80 columns: {text}");
        assert!(text.contains(&format!("p99 {} ns", grouped(1193.0))), "{text}");
        let lab = serde_json::json!({"interfaces": {"interface": [{
            "name": "lab1",
            "bridge-port": {"pfcd-pipeline:pipeline": {
                "priority": (0..8u8).map(|n| priority(n, n)).collect::<Vec<_>>()
            }}
        }]}});
        assert_eq!(per_port(&lab), "");
    }
}
