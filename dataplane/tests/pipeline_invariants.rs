//! The invariants of SPEC §6 for the external-memory pause pipeline, under random pause storms,
//! plus named scenarios from seed 000 and the comparison with `stall` and `fifo`.

use dataplane::pipeline::{
    ExternalMemoryConfig, FsmState, PauseMode, Pipeline, PipelineConfig, Traffic,
};
use dataplane::sim::SimRng;
use dataplane::time::{LinkSpeed, Picos};
use proptest::prelude::*;

fn config(mode: PauseMode, speed: LinkSpeed, seed: u64) -> PipelineConfig {
    PipelineConfig { mode, speed, seed, min_len: 60, max_len: 1518, ..PipelineConfig::default() }
}

/// Schedules a storm: `count` PFC frames at random times in `[0, span)`, on random ports, each
/// pausing a random set of priorities drawn from `priorities` for a random time (a quarter of
/// them XON), and returns the time after which no pause can be in force.
fn storm(p: &mut Pipeline, rng: &mut SimRng, count: u64, span: Picos, priorities: u8) -> Picos {
    let ports = p.config().ports as u64;
    let speed = p.config().speed;
    let mut last_end = Picos::ZERO;
    for _ in 0..count {
        let at = Picos(rng.below(span.as_ps()));
        let port = rng.below(ports) as usize;
        let enable = (rng.next_u64() as u8) & priorities;
        let mut time = [0u16; 8];
        for t in time.iter_mut() {
            *t = if rng.below(4) == 0 { 0 } else { rng.between(1, 400) as u16 };
        }
        p.schedule_pfc(at, port, enable, time);
        last_end = last_end.max(at + speed.quanta(400) + Picos::from_ns(100));
    }
    last_end
}

fn cycles(p: &Pipeline, t: Picos) -> u64 {
    t.as_ps().div_ceil(p.config().cycle.as_ps())
}

/// One storm run in `external` mode; returns the pipeline after draining.
fn storm_run(speed: LinkSpeed, seed: u64, priorities: u8) -> Pipeline {
    // Half the runs saturate every class; the other half offer random loads, so queues also
    // run empty and classes come and go.
    let traffic = if seed.is_multiple_of(2) {
        Traffic::Saturated
    } else {
        Traffic::Random { load_percent: 90 }
    };
    let cfg = PipelineConfig { traffic, ..config(PauseMode::External, speed, seed) };
    let mut p = Pipeline::new(cfg).expect("valid config");
    let mut rng = SimRng::new(seed ^ 0x5eed);
    let span = Picos::from_us(10);
    let quiet = storm(&mut p, &mut rng, 60, span, priorities);
    let n = cycles(&p, quiet);
    p.run(n);
    assert!(p.drain(2_000_000), "pipeline drains after the storm (seed {seed})");
    p
}

fn check_invariants(p: &Pipeline, seed: u64) {
    let s = p.stats();
    assert!(s.enqueued > 0 && s.pause_indications > 0, "seed {seed}: the run did something: {s:?}");
    // 1. order per (port, priority), no loss, no duplicates
    assert!(p.delivered_everything_in_order(), "seed {seed}: {s:?}");
    // 2. no paused frame starts later than the reaction bound
    assert_eq!(s.late_frames, 0, "seed {seed}: {s:?}");
    // 4. paused frames occupy no on-chip storage; external FIFOs within the pipeline depth
    assert_eq!(s.onchip_paused_octets_peak, 0, "seed {seed}: {s:?}");
    assert!(s.external_fifo_peak <= p.config().class_depth_bound(), "seed {seed}: {s:?}");
    // the memory's peak holds the deepest FIFO, within the memory's capacity
    assert!(s.external_used_peak >= s.external_fifo_peak, "seed {seed}: {s:?}");
    assert!(s.external_used_peak <= p.config().external.capacity_fds, "seed {seed}: {s:?}");
    for port in 0..p.config().ports {
        for prio in 0..8 {
            assert_eq!(
                p.fsm_state(port, prio),
                Some(FsmState::Idle),
                "seed {seed}: FSM back to idle"
            );
            assert_eq!(p.external_depth(port, prio), 0);
        }
    }
}

