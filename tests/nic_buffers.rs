//! A NIC port's receive buffers (`struct dcbnl_buffer`), without a NIC: the plan for a NIC whose
//! driver has buffer operations, put to a stand-in driver that takes the DCBX mode and PFC but
//! refuses the buffers (as a driver without `dcbnl_setbuffer`, or mlx5_core refusing a size,
//! does): the other objects stay applied, and pfcd-nic serves the buffers asked for beside the
//! refusal with the driver's words.

use std::time::SystemTime;

use dataplane::headroom::Medium;
use dataplane::time::LinkSpeed;
use pfc_dcb::{DcbBuffer, Request};
use pfcd::nic::apply::apply_with;
use pfcd::nic::buffers::BufferFacts;
use pfcd::nic::plan::{Plan, PlannedObject, PortFacts};
use pfcd::nic::state::{NicState, Programmed};
use pfcd::northbound::nic::port_entry;

/// Annex N's allowance, p3 and p4 lossless, on a NIC whose buffers take 40000 octets in all:
/// too little for two lossless buffers of 31744 octets.
fn facts() -> PortFacts {
    PortFacts {
        driver: Some("mlx5_core".into()),
        oper_pfc_enable: 0b0001_1000,
        pfc_cap: 8,
        mbc: false,
        allowance_bits: 126_224,
        speed: LinkSpeed::G100,
        medium: Medium::Cat6,
        buffers: Some(BufferFacts {
            max_frame: 9216,
            allocation_octets: [None; 8],
            total_size: 40_000,
        }),
        ets_app: Default::default(),
    }
}

/// A driver that takes everything but buffers.
fn refuses_buffers(request: &Request) -> Result<(), String> {
    match request {
        Request::IeeeSet(objects) if objects.buffer.is_some() => {
            Err("eth1: the kernel refused DCB IEEE set of buffer: ENOMEM (Cannot allocate memory)"
                .into())
        }
        _ => Ok(()),
    }
}

#[test]
fn a_refused_buffer_leaves_the_dcbx_mode_and_pfc_applied_and_is_served_with_the_buffers_asked() {
    let plan = Plan::for_port(&facts());
    let mut sent = Vec::new();
    let outcome = apply_with(&plan, |request| {
        sent.push(request.clone());
        refuses_buffers(request)
    });
    assert_eq!(sent.len(), 3, "every object tried: {sent:?}");
    assert_eq!(outcome.applied, [PlannedObject::DcbxMode, PlannedObject::Pfc]);
    let refused: Vec<_> = outcome.refused.iter().map(|r| r.object).collect();
    assert_eq!(refused, [PlannedObject::Buffer]);

    let Request::IeeeSet(objects) = &sent[2] else { panic!("the buffers last: {sent:?}") };
    let buffer = objects.buffer.expect("a buffer");
    assert_eq!(
        buffer,
        DcbBuffer {
            prio2buffer: [0, 0, 0, 1, 2, 0, 0, 0],
            buffer_size: [18_440, 10_780, 10_780, 0, 0, 0, 0, 0],
            total_size: 40_000,
        },
        "cut to the NIC's total, two frames left for the lossy priorities"
    );

    let state = NicState {
        programmed: Some(Programmed { plan, outcome, at: SystemTime::now() }),
        ..NicState::default()
    };
    let xml = port_entry("eth1", &state).to_xml();
    for expected in [
        "<applied>dcbx-mode</applied>",
        "<applied>ieee-pfc</applied>",
        "<object>dcb-buffer</object>",
        "ENOMEM",
        "<total-size>40000</total-size>",
        "<clamped>true</clamped>",
        "<index>1</index><priorities>p3</priorities><size>10780</size><wanted>31744</wanted>",
        "<index>2</index><priorities>p4</priorities><size>10780</size><wanted>31744</wanted>",
        "<index>0</index><priorities>p0 p1 p2 p5 p6 p7</priorities><size>18440</size>",
        "were cut (clamped)",
    ] {
        assert!(xml.contains(expected), "{expected} in {xml}");
    }
}
