//! `show pipeline`: the pause mode and external memory, then the Pause FSM state and FIFO
//! depths per port and priority (priorities idle in every respect are left out).

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
                "{} of {} octets used (peak {})",
                n(p, "external-memory/used"),
                n(p, "external-memory/capacity"),
                n(p, "external-memory/peak-used")
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
    out + "\n" + &t.render()
}
