//! Property tests for lldp::wire: every representation survives emit then parse, emit writes
//! exactly `buffer_len()` octets, and each TLV also decodes through the generic `Tlv::parse`.

mod strategies;

use lldp::wire::{
    AppPriority, ChassisId, Error, EtsConfig, EtsRecommendation, LldpFrame, Lldpdu,
    ManagementAddress, OrgTlv, PfcConfig, PfcLocalDelay, PortDescription, PortId, RawTlv,
    SystemCapabilities, SystemDescription, SystemName, Tlv, Ttl,
};
use proptest::prelude::*;
use strategies::*;

/// Emits a typed TLV, checks the length, parses it back (with trailing octets that must be
/// returned untouched), and checks `Tlv::parse` decodes the same octets to `as_tlv`.
macro_rules! check_tlv {
    ($ty:ty, $value:expr, $as_tlv:expr, $trailer:expr) => {{
        let value: $ty = $value;
        let mut bytes = value.to_vec().expect("a valid value emits");
        prop_assert_eq!(bytes.len(), value.buffer_len());
        let mut buf = vec![0u8; bytes.len()];
        prop_assert_eq!(value.emit(&mut buf), Ok(bytes.len()));
        prop_assert_eq!(&buf, &bytes);
        let tlv_len = bytes.len();
        bytes.extend_from_slice(&$trailer);
        prop_assert_eq!(<$ty>::parse(&bytes), Ok((<$ty as Clone>::clone(&value), &$trailer[..])));
        let (tlv, rest) = Tlv::parse(&bytes).expect("the generic parser agrees");
        prop_assert_eq!(rest, &$trailer[..]);
        prop_assert_eq!(&tlv, &$as_tlv(<$ty as Clone>::clone(&value)));
        prop_assert_eq!(tlv.to_vec(), Ok(bytes[..tlv_len].to_vec()));
        if tlv_len > 0 {
            prop_assert!(value.emit(&mut vec![0u8; tlv_len - 1]).is_err());
        }
    }};
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn chassis_id_round_trips(v in chassis_id(), t in bytes(0, 4)) {
        check_tlv!(ChassisId, v, Tlv::ChassisId, t);
    }

    #[test]
    fn port_id_round_trips(v in port_id(), t in bytes(0, 4)) {
        check_tlv!(PortId, v, Tlv::PortId, t);
    }

    #[test]
    fn ttl_round_trips(v in ttl(), t in bytes(0, 4)) {
        check_tlv!(Ttl, v, Tlv::Ttl, t);
    }

    #[test]
    fn port_description_round_trips(v in port_description(), t in bytes(0, 4)) {
        check_tlv!(PortDescription, v, Tlv::PortDescription, t);
    }

    #[test]
    fn system_name_round_trips(v in system_name(), t in bytes(0, 4)) {
        check_tlv!(SystemName, v, Tlv::SystemName, t);
    }

    #[test]
    fn system_description_round_trips(v in system_description(), t in bytes(0, 4)) {
        check_tlv!(SystemDescription, v, Tlv::SystemDescription, t);
    }

    #[test]
    fn system_capabilities_round_trips(v in system_capabilities(), t in bytes(0, 4)) {
        check_tlv!(SystemCapabilities, v, Tlv::SystemCapabilities, t);
    }

    #[test]
    fn management_address_round_trips(v in management_address(), t in bytes(0, 4)) {
        check_tlv!(ManagementAddress, v, Tlv::ManagementAddress, t);
    }

    #[test]
    fn org_tlv_round_trips(v in org_tlv(), t in bytes(0, 4)) {
        check_tlv!(OrgTlv, v, Tlv::Org, t);
    }

    #[test]
    fn ets_config_round_trips(v in ets_config(), t in bytes(0, 4)) {
        check_tlv!(EtsConfig, v, Tlv::EtsConfig, t);
    }

    #[test]
    fn ets_recommendation_round_trips(v in ets_recommendation(), t in bytes(0, 4)) {
        check_tlv!(EtsRecommendation, v, Tlv::EtsRecommendation, t);
    }

    #[test]
    fn pfc_config_round_trips(v in pfc_config(), t in bytes(0, 4)) {
        check_tlv!(PfcConfig, v, Tlv::PfcConfig, t);
    }

    #[test]
    fn app_priority_round_trips(v in app_priority(), t in bytes(0, 4)) {
        check_tlv!(AppPriority, v, Tlv::AppPriority, t);
    }

    #[test]
    fn pfc_local_delay_round_trips(v in pfc_local_delay(), t in bytes(0, 4)) {
        check_tlv!(PfcLocalDelay, v, Tlv::PfcLocalDelay, t);
    }

    #[test]
    fn unknown_tlv_round_trips(v in unknown_tlv(), t in bytes(0, 4)) {
        check_tlv!(RawTlv, v, Tlv::Unknown, t);
    }

    /// The PFC TLV's length on the wire follows its format: 6, 7, or 7 plus the extra octets.
    #[test]
    fn pfc_length_follows_format(v in pfc_config()) {
        let bytes = v.to_vec().expect("emits");
        let expected = match &v.format {
            lldp::wire::PfcFormat::Legacy => 6,
            lldp::wire::PfcFormat::Qdt => 7,
            lldp::wire::PfcFormat::Extended(extra) => 7 + extra.len(),
        };
        prop_assert_eq!(usize::from(bytes[1]) | (usize::from(bytes[0] & 1) << 8), expected);
    }

    #[test]
    fn any_tlv_round_trips(v in any_tlv()) {
        let bytes = v.to_vec().expect("emits");
        prop_assert_eq!(bytes.len(), v.buffer_len());
        prop_assert_eq!(Tlv::parse(&bytes), Ok((v, &[][..])));
    }

    #[test]
    fn malformed_tlv_is_refused_alone_and_kept_verbatim(v in malformed_tlv()) {
        let Tlv::Malformed { raw, error } = &v else {
            return Err(TestCaseError::fail("strategy yields Malformed only"));
        };
        let bytes = v.to_vec().expect("raw octets emit");
        prop_assert_eq!(&bytes, &raw.to_vec().expect("emits"));
        prop_assert_eq!(Tlv::parse(&bytes), Err(error.clone()));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    /// parse(emit(x)) == x for whole LLDPDUs, whatever padding follows End.
    #[test]
    fn lldpdu_round_trips(pdu in lldpdu(), padding in bytes(0, 40)) {
        let mut bytes = pdu.to_vec().expect("a valid LLDPDU emits");
        prop_assert_eq!(bytes.len(), pdu.buffer_len());
        prop_assert_eq!(&bytes[bytes.len() - 2..], &[0u8, 0][..]);
        bytes.extend_from_slice(&padding);
        prop_assert_eq!(Lldpdu::parse(&bytes), Ok(pdu));
    }

    #[test]
    fn lldp_frame_round_trips(frame in lldp_frame()) {
        let bytes = frame.to_vec().expect("a valid frame emits");
        prop_assert_eq!(bytes.len(), frame.buffer_len());
        prop_assert!(bytes.len() >= 60);
        prop_assert_eq!(&bytes[12..14], &[0x88u8, 0xcc][..]);
        prop_assert_eq!(LldpFrame::parse(&bytes), Ok(frame.clone()));
        // Re-emitting what was parsed gives the same octets, padding included.
        prop_assert_eq!(LldpFrame::parse(&bytes).and_then(|f| f.to_vec()), Ok(bytes.clone()));
        let short = bytes.len() - 1;
        let too_small = matches!(frame.emit(&mut vec![0u8; short]), Err(Error::BufferTooSmall { .. }));
        prop_assert!(too_small);
    }

    /// Cutting an LLDPDU anywhere inside its TLVs is always refused, never misread.
    #[test]
    fn cut_lldpdu_is_refused(pdu in lldpdu(), cut in any::<prop::sample::Index>()) {
        let bytes = pdu.to_vec().expect("emits");
        // Up to (not including) the End TLV: the last TLV is then cut or missing.
        let at = cut.index(bytes.len() - 2);
        let parsed = Lldpdu::parse(&bytes[..at]);
        if let Ok(p) = &parsed {
            // Only a cut exactly between two optional TLVs parses: to a prefix of the TLVs.
            prop_assert!(p.tlvs.len() < pdu.tlvs.len());
            prop_assert_eq!(&p.tlvs[..], &pdu.tlvs[..p.tlvs.len()]);
        }
    }
}
