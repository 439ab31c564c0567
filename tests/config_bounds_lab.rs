//! Every numeric configuration leaf of pfcd's modules, committed at its bounds on the default
//! lab: its minimum, its maximum and the values just outside them. The leaves and their ranges
//! come from the compiled schema (yanglint's `info` output of the modules pfcd loads, with the
//! augments in place), not from a list kept by hand, so a new leaf is tried as soon as it is
//! written. After each value the daemon must have answered (`<ok/>` or an rpc-error with a
//! message; a reply that takes longer than the client's time-out fails the test) and its RSS
//! must stay within [`RSS_GROWTH_KIB`] of what it was at start.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use mgmt::yang::model::Model;
use mgmt::yang::schema::Schema;
use netconf_client::{Client, Datastore};
use test_support::lab::LabPfcd;

/// pfcd's own modules: their numeric configuration leaves are the ones tried.
const OURS: [&str; 5] = [
    "ieee802-dot1q-pfc",
    "ieee802-dot1q-pfc-bridge",
    "ieee802-dot1q-lldp-pfc-tlv",
    "pfcd-pipeline",
    "pfcd-lab",
];

/// How far pfcd's RSS may grow above its size at start while the leaves are tried: 128 MiB,
/// some hundred times what the largest legal pipeline (4096 FDs of credit per port) needs, and
/// far below what a configured value that sizes memory without a bound takes in a second.
const RSS_GROWTH_KIB: u64 = 128 * 1024;

/// How long a committed value is watched for memory growth before the next one.
const WATCH: Duration = Duration::from_millis(400);

/// The key values the walk gives the lists on a leaf's path: a lab port, a priority, LLDP's
/// nearest-bridge address.
const KEYS: [(&str, &str); 3] =
    [("name", "lab0"), ("priority", "3"), ("dest-mac-address", "01-80-C2-00-00-0E")];

fn yang() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("yang")
}

/// One numeric configuration leaf: its path of (name, keys) from the top, and its range.
#[derive(Debug, Clone)]
struct NumericLeaf {
    path: Vec<(String, Vec<String>)>,
    base: String,
    range: Option<String>,
}

/// A node of the compiled schema as yanglint prints it (`info` format).
#[derive(Debug, Default)]
struct Block {
    keyword: String,
    name: String,
    keys: Vec<String>,
    base: Option<String>,
    range: Option<String>,
    config: Option<bool>,
}

/// The leaves of yanglint's `info` output with a numeric type and `config true`.
fn numeric_config_leaves(info: &str) -> Vec<NumericLeaf> {
    let mut stack: Vec<Block> = Vec::new();
    let mut leaves = Vec::new();
    let mut in_string = false;
    for raw in info.lines() {
        let line = raw.trim();
        let quotes = line.matches('"').count() - line.matches("\\\"").count();
        if in_string {
            in_string = quotes % 2 == 0;
            continue;
        }
        if quotes % 2 == 1 {
            in_string = true;
            continue;
        }
        if let Some(head) = line.strip_suffix('{') {
            let mut words = head.split_whitespace();
            let keyword = words.next().unwrap_or_default().to_string();
            let name = words.collect::<Vec<_>>().join(" ").trim_matches('"').to_string();
            if keyword == "type" {
                if let Some(leaf) = stack.last_mut().filter(|b| b.keyword == "leaf") {
                    leaf.base.get_or_insert(name.clone());
                }
            }
            stack.push(Block { keyword, name, ..Block::default() });
            continue;
        }
        if line == "}" {
            let Some(done) = stack.pop() else { continue };
            if done.keyword == "leaf" && done.config == Some(true) {
                let base = done.base.clone().unwrap_or_default();
                if is_numeric(&base) {
                    let path = stack
                        .iter()
                        .filter(|b| b.keyword == "container" || b.keyword == "list")
                        .map(|b| (b.name.clone(), b.keys.clone()))
                        .chain([(done.name.clone(), Vec::new())])
                        .collect();
                    leaves.push(NumericLeaf { path, base, range: done.range });
                }
            }
            continue;
        }
        let Some(statement) = line.strip_suffix(';') else { continue };
        let (word, arg) = statement.split_once(' ').unwrap_or((statement, ""));
        let arg = arg.trim().trim_matches('"');
        match (word, stack.len()) {
            ("range", n) if n >= 2 && stack[n - 2].keyword == "leaf" => {
                stack[n - 2].range.get_or_insert(arg.to_string());
            }
            // A type without a restriction is a one-line statement.
            ("type", _) => {
                if let Some(leaf) = stack.last_mut().filter(|b| b.keyword == "leaf") {
                    leaf.base.get_or_insert(arg.to_string());
                }
            }
            ("config", _) => {
                if let Some(b) = stack.last_mut() {
                    b.config = Some(arg == "true");
                }
            }
            ("key", _) => {
                if let Some(b) = stack.last_mut().filter(|b| b.keyword == "list") {
                    b.keys = arg.split_whitespace().map(str::to_string).collect();
                }
            }
            _ => {}
        }
    }
    leaves
}

