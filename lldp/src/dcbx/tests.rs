//! Every willing combination against SPEC §5, the P802.1Qdt bits against SPEC §4.4.

use std::time::Duration;

use super::*;
use crate::wire::{
    AppEntry, AppPriority, AppSelector, ChassisId, EtsRecommendation, EtsTables, LldpFrame, Lldpdu,
    PfcConfig, PfcFormat, PfcLocalDelay, PortId, TimeInterval, Tlv, Tsa,
};

const LOW: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);
const HIGH: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x02]);

fn admin(willing: bool, pfc_enable: u8) -> DcbxAdmin {
    DcbxAdmin {
        pfc: PfcAdmin { willing, pfc_enable, ..PfcAdmin::default() },
        ..DcbxAdmin::default()
    }
}

/// A neighbour table holding one peer whose LLDPDUs come from `src` with these TLVs.
fn table(src: MacAddr, tlvs: Vec<Tlv>) -> Neighbours {
    let mut pdu = Lldpdu::new(ChassisId::MacAddress(src), PortId::InterfaceName("p".into()), 120);
    pdu.tlvs = tlvs;
    let mut t = Neighbours::new(4);
    t.update(src, pdu, Duration::ZERO);
    t
}

fn peer_pfc(willing: bool, pfc_enable: u8) -> Tlv {
    Tlv::PfcConfig(PfcConfig { willing, pfc_enable, pfc_cap: 8, ..PfcConfig::default() })
}

/// (operational enable, source, reason, misconfigured) for our admin and the peer's TLV, with
/// our port at `ours` and the peer's LLDPDUs from `theirs`.
fn pfc_case(
    ours: MacAddr,
    local: DcbxAdmin,
    theirs: MacAddr,
    tlv: Tlv,
) -> (u8, Source, PfcReason, bool) {
    let s = negotiate(&local, ours, &table(theirs, vec![tlv]));
    (s.pfc.pfc_enable, s.pfc.source, s.pfc.reason, s.misconfigured())
}

#[test]
fn neither_willing_keeps_ours_and_flags_a_difference() {
    assert_eq!(
        pfc_case(LOW, admin(false, 0x08), HIGH, peer_pfc(false, 0x18)),
        (0x08, Source::Local, PfcReason::NeitherWilling, true)
    );
    assert_eq!(
        pfc_case(LOW, admin(false, 0x18), HIGH, peer_pfc(false, 0x18)),
        (0x18, Source::Local, PfcReason::NeitherWilling, false)
    );
    let s = negotiate(&admin(false, 0x08), LOW, &table(HIGH, vec![peer_pfc(false, 0x18)]));
    assert_eq!(
        s.pfc.misconfiguration,
        Some(PfcMisconfiguration::EnableMismatch { local: 0x08, peer: 0x18 })
    );
}

#[test]
fn only_we_are_willing_we_adopt_the_peers() {
    for (ours, theirs) in [(LOW, HIGH), (HIGH, LOW)] {
        assert_eq!(
            pfc_case(ours, admin(true, 0x08), theirs, peer_pfc(false, 0x18)),
            (0x18, Source::Peer, PfcReason::PeerNotWilling, false)
        );
    }
}

#[test]
fn only_the_peer_is_willing_ours_stays_and_it_adopts_ours() {
    for (ours, theirs) in [(LOW, HIGH), (HIGH, LOW)] {
        assert_eq!(
            pfc_case(ours, admin(false, 0x08), theirs, peer_pfc(true, 0x18)),
            (0x08, Source::Local, PfcReason::PeerAdoptsOurs, false)
        );
    }
}

#[test]
fn both_willing_the_lower_mac_adopts() {
    assert_eq!(
        pfc_case(LOW, admin(true, 0x08), HIGH, peer_pfc(true, 0x18)),
        (0x18, Source::Peer, PfcReason::BothWillingOurMacLower, false)
    );
    assert_eq!(
        pfc_case(HIGH, admin(true, 0x08), LOW, peer_pfc(true, 0x18)),
        (0x08, Source::Local, PfcReason::BothWillingOurMacHigher, false)
    );
}

