//! Every shipped scenario in `scenarios/` runs through the library entry point `pfcsim scenario`
//! uses, and shows what its comment promises.

use std::path::{Path, PathBuf};

use dataplane::headroom::calculate;
use pfcsim::{
    inputs_for, parse, run_file, stations, svg, table, FlowControlMode, HeadroomMethod,
    ScenarioError, ScenarioResults,
};

/// The shipped scenarios, at the top of the workspace (where README's commands name them).
fn scenarios() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

fn scenario(name: &str) -> PathBuf {
    scenarios().join(name)
}

fn run(name: &str) -> ScenarioResults {
    let r = run_file(&scenario(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    // Every result prints, serialises and plots.
    assert!(table(&r).contains(&r.name));
    let json = serde_json::to_value(&r).expect("serialises");
    assert_eq!(json["runs"].as_array().map(Vec::len), Some(r.runs.len()));
    let plot = svg(&r).expect("the scenario records a time series");
    assert!(
        plot.starts_with("<svg")
            && plot.contains("<polyline")
            && plot.trim_end().ends_with("</svg>")
    );
    r
}

#[test]
fn every_shipped_scenario_is_tested() {
    let mut names: Vec<String> = std::fs::read_dir(scenarios())
        .expect("scenarios/ exists")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".toml") && !n.starts_with("fabric-"))
        .collect();
    names.sort();
    // The networks (`fabric-*.toml`) are `pfcsim network`'s, tested in `networks.rs`.
    assert_eq!(
        names,
        [
            "annex-n-10g-100m.toml",
            "calculated-10g-1m-drain-1pct.toml",
            "credit-100g-100m.toml",
            "fixed-10km-default-on-60km.toml",
            "measured-100g-10km.toml",
            "watchdog-storm-10g.toml"
        ]
    );
}

#[test]
fn annex_n_scenario_is_lossless() {
    let r = run("annex-n-10g-100m.toml");
    assert_eq!(r.headroom.bits, 126_224);
    assert_eq!(r.buffer_octets, 31_744, "N.6: twice the headroom, rounded up to 31 KiB");
    assert_eq!(r.runs.len(), 3);
    for s in &r.runs {
        assert_eq!(s.frames_dropped, 0, "{s:?}");
        assert!(s.stops > 3 && s.flow_control_frames > 3, "congested: {s:?}");
    }
    let plot = svg(&r).expect("plot");
    assert!(plot.contains("priority 3 paused") && plot.contains("XOFF"));
    assert!(plot.contains("<rect x="), "the pauses of priority 3 are drawn");
}

#[test]
fn a_receiver_draining_at_1_percent_loses_nothing_with_the_calculated_headroom() {
    let r = run("calculated-10g-1m-drain-1pct.toml");
    assert_eq!(r.headroom.method, HeadroomMethod::Calculated);
    let xoff = r.xoff_octets.expect("PFC");
    // XOFF keeps the headroom and the crossing frame's 1999 octets free.
    assert_eq!(r.buffer_octets - xoff, r.headroom.bits.div_ceil(8) + 1_999);
    for s in &r.runs {
        assert_eq!(s.frames_dropped, 0, "{s:?}");
        assert!(s.stops >= 2 && s.flow_control_frames >= 2, "congested: {s:?}");
    }
    // The same run with XOFF one headroom below the end, as Annex N N.6 places it (the
    // headroom less the crossing frame, in the plan's terms) loses frames.
    let file =
        std::fs::read_to_string(scenario("calculated-10g-1m-drain-1pct.toml")).expect("read");
    let mut old = parse("old", &file).expect("parses");
    old.headroom.method = HeadroomMethod::Fixed;
    old.headroom.bits = Some(r.headroom.bits - 8 * 1_999);
    old.flow_control.buffer_octets = Some(r.buffer_octets);
    let lost = pfcsim::run(&old).expect("runs");
    assert!(lost.total_dropped() > 0, "{:?}", lost.runs);
}

