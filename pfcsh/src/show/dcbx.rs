//! `show dcbx [PORT]`: per port our PFC Enable (admin) and willingness, the peer's, the
//! operational PFC Enable and whose values are in force, and any misconfiguration with why.

use serde_json::Value;

use super::table::{pairs, Align, Table};
use super::units::priorities;
use super::{interfaces, name_of, or_dash};
use crate::data::{at, flag, list, text};

struct Row {
    port: String,
    admin: String,
    willing: String,
    peer: String,
    peer_willing: String,
    oper: String,
    source: String,
    reason: String,
    misconfigured: String,
}

fn yes_no(v: Option<bool>) -> String {
    match v {
        Some(true) => "yes".into(),
        Some(false) => "no".into(),
        None => "-".into(),
    }
}

fn rows(v: &Value) -> Vec<Row> {
    let ports = list(v, "lldp/port");
    let mut out = Vec::new();
    for i in interfaces(v) {
        let name = name_of(i);
        let empty = Value::Null;
        let lldp =
            ports.iter().find(|p| text(p, "name").as_deref() == Some(&name)).unwrap_or(&empty);
        let remote = list(lldp, "remote-systems-data").first().unwrap_or(&empty);
        let dcbx = at(lldp, "pfc-dcbx").unwrap_or(&empty);
        let misconfigured = if flag(dcbx, "misconfigured") == Some(true) {
            text(dcbx, "misconfiguration-description")
                .or_else(|| text(dcbx, "misconfiguration"))
                .unwrap_or_else(|| "yes".into())
        } else {
            "no".into()
        };
        out.push(Row {
            port: name,
            admin: priorities(&text(i, "bridge-port/pfc/pfc-enable").unwrap_or_default()),
            willing: yes_no(flag(lldp, "pfc-tlv-extension/willing")),
            peer: text(remote, "pfc-tlv-extension/enable").map_or("-".into(), |e| priorities(&e)),
            peer_willing: yes_no(flag(remote, "pfc-tlv-extension/willing")),
            oper: priorities(
                &text(dcbx, "oper-pfc-enable")
                    .or_else(|| text(i, "bridge-port/pfc/oper-pfc-enable"))
                    .unwrap_or_default(),
            ),
            source: or_dash(text(dcbx, "pfc-enable-source")),
            reason: or_dash(text(dcbx, "reason")),
            misconfigured,
        });
    }
    out
}

pub fn render(v: &Value, port: Option<&str>) -> String {
    let rows = rows(v);
    if let (Some(_), [r]) = (port, rows.as_slice()) {
        return format!("{}\n", r.port)
            + &pairs(&[
                ("admin PFC enable", r.admin.clone()),
                ("willing", r.willing.clone()),
                ("peer PFC enable", r.peer.clone()),
                ("peer willing", r.peer_willing.clone()),
                ("operational PFC enable", r.oper.clone()),
                ("in force", r.source.clone()),
                ("why", r.reason.clone()),
                ("misconfigured", r.misconfigured.clone()),
            ]);
    }
    let mut t = Table::new(&[
        ("PORT", Align::Left),
        ("ADMIN", Align::Left),
        ("WILL", Align::Left),
        ("PEER", Align::Left),
        ("WILL", Align::Left),
        ("OPER", Align::Left),
        ("IN FORCE", Align::Left),
        ("MISCONFIGURED", Align::Left),
    ]);
    for r in rows {
        t.row(vec![
            r.port,
            r.admin,
            r.willing,
            r.peer,
            r.peer_willing,
            r.oper,
            r.source,
            r.misconfigured,
        ]);
    }
    t.render()
}