#[test]
fn both_willing_the_tie_break_uses_the_frames_source_address_not_the_chassis_id() {
    // The peer's Chassis ID is a lower MAC than ours, but its LLDPDUs come from a higher one.
    let mut pdu =
        Lldpdu::new(ChassisId::MacAddress(MacAddr([0; 6])), PortId::InterfaceName("p".into()), 120);
    pdu.tlvs = vec![peer_pfc(true, 0x18)];
    let mut t = Neighbours::new(4);
    t.update(HIGH, pdu, Duration::ZERO);
    let s = negotiate(&admin(true, 0x08), LOW, &t);
    assert_eq!(s.pfc.reason, PfcReason::BothWillingOurMacLower);
    assert_eq!(s.pfc.pfc_enable, 0x18);
}

#[test]
fn both_ends_agree_whichever_is_willing() {
    // Run both ends' negotiation and check they reach one vector in every combination.
    for (wa, wb) in [(false, true), (true, false), (true, true)] {
        for (ma, mb) in [(LOW, HIGH), (HIGH, LOW)] {
            let a = admin(wa, 0x08);
            let b = admin(wb, 0x30);
            let sa = negotiate(&a, ma, &table(mb, b.tlvs()));
            let sb = negotiate(&b, mb, &table(ma, a.tlvs()));
            assert_eq!(sa.pfc.pfc_enable, sb.pfc.pfc_enable, "willing {wa}/{wb}, macs {ma}/{mb}");
            assert!(!sa.misconfigured() && !sb.misconfigured());
        }
    }
}

#[test]
fn no_peer_multiple_peers_or_no_pfc_tlv_run_on_our_values() {
    let ours = admin(true, 0x08);
    let s = negotiate(&ours, LOW, &Neighbours::new(4));
    assert_eq!(
        (s.pfc.pfc_enable, s.pfc.reason, s.peer.clone()),
        (0x08, PfcReason::NoPeer, Peer::None)
    );

    let mut t = table(HIGH, vec![peer_pfc(false, 0x18)]);
    let other =
        Lldpdu::new(ChassisId::MacAddress(MacAddr([4; 6])), PortId::InterfaceName("q".into()), 120);
    t.update(MacAddr([4; 6]), other, Duration::ZERO);
    let s = negotiate(&ours, LOW, &t);
    assert_eq!((s.pfc.pfc_enable, s.pfc.reason), (0x08, PfcReason::MultiplePeers));
    assert_eq!(s.peer, Peer::Multiple(2));

    let s = negotiate(&ours, LOW, &table(HIGH, vec![]));
    assert_eq!((s.pfc.pfc_enable, s.pfc.reason), (0x08, PfcReason::PeerSentNoPfcTlv));
}

#[test]
fn a_five_octet_pfc_tlv_is_no_pfc_tlv() {
    let frame = hex::decode(
        "0180c200000e 020000000002 88cc 0207 04020000000002 0402 0570 0602 0078 \
         fe05 0080c2 0b a4 0000"
            .replace(' ', ""),
    )
    .expect("hex");
    let pdu = LldpFrame::parse(&frame).expect("the LLDPDU stands").lldpdu;
    let mut t = Neighbours::new(4);
    t.update(HIGH, pdu, Duration::ZERO);
    let s = negotiate(&admin(true, 0x08), LOW, &t);
    assert_eq!(s.pfc.reason, PfcReason::PeerSentNoPfcTlv);
    assert!(s.peer.dcbx().is_some_and(|p| p.pfc_malformed));
}

#[test]
fn peer_enabling_more_than_our_cap_is_a_misconfiguration() {
    let mut ours = admin(true, 0x01);
    ours.pfc.pfc_cap = 2;
    let s = negotiate(&ours, LOW, &table(HIGH, vec![peer_pfc(false, 0x07)]));
    assert_eq!(s.pfc.pfc_enable, 0x07);
    assert_eq!(
        s.pfc.misconfiguration,
        Some(PfcMisconfiguration::PeerExceedsPfcCap { peer_enabled: 3, pfc_cap: 2 })
    );
}

fn qdt(macsec: bool, privacy: bool, rtm: bool, ptp: bool, enable: u8) -> PfcConfig {
    PfcConfig {
        macsec_capable: macsec,
        privacy_capable: privacy,
        rtm_hdrm: rtm,
        ptp_hdrm: ptp,
        pfc_enable: enable,
        pfc_cap: 8,
        ..PfcConfig::default()
    }
}

fn qdt_admin(macsec: bool, privacy: bool, rtm: bool, ptp: bool, enable: u8) -> DcbxAdmin {
    let mut a = admin(false, enable);
    a.pfc.macsec_capable = macsec;
    a.pfc.privacy_capable = privacy;
    a.pfc.rtm_hdrm = rtm;
    a.pfc.ptp_hdrm = ptp;
    a
}

