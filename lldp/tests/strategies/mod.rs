//! proptest strategies for every `lldp::wire` representation, in the style of
//! `proptest::arbitrary`: each function returns a strategy over *valid* values, i.e. values whose
//! emit succeeds and whose parse gives the value back. Where a representation can hold a value
//! that parse never produces (a `NetworkAddress::Other` that is really IPv4, a legacy PFC TLV
//! with the P802.1Qdt bits set), the strategy leaves it out; the unit tests cover those.
#![allow(dead_code)] // each test binary uses a different subset

use lldp::wire::{
    AppEntry, AppPriority, AppSelector, ChassisId, EtsConfig, EtsRecommendation, EtsTables,
    InterfaceNumbering, LldpFrame, Lldpdu, ManagementAddress, NetworkAddress, OrgTlv, Oui,
    PfcConfig, PfcFormat, PfcLocalDelay, PortDescription, PortId, RawTlv, SystemCapabilities,
    SystemDescription, SystemName, Text, TimeInterval, Tlv, TlvType, Tsa, Ttl,
    APP_PRIORITY_SUBTYPE, ETS_CONFIG_SUBTYPE, ETS_RECOMMENDATION_SUBTYPE, PFC_CONFIG_SUBTYPE,
    PFC_LOCAL_DELAY_SUBTYPE,
};
use pfc_wire::MacAddr;
use proptest::collection::vec;
use proptest::prelude::*;

/// Octets, mostly short, sometimes up to `max`.
pub fn bytes(min: usize, max: usize) -> impl Strategy<Value = Vec<u8>> {
    let short = max.min(min + 12);
    prop_oneof![4 => vec(any::<u8>(), min..=short), 1 => vec(any::<u8>(), min..=max)]
}

pub fn mac() -> impl Strategy<Value = MacAddr> {
    any::<[u8; 6]>().prop_map(MacAddr)
}

/// Text of `min..=max` octets: usually printable ASCII, sometimes any octets (non-UTF-8 too).
pub fn text(min: usize, max: usize) -> impl Strategy<Value = Text> {
    let short = max.min(min + 16);
    prop_oneof![
        3 => proptest::string::string_regex(&format!("[ -~]{{{min},{short}}}"))
            .expect("valid regex")
            .prop_map(Text::from),
        1 => bytes(min, max).prop_map(Text),
    ]
}

/// A network address whose address part has `min..=max` octets (family octet not counted).
pub fn network_address(min: usize, max: usize) -> impl Strategy<Value = NetworkAddress> {
    prop_oneof![
        any::<[u8; 4]>().prop_map(|a| NetworkAddress::Ipv4(a.into())),
        any::<[u8; 16]>().prop_map(|a| NetworkAddress::Ipv6(a.into())),
        (any::<u8>(), bytes(min, max))
            .prop_filter("IPv4 and IPv6 parse as their own variants", |(family, a)| {
                !matches!((*family, a.len()), (1, 4) | (2, 16))
            })
            .prop_map(|(family, address)| NetworkAddress::Other { family, address }),
    ]
}

pub fn chassis_id() -> impl Strategy<Value = ChassisId> {
    prop_oneof![
        text(1, 255).prop_map(ChassisId::ChassisComponent),
        text(1, 255).prop_map(ChassisId::InterfaceAlias),
        text(1, 255).prop_map(ChassisId::PortComponent),
        mac().prop_map(ChassisId::MacAddress),
        network_address(0, 254).prop_map(ChassisId::NetworkAddress),
        text(1, 255).prop_map(ChassisId::InterfaceName),
        text(1, 255).prop_map(ChassisId::Local),
        (prop_oneof![Just(0u8), 8u8..=255, Just(4u8)], bytes(1, 255))
            .prop_filter("a 6-octet MAC subtype is MacAddress", |(s, id)| {
                !(*s == 4 && id.len() == 6)
            })
            .prop_map(|(subtype, id)| ChassisId::Other { subtype, id }),
    ]
}