fn is_numeric(base: &str) -> bool {
    matches!(base, "uint8" | "uint16" | "uint32" | "uint64" | "int8" | "int16" | "int32" | "int64")
}

/// The values a type can hold at all.
fn type_limits(base: &str) -> (i128, i128) {
    match base {
        "uint8" => (0, u8::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        "uint64" => (0, u64::MAX.into()),
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        _ => (i64::MIN.into(), i64::MAX.into()),
    }
}

/// The minimum, the maximum and the values just outside them (which YANG refuses, or the type
/// cannot hold at all).
fn bound_values(leaf: &NumericLeaf) -> Vec<i128> {
    let (tmin, tmax) = type_limits(&leaf.base);
    let parse = |t: &str| match t.trim() {
        "min" => tmin,
        "max" => tmax,
        v => v.parse().unwrap_or_else(|_| panic!("a bound of {leaf:?}")),
    };
    let (min, max) = match &leaf.range {
        None => (tmin, tmax),
        Some(r) => {
            let parts: Vec<&str> = r.split('|').collect();
            let lo = parts.first().and_then(|p| p.split("..").next()).map_or(tmin, parse);
            let hi = parts.last().and_then(|p| p.split("..").last()).map_or(tmax, parse);
            (lo, hi)
        }
    };
    vec![min - 1, min, max, max + 1]
}

/// Each step's element name with its namespace, from mgmt's model of the same modules.
fn namespaces(model: &Model, leaf: &NumericLeaf) -> Vec<String> {
    let mut out = Vec::new();
    let (first, _) = &leaf.path[0];
    let mut node = model
        .tops()
        .find(|n| n.name == *first)
        .unwrap_or_else(|| panic!("{first} is a top-level node"))
        .clone();
    out.push(node.namespace.clone());
    for (name, _) in &leaf.path[1..] {
        node = node.child_any_ns(name).unwrap_or_else(|| panic!("{name} in {leaf:?}")).clone();
        out.push(node.namespace.clone());
    }
    out
}

/// Whether the leaf itself is defined by one of pfcd's modules.
fn ours(model: &Model, leaf: &NumericLeaf) -> bool {
    let (first, _) = &leaf.path[0];
    let Some(mut node) = model.tops().find(|n| n.name == *first).cloned() else { return false };
    for (name, _) in &leaf.path[1..] {
        match node.child_any_ns(name) {
            Some(n) => node = n.clone(),
            None => return false,
        }
    }
    OURS.contains(&node.module.as_str())
}

/// The configuration that sets `leaf` to `value` (or, with `value` `None`, removes it).
fn edit(leaf: &NumericLeaf, ns: &[String], value: Option<&str>) -> String {
    let mut open = String::new();
    let mut close = String::new();
    let last = leaf.path.len() - 1;
    let mut parent_ns = "";
    for (i, ((name, keys), ns)) in leaf.path.iter().zip(ns).enumerate() {
        let xmlns = if ns != parent_ns { format!(" xmlns=\"{ns}\"") } else { String::new() };
        parent_ns = ns;
        if i == last {
            match value {
                Some(v) => open.push_str(&format!("<{name}{xmlns}>{v}</{name}>")),
                None => open.push_str(&format!(
                    "<{name}{xmlns} xmlns:nc=\"urn:ietf:params:xml:ns:netconf:base:1.0\" \
                     nc:operation=\"remove\"/>"
                )),
            }
            break;
        }
        open.push_str(&format!("<{name}{xmlns}>"));
        for key in keys {
            let v = KEYS
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| *v)
                .unwrap_or_else(|| panic!("no key value for list {name}'s key {key}: add one"));
            open.push_str(&format!("<{key}>{v}</{key}>"));
        }
        close = format!("</{name}>{close}");
    }
    open + &close
}

