//! `scripts/fabric-ring.sh`, the bed an operator builds to watch Figure 36-7's deadlock: `up`
//! makes three pfcd bridges in a ring with a host each, routed and configured; `view` (pfc-fabric)
//! finds the ring from the bridges' LLDP over the management links; `pfcsh N` and `watchdog`
//! configure them; `down` leaves nothing behind. (The deadlock itself on this ring is
//! `tools/fabric/tests/ring_deadlock_netns.rs`.)
//!
//! Needs root (namespaces); skipped loudly without it, failed in CI.

use std::path::Path;
use std::process::{Command, Output};

use test_support::netns::can_run;
use test_support::{program, Scratch};

/// The script with `args`, on this build's programs, in `dir`, with namespaces of its own.
fn script(dir: &Path, prefix: &str, args: &[&str]) -> Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = program("pfcd");
    let target = bin.parent().and_then(Path::parent).expect("target/<profile>/pfcd");
    let profile = bin.parent().and_then(Path::file_name).expect("a profile directory");
    Command::new(root.join("scripts/fabric-ring.sh"))
        .args(args)
        .env("CARGO_TARGET_DIR", target)
        .env("PROFILE", profile)
        .env("FABRIC_RING_NO_BUILD", "1")
        .env("FABRIC_RING_DIR", dir)
        .env("FABRIC_RING_PREFIX", prefix)
        .env("FABRIC_RING_NET", "10.98")
        .output()
        .expect("the script runs")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[test]
fn the_fabric_ring_script_builds_a_ring_the_fabric_view_finds_and_leaves_nothing_behind() {
    if !can_run(
        "the_fabric_ring_script_builds_a_ring_the_fabric_view_finds_and_leaves_nothing_behind",
    ) {
        return;
    }
    let scratch = Scratch::new("fabric-ring-script");
    let dir = scratch.path("bed");
    let prefix = format!("fs{}", std::process::id() % 1000);
    let up = script(&dir, &prefix, &["up"]);
    assert!(up.status.success(), "up: {}", text(&up));

    // The view finds the three bridges and exactly the ring's three links from their LLDP
    // (the first LLDPDUs may take a moment after start: a few tries).
    let mut links = Vec::new();
    for _ in 0..20 {
        let view = script(&dir, &prefix, &["view", "--json"]);
        assert!(view.status.success(), "view: {}", text(&view));
        let v: serde_json::Value = serde_json::from_slice(&view.stdout).expect("JSON");
        links = v["links"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|l| {
                let end = |e: &serde_json::Value| format!("{}:{}", e["device"], e["port"]);
                let mut ends = [end(&l["a"]), end(&l["b"])];
                ends.sort();
                ends.join(" ").replace('"', "")
            })
            .collect();
        links.sort();
        if links.len() == 3 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    assert_eq!(links, ["b1:ccw b3:cw", "b1:cw b2:ccw", "b2:cw b3:ccw"]);

    // Each bridge runs PFC on priority 3 on its three ports, with the watchdog off until asked.
    let pfc = script(&dir, &prefix, &["pfcsh", "2", "--plain", "-c", "show interfaces pfc"]);
    assert!(pfc.status.success(), "pfcsh: {}", text(&pfc));
    let rows: Vec<String> =
        String::from_utf8_lossy(&pfc.stdout).lines().skip(1).map(str::to_string).collect();
    assert_eq!(rows.len(), 3, "{rows:?}");
    for r in &rows {
        assert_eq!(r.split_whitespace().nth(1), Some("3"), "PFC on priority 3: {r}");
    }
    let watchdog = |dir: &Path| {
        let o = script(dir, &prefix, &["pfcsh", "1", "-c", "show configuration interfaces"]);
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| l.contains("pfc-watchdog enabled"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert!(watchdog(&dir).iter().all(|l| l.ends_with("false")), "{:?}", watchdog(&dir));
    let on = script(&dir, &prefix, &["watchdog", "on"]);
    assert!(on.status.success(), "watchdog on: {}", text(&on));
    let lines = watchdog(&dir);
    assert!(lines.len() == 3 && lines.iter().all(|l| l.ends_with("true")), "{lines:?}");

    let down = script(&dir, &prefix, &["down"]);
    assert!(down.status.success(), "down: {}", text(&down));
    let left = Command::new("ip").args(["netns", "list"]).output().expect("ip netns");
    let left = String::from_utf8_lossy(&left.stdout);
    assert!(!left.contains(&format!("{prefix}-")), "namespaces left behind: {left}");
    assert!(!dir.exists(), "the bed's directory is gone");
}
