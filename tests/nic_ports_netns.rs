//! NIC ports on a veth pair, both ends pfcd's: DCBX runs between them as it does between the
//! software bridge's ports, and every change of what is in force (a commit, a DCBX agreement)
//! is put to the NIC at once; veth's driver refuses each object (EOPNOTSUPP), and the port keeps
//! running, with the refusals and the failed read-back in its state.

use std::time::{Duration, Instant};

use pfc_dcb::IeeeObjects;
use pfcd::lldp::agent::AgentConfig;
use pfcd::nic::state::NicState;
use pfcd::nic::NicPorts;
use pfcd::ports::set::PortSet;
use pfcd::ports::PortIntent;
use pfcd::settings::InterfaceSettings;
use test_support::netns::run_inside_veth_pair;

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

fn programmed_pfc_enable(state: &NicState) -> Option<u8> {
    state.programmed.as_ref().map(|p| p.plan.pfc.pfc_en)
}

/// Set in the run of this test inside the namespace (`ip netns exec` mounts its own /sys there,
/// which the ports read the interfaces from).
const INSIDE: &str = "PFCD_NIC_PORTS_INSIDE";

const TEST: &str = "a_dcbx_agreement_and_a_commit_are_each_put_to_the_nic_and_refusals_shown";

#[test]
fn a_dcbx_agreement_and_a_commit_are_each_put_to_the_nic_and_refusals_shown() {
    if run_inside_veth_pair("nicp", TEST, INSIDE) {
        inside();
    }
}

fn inside() {
    let settings = InterfaceSettings {
        names: vec!["nicp0".into(), "nicp1".into()],
        ..InterfaceSettings::default()
    };
    // What the start-up check would have found on NICs that answer, with nothing set yet.
    let found = vec![(IeeeObjects::default(), None), (IeeeObjects::default(), None)];
    let ports = NicPorts::start(&settings, found).expect("NIC ports start");

    // nicp0 recommends PFC on priority 3 and is not willing; nicp1 is willing, configured p4.
    let lldp = Some(AgentConfig::default());
    let mut ours = PortIntent { pfc_enable: 0b0000_1000, lldp: lldp.clone(), ..Default::default() };
    let mut willing = PortIntent { pfc_enable: 0b0001_0000, lldp, ..Default::default() };
    willing.dcbx.willing = true;
    ports.ports()[0].apply(ours.clone());
    ports.ports()[1].apply(willing);

    // The agreement: nicp1 takes nicp0's p3, and that is what its NIC is asked for.
    wait_for_state(&ports, "DCBX's p3 programmed on both", |s| {
        s.iter().all(|(_, st)| programmed_pfc_enable(st) == Some(0b0000_1000))
    });
    assert_eq!(ports.ports()[1].snapshot().oper_pfc_enable, 0b0000_1000);

    // A commit on nicp0 changes what both run, and both NICs are asked again.
    ours.pfc_enable = 0b0000_0011;
    ports.ports()[0].apply(ours);
    wait_for_state(&ports, "the commit's p0 p1 programmed on both", |s| {
        s.iter().all(|(_, st)| programmed_pfc_enable(st) == Some(0b0000_0011))
    });

    // veth refuses every object; the ports run on and say so.
    wait_for_state(&ports, "the read-back's failure", |s| {
        s.iter().all(|(_, st)| st.read_error.is_some())
    });
    for (name, state) in ports.states() {
        let p = state.programmed.expect("programmed");
        assert!(p.outcome.applied.is_empty(), "{name}: {p:?}");
        assert_eq!(p.outcome.refused.len(), 2, "{name}: {p:?}");
        for r in &p.outcome.refused {
            assert!(r.error.starts_with(&format!("{name}: the kernel refused DCB")), "{}", r.error);
            assert!(r.error.contains("EOPNOTSUPP"), "{}", r.error);
        }
        assert!(state.read_error.expect("error").contains("EOPNOTSUPP"));
    }
    assert_eq!(ports.failure(), None, "the ports run on");
    ports.stop();
}
