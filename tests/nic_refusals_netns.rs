//! A NIC port's plan put through the real kernel on an interface whose driver refuses it (veth,
//! no DCB operations): each object is sent on its own, so the DCBX mode's refusal does not stop
//! the PFC set from being tried, and each refusal is kept with the kernel's words, naming the
//! interface, and served in pfcd-nic beside the delay given.

use std::time::SystemTime;

use dataplane::headroom::Medium;
use dataplane::time::LinkSpeed;
use pfc_dcb::DcbSocket;
use pfcd::nic::apply::apply;
use pfcd::nic::plan::{Plan, PlannedObject, PortFacts};
use pfcd::nic::state::{NicState, Programmed};
use pfcd::northbound::nic::port_entry;
use test_support::netns::{can_run, in_netns, Netns};

const INTERFACE: &str = "nicr0";

#[test]
fn on_veth_every_object_is_tried_and_each_refusal_is_kept_and_served() {
    if !can_run("on_veth_every_object_is_tried_and_each_refusal_is_kept_and_served") {
        return;
    }
    let ns = Netns::new("nicr");
    ns.link(&["add", INTERFACE, "type", "veth", "peer", "name", "nicr1"]);
    let facts = PortFacts {
        driver: None,
        oper_pfc_enable: 0b0001_1000,
        pfc_cap: 8,
        mbc: false,
        allowance_bits: 126_224,
        speed: LinkSpeed::G10,
        medium: Medium::Cat6,
        buffers: None,
        ets_app: Default::default(),
    };
    let plan = Plan::for_port(&facts);
    let outcome = in_netns(&ns, || {
        let mut dcb = DcbSocket::open().expect("a DCB socket");
        apply(&mut dcb, INTERFACE, &plan)
    });

    assert!(outcome.applied.is_empty(), "veth took something: {outcome:?}");
    let refused: Vec<_> = outcome.refused.iter().map(|r| r.object).collect();
    assert_eq!(refused, [PlannedObject::DcbxMode, PlannedObject::Pfc], "both tried, in order");
    let [mode, pfc] = &outcome.refused[..] else { unreachable!() };
    assert!(
        mode.error.starts_with("nicr0: the kernel refused DCB DCBX mode set to 0x09: EOPNOTSUPP"),
        "{}",
        mode.error
    );
    assert!(
        pfc.error.starts_with("nicr0: the kernel refused DCB IEEE set of PFC: EOPNOTSUPP"),
        "{}",
        pfc.error
    );

    let state = NicState {
        programmed: Some(Programmed { plan, outcome, at: SystemTime::now() }),
        ..NicState::default()
    };
    let xml = port_entry(INTERFACE, &state).to_xml();
    for expected in [
        "<name>nicr0</name>",
        "<pfc-enable>p3 p4</pfc-enable>",
        "<delay>65535</delay>",
        "<delay-unit>bits</delay-unit>",
        "<delay-wanted>126224</delay-wanted>",
        "<delay-clamped>true</delay-clamped>",
        "<refused><object>dcbx-mode</object><error>nicr0: the kernel refused DCB DCBX mode",
        "<refused><object>ieee-pfc</object><error>nicr0: the kernel refused DCB IEEE set of PFC",
    ] {
        assert!(xml.contains(expected), "{expected} in {xml}");
    }
    assert!(!xml.contains("<applied>"), "{xml}");
}
