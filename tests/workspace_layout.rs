//! The workspace's layout holds: the tools (`tools/`) are leaves that nothing else builds on,
//! and the operator's shell does not link the NETCONF server to talk to it. Read from
//! `cargo metadata`, the same graph cargo builds.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// This machine's target triple: the resolve is read for it alone, so that packages only other
/// platforms need (and that were never downloaded) are not asked for.
fn host() -> String {
    let out = Command::new("rustc").arg("-vV").output().expect("rustc -vV runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let host = text.lines().find_map(|l| l.strip_prefix("host: ")).expect("rustc names its host");
    host.trim().to_string()
}

fn metadata() -> Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--offline", "--filter-platform", &host()])
        .current_dir(root)
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

/// The workspace's packages: name → manifest directory relative to the workspace root.
fn members(meta: &Value) -> HashMap<String, String> {
    let root = text(&meta["workspace_root"]).to_string();
    let ids: BTreeSet<&str> =
        meta["workspace_members"].as_array().into_iter().flatten().map(text).collect();
    meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| ids.contains(text(&p["id"])))
        .map(|p| {
            let dir = Path::new(text(&p["manifest_path"])).parent().unwrap_or(Path::new(""));
            let relative = dir.strip_prefix(&root).unwrap_or(dir).to_string_lossy().into_owned();
            (text(&p["name"]).to_string(), relative)
        })
        .collect()
}

#[test]
fn no_crate_but_a_tool_builds_on_a_tool() {
    let meta = metadata();
    let members = members(&meta);
    let is_tool = |name: &str| members.get(name).is_some_and(|dir| dir.starts_with("tools/"));
    let tools: Vec<_> = members.keys().filter(|n| is_tool(n)).collect();
    assert!(tools.len() >= 3, "the tools are under tools/: {members:?}");
    let mut offenders = Vec::new();
    for package in meta["packages"].as_array().into_iter().flatten() {
        let name = text(&package["name"]);
        if !members.contains_key(name) || is_tool(name) {
            continue;
        }
        for dep in package["dependencies"].as_array().into_iter().flatten() {
            if is_tool(text(&dep["name"])) {
                offenders.push(format!("{name} → {}", text(&dep["name"])));
            }
        }
    }
    assert!(offenders.is_empty(), "crates that build on a tool: {offenders:?}");
}

/// Every package `from` depends on for building (not for its tests), transitively.
fn normal_closure(meta: &Value, from: &str) -> BTreeSet<String> {
    let nodes = meta["resolve"]["nodes"].as_array().expect("resolve nodes");
    let by_id: HashMap<&str, &Value> = nodes.iter().map(|n| (text(&n["id"]), n)).collect();
    let names: HashMap<&str, &str> = meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| (text(&p["id"]), text(&p["name"])))
        .collect();
    let start = names.iter().find(|(_, n)| **n == from).map(|(id, _)| *id).expect("package");
    let mut seen = BTreeSet::new();
    let mut stack = vec![start];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        for dep in by_id[id]["deps"].as_array().into_iter().flatten() {
            let normal = dep["dep_kinds"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|k| k["kind"].is_null() || text(&k["kind"]) == "build");
            if normal {
                stack.push(text(&dep["pkg"]));
            }
        }
    }
    seen.iter().map(|id| names[id].to_string()).collect()
}

#[test]
fn pfcsh_does_not_link_the_netconf_server() {
    let meta = metadata();
    let linked = normal_closure(&meta, "pfcsh");
    let server: Vec<_> =
        ["russh", "sled", "mimalloc", "mgmt"].into_iter().filter(|p| linked.contains(*p)).collect();
    assert!(server.is_empty(), "pfcsh links the server's {server:?}");
}