fn schema_info() -> String {
    let yang = yang();
    let modules = [
        "ieee802-dot1q-pfc.yang",
        "ieee802-dot1q-pfc-bridge.yang",
        "ieee802-dot1q-lldp-pfc-tlv.yang",
        "pfcd-pipeline.yang",
        "pfcd-lab.yang",
        "pfcd-pfc.yang",
        "standard/ietf-interfaces@2018-02-20.yang",
        "standard/ieee802-dot1ab-lldp@2022-03-15.yang",
    ];
    let out = Command::new("yanglint")
        .current_dir(&yang)
        .args(["-p", "standard", "-F", "ieee802-dot1q-pfc-bridge:priority-flow-control"])
        .args(["-F", "ieee802-dot1q-pfc:automatic-headroom,macsec,privacy,local-delay-tlv"])
        .args(["-f", "info"])
        .args(modules)
        .output()
        .expect("yanglint runs (Debian package yang-tools: scripts/deps.sh installs it)");
    assert!(out.status.success(), "yanglint: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// What happened to one value.
fn try_value(c: &mut Client, config: &str) -> Result<&'static str, String> {
    match c.edit_config(Datastore::Candidate, config, None) {
        Err(netconf_client::Error::Rpc(r)) => {
            c.discard_changes().map_err(|e| format!("discard after a refused edit: {e}"))?;
            let message = r.errors().first().and_then(|e| e.error_message.clone());
            message
                .filter(|m| !m.is_empty())
                .map(|_| "refused by edit-config")
                .ok_or_else(|| format!("an edit-config refusal without a message: {}", r.raw()))
        }
        Err(e) => Err(format!("edit-config: {e}")),
        Ok(()) => match c.commit() {
            Ok(()) => Ok("committed"),
            Err(netconf_client::Error::Rpc(r)) => {
                c.discard_changes().map_err(|e| format!("discard after a refused commit: {e}"))?;
                let message = r.errors().first().and_then(|e| e.error_message.clone());
                message
                    .filter(|m| !m.is_empty())
                    .map(|_| "refused by commit")
                    .ok_or_else(|| format!("a commit refusal without a message: {}", r.raw()))
            }
            Err(e) => Err(format!("commit: {e}")),
        },
    }
}

#[test]
fn every_numeric_configuration_leaf_at_its_bounds_is_answered_and_memory_stays_bounded() {
    let schema = Schema::new(&[yang(), yang().join("standard")], &[]).expect("the modules load");
    let model = schema.model();
    let leaves: Vec<NumericLeaf> =
        numeric_config_leaves(&schema_info()).into_iter().filter(|l| ours(model, l)).collect();
    // The walk found the pipeline's and the PFC model's leaves (a broken parse finds none).
    let names: Vec<String> =
        leaves.iter().map(|l| l.path.last().expect("a leaf").0.clone()).collect();
    for expected in ["port-credit", "write-latency", "pfc-link-delay-allowance", "cable-length"] {
        assert!(names.iter().any(|n| n == expected), "{expected} among {names:?}");
    }

    let mut pfcd = LabPfcd::start("pfcd-config-bounds");
    let mut c = pfcd.client_within(Duration::from_secs(20));
    let start_rss = pfcd.rss_kib().expect("pfcd runs");
    let mut outcomes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for leaf in &leaves {
        let ns = namespaces(model, leaf);
        let name = leaf.path.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join("/");
        for value in bound_values(leaf) {
            let text = value.to_string();
            let outcome = try_value(&mut c, &edit(leaf, &ns, Some(&text)))
                .unwrap_or_else(|e| panic!("{name} = {text}: {e}\n{}", pfcd.log_text()));
            if outcome == "committed" {
                let watched = Instant::now();
                while watched.elapsed() < WATCH {
                    let rss = pfcd.rss_kib().unwrap_or_else(|| {
                        panic!("pfcd died after {name} = {text}\n{}", pfcd.log_text())
                    });
                    assert!(
                        rss <= start_rss + RSS_GROWTH_KIB,
                        "{name} = {text}: RSS {rss} KiB, {start_rss} KiB at start"
                    );
                    std::thread::sleep(Duration::from_millis(50));
                }
                // Back to the default for the next leaf.
                c.edit_config(Datastore::Candidate, &edit(leaf, &ns, None), None)
                    .and_then(|()| c.commit())
                    .unwrap_or_else(|e| panic!("{name} removed again: {e}"));
            }
            assert!(pfcd.alive(), "pfcd still runs after {name} = {text}");
            outcomes.entry(name.clone()).or_default().push(format!("{text}: {outcome}"));
        }
    }
    // Just outside the bounds is never taken.
    for leaf in &leaves {
        let name = leaf.path.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join("/");
        let tried = &outcomes[&name];
        assert!(!tried[0].ends_with("committed"), "{name}: {tried:?}");
        assert!(!tried[3].ends_with("committed"), "{name}: {tried:?}");
    }
    let rss = pfcd.rss_kib().expect("pfcd runs");
    eprintln!(
        "{} numeric leaves tried; RSS {start_rss} KiB at start, {rss} KiB at the end: {outcomes:#?}",
        leaves.len()
    );
}
