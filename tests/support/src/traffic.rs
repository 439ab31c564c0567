//! pfc-traffic run by a test: started in a namespace, its JSON report read when it ends.

use std::ffi::OsStr;
use std::process::{Child, Stdio};

use serde_json::Value;

use super::netns::Netns;

/// `program` (pfc-traffic, or a wrapper such as chrt in front of it) with `args` in `ns`, its
/// report on stdout.
pub fn spawn_in(ns: &Netns, program: impl AsRef<OsStr>, args: &[&str]) -> Child {
    ns.command(program)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("pfc-traffic starts")
}

/// pfc-traffic with `args` in `ns`.
pub fn spawn(ns: &Netns, args: &[&str]) -> Child {
    spawn_in(ns, super::program("pfc-traffic"), args)
}

/// pfc-traffic sending `flow` (PRIORITY:RATE:SIZE) from `ns`'s `eth0` to `dst` (a MAC address
/// written with colons) on VLAN 10 (what static filtering entries in tests name) for
/// `duration`, its JSON report on stdout.
pub fn send_on_vlan_10(ns: &Netns, flow: &str, dst: &str, duration: &str) -> Child {
    spawn(
        ns,
        &[
            "send",
            "-i",
            "eth0",
            "--flow",
            flow,
            "--dst",
            dst,
            "--vid",
            "10",
            "--duration",
            duration,
            "--json",
        ],
    )
}

/// The JSON report of a pfc-traffic run (`what` names it in a failure), once it has ended well.
pub fn report(child: Child, what: &str) -> Value {
    let out = child.wait_with_output().expect("wait");
    assert!(out.status.success(), "{what}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{what} JSON: {e}"))
}

/// A count in a report.
pub fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}