#[test]
fn macsec_and_privacy_need_both_ends_and_pfc_enabled() {
    let run = |ours: DcbxAdmin, theirs: PfcConfig| {
        let s = negotiate(&ours, LOW, &table(HIGH, vec![Tlv::PfcConfig(theirs)]));
        (s.pfc.macsec, s.pfc.privacy)
    };
    assert_eq!(
        run(qdt_admin(true, true, false, false, 0x08), qdt(true, true, false, false, 0x08)),
        (true, true)
    );
    assert_eq!(
        run(qdt_admin(true, true, false, false, 0x08), qdt(false, true, false, false, 0x08)),
        (false, true)
    );
    assert_eq!(
        run(qdt_admin(true, false, false, false, 0x08), qdt(true, true, false, false, 0x08)),
        (true, false)
    );
    // No priority enabled: nothing to protect.
    assert_eq!(
        run(qdt_admin(true, true, false, false, 0), qdt(true, true, false, false, 0)),
        (false, false)
    );
}

#[test]
fn headroom_methods_run_when_both_ends_support_them() {
    let run = |ours: (bool, bool), theirs: (bool, bool)| {
        let a = qdt_admin(false, false, ours.0, ours.1, 0x08);
        let s = negotiate(
            &a,
            LOW,
            &table(HIGH, vec![Tlv::PfcConfig(qdt(false, false, theirs.0, theirs.1, 0x08))]),
        );
        (s.pfc.headroom.measurement, s.pfc.headroom.link_delay)
    };
    assert_eq!(
        run((true, true), (true, true)),
        (true, true),
        "both allowed; measurement wins downstream"
    );
    assert_eq!(run((true, true), (true, false)), (true, false));
    assert_eq!(run((true, true), (false, true)), (false, true));
    assert_eq!(run((true, false), (false, true)), (false, false));
    assert_eq!(
        negotiate(&qdt_admin(false, false, true, true, 8), LOW, &Neighbours::new(1)).pfc.headroom,
        HeadroomMethods::default()
    );
}

#[test]
fn legacy_tlvs_carry_none_of_the_new_bits() {
    // A legacy peer: the 6-octet TLV reads as no MACsec, no RTM, no PTP.
    let legacy = qdt(true, true, true, true, 0x08).legacy();
    let s = negotiate(
        &qdt_admin(true, true, true, true, 0x08),
        LOW,
        &table(HIGH, vec![Tlv::PfcConfig(legacy)]),
    );
    assert_eq!((s.pfc.macsec, s.pfc.headroom), (false, HeadroomMethods::default()));
    // We send legacy: what we never advertised cannot be agreed either.
    let mut ours = qdt_admin(true, true, true, true, 0x08);
    ours.pfc.legacy_tlv = true;
    assert_eq!(
        ours.tlvs().iter().find_map(|t| match t {
            Tlv::PfcConfig(p) => Some(p.format.clone()),
            _ => None,
        }),
        Some(PfcFormat::Legacy)
    );
    let s = negotiate(
        &ours,
        LOW,
        &table(HIGH, vec![Tlv::PfcConfig(qdt(true, true, true, true, 0x08))]),
    );
    assert_eq!((s.pfc.macsec, s.pfc.headroom), (false, HeadroomMethods::default()));
}

#[test]
fn peer_local_delay_and_mbc_are_reported() {
    let delay = TimeInterval::from_nanos(4_403);
    let mbc = PfcConfig { mbc: true, ..qdt(false, false, false, false, 0x08) };
    let s = negotiate(
        &admin(false, 0x08),
        LOW,
        &table(HIGH, vec![Tlv::PfcConfig(mbc), Tlv::PfcLocalDelay(PfcLocalDelay { delay })]),
    );
    assert_eq!(s.pfc.peer_local_delay, Some(delay));
    assert_eq!(s.pfc.peer_mbc, Some(true));
}

fn tables(tc: u8) -> EtsTables {
    EtsTables { priority_tc: [tc; 8], tc_bandwidth: [100, 0, 0, 0, 0, 0, 0, 0], tsa: [Tsa::ETS; 8] }
}

