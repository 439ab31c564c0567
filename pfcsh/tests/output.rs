//! What the show commands print against a live lab: the unit each leaf has in the model,
//! timestamps whole, values the server leaves as defaults, an unknown port refused, and the
//! drops a lossless priority suffered in the overview.

mod common;

use std::time::{Duration, Instant};

use common::{run, run_apart, stderr, stdout, Home, Lab};

/// The priority rows of `show interfaces pfc PORT` (the table after the header `PRIO`).
fn priority_rows(text: &str) -> Vec<String> {
    text.lines()
        .skip_while(|l| !l.trim_start().starts_with("PRIO"))
        .skip(1)
        .map(str::to_string)
        .collect()
}

#[test]
fn occupancy_is_shown_in_octets_as_the_model_counts_it() {
    let lab = Lab::start("");
    let home = Home::new();
    let o = run(&mut home.pfcsh(lab.port, &lab.password_file), &["show interfaces pfc lab2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = priority_rows(&stdout(&o));
    assert_eq!(rows.len(), 8, "eight priorities:\n{}", stdout(&o));
    for r in &rows {
        assert!(!r.contains("bits"), "occupancy is octets, not bits: {r}");
    }
    assert!(stdout(&o).contains("OCCUPANCY"), "{}", stdout(&o));
}

#[test]
fn pipeline_shows_the_values_the_server_leaves_as_defaults_in_their_unit() {
    let lab = Lab::start("[lab]\ntraffic = false\n");
    let home = Home::new();
    let o = run(&mut home.pfcsh(lab.port, &lab.password_file), &["show pipeline"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let mode = out.lines().find(|l| l.trim_start().starts_with("pause mode")).unwrap_or_default();
    assert!(!mode.ends_with(" -"), "the default pause mode is shown: {out}");
    assert!(out.contains("external"), "the default pause mode: {out}");
    assert!(out.contains("1 048 576 FDs"), "the default capacity, in frame descriptors: {out}");
    assert!(!out.contains("octets used"), "the memory holds FDs, not octets: {out}");
    // An idle lab: nothing stored, nothing ever stored.
    assert!(out.contains("0 of 1 048 576 FDs used, peak 0"), "the memory's peak: {out}");
}

#[test]
fn an_unknown_port_is_an_error_in_every_show_command() {
    let lab = Lab::start("[lab]\ntraffic = false\n");
    let home = Home::new();
    for command in [
        "show interfaces pfc lab9",
        "show headroom lab9",
        "show dcbx lab9",
        "show counters lab9",
        "show lldp neighbors lab9",
        "show lldp neighbors lab9 detail",
    ] {
        let o = run(&mut home.pfcsh(lab.port, &lab.password_file), &[command]);
        assert!(!o.status.success(), "{command}: exit status non-zero");
        assert!(stderr(&o).contains("pfcd has no port 'lab9'"), "{command}: {}", stderr(&o));
        assert!(stderr(&o).contains("lab0"), "{command} names the ports: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{command}: no header-only table: {}", stdout(&o));
    }
}

#[test]
fn the_overview_shows_each_ports_dropped_frames() {
    let lab = Lab::start("");
    let home = Home::new();
    let o = run(&mut home.pfcsh(lab.port, &lab.password_file), &["show interfaces pfc"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let header = out.lines().next().unwrap_or_default();
    assert!(header.contains("DROPPED"), "a drop column: {out}");
    assert!(out.lines().all(|l| l.chars().count() <= 80), "fits 80 columns:\n{out}");
}

#[test]
fn headroom_history_times_are_whole_timestamps() {
    let lab = Lab::start("");
    let home = Home::new();
    let o = run(
        &mut home.pfcsh(lab.port, &lab.password_file),
        &[
            "configure",
            "set interfaces interface lab2 bridge-port pfc headroom method measurement",
            "commit",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // The method takes hold as the lab applies the commit: a busy machine may take a moment.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let o =
            run(&mut home.pfcsh(lab.port, &lab.password_file), &["request headroom measure lab2"]);
        if o.status.success() {
            break;
        }
        assert!(Instant::now() < deadline, "measurement accepted within 30 s: {}", stderr(&o));
        std::thread::sleep(Duration::from_millis(500));
    }
    let history = loop {
        let o = run(&mut home.pfcsh(lab.port, &lab.password_file), &["show headroom lab2"]);
        let out = stdout(&o);
        if let Some((_, h)) = out.split_once("history:\n") {
            break h.to_string();
        }
        assert!(Instant::now() < deadline, "a measurement within 30 s:\n{out}");
        std::thread::sleep(Duration::from_millis(500));
    };
    assert!(history.lines().next().unwrap_or_default().contains("OUTCOME"), "{history}");
    let rows: Vec<&str> = history.lines().skip(1).collect();
    assert!(!rows.is_empty(), "{history}");
    for r in rows {
        // What became of each result, as the server says.
        let outcome = r.split_whitespace().last().unwrap_or_default();
        assert!(
            ["used", "raised-to-minimum", "discarded-above-maximum", "discarded-outlier"]
                .contains(&outcome),
            "an outcome, not {outcome:?}: {r}"
        );
        let time = r.split_whitespace().nth(1).unwrap_or_default();
        assert!(time.len() >= 19 && time.contains('T'), "a date and time, not {time:?}: {r}");
        assert!(
            r.contains("quanta (") && (r.contains("µs)") || r.contains("ms)")),
            "the round trip in time as well as quanta: {r}"
        );
    }
}

/// Two looks with `pfcsh` options `args` at `look` and `second`, far enough apart that the lab's
/// simulated clock moved in between (its rates are per simulated second: on a busy machine
/// the lab may make no progress for half a second), or the output of the last attempt.
fn two_looks(lab: &Lab, home: &Home, args: &[&str], look: &str, second: &str) -> String {
    let mut out = String::new();
    for gap_ms in [500, 1_000, 2_000, 4_000] {
        let mut pfcsh = home.pfcsh(lab.port, &lab.password_file);
        pfcsh.args(args);
        let o = run_apart(&mut pfcsh, &[look, second], std::time::Duration::from_millis(gap_ms));
        assert!(o.status.success(), "{}", stderr(&o));
        out = stdout(&o);
        if out.contains("rates over the last") {
            break;
        }
    }
    out
}

#[test]
fn pfc_counters_per_priority_with_rates_and_since_when() {
    let lab = Lab::start("");
    let home = Home::new();
    let out = two_looks(
        &lab,
        &home,
        &[],
        "show interfaces pfc counters",
        "show interfaces pfc counters lab2 | match lab2",
    );
    let (first, second) = out.split_once("counting since").expect("since when");
    for header in ["PFC TX", "TX/s", "PFC RX", "RX/s", "XOFF", "XON", "PAUSED", "DROPS", "DROP B"] {
        assert!(first.contains(header), "{header}: {out}");
    }
    assert!(first.contains("run again for the rates"), "no rate on the first look: {out}");
    let rows: Vec<&str> = second.lines().filter(|l| l.starts_with("lab2")).collect();
    assert_eq!(rows.len(), 2, "lab2's two PFC priorities (0 and 3):\n{out}");
    for r in rows {
        let rate = r.split_whitespace().nth(3).unwrap_or_default();
        assert!(rate.chars().all(|c| c.is_ascii_digit()), "a rate the second time: {r}");
    }
}

#[test]
fn pfc_counters_show_how_long_the_peer_held_each_priority_paused() {
    // lab2's peer holds priority 0 paused 150 ms at a time and releases it 2 ms.
    let lab = Lab::start("");
    let home = Home::new();
    std::thread::sleep(std::time::Duration::from_secs(1));
    let look = "show interfaces pfc counters lab2";
    let out = two_looks(&lab, &home, &["--plain"], look, look);
    assert!(out.contains("PAUSED") && out.contains("PAUSE%"), "{out}");
    // The lab's rates and shares are per second of its simulated time.
    assert!(out.contains("of the lab's simulated time"), "{out}");
    // --plain: one field per cell; PAUSED (µs) is the ninth, PAUSE% the tenth.
    let rows: Vec<Vec<&str>> = out
        .lines()
        .filter(|l| l.starts_with("lab2"))
        .map(|l| l.split_whitespace().collect())
        .filter(|cells: &Vec<&str>| cells.get(1) == Some(&"0"))
        .collect();
    assert_eq!(rows.len(), 2, "lab2's priority 0 in each look:\n{out}");
    let paused = |row: &Vec<&str>| row[8].parse::<u64>().expect("microseconds paused");
    assert!(paused(&rows[0]) > 0, "a second of the peer's pauses:\n{out}");
    assert!(paused(&rows[1]) >= paused(&rows[0]), "time paused only grows:\n{out}");
    assert_eq!(rows[0][9], "-", "no share on the first look:\n{out}");
    let share: u64 = rows[1][9].parse().expect("a share on the second look");
    assert!(share <= 100, "{out}");
}

#[test]
fn pfc_detail_shows_buffers_and_counters_in_units() {
    let lab = Lab::start("");
    let home = Home::new();
    let o = run(&mut home.pfcsh(lab.port, &lab.password_file), &["sh int pfc lab2 det"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for what in ["ALLOCATION", "XOFF AT", "XON AT", "PEAK", "XON SENT", "counting since", "KiB"] {
        assert!(out.contains(what), "{what}:\n{out}");
    }
}

#[test]
fn the_watchdog_per_port_and_class() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    let o = run(&mut home.pfcsh(lab.port, &lab.password_file), &["show pfc watchdog lab1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    // The lab reports the watchdog, or the view says plainly there is none.
    assert!(out.contains("lab1: on") || out.contains("no watchdog on this port"), "{out}");
    if out.contains("lab1: on") {
        assert!(out.contains("link-pause"), "the link pause's class too:\n{out}");
    }
}

const IDLE: &str = "[lab]\ntraffic = false\n";

#[test]
fn lldp_neighbours_show_capabilities_and_times_in_units() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    let o = run(
        &mut home.pfcsh(lab.port, &lab.password_file),
        &["show lldp neighbors", "show lldp neighbors lab0 detail"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.lines().next().unwrap_or_default().contains("CAPABILITIES"), "{out}");
    assert!(out.contains("station-only"), "{out}");
    let delay = out.lines().find(|l| l.contains(" delay: ")).unwrap_or_default();
    assert!(delay.contains("µs") || delay.contains("ns"), "the delay in time: {out}");
    let mark = out.lines().find(|l| l.contains("time-mark: ")).unwrap_or_default();
    assert!(mark.contains(" s of up time"), "the time-mark in seconds: {out}");
    for header in ["TTL", "AGE"] {
        assert!(out.lines().next().unwrap_or_default().contains(header), "{header}: {out}");
    }
    let ttl = out.lines().find(|l| l.trim_start().starts_with("ttl: ")).unwrap_or_default();
    assert!(ttl.ends_with(" s"), "the TTL in seconds: {out}");
    let expires = out.lines().find(|l| l.contains("expires-in: ")).unwrap_or_default();
    assert!(expires.ends_with(" s") || expires.ends_with(" ms"), "a time: {out}");
}

#[test]
fn an_lldp_neighbour_expires_within_its_ttl_and_its_age_grows() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    let look = |home: &Home| {
        let mut cmd = home.pfcsh(lab.port, &lab.password_file);
        cmd.arg("--plain");
        let o = run(&mut cmd, &["show lldp neighbors lab0"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        // --plain: the model's units, one field a cell; the last two are TTL (s) and AGE (ms).
        let row = out.lines().find(|l| l.starts_with("lab0")).map(str::to_string);
        let row = row.unwrap_or_else(|| panic!("lab0's neighbour: {out}"));
        let cells: Vec<u64> =
            row.split_whitespace().rev().take(2).map(|c| c.parse().expect(&row)).collect();
        (cells[1], cells[0])
    };
    let (ttl, age) = look(&home);
    assert!(ttl > 0, "the TTL a neighbour sends");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let (_, later) = look(&home);
    // An idle lab's peers send an LLDPDU only every 30 s, with the same information.
    assert!(
        later >= age + 1000,
        "the information's age grows while it stays the same: {age} {later}"
    );
}

#[test]
fn plain_tables_have_one_bare_number_a_field() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    let plain = |command| {
        let mut cmd = home.pfcsh(lab.port, &lab.password_file);
        cmd.arg("--plain");
        let o = run(&mut cmd, &[command]);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    let out = plain("show interfaces pfc");
    let overview: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(overview.len(), 4, "{out}");
    for row in overview {
        let fields: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(fields.len(), 9, "one field a cell: {row}");
        for f in &fields[4..8] {
            assert!(f.parse::<u64>().is_ok(), "a bare number, not {f:?}: {row}");
        }
    }
    let out = plain("show interfaces pfc lab2");
    for row in priority_rows(&out) {
        let fields: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(fields.len(), 8, "one field a cell: {row}");
        assert!(fields[4].parse::<u64>().is_ok(), "occupancy in octets: {row}");
    }
}
