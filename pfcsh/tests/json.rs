//! `--json` of every show command parses and carries the same leaves and values as the
//! NETCONF data it came from (fetched here with netconf-client and the same filter), and
//! `--xml` is that data; a script stops at its first error and exits non-zero.

mod common;

use std::collections::BTreeMap;

use common::{run, stderr, stdout, Home, Lab};
use pfcsh::show::filters;
use quick_xml::events::Event;

/// Leaves whose values move between two reads even in an idle lab.
const MOVING: &[&str] = &[
    "total-frames",
    "time-mark",
    "simulated-time",
    "wall-time",
    "ratio",
    "departed",
    "cycles",
    "enqueued",
    "departed-octets",
    "frames-within-bound",
    "frames-accepted",
    "pfc-requests",
    "pfc-indications",
    "pfc-frames-sent",
    "pfc-frames-received",
    "xon-sent",
    "xoff-events",
    "pause-time-remaining",
    "occupancy",
    "peak-occupancy",
    "inflight",
    "recycled",
    "onchip-fifo-depth",
    "external-fifo-depth",
    "priority-paused",
    "xoff",
    "fsm-state",
    "pause",
    "hold",
    "halt",
    "halt-ack",
    "used",
    "peak-used",
    "pause-indications",
    "returned-by-mac",
    "stalled-cycles",
    "late-frames",
    "recycled-by-nti",
    "external-fifo-peak",
    "onchip-paused-octets-peak",
    "recycle-staging-peak",
    "external-full-cycles",
    "flushed",
    "total-ageouts",
    "frames-dropped",
    "octets-dropped",
    "time-paused",
    "age",
    "last-update",
    "expires-in",
];

/// `path → values` of every leaf (module prefixes dropped, identities without prefix).
type Leaves = BTreeMap<String, Vec<String>>;

/// Identities without their prefix; date-and-time's `Z` as libyang's canonical `+00:00`.
fn plain(v: &str) -> String {
    let v = match v.strip_suffix('Z') {
        Some(t) if t.contains('T') => format!("{t}+00:00"),
        _ => v.to_string(),
    };
    match v.split_once(':') {
        Some((m, name))
            if m.starts_with(|c: char| c.is_ascii_alphabetic())
                && m.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                && !name.is_empty() =>
        {
            name.to_string()
        }
        _ => v,
    }
}

fn xml_leaves(xml: &str) -> Leaves {
    let mut out = Leaves::new();
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut path: Vec<String> = Vec::new();
    let mut text = String::new();
    let mut had_child = Vec::new();
    loop {
        match reader.read_event().expect("xml") {
            Event::Start(s) => {
                if let Some(h) = had_child.last_mut() {
                    *h = true;
                }
                path.push(s.local_name().as_ref().to_string());
                had_child.push(false);
                text.clear();
            }
            Event::Text(t) => text.push_str(&t.xml10_content()),
            Event::GeneralRef(r) => text.push_str(
                quick_xml::escape::resolve_predefined_entity(&r.xml10_content())
                    .unwrap_or_default(),
            ),
            Event::End(_) => {
                if had_child.pop() == Some(false) {
                    out.entry(path.join("/")).or_default().push(plain(text.trim()));
                }
                path.pop();
                text.clear();
            }
            Event::Eof => break,
            _ => {}
        }
    }
    out
}

fn json_leaves(v: &serde_json::Value, path: &str, out: &mut Leaves) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, child) in m {
                let name = k.rsplit(':').next().unwrap_or(k);
                let p = if path.is_empty() { name.to_string() } else { format!("{path}/{name}") };
                json_leaves(child, &p, out);
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|i| json_leaves(i, path, out)),
        serde_json::Value::String(s) => out.entry(path.to_string()).or_default().push(plain(s)),
        other => out.entry(path.to_string()).or_default().push(other.to_string()),
    }
}

fn without_moving(mut l: Leaves) -> Leaves {
    for (k, v) in l.iter_mut() {
        if MOVING.iter().any(|m| k.ends_with(&format!("/{m}"))) {
            v.iter_mut().for_each(|x| *x = "…".into());
        }
    }
    l
}

#[test]
fn json_of_every_show_command_equals_the_netconf_data() {
    let lab = Lab::start("[lab]\ntraffic = false\n");
    let home = Home::new();
    let cases: Vec<(&str, String)> = vec![
        ("show interfaces pfc", filters::interfaces_pfc(None)),
        ("show interfaces pfc lab1", filters::interfaces_pfc(Some("lab1"))),
        ("show headroom", filters::headroom(None)),
        ("show headroom lab3", filters::headroom(Some("lab3"))),
        ("show dcbx", filters::dcbx(None)),
        ("show lldp neighbors", filters::lldp_neighbors(None)),
        ("show lldp neighbors lab0 detail", filters::lldp_neighbors(Some("lab0"))),
        ("show pipeline", filters::pipeline()),
        ("show counters", filters::counters(None)),
        ("show interfaces pfc counters", filters::pfc_counters(None, true, true)),
        ("show interfaces pfc lab2 detail", filters::pfc_detail("lab2")),
        ("show pfc watchdog", filters::watchdog(None)),
    ];
    let mut client = lab.client();
    for (command, filter) in cases {
        let o = run(home.pfcsh(lab.port, &lab.password_file).arg("--json"), &[command]);
        assert!(o.status.success(), "{command}: {}", stderr(&o));
        let json: serde_json::Value = serde_json::from_str(&stdout(&o))
            .unwrap_or_else(|e| panic!("{command}: not JSON: {e}"));
        let reply = client.get(Some(&filter)).expect("get");
        let xml = reply.data().unwrap_or_default();
        let mut from_json = Leaves::new();
        json_leaves(&json, "", &mut from_json);
        let from_xml = xml_leaves(xml);
        assert!(!from_xml.is_empty(), "{command}: the lab has data");
        assert_eq!(without_moving(from_json), without_moving(from_xml), "{command}");
    }
    // --xml prints the data itself.
    let o = run(home.pfcsh(lab.port, &lab.password_file).arg("--xml"), &["show dcbx lab3"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains(">neither-willing</reason>"), "{}", stdout(&o));
}

#[test]
fn a_script_exits_non_zero_after_an_error_and_stops_there() {
    let lab = Lab::start("[lab]\ntraffic = false\n");
    let home = Home::new();
    let o = run(&mut home.pfcsh(lab.port, &lab.password_file), &["show bogus", "show dcbx lab0"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("unknown command `show bogus`"), "{}", stderr(&o));
    assert!(!stdout(&o).contains("admin PFC enable"), "later commands did not run");
    // Commands from stdin, a good one: exit 0.
    let mut cmd = home.pfcsh(lab.port, &lab.password_file);
    cmd.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    use std::io::Write as _;
    child.stdin.take().expect("stdin").write_all(b"show interfaces pfc\n").expect("write");
    let o = child.wait_with_output().expect("output");
    assert!(o.status.success());
    assert!(stdout(&o).contains("lab3"), "{}", stdout(&o));
}
