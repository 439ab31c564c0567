//! Two pfcd back to back on a veth pair, each in its own network namespace: LLDP/DCBX between
//! them agrees on PFC and on measuring the headroom (both advertise RTM HDRM, headroom/method
//! dcbx-negotiated), both measure the link with HMPDUs and put the result in force.
//!
//! Needs root (namespaces); skipped loudly without it, failed in CI.

use test_support::netns::{can_run, veth, Netns};
use test_support::pfcd::*;
use test_support::Scratch;

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
        // The port applies a commit after answering it, and the measurement may already be in
        // force from before the commit: wait for both.
        let pfc = wait_state(c, port, "DCBX agrees and the measurement is in force", |p| {
            value(p, "allowance-source").as_deref() == Some("pfc:measurement-result")
                && value(p, "oper-pfc-enable").as_deref() == Some("p3")
        });
        assert_eq!(value(&pfc, "method-in-force").as_deref(), Some("pfc:measurement"), "{pfc}");
        let round_trip = number(&pfc, "round-trip");
        // A veth: the software's own latency, a few to some tens of microseconds while the
        // daemons start on a busy machine (51.2 ns a quantum at 10G): far from a link's.
        assert!(round_trip > 0 && round_trip < 10_000, "{port}: {round_trip} quanta: {pfc}");
        // A maximum frame in progress at each end: the settings' max-frame, 9216, with its FCS.
        let wd = dataplane::headroom::frame_bits(9_220) as u64;
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
    // A bridge's port says so (802.1AB Table 8-4).
    assert_eq!(
        value(data, "system-capabilities-enabled").as_deref(),
        Some("bridge cvlan-component"),
        "{data}"
    );
}

/// The newest result's sequence number in a port's measurement history (0: none yet).
fn newest_result(pfc: &str) -> u64 {
    pfc.match_indices("<sequence>")
        .filter_map(|(at, tag)| {
            let rest = &pfc[at + tag.len()..];
            rest[..rest.find('<')?].parse().ok()
        })
        .max()
        .unwrap_or(0)
}

/// Asks `port` to measure again and returns the round trip (quanta) it settles on, once every
/// result its estimate holds (at least four, half of the eight it takes) came after the request.
/// On a loaded machine a round's results may mostly be discarded (a software round trip past
/// what 100 km of fibre can have): after 10 s without a complete estimate the test asks again,
/// as an operator would, at most five times.
fn measure(c: &mut netconf_client::Client, port: &str) -> u64 {
    let mut pfc = String::new();
    for _ in 0..5 {
        let newest_before = newest_result(&pfc_of(c, port));
        assert!(c.rpc(&pfc_action(port, "measure-headroom")).expect("measure-headroom").is_ok());
        let end = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while std::time::Instant::now() < end {
            pfc = pfc_of(c, port);
            let count = value(&pfc, "result-count").and_then(|v| v.parse::<u64>().ok());
            let count = count.unwrap_or(0);
            if value(&pfc, "allowance-source").as_deref() == Some("pfc:measurement-result")
                && count >= 4
                && newest_result(&pfc) >= newest_before + count
            {
                return number(&pfc, "round-trip");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        eprintln!("{port}: no complete measurement within 10 s; asking again");
    }
    panic!("{port}: no complete measurement in five requests: {pfc}");
}

/// The least of three measurements: a busy machine only ever adds to a software round trip.
fn least_of_three(c: &mut netconf_client::Client, port: &str) -> u64 {
    (0..3).map(|_| measure(c, port)).min().expect("three measurements")
}

#[test]
fn the_measured_headroom_follows_a_delay_line_between_two_pfcd() {
    if !can_run("the_measured_headroom_follows_a_delay_line_between_two_pfcd") {
        return;
    }
    let (sa, sb, sd) = (Scratch::new("dl-a"), Scratch::new("dl-b"), Scratch::new("dl-d"));
    let (a, d, b) = (Netns::new("dla"), Netns::new("dld"), Netns::new("dlb"));
    veth(&a, "x", "02:00:00:00:0a:01", &d, "da", "02:00:00:00:0d:0a");
    veth(&d, "db", "02:00:00:00:0d:0b", &b, "y", "02:00:00:00:0b:01");
    up(&a, "x");
    up(&b, "y");
    up(&d, "da");
    d.link(&["set", "db", "up"]);
    let line = |delay: &str| {
        let mut cmd = d.command(test_support::program("pfc-delay"));
        cmd.args(["--a", "da", "--b", "db", "--delay", delay]);
        test_support::netns::Daemon::spawn(
            "pfc-delay",
            cmd,
            &sd.path(&format!("delay-{delay}.log")),
        )
    };
    // The line holds each frame from the kernel's receive time, which hides its own wake-up
    // (tens of µs on a virtual machine) only when the hold is longer than the wake-up: the
    // baseline is already a delay line, 100 µs each way, and each step adds to it.
    let mut running = line("100us");
    let (pa, pb) = (start_pfcd(&a, &sa, &["x"]), start_pfcd(&b, &sb, &["y"]));
    let (mut ca, mut cb) = (pa.client(&a), pb.client(&b));
    commit_pfc(&mut ca, &["x"], "<pfc-enable>p3</pfc-enable>");
    commit_pfc(&mut cb, &["y"], "<pfc-enable>p3</pfc-enable>");
    // The first measurement ran while both daemons were starting: measure again, settled.
    let base = least_of_three(&mut ca, "x");
    let quantum_us = 512.0 / 10_000.0; // one pause quantum at 10 Gb/s, in µs
                                       // At most 500 µs each way: a round trip above what a 100 km link can have (1.22 ms) is
                                       // discarded, not measured.
    for (delay, one_way_us) in [("150us", 50.0), ("500us", 400.0)] {
        running.stop();
        running = line(delay);
        std::thread::sleep(std::time::Duration::from_millis(200));
        let rtt = least_of_three(&mut ca, "x");
        let added_us = (rtt as f64 - base as f64) * quantum_us;
        eprintln!(
            "delay line {delay} each way: round trip {rtt} quanta, {added_us:.1} µs more than \
             at 100us ({base} quanta)"
        );
        // Software timestamps: the line's own lateness and the loops' wake-ups, tens of µs,
        // and the line's timer slack, which grows with the time it holds a frame.
        let want = 2.0 * one_way_us;
        let tolerance = 40.0 + 0.05 * want;
        assert!(
            (added_us - want).abs() <= tolerance,
            "{delay}: added {added_us:.1} µs, want {want} ± {tolerance}"
        );
        let pfc = pfc_of(&mut ca, "x");
        // The last measurement is in force: a maximum frame in progress at each end: the settings' max-frame, 9216, with its FCS;
        // at most what the port's receive buffer holds (1 ms of round trip at 10 Gb/s is more
        // than 1 MiB), the clamp then said in state.
        let wd = dataplane::headroom::frame_bits(9_220) as u64;
        let measured = number(&pfc, "round-trip") * 512 + 2 * wd;
        let limit = number(&pfc, "receive-buffer-limit");
        assert_eq!(number(&pfc, "allowance-in-force"), measured.min(limit), "{pfc}");
        let reason = if measured > limit { "receive-buffer" } else { "none" };
        assert_eq!(value(&pfc, "clamp-reason").as_deref(), Some(reason), "{pfc}");
    }
    drop(cb);
}
