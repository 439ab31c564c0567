//! `show lldp neighbors [PORT] [detail]`: one line per neighbour, or every field it sent.

use serde_json::Value;

use super::or_dash;
use super::table::{Align, Table};
use crate::data::{list, text};

pub fn render(v: &Value, detail: bool) -> String {
    let mut t = Table::new(&[
        ("PORT", Align::Left),
        ("CHASSIS ID", Align::Left),
        ("PORT ID", Align::Left),
        ("SYSTEM NAME", Align::Left),
        ("PFC", Align::Left),
    ]);
    let mut details = String::new();
    for p in list(v, "lldp/port") {
        let port = text(p, "name").unwrap_or_default();
        for n in list(p, "remote-systems-data") {
            t.row(vec![
                port.clone(),
                or_dash(text(n, "chassis-id")),
                or_dash(text(n, "port-id")),
                or_dash(text(n, "system-name")),
                text(n, "pfc-tlv-extension/enable")
                    .map_or("-".into(), |e| super::units::priorities(&e)),
            ]);
            if detail {
                details += &format!("\n{port}: neighbour {}\n", or_dash(text(n, "chassis-id")));
                flatten(n, "", &mut details);
            }
        }
    }
    if detail {
        details.trim_start().to_string()
    } else {
        t.render()
    }
}

/// Every leaf under `v` as `  path: value`, module prefixes dropped.
fn flatten(v: &Value, prefix: &str, out: &mut String) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                let name = k.rsplit(':').next().unwrap_or(k);
                let path =
                    if prefix.is_empty() { name.to_string() } else { format!("{prefix} {name}") };
                flatten(child, &path, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                flatten(item, prefix, out);
            }
        }
        Value::String(s) => out.push_str(&format!("  {prefix}: {s}\n")),
        other => out.push_str(&format!("  {prefix}: {other}\n")),
    }
}