#[test]
fn measured_scenario_is_lossless() {
    let r = run("measured-100g-10km.toml");
    assert_eq!(r.headroom.method, HeadroomMethod::Measured);
    // 10 km of fibre at 100G: about 100.6 us, 19 650 quanta of 5.12 ns.
    let q = u64::from(r.headroom.round_trip_quanta.expect("measured"));
    let true_q = r.true_round_trip_ns * 1000 / 5_120;
    assert!(q.abs_diff(true_q) <= 8, "measured {q}, true {true_q}");
    assert!(r.runs.iter().all(|s| s.frames_dropped == 0 && s.stops > 0), "{:?}", r.runs);
}

#[test]
fn the_fixed_10_km_default_loses_frames_on_60_km() {
    let file = std::fs::read_to_string(scenario("fixed-10km-default-on-60km.toml")).expect("read");
    let parsed = parse("fixed", &file).expect("parses");
    // The file's figure is what the calculator gives for 10 km with the simulated stations.
    let mut ten_km = parsed.clone();
    ten_km.link.metres = 10_000;
    let inputs = inputs_for(&stations(&ten_km, 1).expect("valid")).expect("valid");
    assert_eq!(Some(calculate(&inputs).expect("valid").bits), parsed.headroom.bits);
    let r = run("fixed-10km-default-on-60km.toml");
    assert!(r.total_dropped() > 0, "{:?}", r.runs);
}

#[test]
fn credit_scenario_never_loses_and_pays_in_goodput() {
    let r = run("credit-100g-100m.toml");
    assert_eq!(r.flow_control, FlowControlMode::Credit);
    assert_eq!(r.buffer_octets, 65_536);
    for s in &r.runs {
        assert_eq!(s.frames_dropped, 0, "{s:?}");
        assert!(s.peak_occupancy_octets <= 65_536);
    }
    assert!(table(&r).contains("FCPs"));
}

#[test]
fn mistakes_in_a_scenario_file_are_explained() {
    let base = std::fs::read_to_string(scenario("annex-n-10g-100m.toml")).expect("read");
    let err = parse("x", &base.replace("\"10G\"", "\"30G\"")).map(|f| pfcsim::run(&f));
    assert!(matches!(err, Ok(Err(ScenarioError::Speed(_)))), "{err:?}");
    let err = parse("x", &base.replace("\"annex-n\"", "\"guess\"")).expect_err("unknown method");
    assert!(err.to_string().contains("unknown variant `guess`"), "{err}");
    let err = parse("x", &base.replace("method = \"annex-n\"", "method = \"fixed\""))
        .map(|f| pfcsim::run(&f));
    assert!(matches!(err, Ok(Err(ScenarioError::FixedWithoutBits))), "{err:?}");
    let err = parse("x", &base.replace("drain_percent = 20", "drain_percent = 0"))
        .map(|f| pfcsim::run(&f));
    assert!(matches!(err, Ok(Err(ScenarioError::Drain(0)))), "{err:?}");
    let err = parse("x", &base.replace("[link]", "colour = 3\n[link]")).expect_err("unknown key");
    assert!(err.to_string().contains("colour"), "{err}");
    let missing = run_file(Path::new("/nonexistent/scenario.toml")).expect_err("no file");
    assert!(missing.to_string().contains("cannot read scenario file"));
}

/// A storm's figure in picoseconds of simulated time, from nanoseconds.
fn ps(ns: Option<u64>) -> u64 {
    ns.expect("happened") * 1_000
}

