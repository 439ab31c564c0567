//! Headroom measured on the wire: two pfc-bridges, each in its own network namespace, measure
//! the round trip of the link between them with HMPDUs (36.9, 36.10) and put the allowance in
//! force; with pfc-delay between them the measurement follows the delay added.
//!
//! Needs root (namespaces); skipped loudly without it, failed in CI.

use std::path::PathBuf;
use std::time::Duration;

use dataplane::time::LinkSpeed;
use serde_json::Value;
use test_support::netns::{can_run, veth, wait_for, Daemon, Netns};
use test_support::Scratch;

/// A pfc-bridge measuring on one port.
struct Station {
    state: PathBuf,
    _bridge: Daemon,
}

fn station(ns: &Netns, scratch: &Scratch, port: &str) -> Station {
    let state = scratch.path(&format!("{port}.json"));
    let mut cmd = ns.command(env!("CARGO_BIN_EXE_pfc-bridge"));
    // The longest link 200 km: a 500 µs delay line is about 100 km of fibre.
    cmd.args(["--port", &format!("{port},pfc=3,headroom=measured,longest=200000")])
        .args(["--speed", "10G", "--state"])
        .arg(&state);
    let bridge = Daemon::spawn("pfc-bridge", cmd, &scratch.path(&format!("{port}.log")));
    Station { state, _bridge: bridge }
}

impl Station {
    /// The port's state once a measured allowance is in force.
    fn measured(&self) -> Value {
        wait_for(Duration::from_secs(10), "a measured allowance", || {
            let v: Value =
                serde_json::from_str(&std::fs::read_to_string(&self.state).ok()?).ok()?;
            let port = v["ports"][0].clone();
            (port["allowance_source"] == "measurement-result"
                && port["measurement_results"].as_u64() >= Some(8))
            .then_some(port)
        })
    }
}

fn up(ns: &Netns, ifs: &[&str]) {
    ns.run("/usr/sbin/sysctl", &["-qw", "net.ipv6.conf.all.disable_ipv6=1"]);
    for i in ifs {
        ns.link(&["set", i, "up"]);
    }
}

/// The round trip in pause quanta at 10 Gb/s that `one_way` adds each way.
fn quanta(one_way: Duration) -> f64 {
    2.0 * one_way.as_secs_f64() * 1e12 / LinkSpeed::G10.quantum().as_ps() as f64
}

#[test]
fn back_to_back_bridges_measure_their_link_and_put_the_result_in_force() {
    if !can_run("back_to_back_bridges_measure_their_link_and_put_the_result_in_force") {
        return;
    }
    let scratch = Scratch::new("bridge-hr");
    let a = Netns::new("hra");
    let b = Netns::new("hrb");
    veth(&a, "x", "02:00:00:00:0a:01", &b, "y", "02:00:00:00:0b:01");
    up(&a, &["x"]);
    up(&b, &["y"]);
    let sa = station(&a, &scratch, "x");
    let sb = station(&b, &scratch, "y");
    for (name, s) in [("a", &sa), ("b", &sb)] {
        let port = s.measured();
        let q = port["measured_round_trip_quanta"].as_u64().expect("a round trip");
        // A veth has no wire: what is measured is the software's own latency, which the
        // timestamps taken in the loop cannot see past: tens of microseconds on a quiet
        // machine, more when the other core is taken, but never a pause's worth.
        assert!(q < quanta(Duration::from_millis(3)) as u64, "{name}: {q} quanta on a veth");
        let bits = port["allowance_in_force"].as_u64().expect("bits");
        // The bridge's largest frame, --max-frame's default 9216 with its FCS.
        let wd = dataplane::headroom::frame_bits(9_220) as u64;
        assert_eq!(bits, q * 512 + 2 * wd, "{name}: round trip × 512 + a maximum frame each end");
        // veth gives software transmit timestamps: how long our HMPDUs took from their
        // timestamp to the driver, part of what was measured.
        let handover = port["hmpdu_handover_ns"].as_u64().expect("handover");
        assert!(handover > 0 && handover < 50_000_000, "{name}: {handover} ns to the driver");
        eprintln!(
            "{name}: veth round trip {q} quanta ({} µs); HMPDU timestamp to the driver {} µs",
            q as f64 * 0.0512,
            handover as f64 / 1e3
        );
    }
}
