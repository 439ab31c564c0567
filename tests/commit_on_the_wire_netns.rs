//! A commit reaches the wire at once: h1 eth0 — p1 [pfcd] p2 — eth0 h2, each a network
//! namespace, pfcd's LLDP agent on p1. Twenty commits of p1's PFC Enable (edit-config, then the
//! timed `<commit>`): the first LLDPDU that carries the new PFC Enable is read on h1's side of
//! the link at once, and the same for p1's PFC Local Delay when the calculation's inputs change
//! it. "At once": the median within 20 ms of the commit, and none later than 250 ms. On a quiet
//! machine every one is within a few milliseconds (BENCHMARKS.md); on a 2-core machine with
//! builds running, the commit itself (a debug build, validated by libyang) takes up to 120 ms.
//! A transmission on a tick or waiting for 802.1AB's credit takes 0.4 s to 1 s.
//!
//! The commits are a second apart: 802.1AB lets a local change go out at once while the
//! transmitter has credit (txCreditMax 5, one back per second); faster, the surplus waits for
//! credit, as the standard wants.
//!
//! Needs root (namespaces); skipped loudly without it, failed in CI.

use std::time::{Duration, Instant};

use dataplane::io::{FramePort, RawPort};
use lldp::wire::{LldpFrame, Tlv};
use test_support::hosts::*;
use test_support::netns::can_run;
use test_support::pfcd::*;
use test_support::Scratch;

const COMMITS: usize = 20;
const MEDIAN: Duration = Duration::from_millis(20);
const LATEST: Duration = Duration::from_millis(250);

/// What an LLDPDU from p1 says: its PFC Enable and its Local Delay TLV's Delay, if it has them.
fn advertised(frame: &[u8]) -> Option<Advertised> {
    let frame = LldpFrame::parse(frame).ok()?;
    let mut out = (None, None);
    for tlv in &frame.lldpdu.tlvs {
        match tlv {
            Tlv::PfcConfig(p) => out.0 = Some(p.pfc_enable),
            Tlv::PfcLocalDelay(d) => out.1 = Some(d.delay.0 as u64),
            _ => {}
        }
    }
    Some(out)
}

/// What an LLDPDU advertised: PFC Enable, Local Delay.
type Advertised = (Option<u8>, Option<u64>);

/// The time from `since` to the first LLDPDU on `h1` for which `wanted` holds, within 2 s, and
/// what it advertised.
fn first_lldpdu(
    h1: &mut RawPort,
    since: Instant,
    wanted: impl Fn(Advertised) -> bool,
) -> (Duration, Advertised) {
    let mut buf = vec![0u8; 9300];
    let end = since + Duration::from_secs(2);
    while Instant::now() < end {
        match h1.recv(&mut buf) {
            Ok(Some(n)) => {
                let at = Instant::now();
                if let Some(seen) = advertised(&buf[..n]).filter(|a| wanted(*a)) {
                    return (at - since, seen);
                }
            }
            Ok(None) => std::thread::sleep(Duration::from_micros(100)),
            Err(e) => panic!("h1's socket: {e}"),
        }
    }
    panic!("no LLDPDU with the change within 2 s of the commit");
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    sorted[(sorted.len() * p / 100).min(sorted.len() - 1)]
}

#[test]
fn each_commit_of_pfc_enable_is_on_the_wire_at_once() {
    if !can_run("each_commit_of_pfc_enable_is_on_the_wire_at_once") {
        return;
    }
    let scratch = Scratch::new("pfcd-wire");
    let Hosts { mut h1, h1_ns: _h1_ns, sw, h2_ns: _h2_ns, .. } = hosts("cotw");
    let pfcd = start_pfcd(&sw, &scratch, &["p1", "p2"]);
    let mut c = pfcd.client(&sw);
    commit_pfc(&mut c, &["p1"], "<pfc-enable>p0</pfc-enable>");
    let (_, mut last) = first_lldpdu(&mut h1, Instant::now(), |(e, _)| e == Some(1));

    let mut delays = Vec::new();
    for i in 0..COMMITS {
        std::thread::sleep(Duration::from_secs(1));
        drain(&mut h1, Duration::ZERO);
        // p3 and p4 in turn, with p5 every fourth: each commit a new PFC Enable.
        let enable: u8 = if i % 2 == 0 { 0x08 } else { 0x10 } | if i % 4 == 0 { 0x20 } else { 0 };
        let bits: Vec<String> =
            (0..8).filter(|p| enable & (1 << p) != 0).map(|p| format!("p{p}")).collect();
        edit_pfc(&mut c, &["p1"], &format!("<pfc-enable>{}</pfc-enable>", bits.join(" ")));
        let sent = Instant::now();
        c.commit().expect("commit");
        let answered = sent.elapsed();
        let (delay, seen) = first_lldpdu(&mut h1, sent, |(e, _)| e == Some(enable));
        last = seen;
        eprintln!("commit {i}: ok after {answered:?}, on the wire after {delay:?}");
        delays.push(delay);
    }
    delays.sort();
    eprintln!(
        "commit to the LLDPDU: p50 {:?}, p99 {:?}, max {:?}",
        percentile(&delays, 50),
        percentile(&delays, 99),
        delays[delays.len() - 1]
    );
    assert!(percentile(&delays, 50) <= MEDIAN, "the median is over {MEDIAN:?}: {delays:?}");
    let late: Vec<_> = delays.iter().filter(|d| **d > LATEST).collect();
    assert!(late.is_empty(), "commits whose LLDPDU took longer than {LATEST:?}: {late:?}");

    // The Local Delay TLV follows the calculation's own delays (interface-rtt).
    let before = last.1;
    assert!(before.is_some(), "p1 advertises a PFC Local Delay TLV");
    edit_pfc(
        &mut c,
        &["p1"],
        "<headroom><calculation-inputs><interface-rtt>4096</interface-rtt>\
         </calculation-inputs></headroom>",
    );
    let sent = Instant::now();
    c.commit().expect("commit");
    let (delay, (_, after)) = first_lldpdu(&mut h1, sent, |(_, d)| d.is_some() && d != before);
    eprintln!("Local Delay {before:?} → {after:?} on the wire after {delay:?}");
    assert!(delay <= LATEST, "the new Local Delay took {delay:?}");
}
