//! Every request round-trips through our decoder, and the decoder returns Ok or Err, never
//! panics, on random octets and on valid messages mutated (octets overwritten, truncated,
//! lengths edited) the way a broken sender would.

use pfc_dcb::{
    decode, DcbApp, DcbBuffer, DcbxMode, IeeeEts, IeeeObjects, IeeePfc, Incoming, Request,
};
use proptest::collection::vec;
use proptest::prelude::*;

const CASES: u32 = 100_000;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

fn pfc() -> impl Strategy<Value = IeeePfc> {
    (any::<[u8; 3]>(), any::<u16>(), any::<[u64; 8]>(), any::<[u64; 8]>()).prop_map(
        |([pfc_cap, pfc_en, mbc], delay, requests, indications)| IeeePfc {
            pfc_cap,
            pfc_en,
            mbc,
            delay,
            requests,
            indications,
        },
    )
}

fn ets() -> impl Strategy<Value = IeeeEts> {
    (any::<[u8; 3]>(), any::<[[u8; 8]; 7]>()).prop_map(|([willing, ets_cap, cbs], t)| IeeeEts {
        willing,
        ets_cap,
        cbs,
        tc_tx_bw: t[0],
        tc_rx_bw: t[1],
        tc_tsa: t[2],
        prio_tc: t[3],
        tc_reco_bw: t[4],
        tc_reco_tsa: t[5],
        reco_prio_tc: t[6],
    })
}

fn buffer() -> impl Strategy<Value = DcbBuffer> {
    (any::<[u8; 8]>(), any::<[u32; 8]>(), any::<u32>()).prop_map(
        |(prio2buffer, buffer_size, total_size)| DcbBuffer { prio2buffer, buffer_size, total_size },
    )
}

fn app() -> impl Strategy<Value = DcbApp> {
    (any::<u8>(), any::<u8>(), any::<u16>()).prop_map(|(selector, priority, protocol)| DcbApp {
        selector,
        priority,
        protocol,
    })
}

fn objects() -> impl Strategy<Value = IeeeObjects> {
    (
        proptest::option::of(ets()),
        proptest::option::of(pfc()),
        proptest::option::of(buffer()),
        vec(app(), 0..8),
    )
        .prop_map(|(ets, pfc, buffer, apps)| IeeeObjects { ets, pfc, buffer, apps })
}

fn request() -> impl Strategy<Value = Request> {
    prop_oneof![
        Just(Request::IeeeGet),
        objects().prop_map(Request::ieee_set),
        vec(app(), 1..8).prop_map(Request::AppDelete),
        Just(Request::GetDcbx),
        any::<u8>().prop_map(|m| Request::SetDcbx(DcbxMode(m))),
    ]
}

fn interface() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9.-]{0,14}"
}

proptest! {
    #![proptest_config(config(5_000))]

    #[test]
    fn every_request_reads_back_as_what_was_asked(
        request in request(), name in interface(), seq in any::<u32>()
    ) {
        let octets = request.encode(&name, seq, 0).expect("encode");
        let decoded = decode(&octets);
        let [Ok(Incoming::Dcb(m))] = &decoded[..] else {
            panic!("not one DCB message: {decoded:?}")
        };
        prop_assert_eq!(m.interface.as_deref(), Some(name.as_str()));
        prop_assert_eq!(m.seq, seq);
        match request {
            Request::IeeeSet(objects) => prop_assert_eq!(m.ieee.as_ref(), Some(&*objects)),
            Request::AppDelete(apps) => {
                prop_assert_eq!(m.ieee.as_ref().map(|i| &i.apps), Some(&apps))
            }
            Request::SetDcbx(mode) => prop_assert_eq!(m.dcbx, Some(mode.0)),
            Request::IeeeGet | Request::GetDcbx => {
                prop_assert_eq!((&m.ieee, m.dcbx), (&None, None))
            }
        }
    }
}

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn random_octets_are_an_error_or_a_message_never_a_panic(octets in vec(any::<u8>(), 0..400)) {
        let _ = decode(&octets);
    }

    #[test]
    fn mutated_messages_are_an_error_or_a_message_never_a_panic(
        request in request(),
        edits in vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        keep in any::<prop::sample::Index>(),
    ) {
        let mut octets = request.encode("eth0", 1, 0).expect("encode");
        for (at, value) in edits {
            let i = at.index(octets.len());
            octets[i] = value;
        }
        let keep = keep.index(octets.len() + 1);
        let _ = decode(&octets[..keep]);
        let _ = decode(&octets);
    }
}
