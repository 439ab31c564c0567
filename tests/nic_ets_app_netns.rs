//! ETS and APP on NIC ports, as DCBX agrees them. On a veth pair, a willing NIC port of pfcd's
//! takes its peer's ETS Recommendation and merges its peer's APP entries, and the NIC is asked
//! for exactly those (veth refuses: the plan and pfcd-nic's state show what was asked); and
//! lldpad on the other end of a port that is not willing reads that port's own ETS
//! Configuration, ETS Recommendation and Application Priority TLVs.
//!
//! lldpad does not send ETS or APP TLVs from a veth ("Device not capable": it needs DCB
//! netlink), so the willing port's peer is another NIC port of pfcd's; lldpad only receives.

use std::process::Command;
use std::time::{Duration, Instant};

use pfc_dcb::{DcbApp, IeeeObjects};
use pfcd::lldp::agent::AgentConfig;
use pfcd::lldp::dcbx::{AppAdmin, EtsAdmin, EtsReason, Source};
use pfcd::lldp::wire::{AppEntry, AppSelector, EtsTables, Tsa};
use pfcd::nic::state::NicState;
use pfcd::nic::NicPorts;
use pfcd::northbound::nic::port_entry;
use pfcd::ports::set::PortSet;
use pfcd::ports::PortIntent;
use pfcd::settings::InterfaceSettings;
use test_support::netns::{run_inside_veth_pair, wait_for, Daemon};
use test_support::{external_tool, Scratch};

