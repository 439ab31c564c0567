//! pfc-lldp under an LLDP flood: a raw socket on the far end of a veth pair sends, for 10 s and
//! as fast as it can, LLDPDUs of 700 zero-length System Capabilities TLVs (each one malformed).
//! The agent counts every TLV, its log stays short (rate-limited per port and kind, with a
//! summary of what it left out), and the flooder stays its neighbour.
//!
//! Needs root (namespaces); skipped loudly without it, failed in CI.

use std::time::{Duration, Instant};

use dataplane::io::{FramePort, PacketSocket};
use dataplane::wire::{EtherType, MacAddr};
use lldp::wire::NEAREST_BRIDGE;
use test_support::lldp_frames::malformed_tlvs;
use test_support::netns::{can_run, in_netns, veth, wait_for, Netns};
use test_support::pfc_lldp::Agent;
use test_support::Scratch;

#[test]
fn a_flood_of_malformed_tlvs_leaves_pfc_lldps_log_short_and_every_tlv_counted() {
    if !can_run("a_flood_of_malformed_tlvs_leaves_pfc_lldps_log_short_and_every_tlv_counted") {
        return;
    }
    let scratch = Scratch::new("lldp-flood");
    let (a, b) = (Netns::new("lfa"), Netns::new("lfb"));
    veth(&a, "lldpa", "02:00:00:00:00:0a", &b, "lldpb", "02:00:00:00:00:0b");
    a.link(&["set", "lldpa", "up"]);
    b.link(&["set", "lldpb", "up"]);
    let config = "[lldp]\n[pfc]\nwilling = false\nenable = [3]\n[[port]]\nname = \"lldpb\"\n";
    let agent = Agent::start(&b, &scratch, "b", config);
    wait_for(Duration::from_secs(3), "B's port up", || {
        agent.port("lldpb").filter(|p| p["port-enabled"] == true)
    });
    let before = agent.log().lines().count();

    let frame = malformed_tlvs(MacAddr([0x02, 0, 0, 0, 0, 0x0a]), "fl0", "flooder", 700);
    let mut socket =
        in_netns(&a, || PacketSocket::open("lldpa", EtherType::LLDP, &[NEAREST_BRIDGE]))
            .expect("raw socket");
    let start = Instant::now();
    let mut sent = 0u64;
    while start.elapsed() < Duration::from_secs(10) {
        if socket.send(&frame).is_ok() {
            sent += 1;
        } else {
            std::thread::yield_now();
        }
    }

    let p = wait_for(Duration::from_secs(5), "the flood's TLVs counted", || {
        agent.port("lldpb").filter(|p| {
            let rx = &p["rx-statistics"];
            rx["total-discarded-tlvs"].as_u64() == rx["total-frames"].as_u64().map(|n| n * 700)
                && rx["total-frames"].as_u64() > Some(1)
        })
    });
    let lines = agent.log().lines().count() - before;
    let rx = &p["rx-statistics"];
    eprintln!("flood: {sent} LLDPDUs sent in 10 s; pfc-lldp counted {rx}; {lines} log lines");
    let log = agent.log();
    let tail: Vec<&str> = log.lines().rev().take(20).collect();
    assert!(lines < 100, "{lines} log lines during the flood; the last: {tail:#?}");
    let neighbours = p["neighbours"].as_array().expect("a list");
    assert_eq!(neighbours.len(), 1, "the flooder is the neighbour: {neighbours:?}");
    assert_eq!(neighbours[0]["system-name"], "flooder");
}
