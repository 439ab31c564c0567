//! Robustness of every lldp::wire parser: each is driven with 100 000 inputs per run — random
//! octets, random octets behind a header of the right type (and OUI/subtype), and valid
//! encodings mutated the way a broken or hostile peer would (bit flips, overwritten octets,
//! truncation, inserted and removed octets, edited TLV length fields). A parser must return
//! Ok or Err and never panic; and whatever it accepts must re-emit to octets that parse to the
//! same value (an emitter that disagreed with its parser would fail here).

mod strategies;

use std::fmt::Debug;
use std::sync::OnceLock;

use lldp::wire::{
    AppPriority, ChassisId, EtsConfig, EtsRecommendation, LldpFrame, Lldpdu, ManagementAddress,
    OrgTlv, PfcConfig, PfcLocalDelay, PortDescription, PortId, RawTlv, SystemCapabilities,
    SystemDescription, SystemName, Tlv, TlvType, Ttl, APP_PRIORITY_SUBTYPE, ETS_CONFIG_SUBTYPE,
    ETS_RECOMMENDATION_SUBTYPE, PFC_CONFIG_SUBTYPE, PFC_LOCAL_DELAY_SUBTYPE,
};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

const CASES: u32 = 100_000;

fn config() -> ProptestConfig {
    ProptestConfig { cases: CASES, failure_persistence: None, ..ProptestConfig::default() }
}

/// A valid encoding and where its TLV headers start (for length-field edits).
#[derive(Debug)]
struct Sample {
    bytes: Vec<u8>,
    tlv_starts: Vec<usize>,
}

/// Valid encodings generated once per run, deterministically, from the round-trip strategies.
fn pool<T: Debug>(
    strategy: impl Strategy<Value = T>,
    encode: impl Fn(&T) -> Vec<u8>,
    first_tlv: usize,
    n: usize,
) -> Vec<Sample> {
    let mut runner = TestRunner::deterministic();
    (0..n)
        .map(|_| {
            let value = strategy.new_tree(&mut runner).expect("strategy generates").current();
            let bytes = encode(&value);
            let mut tlv_starts = Vec::new();
            let mut at = first_tlv;
            while let Some(rest) = bytes.get(at..).filter(|r| !r.is_empty()) {
                let Ok((_, after)) = RawTlv::parse(rest) else { break };
                tlv_starts.push(at);
                at = bytes.len() - after.len();
            }
            Sample { bytes, tlv_starts }
        })
        .collect()
}

macro_rules! pool_fn {
    ($name:ident, $strategy:expr, $encode:expr, $first_tlv:expr, $n:expr) => {
        fn $name() -> &'static [Sample] {
            static POOL: OnceLock<Vec<Sample>> = OnceLock::new();
            POOL.get_or_init(|| pool($strategy, $encode, $first_tlv, $n))
        }
    };
}

fn tlv_bytes<T>(emit: impl Fn(&T) -> Result<Vec<u8>, lldp::wire::Error>) -> impl Fn(&T) -> Vec<u8> {
    move |v| emit(v).expect("valid value emits")
}

pool_fn!(frames, strategies::lldp_frame(), tlv_bytes(LldpFrame::to_vec), 14, 256);
pool_fn!(lldpdus, strategies::lldpdu(), tlv_bytes(Lldpdu::to_vec), 0, 256);
pool_fn!(any_tlvs, strategies::any_tlv(), tlv_bytes(Tlv::to_vec), 0, 256);
pool_fn!(chassis_ids, strategies::chassis_id(), tlv_bytes(ChassisId::to_vec), 0, 64);
pool_fn!(port_ids, strategies::port_id(), tlv_bytes(PortId::to_vec), 0, 64);
pool_fn!(ttls, strategies::ttl(), tlv_bytes(Ttl::to_vec), 0, 16);
pool_fn!(port_descs, strategies::port_description(), tlv_bytes(PortDescription::to_vec), 0, 32);
pool_fn!(sys_names, strategies::system_name(), tlv_bytes(SystemName::to_vec), 0, 32);
pool_fn!(sys_descs, strategies::system_description(), tlv_bytes(SystemDescription::to_vec), 0, 32);
pool_fn!(sys_caps, strategies::system_capabilities(), tlv_bytes(SystemCapabilities::to_vec), 0, 16);
pool_fn!(mgmt_addrs, strategies::management_address(), tlv_bytes(ManagementAddress::to_vec), 0, 64);
pool_fn!(org_tlvs, strategies::org_tlv(), tlv_bytes(OrgTlv::to_vec), 0, 64);
pool_fn!(ets_configs, strategies::ets_config(), tlv_bytes(EtsConfig::to_vec), 0, 32);
pool_fn!(ets_recs, strategies::ets_recommendation(), tlv_bytes(EtsRecommendation::to_vec), 0, 32);
pool_fn!(pfc_configs, strategies::pfc_config(), tlv_bytes(PfcConfig::to_vec), 0, 64);
pool_fn!(app_priorities, strategies::app_priority(), tlv_bytes(AppPriority::to_vec), 0, 64);
pool_fn!(local_delays, strategies::pfc_local_delay(), tlv_bytes(PfcLocalDelay::to_vec), 0, 16);

