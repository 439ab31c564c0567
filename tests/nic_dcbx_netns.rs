//! `nic-dcbx`: pfcd reads it from the settings file and refuses a misspelling with the two
//! values it takes; on a veth pair standing in for two NICs (one whose firmware runs DCBX, one
//! host-managed), `leave` leaves the first alone (no LLDP agent, nothing programmed, the
//! operational PFC enable the NIC's) and takes the second over, and pfcd-nic shows both.

use std::process::Stdio;
use std::time::{Duration, Instant};

use pfc_dcb::kernel::{DCB_CAP_DCBX_HOST, DCB_CAP_DCBX_LLD_MANAGED, DCB_CAP_DCBX_VER_IEEE};
use pfc_dcb::{DcbxMode, IeeeObjects, IeeePfc};
use pfcd::lldp::agent::AgentConfig;
use pfcd::nic::dcbx_owner::DcbxOwner;
use pfcd::nic::state::NicState;
use pfcd::nic::NicPorts;
use pfcd::northbound::nic::port_entry;
use pfcd::ports::set::PortSet;
use pfcd::ports::PortIntent;
use pfcd::settings::{InterfaceSettings, NicDcbx};
use test_support::netns::{can_run, run_inside_veth_pair, Netns};
use test_support::{program, Scratch};

/// pfcd run on `settings` until it exits (it refuses here: a bad setting, or veth's lack of
/// DCB); its stderr.
fn pfcd_refusal(ns: &Netns, settings: &str) -> String {
    let scratch = Scratch::new("pfcd-nic-dcbx");
    let file = scratch.path("pfcd.toml");
    std::fs::write(&file, settings).expect("settings");
    let out = ns
        .command(program("pfcd"))
        .arg("--config")
        .arg(&file)
        .args(["--listen", "127.0.0.1:0", "--state-dir"])
        .arg(scratch.path("state"))
        .stdin(Stdio::null())
        .output()
        .expect("pfcd runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "pfcd started: {stderr}");
    assert!(!scratch.path("state").exists(), "a state directory was made: {stderr}");
    stderr
}

#[test]
fn nic_dcbx_is_parsed_and_a_misspelling_refused_naming_the_values() {
    if !can_run("nic_dcbx_is_parsed_and_a_misspelling_refused_naming_the_values") {
        return;
    }
    let ns = Netns::new("nicf");
    ns.link(&["add", "nicf0", "type", "veth", "peer", "name", "nicf1"]);
    let base = "ports = \"interfaces\"\n[interfaces]\nnames = [\"nicf0\"]\ndata-plane = \"nic\"\n";

    let misspelt = pfcd_refusal(&ns, &format!("{base}nic-dcbx = \"leeve\"\n"));
    assert!(misspelt.contains("nic-dcbx"), "names the setting: {misspelt}");
    assert!(misspelt.contains("`take-over` or `leave`"), "names the values: {misspelt}");

    // Taken: pfcd gets past its settings and stops only at veth's missing DCB operations.
    let taken = pfcd_refusal(&ns, &format!("{base}nic-dcbx = \"leave\"\n"));
    assert!(!taken.contains("settings file"), "{taken}");
    assert!(taken.contains("nicf0 has no DCB operations"), "{taken}");
}

fn wait_for_states(ports: &NicPorts, what: &str, ready: impl Fn(&[(String, NicState)]) -> bool) {
    let end = Instant::now() + Duration::from_secs(20);
    loop {
        let states = ports.states();
        if ready(&states) {
            return;
        }
        assert!(Instant::now() < end, "{what} within 20 s: {states:#?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Set in the run of the test inside the namespace (its own /sys, where the ports read the
/// interfaces).
const INSIDE: &str = "PFCD_NIC_DCBX_INSIDE";

const TEST: &str = "leave_leaves_a_firmware_nic_alone_takes_a_host_one_over_and_shows_both";

#[test]
fn leave_leaves_a_firmware_nic_alone_takes_a_host_one_over_and_shows_both() {
    if run_inside_veth_pair("nicl", TEST, INSIDE) {
        inside();
    }
}

fn inside() {
    let settings = InterfaceSettings {
        names: vec!["nicl0".into(), "nicl1".into()],
        nic_dcbx: NicDcbx::Leave,
        ..InterfaceSettings::default()
    };
    // What the start-up check would have found: nicl0's firmware runs DCBX and has PFC on p3
    // and p5; nicl1's DCBX is host-managed.
    let firmware_pfc = IeeePfc { pfc_cap: 8, pfc_en: 0b0010_1000, ..IeeePfc::default() };
    let found = vec![
        (
            IeeeObjects { pfc: Some(firmware_pfc), ..IeeeObjects::default() },
            Some(DcbxMode(DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_IEEE)),
        ),
        (IeeeObjects::default(), Some(DcbxMode(DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE))),
    ];
    let ports = NicPorts::start(&settings, found).expect("NIC ports start");
    let intent = PortIntent {
        pfc_enable: 0b0001_0000,
        lldp: Some(AgentConfig::default()),
        ..Default::default()
    };
    for port in ports.ports() {
        port.apply(intent.clone());
    }

    // nicl1 is programmed (veth refuses it); by then nicl0 has had the same configuration.
    wait_for_states(&ports, "nicl1 programmed", |s| s[1].1.programmed.is_some());
    let states = ports.states();
    let (left, taken) = (&states[0].1, &states[1].1);
    assert_eq!(left.dcbx_owner, Some(DcbxOwner::LeftToFirmware));
    assert!(left.programmed.is_none(), "nothing set on the firmware's NIC: {left:#?}");
    assert_eq!(taken.dcbx_owner, Some(DcbxOwner::NothingToLeave));

    let firmware = ports.ports()[0].snapshot();
    assert!(!firmware.lldp.enabled, "no LLDP agent of pfcd's on nicl0");
    assert_eq!(firmware.oper_pfc_enable, 0b0010_1000, "the NIC's PFC enable is operational");
    assert_eq!(firmware.intent.pfc_enable, 0b0001_0000, "the configuration is kept as given");
    assert!(ports.ports()[1].snapshot().lldp.enabled, "pfcd runs LLDP on nicl1");

    let xml = port_entry("nicl0", left).to_xml();
    for shown in [
        "<nic-dcbx>leave</nic-dcbx>",
        "<dcbx-agent>nic-firmware</dcbx-agent>",
        "<dcbx-mode-found>lld-managed ieee</dcbx-mode-found>",
        "pfcd sets neither the DCBX mode nor PFC on this NIC",
    ] {
        assert!(xml.contains(shown), "{shown} in {xml}");
    }
    assert!(!xml.contains("<programmed"), "{xml}");
    let xml = port_entry("nicl1", taken).to_xml();
    for shown in [
        "<nic-dcbx>leave</nic-dcbx>",
        "<dcbx-agent>pfcd</dcbx-agent>",
        "no firmware agent to leave it to",
        "<programmed",
    ] {
        assert!(xml.contains(shown), "{shown} in {xml}");
    }
    ports.stop();
}
