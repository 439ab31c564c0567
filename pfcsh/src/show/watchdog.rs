//! `show pfc watchdog [PORT]`: each port's PFC watchdog (pfcd-watchdog): whether it is on, its
//! detection and restoration times, and each class's status, storms, restorations and frames
//! dropped. A port without watchdog state says so.

use serde_json::Value;

use super::table::{Align, Table};
use super::units::grouped;
use super::{interfaces, name_of, or_dash};
use crate::data::{at, list, number, text};

const WATCHDOG: &str = "bridge-port/pfc-watchdog";

pub fn render(v: &Value, ports: &[String]) -> String {
    let mut t = Table::new(&[
        ("PORT", Align::Left),
        ("CLASS", Align::Left),
        ("STATUS", Align::Left),
        ("ACTION", Align::Left),
        ("STORMS", Align::Right),
        ("RESTORED", Align::Right),
        ("DROPPED", Align::Right),
        ("LAST STORM", Align::Left),
    ]);
    let mut settings = String::new();
    let mut without = Vec::new();
    for port in ports {
        let entry = interfaces(v).iter().find(|i| name_of(i) == *port);
        let Some(wd) = entry.and_then(|i| at(i, WATCHDOG)) else {
            without.push(port.clone());
            continue;
        };
        settings += &format!(
            "{port}: {}, detection {} ms, restoration {} ms, action {}\n",
            match text(wd, "enabled").as_deref() {
                Some("false") => "off",
                Some(_) => "on",
                None => "-",
            },
            number(wd, "detection-time").map(grouped).unwrap_or_else(|| "-".into()),
            number(wd, "restoration-time").map(grouped).unwrap_or_else(|| "-".into()),
            or_dash(text(wd, "action")),
        );
        for c in list(wd, "class") {
            let n = |leaf| number(c, leaf).map(grouped).unwrap_or_else(|| "-".into());
            t.row(vec![
                port.clone(),
                or_dash(text(c, "name")),
                or_dash(text(c, "status")),
                or_dash(text(c, "action")),
                n("storms-detected"),
                n("restorations"),
                n("frames-dropped"),
                or_dash(text(c, "last-storm-start")),
            ]);
        }
    }
    let mut out = settings;
    if !out.is_empty() {
        out += "\n";
        out += &t.render();
    }
    if !without.is_empty() {
        out += &format!("no watchdog on this port: {}\n", without.join(" "));
    }
    out
}
