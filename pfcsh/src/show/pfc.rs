//! `show interfaces pfc [PORT]`: enabled and paused priorities, PFC frames sent (requests) and
//! received (indications), frames dropped, the allowance in force and where it comes from; one
//! port adds its priorities.

use pfc_yang_names::{ieee802_dot1q_pfc as ieee, pfcd_pfc as pfcd};
use serde_json::Value;

use super::table::{pairs, Align, Table};
use super::units::{bits, grouped, iec, kib_of_bits, octets, priorities, quanta_cell};
use super::{interfaces, name_of, or_dash};
use crate::data::{flag, list, number, text};

const PFC: &str = "bridge-port/pfc";

fn paused(pfc: &Value) -> String {
    let v: Vec<String> = list(pfc, ieee::PRIORITY)
        .iter()
        .filter(|p| flag(p, ieee::PRIORITY_PAUSED) == Some(true))
        .filter_map(|p| text(p, ieee::PRIORITY))
        .collect();
    if v.is_empty() {
        "-".into()
    } else {
        v.join(",")
    }
}

/// Frames the port dropped, all priorities together: a lossless priority should show none.
fn dropped(pfc: &Value) -> String {
    let counts: Vec<f64> =
        list(pfc, ieee::PRIORITY).iter().filter_map(|p| number(p, pfcd::FRAMES_DROPPED)).collect();
    if counts.is_empty() {
        "-".into()
    } else {
        grouped(counts.iter().sum())
    }
}

fn count(v: &Value, path: &str) -> String {
    number(v, path).map(grouped).unwrap_or_else(|| "-".into())
}

pub fn render(v: &Value, port: Option<&str>) -> String {
    let ports = interfaces(v);
    if let (Some(_), [one]) = (port, ports) {
        return detail(one);
    }
    let mut t = Table::new(&[
        ("PORT", Align::Left),
        ("PFC ON", Align::Left),
        ("OPER", Align::Left),
        ("PAUSED", Align::Left),
        ("PFC TX", Align::Right),
        ("PFC RX", Align::Right),
        ("DROPPED", Align::Right),
        ("ALLOWANCE", Align::Right),
        ("SOURCE", Align::Left),
    ]);
    for i in ports {
        let Some(pfc) = crate::data::at(i, PFC) else { continue };
        t.row(vec![
            name_of(i),
            priorities(&text(pfc, ieee::PFC_ENABLE).unwrap_or_default()),
            priorities(&text(pfc, ieee::OPER_PFC_ENABLE).unwrap_or_default()),
            paused(pfc),
            count(pfc, ieee::PFC_REQUESTS),
            count(pfc, ieee::PFC_INDICATIONS),
            dropped(pfc),
            number(pfc, ieee::ALLOWANCE_IN_FORCE).map(kib_of_bits).unwrap_or_else(|| "-".into()),
            or_dash(text(pfc, ieee::ALLOWANCE_SOURCE)),
        ]);
    }
    t.render()
}

fn detail(i: &Value) -> String {
    let empty = Value::Null;
    let pfc = crate::data::at(i, PFC).unwrap_or(&empty);
    let mut out = format!("{}\n", name_of(i));
    let clamp = text(pfc, ieee::ALLOWANCE_CLAMP).filter(|c| c != "none");
    out += &pairs(&[
        ("PFC enabled", priorities(&text(pfc, ieee::PFC_ENABLE).unwrap_or_default())),
        ("operational", priorities(&text(pfc, ieee::OPER_PFC_ENABLE).unwrap_or_default())),
        ("paused now", paused(pfc)),
        ("requests sent", count(pfc, ieee::PFC_REQUESTS)),
        ("indications received", count(pfc, ieee::PFC_INDICATIONS)),
        (
            "allowance in force",
            number(pfc, ieee::ALLOWANCE_IN_FORCE).map(bits).unwrap_or_else(|| "-".into())
                + &clamp.map(|c| format!(", clamped to the {c}")).unwrap_or_default(),
        ),
        ("allowance source", or_dash(text(pfc, ieee::ALLOWANCE_SOURCE))),
        (
            "receive buffer",
            number(pfc, pfcd::RECEIVE_BUFFER_SIZE).map(octets).unwrap_or_else(|| "-".into()),
        ),
    ]);
    let mut t = Table::new(&[
        ("PRIO", Align::Right),
        ("PAUSED", Align::Left),
        ("QUANTA LEFT", Align::Right),
        ("XOFF", Align::Left),
        ("OCCUPANCY", Align::Right),
        ("DROPPED", Align::Right),
        ("REQUESTS", Align::Right),
        ("INDICATIONS", Align::Right),
    ]);
    for p in list(pfc, ieee::PRIORITY) {
        let yes = |path| if flag(p, path) == Some(true) { "yes" } else { "no" }.to_string();
        t.row(vec![
            or_dash(text(p, ieee::PRIORITY)),
            yes(ieee::PRIORITY_PAUSED),
            number(p, ieee::PAUSE_TIME_REMAINING)
                .map(|q| quanta_cell(q, number(i, "speed")))
                .unwrap_or_else(|| "-".into()),
            yes(pfcd::XOFF),
            number(p, pfcd::OCCUPANCY).map(iec).unwrap_or_else(|| "-".into()),
            count(p, pfcd::FRAMES_DROPPED),
            count(p, pfcd::PFC_FRAMES_SENT),
            count(p, pfcd::PFC_FRAMES_RECEIVED),
        ]);
    }
    out + "\n" + &t.render()
}

