//! Two PFC stations over 100 m, 10 km and 60 km of fibre, B's receive buffer sized from the
//! round trip B **measured** with the headroom measurement protocol over the same link, same
//! interface delays and same station allowances: sustained congestion, zero drops.

use dataplane::headroom::measure::MeasureConfig;
use dataplane::headroom::{measured_headroom, BufferConfig, BufferPlan, WorstCase};
use dataplane::sim::{
    MeasurePair, MeasurePairConfig, Medium, Station, TwoStation, TwoStationConfig,
};
use dataplane::time::{LinkSpeed, Picos};

/// A congested run over `metres` of fibre at `speed`: B drains at 20 % of line rate.
fn stations(speed: LinkSpeed, metres: u64, seed: u64) -> TwoStationConfig {
    let mut cfg = TwoStationConfig::annex_n(0, seed);
    cfg.speed = speed;
    cfg.link_metres = metres;
    cfg.medium = Medium::Fibre;
    // Long enough for the buffer to fill and PFC to cycle several times.
    cfg.duration = Picos::from_ms(4).max(cfg.round_trip() * 15);
    cfg
}

/// B's measured round trip in quanta (random waits on both sides, eight results).
fn measure(cfg: &TwoStationConfig) -> u32 {
    let mut m = MeasurePairConfig::for_stations(cfg, cfg.seed);
    m.wire_wait_max = cfg.speed.quanta(200);
    m.response_wait_max = cfg.speed.quanta(200);
    let eight: fn(&mut MeasureConfig) = |c| c.results_wanted = 8;
    m.a.configure = eight;
    m.b.configure = eight;
    let r = MeasurePair::new(m).expect("valid").run();
    let q = r.station(Station::B).round_trip_quanta.expect("B measured");
    let error = r.error(Station::B).expect("estimate");
    assert!(error.abs() <= 8 * r.quantum.as_ps() as i64, "{error} ps");
    q
}

/// The headroom from the measurement: round trip × 512 + two maximum frames. TwoStation's
/// 2000-octet frames exclude the FCS, so WD counts 2004-octet frames.
fn measured_bits(cfg: &TwoStationConfig, quanta: u32) -> u64 {
    let wd = WorstCase { max_frame_octets: u64::from(cfg.frame_len) + 4 };
    measured_headroom(cfg.speed, u64::from(quanta), &wd).expect("valid").bits
}

#[test]
fn measured_headroom_is_lossless_over_100_m_10_km_and_60_km() {
    for speed in [LinkSpeed::G10, LinkSpeed::G100] {
        for metres in [100, 10_000, 60_000] {
            for seed in 0..3 {
                let mut cfg = stations(speed, metres, seed);
                let quanta = measure(&cfg);
                cfg.headroom_bits = measured_bits(&cfg, quanta);
                let plan =
                    BufferPlan::new(cfg.headroom_bits, &BufferConfig::default()).expect("plan");
                let r = TwoStation::new(cfg.clone()).run();
                let what = format!("{speed} {metres} m seed {seed}: {r:?}");
                assert_eq!(r.buffer_allocation_octets, plan.allocation_octets, "{what}");
                assert_eq!(r.xoff_threshold_octets, plan.xoff_octets, "{what}");
                assert!(r.xoff_events >= 3 && r.pfc_requests >= 3, "congested: {what}");
                assert_eq!(r.frames_dropped, 0, "{what}");
                assert_eq!(r.out_of_order, 0, "{what}");
                assert!(r.peak_occupancy_octets > r.xoff_threshold_octets, "{what}");
            }
        }
    }
}

#[test]
fn a_third_of_the_measured_headroom_is_not_enough() {
    // The same runs with the headroom cut to a third drop frames: the lossless result above is
    // the measurement's doing, not a generous simulation.
    for metres in [100, 10_000, 60_000] {
        let mut cfg = stations(LinkSpeed::G10, metres, 1);
        cfg.headroom_bits = measured_bits(&cfg, measure(&cfg)) / 3;
        let r = TwoStation::new(cfg).run();
        assert!(r.frames_dropped > 0, "{metres} m: {r:?}");
    }
}
