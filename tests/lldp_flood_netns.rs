//! pfcd on real interfaces under an LLDP flood: h1 eth0 — p1 [pfcd] p2 — eth0 h2, each a
//! network namespace. h2 is an LLDP neighbour; h1 floods p1 for 10 s, as fast as it can, with
//! LLDPDUs of 700 zero-length System Capabilities TLVs (each one malformed). pfcd's log stays
//! short (rate-limited per port and kind), h2 stays p2's neighbour, NETCONF answers within 1 s
//! throughout, and p1's counters count the flood. Apart from floods, every LLDPDU received is
//! counted in `rx-statistics/total-frames`, refreshes that change nothing included.
//!
//! Needs root (namespaces); skipped loudly without it, failed in CI.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use dataplane::io::RawPort;
use netconf_client::Client;
use test_support::hosts::*;
use test_support::lldp_frames::{lldpdu, malformed_tlvs};
use test_support::netns::can_run;
use test_support::pfcd::*;
use test_support::Scratch;

const LLDP_NS: &str = "urn:ieee:std:802.1AB:yang:ieee802-dot1ab-lldp";

/// Port `port`'s LLDP state (counters and neighbours).
fn lldp_port(c: &mut Client, port: &str) -> String {
    let filter = format!("<lldp xmlns=\"{LLDP_NS}\"><port><name>{port}</name></port></lldp>");
    c.get(Some(&filter)).expect("get").data().unwrap_or_default().to_string()
}

/// The `rx-statistics` of an LLDP port's state.
fn rx_statistics(port: &str) -> String {
    let at = port.find("<rx-statistics>").unwrap_or_else(|| panic!("rx-statistics in {port}"));
    let end = port[at..].find("</rx-statistics>").map_or(port.len(), |e| at + e);
    port[at..end].to_string()
}

