//! `show counters [PORT]`: PFC and pause frames, drops, LLDP frames per port.

use pfc_yang_names::{ieee802_dot1q_pfc as ieee, pfcd_pfc as pfcd};
use serde_json::Value;

use super::table::{Align, Table};
use super::units::grouped;
use super::{interfaces, name_of};
use crate::data::{at, list, number, text};

pub fn render(v: &Value) -> String {
    let lldp = list(v, "lldp/port");
    let mut t = Table::new(&[
        ("PORT", Align::Left),
        ("PFC TX", Align::Right),
        ("PFC RX", Align::Right),
        ("PAUSE TX", Align::Right),
        ("PAUSE RX", Align::Right),
        ("ACCEPTED", Align::Right),
        ("DROPPED", Align::Right),
        ("LLDP TX", Align::Right),
        ("LLDP RX", Align::Right),
    ]);
    for i in interfaces(v) {
        let name = name_of(i);
        let empty = Value::Null;
        let pfc = at(i, "bridge-port/pfc").unwrap_or(&empty);
        let n = |v: &Value, path| number(v, path).map(grouped).unwrap_or_else(|| "-".into());
        let sum = |leaf| {
            let prios = list(pfc, ieee::PRIORITY);
            if prios.is_empty() {
                "-".to_string()
            } else {
                grouped(prios.iter().filter_map(|p| number(p, leaf)).sum())
            }
        };
        let port =
            lldp.iter().find(|p| text(p, "name").as_deref() == Some(&name)).unwrap_or(&empty);
        t.row(vec![
            name,
            n(pfc, ieee::PFC_REQUESTS),
            n(pfc, ieee::PFC_INDICATIONS),
            n(pfc, pfcd::PAUSE_FRAMES_SENT),
            n(pfc, pfcd::PAUSE_FRAMES_RECEIVED),
            sum(pfcd::FRAMES_ACCEPTED),
            sum(pfcd::FRAMES_DROPPED),
            n(port, "tx-statistics/total-frames"),
            n(port, "rx-statistics/total-frames"),
        ]);
    }
    t.render()
}