// 1000 storms per speed, at every speed the data plane runs: 7000 seeds in every CI run.
proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn storms_at_10g_keep_every_invariant(seed in any::<u64>()) {
        check_invariants(&storm_run(LinkSpeed::G10, seed, 0xff), seed);
    }

    #[test]
    fn storms_at_25g_keep_every_invariant(seed in any::<u64>()) {
        check_invariants(&storm_run(LinkSpeed::G25, seed, 0xff), seed);
    }

    #[test]
    fn storms_at_40g_keep_every_invariant(seed in any::<u64>()) {
        check_invariants(&storm_run(LinkSpeed::G40, seed, 0xff), seed);
    }

    #[test]
    fn storms_at_50g_keep_every_invariant(seed in any::<u64>()) {
        check_invariants(&storm_run(LinkSpeed::G50, seed, 0xff), seed);
    }

    #[test]
    fn storms_at_100g_keep_every_invariant(seed in any::<u64>()) {
        check_invariants(&storm_run(LinkSpeed::G100, seed, 0xff), seed);
    }

    #[test]
    fn storms_at_200g_keep_every_invariant(seed in any::<u64>()) {
        check_invariants(&storm_run(LinkSpeed::G200, seed, 0xff), seed);
    }

    #[test]
    fn storms_at_400g_keep_every_invariant(seed in any::<u64>()) {
        check_invariants(&storm_run(LinkSpeed::G400, seed, 0xff), seed);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, failure_persistence: None, ..ProptestConfig::default() })]

    /// 3. Classes that are never paused keep flowing: with priorities 0 and 1 left alone, they
    /// send at least as much as in the same run without any pause, less 5%.
    #[test]
    fn unpaused_classes_keep_flowing(seed in any::<u64>()) {
        let run = |with_storm: bool| {
            let mut p = Pipeline::new(config(PauseMode::External, LinkSpeed::G100, seed)).expect("valid");
            let mut rng = SimRng::new(seed);
            if with_storm {
                storm(&mut p, &mut rng, 200, Picos::from_us(20), 0b1111_1100);
            }
            p.run(20_000);
            (0..8).map(|port| p.departed(port, 0) + p.departed(port, 1)).sum::<u64>()
        };
        let (calm, stormy) = (run(false), run(true));
        prop_assert!(stormy * 100 >= calm * 95, "unpaused classes sent {stormy} vs {calm} without pauses");
    }
}

#[test]
fn no_pause_runs_at_line_rate() {
    let mut p = Pipeline::new(PipelineConfig::default()).expect("valid");
    p.run(20_000);
    let s = p.stats();
    let line_rate = 8.0 * LinkSpeed::G100.line_rate_pps(60) * 20e-6;
    assert!(
        s.departed as f64 >= 0.97 * line_rate,
        "{} frames vs line rate {line_rate}",
        s.departed
    );
}

/// Claims 8/17: PAUSE returns while the external FIFO is being flushed. The rest of the epoch
/// is recycled behind, and order holds.
#[test]
fn re_pause_during_a_flush() {
    let mut p = Pipeline::new(PipelineConfig {
        port_credit: 64,
        ..config(PauseMode::External, LinkSpeed::G100, 7)
    })
    .expect("valid");
    p.record_departures();
    let q = LinkSpeed::G100.quantum();
    p.schedule_pfc(Picos::from_ns(200), 0, 0x01, [200, 0, 0, 0, 0, 0, 0, 0]);
    p.run(cycles(&p, Picos::from_ns(200) + q * 100));
    assert!(p.external_depth(0, 0) > 0, "paused FDs went to external memory");
    // XON, then a new pause a few cycles into the flush.
    let xon_at = Picos::from_ns(200) + q * 120;
    p.schedule_pfc(xon_at, 0, 0x01, [0; 8]);
    p.schedule_pfc(xon_at + Picos::from_ns(130), 0, 0x01, [300, 0, 0, 0, 0, 0, 0, 0]);
    let mut saw_flushing = false;
    for _ in 0..cycles(&p, Picos::from_ns(400)) {
        p.run(1);
        saw_flushing |= p.fsm_state(0, 0) == Some(FsmState::Flushing);
    }
    assert!(saw_flushing, "the re-pause arrived during a flush");
    assert!(p.drain(1_000_000));
    let s = p.stats();
    assert!(s.flushed > s.recycled_by_nti.min(1), "{s:?}");
    assert!(p.delivered_everything_in_order(), "{s:?}");
    assert_eq!(s.late_frames, 0);
    let seqs: Vec<u64> =
        p.departures().iter().filter(|d| d.port == 0 && d.priority == 0).map(|d| d.seq).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "port 0 priority 0 in order");
}

