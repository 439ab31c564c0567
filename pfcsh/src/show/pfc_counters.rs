//! `show interfaces pfc counters [PORT]`: per port and priority, PFC frames sent (requests)
//! and received (indications) with their rates since the previous look in this session, XOFF
//! events, XON frames sent, how long the peer held the priority paused (in all, and the share
//! of the time since the previous look), frames and octets dropped, and when the counters last
//! restarted. Priorities with PFC off and every counter at zero are left out. Against pfcd's
//! lab, rates and shares are per second of the lab's simulated time, which its links run in.

use pfc_yang_names::{ieee802_dot1q_pfc as ieee, pfcd_pfc as pfcd};
use std::time::Instant;

use serde_json::Value;

use super::table::{Align, Table};
use super::units::{duration, grouped, iec, micros, priorities};
use super::{interfaces, name_of, or_dash};
use crate::data::{at, list, number, text};

/// The counters as last seen, for the rates: (port, priority) → (PFC sent, PFC received,
/// microseconds paused).
#[derive(Default)]
pub struct Previous {
    pub at: Option<Instant>,
    /// The lab's simulated time at the previous look (picoseconds), when the server is a lab.
    pub simulated_ps: Option<f64>,
    pub counts: std::collections::HashMap<(String, String), (f64, f64, f64)>,
}

const LEAVES: &[&str] = &[
    pfcd::PFC_FRAMES_SENT,
    pfcd::PFC_FRAMES_RECEIVED,
    pfcd::XOFF_EVENTS,
    pfcd::XON_SENT,
    pfcd::FRAMES_DROPPED,
    pfcd::OCTETS_DROPPED,
    pfcd::TIME_PAUSED,
];

pub fn render(v: &Value, previous: &mut Previous) -> String {
    let now = Instant::now();
    // The lab's links run in simulated time: its rates and shares are per simulated second.
    let simulated_ps = number(v, "lab/clock/simulated-time");
    let seconds = match (simulated_ps, previous.simulated_ps) {
        (Some(now_ps), Some(before)) => Some((now_ps - before) / 1e12),
        (Some(_), None) => None,
        _ => previous.at.map(|t| now.duration_since(t).as_secs_f64()),
    }
    .filter(|s| *s > 0.0);
    let clock = if simulated_ps.is_some() { " of the lab's simulated time" } else { "" };
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
        let enabled = priorities(&text(pfc, ieee::PFC_ENABLE).unwrap_or_default());
        let enabled: Vec<&str> = enabled.split(',').collect();
        if let Some(since) = text(pfc, ieee::DISCONTINUITY_TIME) {
            cleared.push(since);
        }
        for p in list(pfc, ieee::PRIORITY) {
            let prio = or_dash(text(p, ieee::PRIORITY));
            let n = |leaf| number(p, leaf).unwrap_or(0.0);
            let (tx, rx, paused) =
                (n(pfcd::PFC_FRAMES_SENT), n(pfcd::PFC_FRAMES_RECEIVED), n(pfcd::TIME_PAUSED));
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
                (Some(s), Some(b)) if number(p, pfcd::TIME_PAUSED).is_some() && paused >= b.2 => {
                    format!("{:.0}", ((paused - b.2) / 1e4 / s).min(100.0))
                }
                _ => "-".into(),
            };
            t.row(vec![
                name.clone(),
                prio.clone(),
                count(pfcd::PFC_FRAMES_SENT),
                rate(tx, |c| c.0),
                count(pfcd::PFC_FRAMES_RECEIVED),
                rate(rx, |c| c.1),
                count(pfcd::XOFF_EVENTS),
                count(pfcd::XON_SENT),
                number(p, pfcd::TIME_PAUSED).map(micros).unwrap_or_else(|| "-".into()),
                share,
                count(pfcd::FRAMES_DROPPED),
                number(p, pfcd::OCTETS_DROPPED).map(iec).unwrap_or_else(|| "-".into()),
            ]);
        }
    }
    previous.at = Some(now);
    previous.simulated_ps = simulated_ps;
    previous.counts = seen;
    cleared.sort();
    let mut out = t.render();
    out += &match (seconds, cleared.last()) {
        (Some(s), Some(c)) => {
            format!("rates over the last {}{clock}; counting since {c}\n", duration(s))
        }
        (None, Some(c)) => {
            format!("rates: run again for the rates since now; counting since {c}\n")
        }
        (Some(s), None) => format!("rates over the last {}{clock}\n", duration(s)),
        (None, None) => "rates: run again for the rates since now\n".into(),
    };
    out
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::{render, Previous};

    /// One look at lab1's priority 0: the lab's simulated time and the counters then.
    fn look(simulated_ps: u64, indications: u64, paused_us: u64) -> Value {
        json!({
            "ietf-interfaces:interfaces": {"interface": [{
                "name": "lab1",
                "ieee802-dot1q-bridge:bridge-port": {"ieee802-dot1q-pfc-bridge:pfc": {
                    "pfc-enable": "p0",
                    "priority": [{
                        "priority": 0,
                        "pfcd-pfc:pfc-frames-received": indications.to_string(),
                        "pfcd-pfc:time-paused": paused_us.to_string(),
                    }],
                }},
            }]},
            "pfcd-lab:lab": {"clock": {"simulated-time": simulated_ps.to_string()}},
        })
    }

    #[test]
    fn a_labs_rates_and_share_paused_are_per_simulated_second() {
        let mut previous = Previous::default();
        let first = render(&look(1_000_000_000, 10, 0), &mut previous);
        assert!(first.contains("run again"), "{first}");
        // 2 ms of simulated time later: 1 ms of it paused, 20 more PFC frames.
        let second = render(&look(3_000_000_000, 30, 1_000), &mut previous);
        let row: Vec<&str> = second.lines().nth(1).unwrap_or_default().split("  ").collect();
        let cells: Vec<&str> = row.iter().map(|c| c.trim()).filter(|c| !c.is_empty()).collect();
        // PORT PRIO PFC-TX TX/s PFC-RX RX/s XOFF XON PAUSED PAUSE% ...
        assert_eq!(cells[5], "10 000", "20 frames in 2 ms: {second}");
        assert_eq!(cells[8], "1.00 ms", "{second}");
        assert_eq!(cells[9], "50", "{second}");
        assert!(second.contains("2.00 ms of the lab's simulated time"), "{second}");
    }
}
