//! `show interfaces pfc counters [PORT]`: per port and priority, PFC frames sent (requests)
//! and received (indications) with their rates since the previous look in this session, XOFF
//! events, XON frames sent, how long the peer held the priority paused (in all, and the share
//! of the time since the previous look), frames and octets dropped, and when the counters last
//! restarted. Priorities with PFC off and every counter at zero are left out.

use std::time::Instant;

use serde_json::Value;

use super::table::{Align, Table};
use super::units::{grouped, iec, micros, priorities};
use super::{interfaces, name_of, or_dash};
use crate::data::{at, list, number, text};

/// The counters as last seen, for the rates: (port, priority) → (PFC sent, PFC received,
/// microseconds paused).
#[derive(Default)]
pub struct Previous {
    pub at: Option<Instant>,
    pub counts: std::collections::HashMap<(String, String), (f64, f64, f64)>,
}

const LEAVES: &[&str] = &[
    "pfc-requests",
    "pfc-indications",
    "xoff-events",
    "xon-sent",
    "frames-dropped",
    "octets-dropped",
    "time-paused",
];

pub fn render(v: &Value, previous: &mut Previous) -> String {
    let now = Instant::now();
    let seconds = previous.at.map(|t| now.duration_since(t).as_secs_f64()).filter(|s| *s > 0.0);
    let mut t = Table::new(&[
        ("PORT", Align::Left),
        ("PRIO", Align::Right),
        ("PFC TX", Align::Right),
        ("TX/s", Align::Right),
        ("PFC RX", Align::Right),
        ("RX/s", Align::Right),
        ("XOFF", Align::Right),
        ("XON", Align::Right),
        ("PAUSED", Align::Right),
        ("PAUSE%", Align::Right),
        ("DROPS", Align::Right),
        ("DROP B", Align::Right),
    ]);
    let mut cleared = Vec::new();
    let mut seen = std::collections::HashMap::new();
    for i in interfaces(v) {
        let name = name_of(i);
        let empty = Value::Null;
        let pfc = at(i, "bridge-port/pfc").unwrap_or(&empty);
        let enabled = priorities(&text(pfc, "pfc-enable").unwrap_or_default());
        let enabled: Vec<&str> = enabled.split(',').collect();
        if let Some(since) = text(pfc, "discontinuity-time") {
            cleared.push(since);
        }
        for p in list(pfc, "priority") {
            let prio = or_dash(text(p, "priority"));
            let n = |leaf| number(p, leaf).unwrap_or(0.0);
            let (tx, rx, paused) = (n("pfc-requests"), n("pfc-indications"), n("time-paused"));
            seen.insert((name.clone(), prio.clone()), (tx, rx, paused));
            let quiet = LEAVES.iter().all(|l| n(l) == 0.0);
            if quiet && !enabled.contains(&prio.as_str()) {
                continue;
            }
            let rate = |now: f64, pick: fn(&(f64, f64, f64)) -> f64| {
                let before = previous.counts.get(&(name.clone(), prio.clone())).map(pick);
                match (seconds, before) {
                    (Some(s), Some(b)) if now >= b => grouped((now - b) / s),
                    _ => "-".into(),
                }
            };
            let count = |leaf| number(p, leaf).map(grouped).unwrap_or_else(|| "-".into());
            // The share of the time since the previous look the priority spent paused.
            let share = match (seconds, previous.counts.get(&(name.clone(), prio.clone()))) {
                (Some(s), Some(b)) if number(p, "time-paused").is_some() && paused >= b.2 => {
                    format!("{:.0}", ((paused - b.2) / 1e4 / s).min(100.0))
                }
                _ => "-".into(),
            };
            t.row(vec![
                name.clone(),
                prio.clone(),
                count("pfc-requests"),
                rate(tx, |c| c.0),
                count("pfc-indications"),
                rate(rx, |c| c.1),
                count("xoff-events"),
                count("xon-sent"),
                number(p, "time-paused").map(micros).unwrap_or_else(|| "-".into()),
                share,
                count("frames-dropped"),
                number(p, "octets-dropped").map(iec).unwrap_or_else(|| "-".into()),
            ]);
        }
    }
    previous.at = Some(now);
    previous.counts = seen;
    cleared.sort();
    let mut out = t.render();
    out += &match (seconds, cleared.last()) {
        (Some(s), Some(c)) => format!("rates over the last {s:.2} s; counting since {c}\n"),
        (None, Some(c)) => {
            format!("rates: run again for the rates since now; counting since {c}\n")
        }
        (Some(s), None) => format!("rates over the last {s:.2} s\n"),
        (None, None) => "rates: run again for the rates since now\n".into(),
    };
    out
}