#[test]
fn pause_of_many_classes_at_once() {
    let cfg = PipelineConfig { max_len: 60, ..config(PauseMode::External, LinkSpeed::G100, 3) };
    let mut p = Pipeline::new(cfg).expect("valid");
    for port in 0..8 {
        p.schedule_pfc(Picos::from_ns(500), port, 0b0111_1111, [300; 8]);
    }
    p.run(cycles(&p, Picos::from_ns(600)));
    let before: Vec<u64> = (0..8).map(|port| p.departed(port, 7)).collect();
    p.run(cycles(&p, Picos::from_ns(1_000)));
    for (port, before) in before.iter().enumerate() {
        // Alone on its port, priority 7 gets the whole 148.8 Mpps for the microsecond.
        let sent = p.departed(port, 7) - before;
        assert!(sent > 120, "priority 7 of port {port} kept flowing: {sent} frames in 1 us");
        for prio in 0..7 {
            assert!(p.ever_paused(port, prio));
        }
    }
    assert!(p.drain(1_000_000));
    assert!(p.delivered_everything_in_order());
    assert_eq!(p.stats().late_frames, 0);
    assert_eq!(p.stats().onchip_paused_octets_peak, 0);
}

/// FIG. 7: HALT reaches QMAN while its push queue still holds FDs of the paused class. They go
/// on (and are recycled by the NTI); HALT_ACK follows only once none is left.
#[test]
fn halt_while_push_queue_holds_paused_fds() {
    let mut caught = 0;
    // Pause at successive instants until HALT meets paused FDs in the push queue.
    for offset in 0..40u64 {
        let cfg = PipelineConfig {
            ports: 1,
            qman_latency: 40,
            qman_capacity: 64,
            max_len: 60,
            ..config(PauseMode::External, LinkSpeed::G100, 5)
        };
        let mut p = Pipeline::new(cfg).expect("valid");
        let at = Picos::from_ns(300 + offset);
        p.schedule_pfc(at, 0, 0x08, [500; 8]);
        p.run(cycles(&p, at));
        let (mut waited_with_fds, mut clear_for) = (false, 0);
        for _ in 0..200 {
            p.run(1);
            match p.fsm_state(0, 3) {
                Some(FsmState::WaitHaltAck) if p.in_push_queue(0, 3) > 0 => waited_with_fds = true,
                Some(FsmState::WaitHaltAck) => {
                    // QMAN raises HALT_ACK the cycle after its push queue is clear.
                    clear_for += 1;
                    assert!(
                        clear_for <= 1,
                        "HALT_ACK late: push queue clear for {clear_for} cycles"
                    );
                }
                Some(FsmState::PipeClean) => assert_eq!(p.in_push_queue(0, 3), 0),
                _ => {}
            }
        }
        assert_eq!(p.fsm_state(0, 3), Some(FsmState::PipeClean), "HALT_ACK came");
        if waited_with_fds {
            caught += 1;
            assert!(p.stats().recycled_by_nti > 0, "FDs already pushed were recycled at the NTI");
        }
        assert!(p.drain(1_000_000));
        assert!(p.delivered_everything_in_order());
    }
    assert!(caught > 0, "HALT met queued FDs of the paused class at least once");
}

#[test]
fn full_external_memory_is_counted_and_loses_nothing() {
    let external = ExternalMemoryConfig { capacity_fds: 4, ..ExternalMemoryConfig::default() };
    let mut p = Pipeline::new(PipelineConfig {
        external,
        ..config(PauseMode::External, LinkSpeed::G100, 11)
    })
    .expect("valid");
    for port in 0..8 {
        p.schedule_pfc(Picos::from_ns(100), port, 0xff, [200; 8]);
    }
    p.run(cycles(&p, Picos::from_us(3)));
    assert!(p.drain(2_000_000));
    let s = p.stats();
    assert!(s.external_full_cycles > 0, "the full memory is surfaced: {s:?}");
    assert!(s.recycle_staging_peak > 0);
    assert!(p.delivered_everything_in_order(), "{s:?}");
}

