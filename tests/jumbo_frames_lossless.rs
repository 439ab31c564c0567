//! Jumbo frames on a lossless priority: 9000-octet frames (FCS excluded) under 2:1 fan-in, the
//! receiving port's headroom measured by the protocol and put in force as pfcd does on a real
//! interface with the settings' default `max-frame` (9216): no frame lost.
//!
//! This runs in the two-station simulation (dataplane's `TwoStation`, the model pfcsim and the
//! lab use) rather than on veth: a veth link has no wire delay and the software bridge's
//! buffers would overflow from scheduling jitter long before the headroom mattered, so what
//! this test pins (the worst case the measurement adds, from the one maximum-frame figure)
//! is only visible on a simulated link whose round trip is the headroom's.

use dataplane::headroom::measure::MeasureConfig;
use dataplane::headroom::{measured_headroom, BufferPlan};
use dataplane::sim::{
    MeasurePair, MeasurePairConfig, Medium, Station, TwoStation, TwoStationConfig,
};
use dataplane::time::{LinkSpeed, Picos};
use pfcd::ports::headroom::ReceiveBuffer;
use pfcd::settings::InterfaceSettings;

/// Octets per frame, FCS excluded.
const JUMBO: u32 = 9_000;

/// A link at `speed` over `metres` of fibre carrying jumbo frames both ways; B's egress is
/// shared by two ingress ports at line rate, so it drains each at `drain_percent` % of the
/// line rate: 50 while the egress runs, 0 while it is paused downstream.
fn fan_in(speed: LinkSpeed, metres: u64, seed: u64, drain_percent: u64) -> TwoStationConfig {
    let mut cfg = TwoStationConfig::annex_n(0, seed);
    cfg.speed = speed;
    cfg.link_metres = metres;
    cfg.medium = Medium::Fibre;
    cfg.frame_len = JUMBO;
    cfg.reverse_frame_len = Some(JUMBO);
    cfg.drain_percent = drain_percent;
    cfg.duration = Picos::from_ms(4).max(cfg.round_trip() * 15);
    cfg
}

/// B's measured round trip in quanta (eight results, random waits on both sides).
fn measure(cfg: &TwoStationConfig) -> u32 {
    let mut m = MeasurePairConfig::for_stations(cfg, cfg.seed);
    m.wire_wait_max = cfg.speed.quanta(200);
    m.response_wait_max = cfg.speed.quanta(200);
    let eight: fn(&mut MeasureConfig) = |c| c.results_wanted = 8;
    m.a.configure = eight;
    m.b.configure = eight;
    let r = MeasurePair::new(m).expect("valid").run();
    r.station(Station::B).round_trip_quanta.expect("B measured")
}

/// The port's receive buffer as pfcd sets it up on a real interface by default.
fn default_port() -> ReceiveBuffer {
    let settings = InterfaceSettings::default();
    ReceiveBuffer::for_max_frame(settings.receive_buffer, settings.max_frame)
}

#[test]
fn jumbo_frames_under_2_to_1_fan_in_with_measured_headroom_lose_nothing() {
    let port = default_port();
    assert_eq!(port.max_frame_octets, 9_220, "the settings' 9216 with the FCS");
    for speed in [LinkSpeed::G10, LinkSpeed::G100] {
        for metres in [100, 10_000] {
            for (seed, drain) in [(0, 50), (1, 50), (2, 50), (3, 0)] {
                let mut cfg = fan_in(speed, metres, seed, drain);
                let quanta = measure(&cfg);
                let headroom = measured_headroom(speed, u64::from(quanta), &port.worst_case())
                    .expect("a headroom");
                cfg.headroom_bits = headroom.bits;
                // The allocation pfcd's buffer rule gives for the port's largest frame.
                let plan =
                    BufferPlan::new(headroom.bits, &port.priority_config(None)).expect("plan");
                cfg.allocation_octets = Some(plan.allocation_octets);
                let r = TwoStation::new(cfg).run();
                let what = format!(
                    "{speed} {metres} m seed {seed} drain {drain} %: {quanta} quanta, {r:?}"
                );
                assert!(r.xoff_events >= 1 && r.pfc_requests >= 1, "congested: {what}");
                assert!(r.peak_occupancy_octets > r.xoff_threshold_octets, "{what}");
                assert_eq!(r.frames_dropped, 0, "{what}");
                assert_eq!(r.out_of_order, 0, "{what}");
            }
        }
    }
}

#[test]
fn a_headroom_for_2000_octet_frames_loses_jumbo_frames() {
    // With the worst case of Annex N's 2000-octet frames, what pfcd took before it had one
    // maximum-frame figure, frames are lost once the shared egress is paused downstream (under
    // 2:1 fan-in alone, the half-rate drain covers the shortfall in the simulation): the
    // lossless result above is the maximum-frame figure's doing.
    let small = ReceiveBuffer { max_frame_octets: 2_000, ..default_port() };
    let mut lost = 0;
    for seed in 0..3 {
        let mut cfg = fan_in(LinkSpeed::G10, 100, seed, 0);
        let quanta = measure(&cfg);
        cfg.headroom_bits =
            measured_headroom(cfg.speed, u64::from(quanta), &small.worst_case()).expect("ok").bits;
        lost += TwoStation::new(cfg).run().frames_dropped;
    }
    assert!(lost > 0, "2000-octet worst case with 9000-octet frames");
}
