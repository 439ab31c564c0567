//! `show headroom [PORT]`: the method and the allowance per port; for one port the itemised
//! calculation, the measurement and its history.

use pfc_yang_names::{ieee802_dot1q_pfc as ieee, pfcd_pfc as pfcd};
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
            number(pfc, ieee::ALLOWANCE_IN_FORCE).map(kib_of_bits).unwrap_or_else(|| "-".into()),
            number(pfc, ieee::CALCULATED_ALLOWANCE).map(kib_of_bits).unwrap_or_else(|| "-".into()),
            number(pfc, "headroom/measurement/round-trip")
                .map(|q| quanta_time(q, number(i, "speed")))
                .unwrap_or_else(|| "-".into()),
            or_dash(text(pfc, ieee::ALLOWANCE_SOURCE)),
        ]);
    }
    t.render()
}

fn lines_table(lines: &[Value]) -> String {
    let mut t =
        Table::new(&[("ITEMS", Align::Left), ("BITS", Align::Right), ("WHAT", Align::Left)]);
    for l in lines {
        let first = text(l, pfcd::FIRST_ITEM).unwrap_or_default();
        let last = text(l, pfcd::LAST_ITEM).unwrap_or_default();
        let items =
            if first == last || last.is_empty() { first } else { format!("{first}-{last}") };
        t.row(vec![
            items,
            number(l, pfcd::BITS).map(grouped).unwrap_or_default(),
            text(l, pfcd::DESCRIPTION).unwrap_or_default(),
        ]);
    }
    t.render()
}

fn detail(i: &Value) -> String {
    let empty = Value::Null;
    let pfc = at(i, PFC).unwrap_or(&empty);
    let h = at(pfc, ieee::HEADROOM).unwrap_or(&empty);
    let mut out = format!("{}\n", name_of(i));
    out += &pairs(&[
        ("headroom method", or_dash(text(h, ieee::METHOD))),
        ("method in force", or_dash(text(h, ieee::METHOD_IN_FORCE))),
        ("allowance in force", opt_bits(pfc, ieee::ALLOWANCE_IN_FORCE)),
        ("source", or_dash(text(pfc, ieee::ALLOWANCE_SOURCE))),
        ("clamped", or_dash(text(pfc, ieee::ALLOWANCE_CLAMP))),
        ("link delay allowance", opt_bits(pfc, ieee::PFC_LINK_DELAY_ALLOWANCE)),
        ("headroom allowance", opt_bits(pfc, ieee::PFC_HEADROOM_ALLOWANCE)),
        (
            "minimum / maximum",
            format!(
                "{} / {}",
                opt_bits(h, ieee::MINIMUM_ALLOWANCE),
                opt_bits(h, ieee::MAXIMUM_ALLOWANCE)
            ),
        ),
        (
            "receive buffer",
            number(pfc, pfcd::RECEIVE_BUFFER_SIZE).map(octets).unwrap_or_else(|| "-".into()),
        ),
    ]);
    if let Some(calc) = at(h, ieee::CALCULATION) {
        out += &format!("\ncalculation: {}\n", opt_bits(calc, ieee::HEADROOM));
        if let Some(e) = text(calc, pfcd::ERROR) {
            out += &format!("  error: {e}\n");
        }
        out += &lines_table(list(calc, pfcd::LINE));
    }
    if let Some(m) = at(h, ieee::MEASUREMENT) {
        out += "\nmeasurement:\n";
        let speed = number(i, "speed");
        let q = |p| number(m, p).map(|x| quanta_at(x, speed)).unwrap_or_else(|| "-".into());
        out += &pairs(&[
            ("operational", or_dash(text(m, ieee::HM_OPER_UP))),
            (ieee::PATH, or_dash(text(m, ieee::PATH))),
            ("round trip", q(ieee::ROUND_TRIP)),
            (
                "min / max / last",
                format!(
                    "{} / {} / {}",
                    q(pfcd::ROUND_TRIP_MIN),
                    q(pfcd::ROUND_TRIP_MAX),
                    q(pfcd::ROUND_TRIP_LAST)
                ),
            ),
            ("results", or_dash(text(m, pfcd::RESULT_COUNT))),
            (ieee::HEADROOM, opt_bits(m, ieee::HEADROOM)),
        ]);
        let history = list(m, pfcd::HISTORY);
        if !history.is_empty() {
            // What became of each result (used, raised to the minimum, discarded and why) where
            // the server says; else only whether it was clamped.
            let outcome = history.iter().any(|e| text(e, pfcd::OUTCOME).is_some());
            let mut t = Table::new(&[
                ("SEQ", Align::Right),
                ("TIME", Align::Left),
                ("ROUND TRIP", Align::Right),
                (if outcome { "OUTCOME" } else { "CLAMP" }, Align::Left),
            ]);
            for e in history {
                t.row(vec![
                    or_dash(text(e, pfcd::SEQUENCE)),
                    or_dash(text(e, pfcd::TIME)),
                    number(e, ieee::ROUND_TRIP)
                        .map(|x| quanta_at(x, speed))
                        .unwrap_or_else(|| "-".into()),
                    or_dash(text(e, if outcome { pfcd::OUTCOME } else { pfcd::CLAMP })),
                ]);
            }
            out += "\nhistory:\n";
            out += &t.render();
        }
    }
    out
}