#[test]
fn watchdog_storms_are_found_at_detection_time_acted_on_and_restored() {
    let r = run("watchdog-storm-10g.toml");
    let ms = 1_000_000_000u64;
    for seed in &r.runs {
        assert_eq!(seed.frames_dropped, 0, "A's lossless traffic is untouched: {seed:?}");
        let [drop, forward, alert] = &seed.storms[..] else {
            panic!("three storms: {:?}", seed.storms)
        };
        for (s, class, action) in [
            (drop, "priority 3", "drop"),
            (forward, "priority 4", "forward"),
            (alert, "priority 5", "alert"),
        ] {
            assert_eq!((s.class.as_str(), s.action.as_str()), (class, action));
            let began = ps(s.storm_began_ns);
            let start = s.start_us * 1_000_000;
            assert!(began >= start && began < start + ms, "{s:?}");
            // Detection within 1 ms of the configured time, counted from the peer's first pause;
            // exact from the hold (the first frame that waited under it).
            let detected = ps(s.detected_ns);
            assert!(detected >= began + 200 * ms && detected <= began + 201 * ms, "{s:?}");
            assert_eq!(s.detection_error_ps, Some(0), "{s:?}");
            // Restored once the peer has been quiet for the restoration time, not before it ended.
            let end = s.end_us * 1_000_000;
            let restored = ps(s.restored_ns);
            assert!(restored > end && restored <= end + 200 * ms, "{s:?}");
        }
        // drop: the class's frames are discarded from detection on (one every 16 frame times
        // for 190 ms, about 9 750) and nothing waits; forward: they leave; alert: they wait.
        assert!(drop.frames_dropped > 9_000, "{drop:?}");
        assert_eq!(drop.queued_at_end, 0, "{drop:?}");
        assert_eq!((forward.frames_dropped, alert.frames_dropped), (0, 0));
        assert!(forward.queued_at_end < 4, "{forward:?}");
        assert_eq!(alert.queued_at_end, 64, "held, queue full: {alert:?}");
    }
    let printed = table(&r);
    assert!(printed.contains("hold began") && printed.contains("forward"), "{printed}");
    let json = serde_json::to_value(&r).expect("serialises");
    assert_eq!(json["runs"][0]["storms"][0]["detection_error_ps"], 0);
}

#[test]
fn without_a_watchdog_section_a_storm_meets_pfcd_s_defaults_and_off_holds_for_good() {
    let text = std::fs::read_to_string(scenario("watchdog-storm-10g.toml")).expect("read");
    let mut file = parse("defaults", &text).expect("parses");
    file.watchdog = None;
    let r = pfcsim::run(&file).expect("runs");
    let actions: Vec<&str> = r.runs[0].storms.iter().map(|s| s.action.as_str()).collect();
    assert_eq!(actions, ["drop"; 3], "200 ms / 200 ms / drop on every class");
    assert!(r.runs[0].storms.iter().all(|s| s.detection_error_ps == Some(0)));

    file.watchdog = Some(pfcsim::WatchdogSpec { enabled: false, ..Default::default() });
    let r = pfcsim::run(&file).expect("runs");
    for s in &r.runs[0].storms {
        assert_eq!((s.detected_ns, s.restored_ns, s.frames_dropped), (None, None, 0), "{s:?}");
        assert_eq!(s.queued_at_end, 64, "the storm holds the class's frames: {s:?}");
    }
}

#[test]
fn mistakes_in_the_watchdog_sections_are_explained() {
    let base = std::fs::read_to_string(scenario("watchdog-storm-10g.toml")).expect("read");
    let fails = |from: &str, to: &str| {
        let file = parse("x", &base.replacen(from, to, 1)).expect("parses");
        pfcsim::run(&file).expect_err("refused").to_string()
    };
    let e = fails("detection_ms = 200", "detection_ms = 0");
    assert!(e.contains("detection_ms is 0: give 1 to 600000"), "{e}");
    let e = fails("priority = 4\naction", "action");
    assert!(e.contains("[[watchdog.class]] names one class"), "{e}");
    let e = fails("end_us = 400000", "end_us = 900000");
    assert!(e.contains("by the run's duration_us (700000)"), "{e}");
    let e = fails("priority = 4\nstart_us", "priority = 3\nstart_us");
    assert!(e.contains("two storms of priority 3 overlap"), "{e}");
    let e = fails("priority = 5\nstart_us", "link_pause = true\nstart_us");
    assert!(e.contains("needs PFC off"), "{e}");
    let e = fails("[egress]", "[flow_control]\nmode = \"credit\"\n[egress]");
    assert!(e.contains("need flow_control mode = \"pfc\""), "{e}");
    let err = parse("x", &base.replace("action = \"alert\"", "action = \"shout\""))
        .expect_err("unknown action");
    assert!(err.to_string().contains("unknown variant `shout`"), "{err}");
}