#[derive(Debug, Clone)]
enum Mutation {
    FlipBit(Index, u8),
    SetOctet(Index, u8),
    Truncate(Index),
    Insert(Index, u8),
    Remove(Index),
    /// Sets the 9-bit length of one TLV header to any value.
    SetLength(Index, u16),
    /// Moves the length of one TLV header by a little (off-by-one and nearby).
    NudgeLength(Index, i8),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<Index>(), 0u8..8).prop_map(|(i, b)| Mutation::FlipBit(i, b)),
        (any::<Index>(), any::<u8>()).prop_map(|(i, v)| Mutation::SetOctet(i, v)),
        any::<Index>().prop_map(Mutation::Truncate),
        (any::<Index>(), any::<u8>()).prop_map(|(i, v)| Mutation::Insert(i, v)),
        any::<Index>().prop_map(Mutation::Remove),
        (any::<Index>(), 0u16..512).prop_map(|(i, l)| Mutation::SetLength(i, l)),
        (any::<Index>(), -3i8..=3).prop_map(|(i, d)| Mutation::NudgeLength(i, d)),
    ]
}

fn set_length(bytes: &mut [u8], at: usize, len: u16) {
    if at + 1 < bytes.len() {
        bytes[at] = (bytes[at] & 0xfe) | ((len >> 8) as u8 & 1);
        bytes[at + 1] = len as u8;
    }
}

fn apply(sample: &Sample, mutations: &[Mutation]) -> Vec<u8> {
    let mut bytes = sample.bytes.clone();
    for m in mutations {
        let len = bytes.len();
        match m {
            Mutation::FlipBit(i, bit) if len > 0 => bytes[i.index(len)] ^= 1 << bit,
            Mutation::SetOctet(i, v) if len > 0 => bytes[i.index(len)] = *v,
            Mutation::Truncate(i) => bytes.truncate(i.index(len + 1)),
            Mutation::Insert(i, v) => bytes.insert(i.index(len + 1), *v),
            Mutation::Remove(i) if len > 0 => {
                bytes.remove(i.index(len));
            }
            Mutation::SetLength(i, l) if !sample.tlv_starts.is_empty() => {
                set_length(&mut bytes, *i.get(&sample.tlv_starts), *l);
            }
            Mutation::NudgeLength(i, d) if !sample.tlv_starts.is_empty() => {
                let at = *i.get(&sample.tlv_starts);
                if at + 1 < bytes.len() {
                    let old = (u16::from(bytes[at] & 1) << 8) | u16::from(bytes[at + 1]);
                    let new = (i32::from(old) + i32::from(*d)).clamp(0, 511) as u16;
                    set_length(&mut bytes, at, new);
                }
            }
            _ => {}
        }
    }
    bytes
}

fn mutated(pool: fn() -> &'static [Sample]) -> impl Strategy<Value = Vec<u8>> {
    (any::<Index>(), vec(mutation(), 1..4)).prop_map(move |(i, ms)| apply(i.get(pool()), &ms))
}

fn random() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![3 => vec(any::<u8>(), 0..64), 1 => vec(any::<u8>(), 0..700)]
}

/// Random octets behind a TLV header of `tlv_type` with a random length field, and for an
/// IEEE 802.1 TLV its OUI and subtype.
fn behind_header(tlv_type: u8, subtype: Option<u8>) -> impl Strategy<Value = Vec<u8>> {
    (0u16..512, vec(any::<u8>(), 0..40)).prop_map(move |(len, body)| {
        let header = (u16::from(tlv_type) << 9) | len;
        let mut bytes = header.to_be_bytes().to_vec();
        if let Some(s) = subtype {
            bytes.extend_from_slice(&[0x00, 0x80, 0xc2, s]);
        }
        bytes.extend(body);
        bytes
    })
}

fn input(
    pool: fn() -> &'static [Sample],
    header: impl Strategy<Value = Vec<u8>>,
) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![2 => random(), 2 => header, 6 => mutated(pool)]
}