#[test]
fn comparison_modes_show_what_they_cost() {
    let run = |mode| {
        let mut p =
            Pipeline::new(PipelineConfig { mode, ..PipelineConfig::default() }).expect("valid");
        // Priority 3 of port 0 paused and resumed repeatedly.
        for k in 0..20u64 {
            p.schedule_pfc(Picos::from_ns(1_000 * k), 0, 0x08, [100, 0, 0, 100, 0, 0, 0, 0]);
        }
        p.run(25_000);
        let unpaused: u64 = (0..8)
            .flat_map(|port| (0..8).map(move |prio| (port, prio)))
            .filter(|&(port, prio)| !(port == 0 && prio == 3))
            .map(|(port, prio)| p.departed(port, prio))
            .sum();
        (unpaused, p.stats().clone())
    };
    let (ext, ext_stats) = run(PauseMode::External);
    let (fifo, fifo_stats) = run(PauseMode::Fifo);
    let (stall, stall_stats) = run(PauseMode::Stall);
    assert_eq!(ext_stats.onchip_paused_octets_peak, 0);
    assert!(fifo_stats.onchip_paused_octets_peak > 0, "fifo keeps paused frames on chip");
    assert!(stall_stats.stalled_cycles > 0);
    assert!(stall * 100 < ext * 90, "stall loses unpaused throughput: {stall} vs {ext}");
    assert!(ext * 100 >= fifo * 98, "external matches fifo for unpaused classes: {ext} vs {fifo}");
}

/// Fusing QMI, BMI and NTI into one delay line is an optimisation, not a model change: with the
/// same traffic and pauses, the separate stages send exactly the same frames at the same times.
#[test]
fn fused_stages_time_frames_exactly_like_separate_ones() {
    let run = |stage_capacity: usize| {
        let cfg = PipelineConfig {
            ports: 4,
            stage_capacity,
            ..config(PauseMode::External, LinkSpeed::G100, 9)
        };
        let mut p = Pipeline::new(cfg).expect("valid");
        p.record_departures();
        let mut rng = SimRng::new(99);
        storm(&mut p, &mut rng, 40, Picos::from_us(5), 0xff);
        p.run(8_000);
        (p.stages_fused(), p.departures().to_vec())
    };
    // 32 = the longest latency (16) x width (2): fused. 31: the stages run separately (at this
    // load they never hold more than a few FDs, so their capacity never binds).
    let (fused, a) = run(32);
    let (separate, b) = run(31);
    assert!(fused && !separate);
    assert!(a.len() > 300, "{} frames", a.len());
    assert_eq!(a, b);
}

/// A class paused while every class saturates its port resumes once the pause ends: its flush
/// epoch gets the port credit it needs (QMAN leaves one credit to the flush reads), so the
/// class empties its external FIFO and then takes its share of the port again.
#[test]
fn a_paused_class_resumes_under_saturation() {
    for speed in [LinkSpeed::G10, LinkSpeed::G100] {
        let mut p =
            Pipeline::new(PipelineConfig { speed, ..PipelineConfig::default() }).expect("valid");
        let mut time = [0u16; 8];
        time[3] = 200;
        p.schedule_pfc(Picos::ZERO, 0, 1 << 3, time);
        p.run(40_000);
        assert!(p.ever_paused(0, 3), "{speed:?}: the pause took effect");
        assert_eq!(p.fsm_state(0, 3), Some(FsmState::Idle), "{speed:?}: the FSM went back to idle");
        assert_eq!(p.external_depth(0, 3), 0, "{speed:?}: the external FIFO was flushed");
        let (resumed, neighbour) = (p.departed(0, 3), p.departed(0, 2));
        assert!(
            resumed * 2 >= neighbour,
            "{speed:?}: priority 3 sent {resumed} frames after its pause, priority 2 {neighbour}"
        );
        assert_eq!(p.stats().order_violations, 0);
        assert!(p.drain(2_000_000));
        assert!(p.delivered_everything_in_order());
    }
}
