//! `show lldp neighbors [PORT] [detail]`: one line per neighbour with its enabled capabilities,
//! the TTL it advertises and the age of its information (pfcd-lldp, where the server has it),
//! or every field it sent (when it expires too), a time with its unit.

use serde_json::Value;

use super::or_dash;
use super::table::{Align, Table};
use super::units::time_in;
use crate::data::{list, number, text};

pub fn render(v: &Value, detail: bool) -> String {
    let mut t = Table::new(&[
        ("PORT", Align::Left),
        ("CHASSIS ID", Align::Left),
        ("PORT ID", Align::Left),
        ("SYSTEM NAME", Align::Left),
        ("PFC", Align::Left),
        ("CAPABILITIES", Align::Left),
        ("TTL", Align::Right),
        ("AGE", Align::Right),
    ]);
    let ms = |n: &Value, leaf| number(n, leaf).map_or("-".into(), |ms| time_in(ms, 1e-3));
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
                or_dash(text(n, "system-capabilities-enabled")),
                number(n, "ttl").map_or("-".into(), |s| time_in(s, 1.0)),
                ms(n, "age"),
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
        Value::String(s) => out.push_str(&format!("  {prefix}: {}\n", with_unit(prefix, s))),
        other => out.push_str(&format!("  {prefix}: {}\n", with_unit(prefix, &other.to_string()))),
    }
}

/// A value with the unit the model gives it, where a bare number would mislead: the PFC Local
/// Delay TLV's delay (an IEEE 1588 TimeInterval, 2^-16 ns) and the entry's time-mark
/// (timeticks: hundredths of a second of the system's up time).
fn with_unit(path: &str, value: &str) -> String {
    let last = path.rsplit(' ').next().unwrap_or(path);
    let Ok(n) = value.parse::<f64>() else { return value.to_string() };
    match last {
        "delay" => {
            let ns = n / 65536.0;
            let time = if ns.abs() >= 1e6 {
                format!("{:.3} ms", ns / 1e6)
            } else if ns.abs() >= 1e3 {
                format!("{:.3} µs", ns / 1e3)
            } else {
                format!("{ns:.1} ns")
            };
            format!("{time} ({value} × 2^-16 ns)")
        }
        "time-mark" => format!("{:.2} s of up time ({value} timeticks)", n / 100.0),
        "ttl" => format!("{value} s"),
        "age" | "last-update" | "expires-in" => super::units::duration(n / 1e3),
        _ => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::with_unit;

    #[test]
    fn delay_and_time_mark_carry_their_units() {
        assert_eq!(
            with_unit("pfc-local-delay-tlv-extension delay", "103012107"),
            "1.572 µs (103012107 × 2^-16 ns)"
        );
        assert_eq!(with_unit("time-mark", "19"), "0.19 s of up time (19 timeticks)");
        assert_eq!(with_unit("system-name", "peer0"), "peer0");
        assert_eq!(with_unit("ttl", "121"), "121 s");
        assert_eq!(with_unit("expires-in", "2500"), "2.50 s");
    }
}