fn wait_for_state(ports: &NicPorts, what: &str, ready: impl Fn(&[(String, NicState)]) -> bool) {
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

/// RoCE's usual ETS: priority 3 alone in traffic class 1, half the bandwidth each, strict
/// priority above.
fn roce_tables() -> EtsTables {
    let mut tsa = [Tsa::STRICT; 8];
    tsa[..2].copy_from_slice(&[Tsa::ETS, Tsa::ETS]);
    EtsTables {
        priority_tc: [0, 0, 0, 1, 0, 0, 0, 0],
        tc_bandwidth: [50, 50, 0, 0, 0, 0, 0, 0],
        tsa,
    }
}

const ROCE: AppEntry =
    AppEntry { priority: 3, selector: AppSelector::UDP_DCCP_PORT, protocol: 4791 };
const ISCSI: AppEntry =
    AppEntry { priority: 4, selector: AppSelector::TCP_SCTP_PORT, protocol: 3260 };

/// A port that recommends RoCE's ETS, runs it itself, sends RoCE's APP entry; not willing.
fn recommending() -> PortIntent {
    let mut ets = EtsAdmin::default();
    ets.config.tables = roce_tables();
    ets.recommendation = Some(roce_tables());
    let mut intent = PortIntent {
        pfc_enable: 0b0000_1000,
        lldp: Some(AgentConfig::default()),
        ..Default::default()
    };
    intent.dcbx.ets = Some(ets);
    intent.dcbx.app = Some(AppAdmin { willing: false, entries: vec![ROCE] });
    intent
}

/// Set in the runs of these tests inside their namespaces (`ip netns exec` mounts the
/// namespace's /sys, where the ports read their interfaces).
const INSIDE: &str = "PFCD_NIC_ETS_APP_INSIDE";

const WILLING: &str =
    "a_willing_nic_port_puts_its_peers_ets_recommendation_and_app_entries_on_the_nic";

#[test]
fn a_willing_nic_port_puts_its_peers_ets_recommendation_and_app_entries_on_the_nic() {
    if run_inside_veth_pair("nice", WILLING, INSIDE) {
        willing_inside();
    }
}

fn willing_inside() {
    let settings = InterfaceSettings {
        names: vec!["nice0".into(), "nice1".into()],
        ..InterfaceSettings::default()
    };
    // nice1's NIC has a stale RoCE entry at priority 5 from before.
    let stale = DcbApp::roce_v2(5);
    let found = vec![
        (IeeeObjects::default(), None),
        (IeeeObjects { apps: vec![stale], ..IeeeObjects::default() }, None),
    ];
    let ports = NicPorts::start(&settings, found).expect("NIC ports start");
    // nice1 is willing (its own ETS is the default one) and has an iSCSI entry of its own.
    let mut willing = PortIntent {
        pfc_enable: 0b0000_1000,
        lldp: Some(AgentConfig::default()),
        ..Default::default()
    };
    let mut ets = EtsAdmin::default();
    ets.config.willing = true;
    willing.dcbx.ets = Some(ets);
    willing.dcbx.app = Some(AppAdmin { willing: true, entries: vec![ISCSI] });
    ports.ports()[0].apply(recommending());
    ports.ports()[1].apply(willing);

    let taken = |s: &NicState| {
        s.programmed.as_ref().and_then(|p| p.plan.ets).is_some_and(|e| e.source == Source::Peer)
    };
    wait_for_state(&ports, "nice1's plan with nice0's recommendation", |s| taken(&s[1].1));
    let states = ports.states();
    let (ours, theirs) = (&states[0].1, &states[1].1);

    let plan = &theirs.programmed.as_ref().expect("programmed").plan;
    let ets = plan.ets.expect("ETS in the plan");
    assert_eq!(ets.reason, EtsReason::PeerRecommendation);
    assert_eq!(ets.ets.prio_tc, [0, 0, 0, 1, 0, 0, 0, 0]);
    assert_eq!(ets.ets.tc_tx_bw, [50, 50, 0, 0, 0, 0, 0, 0]);
    assert_eq!(ets.ets.tc_tsa, [2, 2, 0, 0, 0, 0, 0, 0]);
    assert_eq!(ets.ets.willing, 1);
    let apps = plan.apps.as_ref().expect("APP in the plan");
    let (iscsi, roce) = (DcbApp { selector: 2, priority: 4, protocol: 3260 }, DcbApp::roce_v2(3));
    assert_eq!(apps.table, [iscsi, roce], "its own entry, then the peer's");
    assert_eq!(apps.source, Source::Peer);
    assert_eq!(apps.delete, [stale], "the NIC's stale entry goes");
    assert_eq!(apps.add, [iscsi, roce]);

    // The port that is not willing runs its own configuration.
    let own = ours.programmed.as_ref().expect("programmed").plan.clone();
    let own_ets = own.ets.expect("ETS in the plan");
    assert_eq!((own_ets.source, own_ets.reason), (Source::Local, EtsReason::NotWilling));
    assert_eq!(own.apps.expect("APP").table, [roce]);

    // veth refuses each object, each on its own: ETS and APP among them.
    let p = theirs.programmed.as_ref().expect("programmed");
    let refused: Vec<&str> = p.outcome.refused.iter().map(|r| r.object.as_str()).collect();
    assert_eq!(refused, ["dcbx-mode", "ieee-ets", "ieee-pfc", "app-delete", "app-add"]);

    // pfcd-nic's state says what is in force and where it came from.
    let xml = port_entry("nice1", theirs).to_xml();
    for shown in [
        "<ets><source>peer</source><reason>peer-recommendation</reason>",
        "<priority><priority>3</priority><traffic-class>1</traffic-class></priority>",
        "<traffic-class><traffic-class>1</traffic-class><bandwidth>50</bandwidth>\
         <tsa>enhanced-transmission-selection</tsa></traffic-class>",
        "<app><source>peer</source>",
        "<entry><selector>pri-udp-dccp</selector><protocol>4791</protocol>\
         <priority>3</priority></entry>",
        "<deleted><selector>pri-udp-dccp</selector><protocol>4791</protocol>\
         <priority>5</priority></deleted>",
        "<refused><object>ieee-ets</object>",
        "<refused><object>app-add</object>",
    ] {
        assert!(xml.contains(shown), "{shown} in {xml}");
    }
    assert_eq!(ports.failure(), None, "the ports run on");
    ports.stop();
}

const LLDPAD: &str = "lldpad_reads_a_not_willing_nic_ports_own_ets_and_app";

#[test]
fn lldpad_reads_a_not_willing_nic_ports_own_ets_and_app() {
    if run_inside_veth_pair("nicv", LLDPAD, INSIDE) {
        lldpad_inside();
    }
}

fn lldpad_inside() {
    let Some(lldpad) = external_tool("/usr/sbin/lldpad", "lldpad") else { return };
    let Some(lldptool) = external_tool("/usr/sbin/lldptool", "lldpad") else { return };
    let Some(unshare) = external_tool("/usr/bin/unshare", "util-linux") else { return };
    let scratch = Scratch::new("nic-ets-lldpad");
    // lldpad with its own settings, SysV IPC and /dev/shm (its state, with the pid it takes as
    // "already running"), so that it never meets another lldpad; only receiving on nicv1.
    let mut cmd = Command::new(&unshare);
    cmd.args(["--ipc", "--mount", "--propagation", "private", "/bin/sh", "-c"])
        .arg("mount -t tmpfs -o mode=1777 tmpfs /dev/shm && exec \"$0\" \"$@\"")
        .arg(&lldpad)
        .arg("-f")
        .arg(scratch.path("lldpad.conf"))
        .args(["-p", "-t"]);
    let _lldpad = Daemon::spawn("lldpad", cmd, &scratch.path("lldpad.log"));
    let tool = |args: &[&str]| Command::new(&lldptool).args(args).output().ok();
    wait_for(Duration::from_secs(10), "lldpad to take adminStatus=rx", || {
        tool(&["-L", "-i", "nicv1", "adminStatus=rx"]).filter(|o| o.status.success())
    });

    let settings =
        InterfaceSettings { names: vec!["nicv0".into()], ..InterfaceSettings::default() };
    let ports = NicPorts::start(&settings, vec![(IeeeObjects::default(), None)]).expect("starts");
    ports.ports()[0].apply(recommending());

    let shown = |tlv: &str, wanted: &str| {
        let what = format!("lldptool to show our {tlv} with {wanted}");
        wait_for(Duration::from_secs(10), &what, || {
            let out = tool(&["-t", "-n", "-i", "nicv1", "-V", tlv])?;
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            text.contains(wanted).then_some(text)
        })
    };
    let config = shown("ETS-CFG", "PRIO_MAP: 0:0 1:0 2:0 3:1 4:0 5:0 6:0 7:0");
    assert!(config.contains("Willing: no"), "{config}");
    assert!(config.contains("TC Bandwidth: 50% 50% 0% 0% 0% 0% 0% 0%"), "{config}");
    assert!(config.contains("TSA_MAP: 0:ets 1:ets 2:strict"), "{config}");
    let reco = shown("ETS-REC", "3:1");
    assert!(reco.contains("TC Bandwidth: 50% 50% 0%"), "{reco}");
    let app = shown("APP", "UDP or DCCP Port: 4791");
    assert!(app.contains("Prio 3"), "{app}");
    ports.stop();
}
