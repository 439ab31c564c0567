//! `show headroom [PORT]`: the method and the allowance per port; for one port the itemised
//! calculation, the measurement and its history.

use serde_json::Value;

use super::table::{pairs, Align, Table};
use super::units::{bits, grouped, kib_of_bits, octets, quanta_at, quanta_time};
use super::{interfaces, name_of, or_dash};
use crate::data::{at, list, number, text};

const PFC: &str = "bridge-port/pfc";

fn opt_bits(v: &Value, path: &str) -> String {
    number(v, path).map(bits).unwrap_or_else(|| "-".into())
}

pub fn render(v: &Value, port: Option<&str>) -> String {
    let ports = interfaces(v);
    if let (Some(_), [one]) = (port, ports) {
        return detail(one);
    }
    let mut t = Table::new(&[
        ("PORT", Align::Left),
        ("METHOD", Align::Left),
        ("IN FORCE", Align::Right),
        ("CALCULATED", Align::Right),
        ("MEASURED RTT", Align::Right),
        ("SOURCE", Align::Left),
    ]);
    for i in ports {
        let Some(pfc) = at(i, PFC) else { continue };
        t.row(vec![
            name_of(i),
            or_dash(text(pfc, "headroom/method")),
            number(pfc, "allowance-in-force").map(kib_of_bits).unwrap_or_else(|| "-".into()),
            number(pfc, "calculated-allowance").map(kib_of_bits).unwrap_or_else(|| "-".into()),
            number(pfc, "headroom/measurement/round-trip")
                .map(|q| quanta_time(q, number(i, "speed")))
                .unwrap_or_else(|| "-".into()),
            or_dash(text(pfc, "allowance-source")),
        ]);
    }
    t.render()
}

fn lines_table(lines: &[Value]) -> String {
    let mut t =
        Table::new(&[("ITEMS", Align::Left), ("BITS", Align::Right), ("WHAT", Align::Left)]);
    for l in lines {
        let first = text(l, "first-item").unwrap_or_default();
        let last = text(l, "last-item").unwrap_or_default();
        let items =
            if first == last || last.is_empty() { first } else { format!("{first}-{last}") };
        t.row(vec![
            items,
            number(l, "bits").map(grouped).unwrap_or_default(),
            text(l, "description").unwrap_or_default(),
        ]);
    }
    t.render()
}

fn detail(i: &Value) -> String {
    let empty = Value::Null;
    let pfc = at(i, PFC).unwrap_or(&empty);
    let h = at(pfc, "headroom").unwrap_or(&empty);
    let mut out = format!("{}\n", name_of(i));
    out += &pairs(&[
        ("method", or_dash(text(h, "method"))),
        ("method in force", or_dash(text(h, "method-in-force"))),
        ("allowance in force", opt_bits(pfc, "allowance-in-force")),
        ("source", or_dash(text(pfc, "allowance-source"))),
        ("clamp", or_dash(text(pfc, "allowance-clamp"))),
        ("link delay allowance", opt_bits(pfc, "pfc-link-delay-allowance")),
        ("headroom allowance", opt_bits(pfc, "pfc-headroom-allowance")),
        (
            "minimum / maximum",
            format!("{} / {}", opt_bits(h, "minimum-allowance"), opt_bits(h, "maximum-allowance")),
        ),
        (
            "receive buffer",
            number(pfc, "receive-buffer-size").map(octets).unwrap_or_else(|| "-".into()),
        ),
    ]);
    if let Some(calc) = at(h, "calculation") {
        out += &format!("\ncalculation: {}\n", opt_bits(calc, "headroom"));
        if let Some(e) = text(calc, "error") {
            out += &format!("  error: {e}\n");
        }
        out += &lines_table(list(calc, "line"));
    }
    if let Some(m) = at(h, "measurement") {
        out += "\nmeasurement:\n";
        let speed = number(i, "speed");
        let q = |p| number(m, p).map(|x| quanta_at(x, speed)).unwrap_or_else(|| "-".into());
        out += &pairs(&[
            ("operational", or_dash(text(m, "hm-oper-up"))),
            ("path", or_dash(text(m, "path"))),
            ("round trip", q("round-trip")),
            (
                "min / max / last",
                format!(
                    "{} / {} / {}",
                    q("round-trip-min"),
                    q("round-trip-max"),
                    q("round-trip-last")
                ),
            ),
            ("results", or_dash(text(m, "result-count"))),
            ("headroom", opt_bits(m, "headroom")),
        ]);
        let history = list(m, "history");
        if !history.is_empty() {
            // What became of each result (used, raised to the minimum, discarded and why) where
            // the server says; else only whether it was clamped.
            let outcome = history.iter().any(|e| text(e, "outcome").is_some());
            let mut t = Table::new(&[
                ("SEQ", Align::Right),
                ("TIME", Align::Left),
                ("ROUND TRIP", Align::Right),
                (if outcome { "OUTCOME" } else { "CLAMP" }, Align::Left),
            ]);
            for e in history {
                t.row(vec![
                    or_dash(text(e, "sequence")),
                    or_dash(text(e, "time")),
                    number(e, "round-trip")
                        .map(|x| quanta_at(x, speed))
                        .unwrap_or_else(|| "-".into()),
                    or_dash(text(e, if outcome { "outcome" } else { "clamp" })),
                ]);
            }
            out += "\nhistory:\n";
            out += &t.render();
        }
    }
    out
}
