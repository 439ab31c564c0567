#![no_main]
use libfuzzer_sys::fuzz_target;
use lldp::wire::{
    AppPriority, ChassisId, EtsConfig, EtsRecommendation, LldpFrame, Lldpdu, ManagementAddress,
    OrgTlv, PfcConfig, PfcLocalDelay, PortDescription, PortId, RawTlv, SystemCapabilities,
    SystemDescription, SystemName, Tlv, Ttl,
};

/// Whatever a TLV parser accepts must re-emit to octets that parse to the same value.
macro_rules! tlv_stable {
    ($data:expr, $($ty:ty),+ $(,)?) => {$(
        if let Ok((value, _)) = <$ty>::parse($data) {
            let again = value.to_vec().expect("whatever parses re-emits");
            assert_eq!(<$ty>::parse(&again), Ok((value, &[][..])));
        }
    )+};
}

// Whole LLDP frames and bare LLDPDUs, then each TLV parser on the same octets.
fuzz_target!(|data: &[u8]| {
    if let Ok(frame) = LldpFrame::parse(data) {
        let again = frame.to_vec().expect("whatever parses re-emits");
        assert_eq!(LldpFrame::parse(&again), Ok(frame));
    }
    if let Ok(pdu) = Lldpdu::parse(data) {
        let again = pdu.to_vec().expect("whatever parses re-emits");
        assert_eq!(Lldpdu::parse(&again), Ok(pdu));
    }
    tlv_stable!(
        data,
        Tlv,
        RawTlv,
        ChassisId,
        PortId,
        Ttl,
        PortDescription,
        SystemName,
        SystemDescription,
        SystemCapabilities,
        ManagementAddress,
        OrgTlv,
        EtsConfig,
        EtsRecommendation,
        PfcConfig,
        AppPriority,
        PfcLocalDelay,
    );
});
