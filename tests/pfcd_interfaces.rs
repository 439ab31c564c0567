//! pfcd on real interfaces (`ports = "interfaces"`): h1 eth0 — p1 [pfcd] p2 — eth0 h2, each a
//! network namespace, pfcd configured over NETCONF. PFC enabled by a commit holds priority 3
//! when h2 pauses it while priority 0 flows, pfcd pauses h1 when its buffer fills, and the
//! Table 12-1 counters read over NETCONF count the PFC frames on the wire; clear-pfc-counters
//! resets them. With a measuring station on h2's side, headroom/method measurement puts the
//! measured allowance in force; with its cable committed in `headroom/calculation-inputs`,
//! headroom/method link-delay puts Annex N's figure in force, and a new cable a new one. A
//! Bridge Port's traffic class table reaches the bridge, with a warning when it puts a lossy
//! priority in a PFC priority's class; and (end to end, with the bridge's class hold) a pause
//! of priority 3 then holds priority 4 in its class.
//!
//! Needs root (namespaces); skipped loudly without it, failed in CI.

use std::time::Duration;

use dataplane::headroom::{calculate, HeadroomInputs, LinkDelay, Medium};
use dataplane::time::LinkSpeed;
use netconf_client::Datastore;
use test_support::hosts::*;
use test_support::netns::{can_run, Daemon};
use test_support::pfcd::*;
use test_support::Scratch;

