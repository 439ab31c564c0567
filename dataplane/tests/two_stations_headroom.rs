//! Two PFC stations back to back over 100 m of Cat6 at 10 Gb/s (Annex N's example), the
//! receiver draining slower than the sender offers. With the receive buffer sized from the
//! Annex N headroom (126 224 bit times) nothing is dropped; with half of it, frames are.

use dataplane::sim::{TwoStation, TwoStationConfig};

const ANNEX_N_HEADROOM_BITS: u64 = 126_224;

#[test]
fn annex_n_headroom_is_lossless() {
    for seed in 0..40 {
        let r = TwoStation::new(TwoStationConfig::annex_n(ANNEX_N_HEADROOM_BITS, seed)).run();
        assert!(r.xoff_events > 10, "the receiver must actually be congested: {r:?}");
        assert!(r.pfc_requests > 10 && r.pfc_indications == r.pfc_requests, "{r:?}");
        assert_eq!(r.frames_dropped, 0, "seed {seed}: {r:?}");
        assert_eq!(r.out_of_order, 0);
        assert!(r.peak_occupancy_octets <= r.buffer_allocation_octets);
    }
}

#[test]
fn half_the_annex_n_headroom_drops_frames() {
    let mut drops = 0;
    for seed in 0..40 {
        let r = TwoStation::new(TwoStationConfig::annex_n(ANNEX_N_HEADROOM_BITS / 2, seed)).run();
        drops += r.frames_dropped;
    }
    assert!(drops > 0, "half the headroom must not be enough");
}

#[test]
fn headroom_margin_is_what_the_round_trip_needs() {
    // The worst overshoot above XOFF seen over many alignments stays within the headroom, and
    // uses most of it: the Annex N figure is a tight bound, not a generous guess.
    let mut worst = 0;
    for seed in 0..40 {
        let r = TwoStation::new(TwoStationConfig::annex_n(ANNEX_N_HEADROOM_BITS, seed)).run();
        worst = worst.max(r.peak_occupancy_octets - r.xoff_threshold_octets);
    }
    let headroom_octets = ANNEX_N_HEADROOM_BITS / 8;
    assert!(worst <= headroom_octets, "overshoot {worst} > headroom {headroom_octets}");
    assert!(worst * 10 >= headroom_octets * 7, "overshoot {worst} is far below {headroom_octets}");
}

/// PFC frames never wait behind paused traffic (36.2.8): with B's own data held paused by A for
/// the whole run, B's PFC frames still reach A and the Annex N buffer stays lossless.
#[test]
fn pfc_frames_bypass_paused_traffic() {
    for seed in 0..10 {
        let mut cfg = TwoStationConfig::annex_n(ANNEX_N_HEADROOM_BITS, seed);
        cfg.reverse_paused = true;
        // B may start frames only until A's first PFC frame (sent at once) has crossed the link
        // and B has entered the paused state: one way, plus pause entry, plus A's frame.
        let frame = cfg.speed.frame_time(2000);
        let reach = cfg.one_way() + cfg.speed.bits_time(cfg.delays.pause_entry_bits) + frame;
        let before_pause = reach.as_ps().div_ceil(frame.as_ps()) + 1;
        let r = TwoStation::new(cfg).run();
        assert!(r.reverse_pfc_requests >= 1, "A paused B's reverse traffic: {r:?}");
        assert!(r.reverse_frames_sent <= before_pause, "B's data stayed paused: {r:?}");
        assert!(r.pfc_requests > 10, "B kept sending PFC frames: {r:?}");
        assert_eq!(r.pfc_indications, r.pfc_requests, "every one reached A: {r:?}");
        assert_eq!(r.frames_dropped, 0, "seed {seed}: {r:?}");
    }
}
