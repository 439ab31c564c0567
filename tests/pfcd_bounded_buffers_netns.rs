//! pfcd's bridge bounds what a stopped port can hold, and says so over NETCONF: h1 eth0 — p1
//! [pfcd] p2 — eth0 h2, each a network namespace, `max-transit-ms = 300` in pfcd's settings, the
//! PFC watchdog off (so that only the bounds act), PFC off. h2 pauses its link for good (an
//! 802.3x PAUSE storm) while h1 sends 3000 lossy frames toward it: p1's lossy buffer keeps
//! only p2's share of them (the rest refused: p1's `frame-discards/lossy-share`), and those held
//! past 300 ms are discarded, not sent when the storm ends (p2's `frame-discards/transit-delay`).
//!
//! Needs root (namespaces); skipped loudly without it, failed in CI.

use std::time::Duration;

use test_support::hosts::*;
use test_support::netns::can_run;
use test_support::pfcd::*;
use test_support::Scratch;

const FRAMES: u32 = 3_000;

/// Port `port`'s `frame-discards` counter `leaf` (pfcd-pipeline, within its Bridge Port).
fn discards(c: &mut netconf_client::Client, port: &str, leaf: &str) -> u64 {
    number(&frame_discards_of(c, port), leaf)
}

#[test]
fn a_stopped_port_holds_only_its_share_and_nothing_past_the_maximum_transit_delay() {
    if !can_run("a_stopped_port_holds_only_its_share_and_nothing_past_the_maximum_transit_delay") {
        return;
    }
    let scratch = Scratch::new("pfcd-bounds");
    let Hosts { mut h1, mut h2, h1_ns: _h1_ns, sw, h2_ns } = hosts("pbb");
    let pfcd = start_pfcd_with(&sw, &scratch, &["p1", "p2"], "max-transit-ms = 300\n");
    let mut c = pfcd.client(&sw);
    commit_watchdog(&mut c, &["p1", "p2"], "<enabled>false</enabled>");
    // h2 is known to the bridge (so h1's frames go to p2 only).
    send(&mut h2, &data_between(H2, H1, 0, 0));
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(discards(&mut c, "p2", "transit-delay"), 0);

    let storm = Storm::link_pause(&h2_ns, H2);
    for seq in 0..FRAMES {
        send(&mut h1, &data(0, seq));
    }
    std::thread::sleep(Duration::from_secs(1));
    storm.stop();
    let got = sequences(&drain(&mut h2, Duration::from_millis(500)), 0);

    let share = wait_for_counter(&mut c, "p1", "lossy-share");
    let transit = wait_for_counter(&mut c, "p2", "transit-delay");
    eprintln!("h2 got {} frames; lossy-share {share}, transit-delay {transit}", got.len());
    // Every frame h1 sent is accounted for: sent before the pause took hold, refused for want of
    // p2's share, or held too long; none of those held past 300 ms reached h2.
    assert!(share > 0 && transit > 0, "share {share}, transit {transit}");
    assert_eq!(got.len() as u64 + share + transit, u64::from(FRAMES), "{got:?}");
    assert!(got.len() < 100, "the frames held through the storm were discarded: {}", got.len());
}

/// `leaf` of `port`'s frame discards once it is above 0 (the state is at most a tick old).
fn wait_for_counter(c: &mut netconf_client::Client, port: &str, leaf: &str) -> u64 {
    for _ in 0..50 {
        let n = discards(c, port, leaf);
        if n > 0 {
            return n;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    discards(c, port, leaf)
}