/// `show interfaces pfc PORT detail`: the port's view, then each priority's buffer and counters
/// in their units, and when the counters last restarted.
pub fn render_detail(v: &Value) -> String {
    let Some(one) = interfaces(v).first() else { return String::new() };
    let empty = Value::Null;
    let pfc = crate::data::at(one, PFC).unwrap_or(&empty);
    let mut out = detail(one);
    let octets_of = |p: &Value, leaf| number(p, leaf).map(iec).unwrap_or_else(|| "-".into());
    let mut t = Table::new(&[
        ("PRIO", Align::Right),
        ("ALLOCATION", Align::Right),
        ("XOFF AT", Align::Right),
        ("XON AT", Align::Right),
        ("PEAK", Align::Right),
        ("XOFF EVENTS", Align::Right),
        ("XON SENT", Align::Right),
        ("ACCEPTED", Align::Right),
        ("DROPPED", Align::Right),
    ]);
    for p in list(pfc, ieee::PRIORITY) {
        t.row(vec![
            or_dash(text(p, ieee::PRIORITY)),
            octets_of(p, pfcd::ALLOCATION),
            octets_of(p, pfcd::XOFF_THRESHOLD),
            octets_of(p, pfcd::XON_THRESHOLD),
            octets_of(p, pfcd::PEAK_OCCUPANCY),
            count(p, pfcd::XOFF_EVENTS),
            count(p, pfcd::XON_SENT),
            count(p, pfcd::FRAMES_ACCEPTED),
            octets_of(p, pfcd::OCTETS_DROPPED),
        ]);
    }
    out += "\nbuffers and counters per priority (octets with binary prefixes):\n";
    out += &t.render();
    out += &pairs(&[
        (
            "pause frames sent / received",
            format!(
                "{} / {}",
                count(pfc, pfcd::PAUSE_FRAMES_SENT),
                count(pfc, pfcd::PAUSE_FRAMES_RECEIVED)
            ),
        ),
        ("PFC frames ignored", count(pfc, pfcd::PFC_FRAMES_IGNORED)),
        ("counting since", or_dash(text(pfc, ieee::DISCONTINUITY_TIME))),
    ]);
    out += &nic_line(v);
    out
}

/// What pfcd set on the port's NIC (pfcd-nic), when it runs on one: the driver, `delay` as
/// given, and each object the NIC refused.
fn nic_line(v: &Value) -> String {
    use pfc_yang_names::pfcd_nic as nic;
    let (ports, refused) =
        (format!("{}/{}", nic::NIC, nic::PORT), format!("{}/{}", nic::PROGRAMMED, nic::REFUSED));
    let Some(port) = list(v, &ports).first() else { return String::new() };
    let refused: Vec<String> = list(port, &refused)
        .iter()
        .map(|r| format!("{} ({})", or_dash(text(r, nic::OBJECT)), or_dash(text(r, nic::ERROR))))
        .collect();
    let meaning = format!("{}/{}", nic::PROGRAMMED, nic::DELAY_MEANING);
    pairs(&[
        ("NIC driver", or_dash(text(port, nic::DRIVER))),
        ("NIC delay", or_dash(text(port, &meaning))),
        ("NIC refused", if refused.is_empty() { "-".into() } else { refused.join("; ") }),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(nic: Option<Value>) -> Value {
        let mut v = serde_json::json!({
            "ietf-interfaces:interfaces": {"interface": [{
                "name": "eth2",
                "ieee802-dot1q-bridge:bridge-port": {
                    "ieee802-dot1q-pfc-bridge:pfc": {"pfc-enable": "p3"}
                }
            }]}
        });
        if let Some(nic) = nic {
            v["pfcd-nic:nic"] = nic;
        }
        v
    }

    #[test]
    fn a_nic_port_shows_its_driver_the_delay_given_and_what_the_nic_refused() {
        let nic = serde_json::json!({"port": [{
            "name": "eth2",
            "driver": "mlx5_core",
            "programmed": {
                "delay-meaning": "114 m of cable",
                "refused": [{"object": "dcbx-mode", "error": "eth2: the kernel refused DCB DCBX mode set to 0x09: EINVAL (Invalid argument)"}]
            }
        }]});
        let out = render_detail(&port(Some(nic)));
        assert!(out.contains("NIC driver   mlx5_core\n"), "{out}");
        assert!(out.contains("NIC delay    114 m of cable\n"), "{out}");
        assert!(
            out.contains("NIC refused  dcbx-mode (eth2: the kernel refused DCB DCBX mode set"),
            "{out}"
        );
        assert!(!render_detail(&port(None)).contains("NIC"), "no NIC lines on other ports");
    }
}