#[test]
fn ets_is_asymmetric() {
    let mut ours = admin(false, 0);
    let mut ets = EtsAdmin::default();
    ets.config.tables = tables(1);
    ours.ets = Some(ets.clone());
    let reco = Tlv::EtsRecommendation(EtsRecommendation { tables: tables(2) });
    let s = negotiate(&ours, LOW, &table(HIGH, vec![reco.clone()]));
    assert_eq!(s.ets.map(|e| (e.tables, e.reason)), Some((tables(1), EtsReason::NotWilling)));

    ets.config.willing = true;
    ours.ets = Some(ets);
    let s = negotiate(&ours, LOW, &table(HIGH, vec![reco]));
    assert_eq!(
        s.ets.map(|e| (e.tables, e.source, e.reason)),
        Some((tables(2), Source::Peer, EtsReason::PeerRecommendation))
    );
    let s = negotiate(&ours, LOW, &table(HIGH, vec![]));
    assert_eq!(s.ets.map(|e| e.reason), Some(EtsReason::PeerSentNoRecommendation));
    let s = negotiate(&ours, LOW, &Neighbours::new(1));
    assert_eq!(s.ets.map(|e| e.reason), Some(EtsReason::NoPeer));
}

#[test]
fn application_priority_merge_the_peers_entry_wins() {
    let e = |priority, selector, protocol| AppEntry { priority, selector, protocol };
    let roce = e(3, AppSelector::ETHERTYPE, 0x8915);
    let rocev2 = e(4, AppSelector::UDP_DCCP_PORT, 4791);
    let mut ours = admin(false, 0);
    ours.app = Some(AppAdmin { willing: true, entries: vec![roce, rocev2] });
    let peer_app = Tlv::AppPriority(AppPriority {
        entries: vec![e(5, AppSelector::UDP_DCCP_PORT, 4791), e(6, AppSelector::ETHERTYPE, 0x8906)],
    });
    let s = negotiate(&ours, LOW, &table(HIGH, vec![peer_app.clone()]));
    let app = s.app.expect("configured");
    assert_eq!(
        app.entries,
        vec![roce, e(5, AppSelector::UDP_DCCP_PORT, 4791), e(6, AppSelector::ETHERTYPE, 0x8906)]
    );
    assert_eq!(app.source, Source::Peer);
    // Not willing: ours only.
    ours.app = Some(AppAdmin { willing: false, entries: vec![roce] });
    let s = negotiate(&ours, LOW, &table(HIGH, vec![peer_app]));
    assert_eq!(s.app.map(|a| (a.entries, a.source)), Some((vec![roce], Source::Local)));
}

#[test]
fn changes_report_adoption_fallback_and_misconfiguration() {
    let ours = admin(true, 0x08);
    let none = negotiate(&ours, LOW, &Neighbours::new(1));
    let adopted = negotiate(&ours, LOW, &table(HIGH, vec![peer_pfc(false, 0x18)]));
    assert_eq!(
        changes(&none, &adopted),
        vec![DcbxEvent::PfcChanged {
            from: 0x08,
            to: 0x18,
            source: Source::Peer,
            reason: PfcReason::PeerNotWilling
        }]
    );
    // The peer ages out: back to ours.
    assert_eq!(
        changes(&adopted, &none),
        vec![DcbxEvent::PfcChanged {
            from: 0x18,
            to: 0x08,
            source: Source::Local,
            reason: PfcReason::NoPeer
        }]
    );
    let stubborn = admin(false, 0x08);
    let mismatch = negotiate(&stubborn, LOW, &table(HIGH, vec![peer_pfc(false, 0x18)]));
    let alone = negotiate(&stubborn, LOW, &Neighbours::new(1));
    let ev = changes(&alone, &mismatch);
    assert!(ev.contains(&DcbxEvent::MisconfigurationRaised(PfcMisconfiguration::EnableMismatch {
        local: 8,
        peer: 0x18
    })));
    assert!(changes(&mismatch, &alone).contains(&DcbxEvent::MisconfigurationCleared));
    assert!(changes(&mismatch, &mismatch).is_empty());
}

#[test]
fn admin_tlvs_are_sent_in_order() {
    let mut a = admin(true, 0x08);
    a.ets = Some(EtsAdmin { recommendation: Some(tables(0)), ..EtsAdmin::default() });
    a.app = Some(AppAdmin::default());
    a.local_delay = Some(TimeInterval::from_nanos(1));
    let kinds: Vec<_> = a
        .tlvs()
        .iter()
        .map(|t| match t {
            Tlv::EtsConfig(_) => "ets",
            Tlv::EtsRecommendation(_) => "reco",
            Tlv::PfcConfig(_) => "pfc",
            Tlv::AppPriority(_) => "app",
            Tlv::PfcLocalDelay(_) => "delay",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["ets", "reco", "pfc", "app", "delay"]);
}
