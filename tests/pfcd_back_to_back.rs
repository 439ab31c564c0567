//! Two pfcd back to back on a veth pair, each in its own network namespace: LLDP/DCBX between
//! them agrees on PFC and on measuring the headroom (both advertise RTM HDRM, headroom/method
//! dcbx-negotiated), both measure the link with HMPDUs and put the result in force.
//!
//! Needs root (namespaces); skipped loudly without it, failed in CI.

mod common;

use common::netns::{can_run, veth, Netns};
use common::pfcd::*;
use common::Scratch;

fn up(ns: &Netns, interface: &str) {
    ns.run("/usr/sbin/sysctl", &["-qw", "net.ipv6.conf.all.disable_ipv6=1"]);
    ns.link(&["set", interface, "up"]);
}

#[test]
fn two_pfcd_agree_by_dcbx_and_both_measure_their_link() {
    if !can_run("two_pfcd_agree_by_dcbx_and_both_measure_their_link") {
        return;
    }
    let (sa, sb) = (Scratch::new("b2b-a"), Scratch::new("b2b-b"));
    let (a, b) = (Netns::new("b2ba"), Netns::new("b2bb"));
    veth(&a, "x", "02:00:00:00:0a:01", &b, "y", "02:00:00:00:0b:01");
    up(&a, "x");
    up(&b, "y");
    let (pa, pb) = (start_pfcd(&a, &sa, &["x"]), start_pfcd(&b, &sb, &["y"]));
    let (mut ca, mut cb) = (pa.client(&a), pb.client(&b));
    // Both the same PFC Enable, neither willing: DCBX agrees without a misconfiguration; the
    // headroom method is the YANG default, dcbx-negotiated.
    commit_pfc(&mut ca, &["x"], "<pfc-enable>p3</pfc-enable>");
    commit_pfc(&mut cb, &["y"], "<pfc-enable>p3</pfc-enable>");
    for (c, port) in [(&mut ca, "x"), (&mut cb, "y")] {
        let pfc = wait_state(c, port, "DCBX agrees and the measurement is in force", |p| {
            value(p, "allowance-source").as_deref() == Some("pfc:measured")
        });
        assert_eq!(value(&pfc, "oper-pfc-enable").as_deref(), Some("p3"), "{pfc}");
        assert_eq!(value(&pfc, "method-in-force").as_deref(), Some("pfc:measured"), "{pfc}");
        let round_trip = number(&pfc, "round-trip");
        // A veth: the software's own latency, a few microseconds (51.2 ns a quantum at 10G).
        assert!(round_trip > 0 && round_trip < 2_000, "{port}: {round_trip} quanta: {pfc}");
        let wd = dataplane::headroom::frame_bits(2000) as u64;
        assert_eq!(number(&pfc, "allowance-in-force"), round_trip * 512 + 2 * wd, "{pfc}");
        eprintln!("{port}: measured round trip {round_trip} quanta");
    }
    // Each sees the other as its LLDP neighbour.
    let lldp = ca
        .get(Some(
            "<lldp xmlns=\"urn:ieee:std:802.1AB:yang:ieee802-dot1ab-lldp\"><port><name>x</name>\
             <remote-systems-data/></port></lldp>",
        ))
        .expect("get");
    let data = lldp.data().unwrap_or_default();
    assert_eq!(value(data, "chassis-id").as_deref(), Some("02-00-00-00-0B-01"), "{data}");
    assert_eq!(value(data, "port-id").as_deref(), Some("y"), "{data}");
}