/// A robustness test for a TLV parser `T::parse(&[u8]) -> Result<(T, &[u8]), Error>`.
macro_rules! robust_tlv {
    ($name:ident, $ty:ty, $pool:ident, $header:expr) => {
        proptest! {
            #![proptest_config(config())]
            #[test]
            fn $name(bytes in input($pool, $header)) {
                if let Ok((value, rest)) = <$ty>::parse(&bytes) {
                    prop_assert!(rest.len() + 2 <= bytes.len());
                    let again = value.to_vec().expect("whatever parses re-emits");
                    prop_assert_eq!(<$ty>::parse(&again), Ok((value, &[][..])));
                }
            }
        }
    };
}

fn typed(t: TlvType) -> impl Strategy<Value = Vec<u8>> {
    behind_header(t.0, None)
}

fn ieee(subtype: u8) -> impl Strategy<Value = Vec<u8>> {
    behind_header(127, Some(subtype))
}

robust_tlv!(
    tlv_parser_never_panics,
    Tlv,
    any_tlvs,
    (0u8..128).prop_flat_map(|t| behind_header(t, None))
);
robust_tlv!(
    raw_tlv_parser_never_panics,
    RawTlv,
    any_tlvs,
    (0u8..128).prop_flat_map(|t| behind_header(t, None))
);
robust_tlv!(chassis_id_parser_never_panics, ChassisId, chassis_ids, typed(TlvType::CHASSIS_ID));
robust_tlv!(port_id_parser_never_panics, PortId, port_ids, typed(TlvType::PORT_ID));
robust_tlv!(ttl_parser_never_panics, Ttl, ttls, typed(TlvType::TTL));
robust_tlv!(
    port_description_parser_never_panics,
    PortDescription,
    port_descs,
    typed(TlvType::PORT_DESCRIPTION)
);
robust_tlv!(system_name_parser_never_panics, SystemName, sys_names, typed(TlvType::SYSTEM_NAME));
robust_tlv!(
    system_description_parser_never_panics,
    SystemDescription,
    sys_descs,
    typed(TlvType::SYSTEM_DESCRIPTION)
);
robust_tlv!(
    system_capabilities_parser_never_panics,
    SystemCapabilities,
    sys_caps,
    typed(TlvType::SYSTEM_CAPABILITIES)
);
robust_tlv!(
    management_address_parser_never_panics,
    ManagementAddress,
    mgmt_addrs,
    typed(TlvType::MANAGEMENT_ADDRESS)
);
robust_tlv!(org_tlv_parser_never_panics, OrgTlv, org_tlvs, typed(TlvType::ORG_SPECIFIC));
robust_tlv!(ets_config_parser_never_panics, EtsConfig, ets_configs, ieee(ETS_CONFIG_SUBTYPE));
robust_tlv!(
    ets_recommendation_parser_never_panics,
    EtsRecommendation,
    ets_recs,
    ieee(ETS_RECOMMENDATION_SUBTYPE)
);
robust_tlv!(pfc_config_parser_never_panics, PfcConfig, pfc_configs, ieee(PFC_CONFIG_SUBTYPE));
robust_tlv!(
    app_priority_parser_never_panics,
    AppPriority,
    app_priorities,
    ieee(APP_PRIORITY_SUBTYPE)
);
robust_tlv!(
    pfc_local_delay_parser_never_panics,
    PfcLocalDelay,
    local_delays,
    ieee(PFC_LOCAL_DELAY_SUBTYPE)
);

/// The mandatory TLVs of a valid LLDPDU followed by random octets: drives the optional-TLV
/// loop with garbage.
fn behind_mandatory() -> impl Strategy<Value = Vec<u8>> {
    vec(any::<u8>(), 0..120).prop_map(|tail| {
        let mut bytes = hex::decode("0207040200000000010405056574683006020079").expect("hex");
        bytes.extend(tail);
        bytes
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn lldpdu_parser_never_panics(bytes in input(lldpdus, behind_mandatory())) {
        if let Ok(pdu) = Lldpdu::parse(&bytes) {
            let again = pdu.to_vec().expect("whatever parses re-emits");
            prop_assert_eq!(Lldpdu::parse(&again), Ok(pdu));
        }
    }

    #[test]
    fn lldp_frame_parser_never_panics(
        bytes in input(
            frames,
            behind_mandatory().prop_map(|pdu| {
                let mut frame = hex::decode("0180c200000e02000000000188cc").expect("hex");
                frame.extend(pdu);
                frame
            }),
        )
    ) {
        if let Ok(frame) = LldpFrame::parse(&bytes) {
            let again = frame.to_vec().expect("whatever parses re-emits");
            prop_assert_eq!(LldpFrame::parse(&again), Ok(frame));
        }
    }
}