#[test]
fn a_commit_enables_pfc_on_real_interfaces_and_netconf_counts_the_frames_on_the_wire() {
    if !can_run("a_commit_enables_pfc_on_real_interfaces_and_netconf_counts_the_frames_on_the_wire")
    {
        return;
    }
    let scratch = Scratch::new("pfcd-if");
    let Hosts { mut h1, mut h2, h1_ns: _h1_ns, sw, h2_ns } = hosts("pif");
    let pfcd = start_pfcd_for_storms(&sw, &scratch, &["p1", "p2"]);
    let mut c = pfcd.client(&sw);
    let interfaces = c.get(Some(&format!("<interfaces xmlns=\"{IF_NS}\"/>"))).expect("get");
    let listed = interfaces.data().unwrap_or_default();
    for port in ["p1", "p2"] {
        assert!(listed.contains(&format!("<name>{port}</name>")), "{port} is a port: {listed}");
    }
    let speed = format!("<speed>{}</speed>", STORM_SPEED.bits_per_second());
    assert!(listed.contains(&speed), "the settings' speed: {listed}");

    commit_pfc(&mut c, &["p1", "p2"], "<pfc-enable>p3</pfc-enable>");
    // The watchdog off: the storm below lasts as long as the test needs (seconds on a loaded
    // machine) and nothing it holds may be lost; the watchdog has its own test.
    commit_watchdog(&mut c, &["p1", "p2"], "<enabled>false</enabled>");
    for port in ["p1", "p2"] {
        // No LLDP peer on the hosts: DCBX keeps our own value.
        wait_state(&mut c, port, "PFC in force", |p| {
            value(p, "oper-pfc-enable").as_deref() == Some("p3")
        });
    }

    // h2 pauses priority 3 while h1 sends 20 frames of it and 200 of priority 0.
    // What pfcd sends h1, over every run (its counters count them all).
    let mut at_h1 = Vec::new();
    let (during, after) = while_storm_held("pfcd-if", STORM_SPEED, || {
        let storm = Storm::start(&h2_ns);
        for seq in 0..200u32 {
            if seq < 20 {
                send(&mut h1, &data(3, seq));
            }
            send(&mut h1, &data(0, seq));
            paced(seq);
        }
        let during = drain_until_sequences(
            &mut h2,
            (0, 200),
            (Duration::from_millis(100), Duration::from_secs(2)),
            || {
                at_h1.extend(drain(&mut h1, Duration::ZERO));
            },
        );
        // While the storm lasts, NETCONF shows priority 3 of p2 paused (the state is at most
        // a few tenths of a second old).
        wait_state(&mut c, "p2", "priority 3 paused", |p| {
            value(&priority(p, 3), "priority-paused").as_deref() == Some("true")
        });
        let gap = storm.stop();
        send(&mut h2, &pfc(1 << 3, 0));
        let after = drain(&mut h2, Duration::from_millis(300));
        at_h1.extend(drain(&mut h1, Duration::from_millis(50)));
        ((during, after), gap)
    });
    assert_eq!(
        sequences(&during, 3),
        Vec::<u32>::new(),
        "priority 3 held; pfcd's log:\n{}",
        std::fs::read_to_string(scratch.path("pfcd.log")).unwrap_or_default()
    );
    assert_eq!(sequences(&during, 0), (0..200).collect::<Vec<u32>>(), "priority 0 flowed");
    assert_eq!(sequences(&after, 3), (0..20).collect::<Vec<u32>>(), "all of priority 3 after XON");

    // How frames reach and leave the bridge, and that the kernel lost none on the way
    // (pfcd-pipeline's io-path): a receive ring on veth, the socket to send.
    for port in ["p1", "p2"] {
        let io = io_path_of(&mut c, port);
        assert_eq!(value(&io, "receive-path").as_deref(), Some("ring"), "{io}");
        assert!(number(&io, "receive-ring-slots") > 0, "{io}");
        assert_eq!(value(&io, "transmit-path").as_deref(), Some("socket"), "{io}");
        assert_eq!(number(&io, "receive-kernel-drops"), 0, "{io}");
    }

    // pfcd paused h1 (20 kB pass XOFF for Annex N's allowance) and released it.
    let requests = pfc_frames(&at_h1);
    assert!(requests.iter().any(|f| f.enable & (1 << 3) != 0 && f.time[3] > 0), "{requests:?}");
    assert!(requests.iter().any(|f| f.enable & (1 << 3) != 0 && f.time[3] == 0), "{requests:?}");
    let p1 = wait_state(&mut c, "p1", "p1's requests counted", |p| {
        value(p, "pfc-requests").and_then(|v| v.parse::<u64>().ok()) == Some(requests.len() as u64)
    });
    assert!(number(&priority(&p1, 3), "xoff-events") >= 1, "{p1}");
    assert_eq!(number(&priority(&p1, 3), "frames-dropped"), 0, "{p1}");
    let p2 = pfc_of(&mut c, "p2");
    assert!(number(&p2, "pfc-indications") >= 100, "every PFC frame from h2 counted: {p2}");
    // pfcd-pfc's time-paused: the storm held priority 3 (for at least the 200 frames of
    // priority 0 that flowed meanwhile), and never priority 0.
    assert!(number(&priority(&p2, 3), "time-paused") > 0, "{p2}");
    assert_eq!(number(&priority(&p2, 0), "time-paused"), 0, "{p2}");

    // clear-pfc-counters on p2 only.
    assert!(c.rpc(&pfc_action("p2", "clear-pfc-counters")).expect("action").is_ok());
    // The storm ended with an XON: nothing of it is owed after the clear.
    wait_state(&mut c, "p2", "p2's counters cleared", |p| {
        value(p, "pfc-indications").as_deref() == Some("0")
            && value(&priority(p, 3), "time-paused").as_deref() == Some("0")
    });
    assert!(number(&pfc_of(&mut c, "p1"), "pfc-requests") > 0, "p1's counters stay");

    // A priority's buffer-allocation reaches the bridge: its allocation and XOFF threshold
    // follow (on a software bridge a large allocation keeps PFC from pausing at every burst).
    let pfcd_pfc = pfc_yang_names::pfcd_pfc::NAMESPACE;
    commit_pfc(
        &mut c,
        &["p1"],
        &format!(
            "<priority><priority>3</priority>\
             <buffer-allocation xmlns=\"{pfcd_pfc}\">262144</buffer-allocation></priority>"
        ),
    );
    let p3 = wait_state(&mut c, "p1", "p1's priority 3 allocated 256 KiB", |p| {
        value(&priority(p, 3), "allocation").as_deref() == Some("262144")
    });
    let xoff = number(&priority(&p3, 3), "xoff-threshold");
    assert!(xoff > 200_000 && xoff < 262_144, "the XOFF threshold follows: {p3}");
}

