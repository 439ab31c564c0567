//! Property tests for dataplane::wire: every representation survives emit then parse, and every
//! parser survives arbitrary and mutated input without panicking.

use dataplane::wire::{
    EtherType, EthernetHeader, Frame, Hmpdu, HmpduTuple, MacAddr, MacControl, PathCode, PauseFrame,
    PfcFrame, TupleUse, VlanTag,
};
use proptest::prelude::*;

fn mac() -> impl Strategy<Value = MacAddr> {
    any::<[u8; 6]>().prop_map(MacAddr)
}

fn pfc() -> impl Strategy<Value = PfcFrame> {
    (mac(), mac(), any::<u8>(), any::<[u16; 8]>()).prop_map(|(dst, src, enable, time)| PfcFrame {
        dst,
        src,
        enable,
        time,
    })
}

fn pause() -> impl Strategy<Value = PauseFrame> {
    (mac(), mac(), any::<u16>()).prop_map(|(dst, src, pause_time)| PauseFrame {
        dst,
        src,
        pause_time,
    })
}

fn tuple() -> impl Strategy<Value = HmpduTuple> {
    let kind = prop_oneof![
        Just(TupleUse::Request),
        Just(TupleUse::Response),
        Just(TupleUse::ResponseNoAdjustment)
    ];
    (kind, any::<u32>(), any::<i16>(), any::<i16>()).prop_map(|(kind, ts, req, resp)| HmpduTuple {
        kind,
        request_timestamp: ts,
        request_adjustment: req,
        // A code-1 response carries no Response Adjustment by definition.
        response_adjustment: if kind == TupleUse::ResponseNoAdjustment { 0 } else { resp },
    })
}

fn hmpdu() -> impl Strategy<Value = Hmpdu> {
    (
        mac(),
        mac(),
        0u8..16,
        0u8..4,
        0u8..4,
        proptest::option::of(tuple()),
        proptest::option::of(tuple()),
    )
        .prop_map(|(dst, src, version, path, reserved, tuple1, tuple2)| Hmpdu {
            dst,
            src,
            version,
            path: PathCode::from_code(path),
            reserved,
            tuple1,
            tuple2,
        })
}

fn header() -> impl Strategy<Value = EthernetHeader> {
    let tag = proptest::option::of((0u8..8, any::<bool>(), 0u16..4096))
        .prop_map(|t| t.map(|(pcp, dei, vid)| VlanTag { pcp, dei, vid }));
    // Any EtherType but the VLAN TPID itself (a double tag is a different header).
    let ethertype = (0x0600u16..=0xffff).prop_filter("not a TPID", |t| *t != 0x8100);
    (mac(), mac(), tag, ethertype).prop_map(|(dst, src, vlan, et)| EthernetHeader {
        dst,
        src,
        vlan,
        ethertype: EtherType(et),
    })
}

/// A valid frame of any kind, as bytes.
fn valid_frame() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        pfc().prop_map(|f| f.to_vec()),
        pause().prop_map(|f| f.to_vec()),
        hmpdu().prop_map(|f| f.to_vec()),
    ]
}

/// Mutations a hostile or broken peer produces: flipped bits, cut frames, overwritten octets.
fn mutated_frame() -> impl Strategy<Value = Vec<u8>> {
    (valid_frame(), proptest::collection::vec((any::<usize>(), any::<u8>()), 0..6), any::<usize>())
        .prop_map(|(mut bytes, edits, cut)| {
            for (at, value) in edits {
                let i = at % bytes.len();
                bytes[i] = value;
            }
            bytes.truncate(cut % (bytes.len() + 1));
            bytes
        })
}

fn any_input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![proptest::collection::vec(any::<u8>(), 0..80), mutated_frame()]
}

proptest! {
    #[test]
    fn pfc_round_trips(frame in pfc()) {
        let bytes = frame.to_vec();
        prop_assert_eq!(bytes.len(), frame.buffer_len());
        prop_assert_eq!(PfcFrame::parse(&bytes), Ok(frame));
        prop_assert_eq!(Frame::parse(&bytes), Ok(Frame::MacControl(MacControl::Pfc(frame))));
    }

    #[test]
    fn pause_round_trips(frame in pause()) {
        prop_assert_eq!(PauseFrame::parse(&frame.to_vec()), Ok(frame));
    }

    #[test]
    fn hmpdu_round_trips(pdu in hmpdu()) {
        let bytes = pdu.to_vec();
        prop_assert_eq!(bytes.len(), 60);
        prop_assert_eq!(Hmpdu::parse(&bytes), Ok(pdu));
    }

    #[test]
    fn header_round_trips(h in header(), payload in proptest::collection::vec(any::<u8>(), 0..8)) {
        let mut bytes = vec![0u8; h.buffer_len()];
        prop_assert_eq!(h.emit(&mut bytes), Ok(h.buffer_len()));
        bytes.extend_from_slice(&payload);
        let (parsed, rest) = EthernetHeader::parse(&bytes).expect("emitted header parses");
        prop_assert_eq!(parsed, h);
        prop_assert_eq!(rest, &payload[..]);
    }

    #[test]
    fn emit_refuses_short_buffers(frame in pfc(), len in 0usize..60) {
        let mut buf = vec![0u8; len];
        prop_assert!(frame.emit(&mut buf).is_err());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100_000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Every parser, fed arbitrary and mutated frames: no panic, and whatever parses re-emits to
    /// something that parses to the same value (a parser that accepted garbage and an emitter
    /// that disagreed with it would fail here).
    #[test]
    fn parsers_never_panic_and_accepted_input_is_stable(bytes in any_input()) {
        if let Ok(f) = MacControl::parse(&bytes) {
            prop_assert_eq!(MacControl::parse(&f.to_vec()), Ok(f));
        }
        if let Ok(f) = PfcFrame::parse(&bytes) {
            prop_assert_eq!(PfcFrame::parse(&f.to_vec()), Ok(f));
        }
        if let Ok(f) = PauseFrame::parse(&bytes) {
            prop_assert_eq!(PauseFrame::parse(&f.to_vec()), Ok(f));
        }
        if let Ok(p) = Hmpdu::parse(&bytes) {
            prop_assert_eq!(Hmpdu::parse(&p.to_vec()), Ok(p));
        }
        let _ = EthernetHeader::parse(&bytes);
        let _ = Frame::parse(&bytes);
    }
}
