//! Offered traffic: the pipeline as a bridge drives it, with real frames' buffers and lengths.
//! Every offered frame leaves once, with its own buffer handle and length, in order within its
//! (port, priority); a paused class holds its frames (in external memory, or on chip, or by
//! stalling) while the other classes flow, and delivers them all when the pause ends.

use dataplane::pipeline::{Departure, PauseMode, Pipeline, PipelineConfig, Traffic};
use dataplane::time::{LinkSpeed, Picos};

/// A bridge-like pipeline: a 1 µs cycle, one-cycle stages, jumbo frames allowed.
fn bridge_config(mode: PauseMode) -> PipelineConfig {
    PipelineConfig {
        mode,
        ports: 2,
        speed: LinkSpeed::G10,
        cycle: Picos::from_ns(1_000),
        width: 16,
        qman_latency: 1,
        qmi_latency: 1,
        bmi_latency: 1,
        nti_latency: 1,
        stage_capacity: 64,
        port_credit: 128,
        pause_detect_latency: Picos::from_ns(1_000),
        traffic: Traffic::Offered,
        min_len: 60,
        max_len: 9_216,
        ..PipelineConfig::default()
    }
}

/// Offers `n` frames of each of (port 0, priority 3) and (port 0, priority 0), with buffer
/// handles numbering them and lengths varying from 60 to 1514 octets.
fn offer_two_classes(p: &mut Pipeline, n: u32) -> Vec<(u32, u16)> {
    let mut offered = Vec::new();
    for i in 0..n {
        for priority in [3usize, 0] {
            let buffer = i * 2 + u32::from(priority == 0);
            let len = 60 + ((i * 97) % 1455) as u16;
            p.offer(0, priority, len, buffer).expect("offer");
            offered.push((buffer, len));
        }
    }
    offered
}

fn run_until_empty(p: &mut Pipeline, out: &mut Vec<Departure>) {
    for _ in 0..10_000 {
        p.run(100);
        p.take_departures(out);
        if p.frames_in_system() == 0 && p.backlog(0, 3) == 0 && p.backlog(0, 0) == 0 {
            return;
        }
    }
    panic!("the pipeline did not empty: {} frames in it", p.frames_in_system());
}

#[test]
fn every_offered_frame_leaves_once_with_its_buffer_and_length_in_order() {
    let mut p = Pipeline::new(bridge_config(PauseMode::External)).expect("config");
    p.record_departures();
    let offered = offer_two_classes(&mut p, 500);
    let mut out = Vec::new();
    run_until_empty(&mut p, &mut out);
    let mut got: Vec<(u32, u16)> = out.iter().map(|d| (d.buffer, d.len)).collect();
    assert_eq!(got.len(), offered.len(), "each frame leaves exactly once");
    for priority in [0u8, 3] {
        let seqs: Vec<u64> = out.iter().filter(|d| d.priority == priority).map(|d| d.seq).collect();
        assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "priority {priority} in order");
    }
    got.sort_unstable();
    let mut want = offered;
    want.sort_unstable();
    assert_eq!(got, want, "buffers and lengths as offered");
    assert!(p.delivered_everything_in_order());
    // At 10 Gb/s the wire, not the pipeline, sets the pace: departures are a frame time apart.
    let first = out.first().expect("departures").time;
    let last = out.last().expect("departures").time;
    let octets: u64 = out.iter().map(|d| u64::from(d.len.max(60)) + 24).sum();
    let wire = LinkSpeed::G10.bits_time(octets * 8);
    let span = last - first;
    assert!(
        span <= wire && span + LinkSpeed::G10.frame_time(1514) * 2 >= wire,
        "departures span {span:?}, the frames' wire time is {wire:?}"
    );
}

#[test]
fn a_paused_priority_is_held_while_the_other_flows_and_nothing_is_lost() {
    for mode in [PauseMode::External, PauseMode::Fifo, PauseMode::Stall] {
        let mut p = Pipeline::new(bridge_config(mode)).expect("config");
        p.record_departures();
        // Priority 3 paused for 10 000 quanta (512 µs at 10 Gb/s) from the start.
        let mut time = [0u16; 8];
        time[3] = 10_000;
        p.schedule_pfc(Picos::ZERO, 0, 1 << 3, time);
        let offered = offer_two_classes(&mut p, 200);
        let mut out = Vec::new();
        p.run(400);
        p.take_departures(&mut out);
        let during: Vec<_> = out.iter().filter(|d| d.time > Picos::from_ns(2_000)).collect();
        assert!(during.iter().all(|d| d.priority != 3), "{mode}: priority 3 left while paused");
        let p0 = during.iter().filter(|d| d.priority == 0).count();
        if mode == PauseMode::Stall {
            assert_eq!(p0, 0, "stall: the paused class blocks the port");
        } else {
            assert_eq!(p0, 200, "{mode}: priority 0 flows during the pause");
        }
        run_until_empty(&mut p, &mut out);
        assert_eq!(out.len(), offered.len(), "{mode}: nothing lost");
        assert!(p.delivered_everything_in_order(), "{mode}: in order, once each");
    }
}

#[test]
fn offers_the_pipeline_cannot_take_are_refused_with_a_reason() {
    let mut p = Pipeline::new(bridge_config(PauseMode::External)).expect("config");
    assert!(p.offer(2, 0, 60, 0).expect_err("refused").contains("port 2"));
    assert!(p.offer(0, 8, 60, 0).expect_err("refused").contains("priority 8"));
    assert!(p.offer(0, 0, 9_217, 0).expect_err("refused").contains("max_len"));
    let mut random = Pipeline::new(PipelineConfig {
        traffic: Traffic::Random { load_percent: 50 },
        ..PipelineConfig::default()
    })
    .expect("config");
    assert!(random.offer(0, 0, 60, 0).is_err());
}

/// Offered traffic on two classes of a port paused and resumed many times at random, in each
/// pause mode: every frame leaves once and in order. (With a cycle longer than a frame, as a
/// software bridge runs, the MAC starts several frames a cycle.)
#[test]
fn pauses_at_random_keep_every_class_in_order() {
    for mode in [PauseMode::External, PauseMode::Fifo, PauseMode::Stall] {
        for seed in 1..=20u64 {
            let mut p = Pipeline::new(bridge_config(mode)).expect("config");
            p.record_departures();
            let mut rng = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            let mut next = || {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                rng
            };
            let mut buffer = 0u32;
            let mut out = Vec::new();
            for step in 0..400u64 {
                for _ in 0..(next() % 24) {
                    let priority = if next() % 2 == 0 { 3 } else { 0 };
                    let len = 60 + (next() % 1455) as u16;
                    p.offer(0, priority, len, buffer).expect("offer");
                    buffer += 1;
                }
                if next() % 5 == 0 {
                    let mut time = [0u16; 8];
                    time[3] = (next() % 400) as u16; // 0 (XON) to 20 µs at 10G
                    p.schedule_pfc(p.now(), 0, 1 << 3, time);
                }
                p.run(1 + next() % 30);
                p.take_departures(&mut out);
                let _ = step;
            }
            run_until_empty(&mut p, &mut out);
            assert_eq!(out.len(), buffer as usize, "{mode} seed {seed}: every frame left");
            assert_eq!(p.stats().order_violations, 0, "{mode} seed {seed}: {:?}", p.stats());
            assert!(p.delivered_everything_in_order(), "{mode} seed {seed}");
        }
    }
}