pub fn port_id() -> impl Strategy<Value = PortId> {
    prop_oneof![
        text(1, 255).prop_map(PortId::InterfaceAlias),
        text(1, 255).prop_map(PortId::PortComponent),
        mac().prop_map(PortId::MacAddress),
        network_address(0, 254).prop_map(PortId::NetworkAddress),
        text(1, 255).prop_map(PortId::InterfaceName),
        bytes(1, 255).prop_map(PortId::AgentCircuitId),
        text(1, 255).prop_map(PortId::Local),
        (prop_oneof![Just(0u8), 8u8..=255, Just(3u8)], bytes(1, 255))
            .prop_filter("a 6-octet MAC subtype is MacAddress", |(s, id)| {
                !(*s == 3 && id.len() == 6)
            })
            .prop_map(|(subtype, id)| PortId::Other { subtype, id }),
    ]
}

pub fn ttl() -> impl Strategy<Value = Ttl> {
    any::<u16>().prop_map(Ttl)
}

pub fn port_description() -> impl Strategy<Value = PortDescription> {
    text(0, 511).prop_map(PortDescription)
}

pub fn system_name() -> impl Strategy<Value = SystemName> {
    text(0, 511).prop_map(SystemName)
}

pub fn system_description() -> impl Strategy<Value = SystemDescription> {
    text(0, 511).prop_map(SystemDescription)
}

pub fn system_capabilities() -> impl Strategy<Value = SystemCapabilities> {
    (any::<u16>(), any::<u16>())
        .prop_map(|(capabilities, enabled)| SystemCapabilities { capabilities, enabled })
}

pub fn management_address() -> impl Strategy<Value = ManagementAddress> {
    (network_address(1, 31), any::<u8>(), any::<u32>(), bytes(0, 128)).prop_map(
        |(address, numbering, interface_number, oid)| ManagementAddress {
            address,
            interface_numbering: InterfaceNumbering(numbering),
            interface_number,
            oid,
        },
    )
}

/// Organizationally specific TLVs this crate does not decode (any OUI but the decoded IEEE
/// 802.1 subtypes).
pub fn org_tlv() -> impl Strategy<Value = OrgTlv> {
    let oui =
        prop_oneof![Just(Oui::IEEE_802_1), Just(Oui::IEEE_802_3), any::<[u8; 3]>().prop_map(Oui)];
    (oui, any::<u8>(), bytes(0, 507))
        .prop_filter("decoded IEEE 802.1 TLVs have their own variants", |(oui, subtype, _)| {
            *oui != Oui::IEEE_802_1
                || ![
                    ETS_CONFIG_SUBTYPE,
                    ETS_RECOMMENDATION_SUBTYPE,
                    PFC_CONFIG_SUBTYPE,
                    APP_PRIORITY_SUBTYPE,
                    PFC_LOCAL_DELAY_SUBTYPE,
                ]
                .contains(subtype)
        })
        .prop_map(|(oui, subtype, info)| OrgTlv { oui, subtype, info })
}

pub fn ets_tables() -> impl Strategy<Value = EtsTables> {
    (any::<[u8; 8]>(), any::<[u8; 8]>(), any::<[u8; 8]>()).prop_map(|(pat, tc_bandwidth, tsa)| {
        EtsTables { priority_tc: pat.map(|p| p & 0x0f), tc_bandwidth, tsa: tsa.map(Tsa) }
    })
}

pub fn ets_config() -> impl Strategy<Value = EtsConfig> {
    (any::<bool>(), any::<bool>(), 0u8..=7, ets_tables())
        .prop_map(|(willing, cbs, max_tcs, tables)| EtsConfig { willing, cbs, max_tcs, tables })
}

pub fn ets_recommendation() -> impl Strategy<Value = EtsRecommendation> {
    ets_tables().prop_map(|tables| EtsRecommendation { tables })
}

pub fn pfc_config() -> impl Strategy<Value = PfcConfig> {
    let format = prop_oneof![
        Just(PfcFormat::Legacy),
        Just(PfcFormat::Qdt),
        bytes(1, 504).prop_map(PfcFormat::Extended),
    ];
    (any::<[bool; 6]>(), 0u8..=15, any::<u8>(), format).prop_map(
        |(bits, pfc_cap, pfc_enable, format)| {
            let [willing, mbc, macsec_capable, privacy_capable, rtm_hdrm, ptp_hdrm] = bits;
            let pfc = PfcConfig {
                willing,
                mbc,
                macsec_capable,
                privacy_capable,
                pfc_cap,
                pfc_enable,
                rtm_hdrm,
                ptp_hdrm,
                format,
            };
            // A legacy TLV cannot carry the P802.1Qdt bits (emit clears them).
            if pfc.format == PfcFormat::Legacy {
                pfc.legacy()
            } else {
                pfc
            }
        },
    )
}