#[test]
fn headroom_method_measurement_puts_the_round_trip_of_the_wire_in_force() {
    if !can_run("headroom_method_measured_puts_the_round_trip_of_the_wire_in_force") {
        return;
    }
    let scratch = Scratch::new("pfcd-if-hr");
    let Hosts { h1_ns: _h1_ns, sw, h2_ns, .. } = hosts("pifm");
    // A measuring station on h2's side: pfc-bridge answers (and makes) HMPDUs.
    let mut cmd = h2_ns.command(test_support::program("pfc-bridge"));
    cmd.args(["--port", "eth0,pfc=3,headroom=measured"]);
    let _station = Daemon::spawn("pfc-bridge", cmd, &scratch.path("station.log"));
    let pfcd = start_pfcd(&sw, &scratch, &["p1", "p2"]);
    let mut c = pfcd.client(&sw);
    commit_pfc(
        &mut c,
        &["p2"],
        &format!(
            "<pfc-enable>p3</pfc-enable><headroom><method xmlns:pfc=\"{PFC_NS}\">pfc:measurement\
             </method></headroom>"
        ),
    );
    let pfc = wait_state(&mut c, "p2", "the measured allowance in force", |p| {
        value(p, "allowance-source").as_deref() == Some("pfc:measurement-result")
    });
    let round_trip = number(&pfc, "round-trip");
    // A veth: what is measured is the software's own latency, a few microseconds.
    assert!(round_trip > 0 && round_trip < 2_000, "{round_trip} quanta: {pfc}");
    // A maximum frame in progress at each end: the settings' max-frame, 9216, with its FCS.
    let wd = dataplane::headroom::frame_bits(9_220) as u64;
    assert_eq!(number(&pfc, "allowance-in-force"), round_trip * 512 + 2 * wd, "{pfc}");
    assert_eq!(value(&pfc, "method-in-force").as_deref(), Some("pfc:measurement"));
    // p1 has no measuring peer: it keeps the link delay allowance.
    let p1 = pfc_of(&mut c, "p1");
    assert_eq!(value(&p1, "allowance-source").as_deref(), Some("pfc:link-delay-allowance"), "{p1}");
}

#[test]
fn with_its_cable_configured_over_netconf_a_port_calculates_annex_n_s_headroom() {
    if !can_run("with_its_cable_configured_over_netconf_a_port_calculates_annex_n_s_headroom") {
        return;
    }
    let scratch = Scratch::new("pfcd-if-calc");
    let Hosts { h1_ns: _h1_ns, sw, h2_ns: _h2_ns, .. } = hosts("pifc");
    let pfcd = start_pfcd_with(&sw, &scratch, &["p1", "p2"], "speed = \"10G\"\n");
    let mut c = pfcd.client(&sw);
    // Annex N's link on p1: 100 m of Cat6 at 10 Gb/s, 2000-octet frames with their FCS
    // stated. p2: 1 km of fibre, and no max-frame: the bridge's largest frame, the settings'
    // max-frame (9216 by default) with its FCS.
    let calculated = |inputs: &str| {
        format!(
            "<pfc-enable>p3</pfc-enable><pfc-link-delay-allowance>50000</pfc-link-delay-allowance>\
             <headroom><method xmlns:pfc=\"{PFC_NS}\">pfc:link-delay</method>\
             <calculation-inputs>{inputs}</calculation-inputs></headroom>"
        )
    };
    commit_pfc(
        &mut c,
        &["p1"],
        &calculated(
            "<cable-length>100</cable-length><medium>cat6</medium><max-frame>2000</max-frame>",
        ),
    );
    commit_pfc(
        &mut c,
        &["p2"],
        &calculated("<cable-length>1000</cable-length><medium>fibre</medium>"),
    );
    let p1 = wait_state(&mut c, "p1", "the calculated allowance in force", |p| {
        value(p, "allowance-source").as_deref() == Some("pfc:link-delay-result")
    });
    assert_eq!(number(&p1, "allowance-in-force"), 126_224, "Annex N's figure: {p1}");
    assert_eq!(number(&p1, "calculated-allowance"), 126_224, "{p1}");
    // No LLDP peer on the hosts: both ends' delays are the usual stack's for the speed and
    // medium (10GBASE-R over fibre).
    let expected = |metres: u32, medium: Medium, max_frame_octets: u64| {
        let link = LinkDelay::Cable { metres, medium };
        let inputs =
            HeadroomInputs { max_frame_octets, ..HeadroomInputs::for_link(LinkSpeed::G10, link) };
        calculate(&inputs).expect("a headroom").bits
    };
    let fibre = expected(1_000, Medium::Fibre, 9_220);
    assert!(fibre > expected(1_000, Medium::Fibre, 2_000), "{fibre}");
    let p2 = wait_state(&mut c, "p2", "the fibre's allowance in force", |p| {
        value(p, "allowance-in-force") == Some(fibre.to_string())
    });
    assert_eq!(value(&p2, "allowance-source").as_deref(), Some("pfc:link-delay-result"), "{p2}");

    // A longer cable on p1, committed: calculated again.
    let longer = expected(300, Medium::Cat6, 2_000);
    commit_pfc(
        &mut c,
        &["p1"],
        &calculated("<cable-length>300</cable-length><max-frame>2000</max-frame>"),
    );
    let p1 = wait_state(&mut c, "p1", "the longer cable's allowance", |p| {
        value(p, "allowance-in-force") == Some(longer.to_string())
    });
    assert_eq!(number(&p1, "calculated-allowance"), longer, "{p1}");
    assert!(longer > 126_224, "{longer}");
}

