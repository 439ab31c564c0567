//! pfcd with `data-plane = "nic"` on interfaces whose driver has no DCB operations (veth):
//! it refuses to start, naming each interface and the two other kinds of port, and changes
//! nothing (no state directory, the interfaces as they were).

use std::process::{Command, Stdio};
use std::time::Duration;

use test_support::netns::{can_run, wait_for, Netns};
use test_support::{program, Scratch};

/// How the interfaces look from outside: everything `ip -d link` says, counters aside.
fn interfaces_of(ns: &Netns) -> String {
    let out = Command::new("/usr/sbin/ip")
        .args(["-n", &ns.name, "-d", "link", "show"])
        .output()
        .expect("ip link show");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn on_veth_pfcd_in_nic_mode_refuses_to_start_naming_the_interfaces_and_changes_nothing() {
    if !can_run(
        "on_veth_pfcd_in_nic_mode_refuses_to_start_naming_the_interfaces_and_changes_nothing",
    ) {
        return;
    }
    let ns = Netns::new("nic");
    ns.link(&["add", "nicv0", "type", "veth", "peer", "name", "nicv1"]);
    ns.link(&["set", "nicv1", "up"]);
    let scratch = Scratch::new("pfcd-nic");
    let settings = scratch.path("pfcd.toml");
    std::fs::write(
        &settings,
        "ports = \"interfaces\"\n[interfaces]\nnames = [\"nicv0\", \"nicv1\"]\ndata-plane = \"nic\"\n",
    )
    .expect("settings");
    let before = interfaces_of(&ns);

    let mut pfcd = ns
        .command(program("pfcd"))
        .arg("--config")
        .arg(&settings)
        .args(["--listen", "127.0.0.1:0", "--state-dir"])
        .arg(scratch.path("state"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("pfcd starts");
    // A pfcd that did start would serve until stopped: the wait is only a guard against that.
    let status = wait_for(Duration::from_secs(60), "pfcd to refuse", || {
        pfcd.try_wait().expect("wait for pfcd")
    });
    let out = pfcd.wait_with_output().expect("pfcd's output");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);

    assert!(!status.success(), "pfcd started: {stdout}{stderr}");
    assert!(!stdout.contains("pfcd ready"), "{stdout}");
    for interface in ["nicv0", "nicv1"] {
        assert!(
            stderr.contains(&format!("{interface} has no DCB operations")),
            "names {interface}: {stderr}"
        );
    }
    assert!(stderr.contains("EOPNOTSUPP"), "says why: {stderr}");
    assert!(stderr.contains("data-plane = \"bridge\""), "names the software bridge: {stderr}");
    assert!(stderr.contains("ports = \"lab\""), "names the lab: {stderr}");
    assert!(!scratch.path("state").exists(), "a state directory was made");
    assert_eq!(interfaces_of(&ns), before, "the interfaces were changed");
}