pub fn app_entry() -> impl Strategy<Value = AppEntry> {
    (0u8..=7, 0u8..=7, any::<u16>()).prop_map(|(priority, selector, protocol)| AppEntry {
        priority,
        selector: AppSelector(selector),
        protocol,
    })
}

pub fn app_priority() -> impl Strategy<Value = AppPriority> {
    prop_oneof![4 => vec(app_entry(), 0..8), 1 => vec(app_entry(), 0..=168)]
        .prop_map(|entries| AppPriority { entries })
}

pub fn pfc_local_delay() -> impl Strategy<Value = PfcLocalDelay> {
    any::<i64>().prop_map(|d| PfcLocalDelay { delay: TimeInterval(d) })
}

/// A reserved TLV type (9 to 126) with any information string.
pub fn unknown_tlv() -> impl Strategy<Value = RawTlv> {
    (9u8..=126, bytes(0, 511)).prop_map(|(t, info)| RawTlv { tlv_type: TlvType(t), info })
}

/// An optional TLV whose content is malformed, as `Lldpdu::parse` keeps it.
pub fn malformed_tlv() -> impl Strategy<Value = Tlv> {
    let ieee = (
        prop::sample::select(vec![
            ETS_CONFIG_SUBTYPE,
            ETS_RECOMMENDATION_SUBTYPE,
            PFC_CONFIG_SUBTYPE,
            APP_PRIORITY_SUBTYPE,
            PFC_LOCAL_DELAY_SUBTYPE,
        ]),
        bytes(0, 30),
    )
        .prop_map(|(subtype, body)| {
            let mut info = vec![0x00, 0x80, 0xc2, subtype];
            info.extend(body);
            RawTlv { tlv_type: TlvType::ORG_SPECIFIC, info }
        });
    let basic = (prop::sample::select(vec![7u8, 8]), bytes(0, 40))
        .prop_map(|(t, info)| RawTlv { tlv_type: TlvType(t), info });
    prop_oneof![ieee, basic].prop_filter_map("only malformed content", |raw| {
        let bytes = raw.to_vec().ok()?;
        match Tlv::parse(&bytes) {
            Err(error) => Some(Tlv::Malformed { raw, error }),
            Ok(_) => None,
        }
    })
}

/// Any TLV an LLDPDU's optional list may hold.
pub fn optional_tlv() -> impl Strategy<Value = Tlv> {
    prop_oneof![
        port_description().prop_map(Tlv::PortDescription),
        system_name().prop_map(Tlv::SystemName),
        system_description().prop_map(Tlv::SystemDescription),
        system_capabilities().prop_map(Tlv::SystemCapabilities),
        management_address().prop_map(Tlv::ManagementAddress),
        ets_config().prop_map(Tlv::EtsConfig),
        ets_recommendation().prop_map(Tlv::EtsRecommendation),
        pfc_config().prop_map(Tlv::PfcConfig),
        app_priority().prop_map(Tlv::AppPriority),
        pfc_local_delay().prop_map(Tlv::PfcLocalDelay),
        org_tlv().prop_map(Tlv::Org),
        unknown_tlv().prop_map(Tlv::Unknown),
        malformed_tlv(),
    ]
}

/// Any TLV at all, as `Tlv::parse` returns it (never `Malformed`).
pub fn any_tlv() -> impl Strategy<Value = Tlv> {
    prop_oneof![
        1 => Just(Tlv::End),
        1 => chassis_id().prop_map(Tlv::ChassisId),
        1 => port_id().prop_map(Tlv::PortId),
        1 => ttl().prop_map(Tlv::Ttl),
        12 => optional_tlv().prop_filter("Tlv::parse never yields Malformed", |t| {
            !matches!(t, Tlv::Malformed { .. })
        }),
    ]
}

pub fn lldpdu() -> impl Strategy<Value = Lldpdu> {
    (chassis_id(), port_id(), any::<u16>(), vec(optional_tlv(), 0..8))
        .prop_map(|(chassis_id, port_id, ttl, tlvs)| Lldpdu { chassis_id, port_id, ttl, tlvs })
}

pub fn lldp_frame() -> impl Strategy<Value = LldpFrame> {
    (mac(), mac(), lldpdu()).prop_map(|(dst, src, lldpdu)| LldpFrame { dst, src, lldpdu })
}