/// p2's table putting priority 4 in traffic class 3, beside priority 3.
const FOUR_IN_THREE: &str =
    "<number-of-traffic-classes>8</number-of-traffic-classes><priority4>3</priority4>";

#[test]
fn a_traffic_class_table_committed_on_real_interfaces_is_given_to_the_bridge() {
    if !can_run("a_traffic_class_table_committed_on_real_interfaces_is_given_to_the_bridge") {
        return;
    }
    let scratch = Scratch::new("pfcd-if-tc");
    let Hosts { h1_ns: _h1_ns, sw, h2_ns: _h2_ns, .. } = hosts("ptc");
    let pfcd = start_pfcd(&sw, &scratch, &["p1", "p2"]);
    let mut c = pfcd.client(&sw);
    let given = "traffic classes given to the bridge";
    let identity = "traffic_class=[0, 1, 2, 3, 4, 5, 6, 7]";
    // At start, every port runs the identity (no table).
    for port in ["p1", "p2"] {
        wait_log(&scratch, &[&format!("name={port}}}"), given, identity], 1);
    }

    // PFC on 3 and priority 4 in class 3 with it: taken (not refused, as on the lab), handed
    // to p2's bridge port, and a warning that a pause of 3 holds lossy 4.
    commit_pfc(&mut c, &["p1", "p2"], "<pfc-enable>p3</pfc-enable>");
    commit_bridge_port(&mut c, &["p2"], &traffic_class_table(FOUR_IN_THREE));
    let running = c.get_config(Datastore::Running, None).expect("get-config");
    let running = running.data().unwrap_or_default();
    assert!(running.contains("<priority4>3</priority4>"), "{running}");
    wait_log(&scratch, &["name=p2}", given, "traffic_class=[0, 1, 2, 3, 3, 5, 6, 7]"], 1);
    // The bridge put it in force, as pfcd-pipeline's state shows; p1 keeps the identity.
    wait_traffic_class(&mut c, "p2", 4, 3);
    wait_traffic_class(&mut c, "p2", 3, 3);
    wait_traffic_class(&mut c, "p1", 4, 4);
    let warned = wait_log(
        &scratch,
        &["WARN", "port=p2", "traffic class 3 holds priorities 3 with PFC and 4 without"],
        1,
    );
    assert_eq!(warned.len(), 1, "warned once: {warned:?}");
    let log = std::fs::read_to_string(scratch.path("pfcd.log")).unwrap_or_default();
    assert!(!log.contains("configuration not taken"), "the bridge took it:\n{log}");
    assert!(
        !log.lines().any(|l| l.contains("name=p1}") && l.contains("traffic_class=[0, 1, 2, 3, 3")),
        "p1 keeps the identity:\n{log}"
    );

    // Without the table, p2 runs the identity again.
    let delete = format!(
        "<interfaces xmlns=\"{IF_NS}\"><interface><name>p2</name>\
         <bridge-port xmlns=\"{DOT1Q_NS}\"><traffic-class><traffic-class-table \
         xmlns:nc=\"urn:ietf:params:xml:ns:netconf:base:1.0\" nc:operation=\"delete\"/>\
         </traffic-class></bridge-port></interface></interfaces>"
    );
    c.edit_config(Datastore::Candidate, &delete, None).expect("edit-config");
    c.commit().expect("commit");
    wait_log(&scratch, &["name=p2}", given, identity], 2);
    wait_traffic_class(&mut c, "p2", 4, 4);
}