fn wait_lldp(c: &mut Client, port: &str, what: &str, ready: impl Fn(&str) -> bool) -> String {
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let state = lldp_port(c, port);
        if ready(&state) {
            return state;
        }
        assert!(Instant::now() < end, "{port}: {what} within 10 s: {state}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn log_lines(scratch: &Scratch) -> usize {
    std::fs::read_to_string(scratch.path("pfcd.log")).unwrap_or_default().lines().count()
}

/// pfcd's resident set (`VmRSS` of /proc/PID/status), kB.
fn rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

#[test]
fn every_lldpdu_received_is_counted_in_total_frames() {
    if !can_run("every_lldpdu_received_is_counted_in_total_frames") {
        return;
    }
    let scratch = Scratch::new("lldp-count");
    let Hosts { mut h2, h1_ns: _h1_ns, sw, h2_ns: _h2_ns, .. } = hosts("lcnt");
    let pfcd = start_pfcd(&sw, &scratch, &["p1", "p2"]);
    let mut c = pfcd.client(&sw);
    let frame = lldpdu(H2, "eth0", "h2");
    send(&mut h2, &frame);
    wait_lldp(&mut c, "p2", "h2 a neighbour", |s| s.contains("<system-name>h2<"));
    // The new neighbour's fast burst (four LLDPDUs a second apart) is over: pfcd has nothing to
    // send for 30 s, so no transmission of its own renews the state meanwhile.
    std::thread::sleep(Duration::from_secs(6));
    let before = number(&rx_statistics(&lldp_port(&mut c, "p2")), "total-frames");
    // The same LLDPDU again and again: refreshes, which change nothing but the counters.
    for _ in 0..20 {
        send(&mut h2, &frame);
        std::thread::sleep(Duration::from_millis(20));
    }
    wait_lldp(&mut c, "p2", "all 20 refreshes counted", |s| {
        number(&rx_statistics(s), "total-frames") == before + 20
    });
}

#[test]
fn a_flood_of_malformed_tlvs_leaves_the_log_short_the_neighbour_and_netconf_answering() {
    if !can_run(
        "a_flood_of_malformed_tlvs_leaves_the_log_short_the_neighbour_and_netconf_answering",
    ) {
        return;
    }
    let scratch = Scratch::new("lldp-flood");
    let Hosts { h1, mut h2, h1_ns: _h1_ns, sw, h2_ns: _h2_ns } = hosts("lfld");
    let pfcd = start_pfcd(&sw, &scratch, &["p1", "p2"]);
    let mut c = pfcd.client(&sw);
    send(&mut h2, &lldpdu(H2, "eth0", "h2"));
    wait_lldp(&mut c, "p2", "h2 a neighbour", |s| s.contains("<system-name>h2<"));
    let lines_before = log_lines(&scratch);
    let rss_before = rss_kb(pfcd.pid());

    let flood = malformed_tlvs(H1, "eth0", "flood", 700);
    assert!(flood.len() <= 1514, "one standard frame: {}", flood.len());
    let stop = AtomicBool::new(false);
    let (sent, slowest) = std::thread::scope(|s| {
        let flooder = s.spawn(|| flood_until(h1, &flood, &stop));
        let started = Instant::now();
        let mut slowest = Duration::ZERO;
        while started.elapsed() < Duration::from_secs(10) {
            let asked = Instant::now();
            let p2 = lldp_port(&mut c, "p2");
            slowest = slowest.max(asked.elapsed());
            assert!(p2.contains("<system-name>h2<"), "h2 stays p2's neighbour: {p2}");
            std::thread::sleep(Duration::from_millis(200));
        }
        stop.store(true, Ordering::Relaxed);
        (flooder.join().expect("flooder"), slowest)
    });

    let p1 = wait_lldp(&mut c, "p1", "the flood counted", |s| {
        number(&rx_statistics(s), "total-discarded-tlvs") >= 700
    });
    let rx = rx_statistics(&p1);
    let lines = log_lines(&scratch) - lines_before;
    let rss_after = rss_kb(pfcd.pid());
    eprintln!(
        "flood: {sent} LLDPDUs of 700 malformed TLVs sent in 10 s; p1 counted {} frames, {} TLVs \
         discarded; {lines} log lines; slowest get {slowest:?}; pfcd RSS {rss_before} kB before, \
         {rss_after} kB after",
        number(&rx, "total-frames"),
        number(&rx, "total-discarded-tlvs"),
    );
    let log = std::fs::read_to_string(scratch.path("pfcd.log")).unwrap_or_default();
    let tail: Vec<&str> = log.lines().rev().take(20).collect();
    assert!(lines < 100, "{lines} log lines during the flood; the last: {tail:#?}");
    assert!(slowest < Duration::from_secs(1), "NETCONF answered within 1 s: {slowest:?}");
    assert_eq!(
        number(&rx, "total-frames") * 700,
        number(&rx, "total-discarded-tlvs"),
        "every LLDPDU of the flood counted, and each of its TLVs: {rx}"
    );
    // Once the flood's window is over, one line sums up what the log left out.
    let summary = wait_log(&scratch, &[pfc_logging::limit::SUPPRESSED, "p1"], 1);
    assert!(summary[0].contains("suppressed="), "{summary:?}");
    assert!(log_lines(&scratch) - lines_before < 100, "with the summary");
    let p2 = lldp_port(&mut c, "p2");
    assert!(p2.contains("<system-name>h2<"), "h2 stays p2's neighbour: {p2}");
}

/// Sends `frame` on `port` as fast as it goes until `stop`; returns how many were sent.
fn flood_until(mut port: RawPort, frame: &[u8], stop: &AtomicBool) -> u64 {
    use dataplane::io::FramePort;
    let mut sent = 0;
    while !stop.load(Ordering::Relaxed) {
        if port.send(frame).is_ok() {
            sent += 1;
        } else {
            std::thread::yield_now();
        }
    }
    sent
}
