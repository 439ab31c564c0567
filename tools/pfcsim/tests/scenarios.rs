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
        .filter(|n| n.ends_with(".toml"))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "annex-n-10g-100m.toml",
            "calculated-10g-1m-drain-1pct.toml",
            "credit-100g-100m.toml",
            "fixed-10km-default-on-60km.toml",
            "measured-100g-10km.toml"
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