/// **Needs the bridge's traffic class hold** (`pfc-bridge`: a pause of priority n holds its
/// whole class, 36.1; main's 4cbc44b "Bridge: priority to traffic class on transmit"). On a
/// tree without it this test fails at "priority 4 held with priority 3" and nowhere else; with
/// it, it passes.
///
/// h2 pauses priority 3 while h1 sends priorities 0, 3 and 4 (4 without PFC). With the
/// identity, 4 flows during the storm as 0 does; with p2's table putting 4 in class 3, nothing
/// of 4 leaves p2 during the storm while 0 flows, and all of it follows the XON.
#[test]
fn end_to_end_a_pause_of_priority_3_holds_priority_4_in_its_traffic_class() {
    if !can_run("end_to_end_a_pause_of_priority_3_holds_priority_4_in_its_traffic_class") {
        return;
    }
    let scratch = Scratch::new("pfcd-if-tc-e2e");
    let Hosts { mut h1, mut h2, h1_ns: _h1_ns, sw, h2_ns } = hosts("ptce");
    let pfcd = start_pfcd_for_storms(&sw, &scratch, &["p1", "p2"]);
    let mut c = pfcd.client(&sw);
    commit_pfc(&mut c, &["p1", "p2"], "<pfc-enable>p3</pfc-enable>");
    // The watchdog off: the storm below lasts as long as the test needs (seconds on a loaded
    // machine) and nothing it holds may be lost; the watchdog has its own test.
    commit_watchdog(&mut c, &["p1", "p2"], "<enabled>false</enabled>");
    for port in ["p1", "p2"] {
        wait_state(&mut c, port, "PFC in force", |p| {
            value(p, "oper-pfc-enable").as_deref() == Some("p3")
        });
    }
    let log = || std::fs::read_to_string(scratch.path("pfcd.log")).unwrap_or_default();
    let all = |n: u32| (0..n).collect::<Vec<u32>>();

    // The identity: 4 has a class of its own and flows.
    let (during, after) = storm_round(&mut h1, &mut h2, &h2_ns);
    assert_eq!(sequences(&during, 0), all(200), "identity: priority 0 flowed");
    assert_eq!(sequences(&during, 3), Vec::<u32>::new(), "identity: priority 3 held");
    assert_eq!(sequences(&during, 4), all(20), "identity: priority 4 flowed");
    assert_eq!(sequences(&after, 3), all(20), "identity: all of priority 3 after XON");

    // Priority 4 in class 3 on p2 (the port h2 pauses). The bridge takes the table once
    // nothing waits for the port: the last round's frames are all out.
    commit_bridge_port(&mut c, &["p2"], &traffic_class_table(FOUR_IN_THREE));
    let given = "traffic classes given to the bridge";
    wait_log(&scratch, &["name=p2}", given, "traffic_class=[0, 1, 2, 3, 3, 5, 6, 7]"], 1);
    wait_traffic_class(&mut c, "p2", 4, 3);
    let (during, after) = storm_round(&mut h1, &mut h2, &h2_ns);
    assert_eq!(sequences(&during, 0), all(200), "class 3 held: priority 0 flowed");
    assert_eq!(sequences(&during, 3), Vec::<u32>::new(), "class 3 held: priority 3 held");
    assert_eq!(
        sequences(&during, 4),
        Vec::<u32>::new(),
        "priority 4 held with priority 3, in its traffic class; pfcd's log:\n{}",
        log()
    );
    assert_eq!(sequences(&after, 3), all(20), "class 3: all of priority 3 after XON");
    assert_eq!(sequences(&after, 4), all(20), "class 3: all of priority 4 after XON, in order");
}

/// h2 pauses priority 3 (a storm, then XON) while h1 sends 200 frames of priority 0 and 20
/// each of 3 and 4: what h2 received during the storm, and in the 300 ms after the XON.
fn storm_round(
    h1: &mut dataplane::io::RawPort,
    h2: &mut dataplane::io::RawPort,
    h2_ns: &test_support::netns::Netns,
) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    while_storm_held("storm round", STORM_SPEED, || {
        let storm = Storm::start(h2_ns);
        for seq in 0..200u32 {
            if seq < 20 {
                send(h1, &data(3, seq));
                send(h1, &data(4, seq));
            }
            send(h1, &data(0, seq));
            paced(seq);
        }
        // pfcd's PFC frames to h1: not looked at here.
        let during = drain_until_sequences(
            h2,
            (0, 200),
            (Duration::from_millis(100), Duration::from_secs(2)),
            || {
                drain(h1, Duration::ZERO);
            },
        );
        let gap = storm.stop();
        send(h2, &pfc(1 << 3, 0));
        let after = drain(h2, Duration::from_millis(300));
        drain(h1, Duration::ZERO);
        ((during, after), gap)
    })
}

/// Port `port`'s pfcd-pipeline `io-path`.
fn io_path_of(c: &mut netconf_client::Client, port: &str) -> String {
    let filter = format!(
        "<interfaces xmlns=\"{IF_NS}\"><interface><name>{port}</name>\
         <bridge-port xmlns=\"{DOT1Q_NS}\"><pipeline xmlns=\"{PIPE_NS}\"><io-path/></pipeline>\
         </bridge-port></interface></interfaces>"
    );
    c.get(Some(&filter)).expect("get").data().unwrap_or_default().to_string()
}
