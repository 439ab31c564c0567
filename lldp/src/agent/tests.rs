//! The agent against the behaviour 802.1AB and SPEC §2.4 ask for, frame by frame.

use super::*;
use crate::wire::{PfcConfig, SystemName, Ttl, NEAREST_BRIDGE};

const S: fn(u64) -> Duration = Duration::from_secs;
const MS: fn(u64) -> Duration = Duration::from_millis;
const OUR_MAC: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);
const PEER_MAC: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x02]);

fn local(name: &str) -> LocalInfo {
    LocalInfo {
        chassis_id: ChassisId::MacAddress(OUR_MAC),
        port_id: PortId::InterfaceName(name.into()),
        tlvs: vec![Tlv::SystemName(SystemName::from("pfcd"))],
    }
}

fn agent(config: AgentConfig) -> Agent {
    let mut a = Agent::new(config, OUR_MAC, local("eth0")).expect("valid local info");
    let out = a.set_port_enabled(true, S(0));
    assert_eq!(out.frames.len(), 1, "the first LLDPDU goes out as soon as the port is up");
    a
}

fn peer_frame(n: u8, ttl: u16, extra: Vec<Tlv>) -> Vec<u8> {
    let mut pdu = Lldpdu::new(
        ChassisId::MacAddress(MacAddr([0x02, 0, 0, 0, 1, n])),
        PortId::InterfaceName("p1".into()),
        ttl,
    );
    pdu.tlvs = extra;
    LldpFrame::new(PEER_MAC, pdu).to_vec().expect("emits")
}

fn parse(frame: &[u8]) -> Lldpdu {
    LldpFrame::parse(frame).expect("our frames parse").lldpdu
}

#[test]
fn sends_mandatory_tlvs_ttl_and_local_tlvs() {
    let mut a = Agent::new(AgentConfig::default(), OUR_MAC, local("eth0")).expect("valid");
    let out = a.set_port_enabled(true, S(0));
    let frame = LldpFrame::parse(&out.frames[0]).expect("parses");
    assert_eq!(frame.dst, NEAREST_BRIDGE);
    assert_eq!(frame.src, OUR_MAC);
    assert_eq!(frame.lldpdu.ttl, 121);
    assert_eq!(frame.lldpdu.system_name(), Some(&SystemName::from("pfcd")));
    assert_eq!(a.statistics().tx.total_frames, 1);
    assert_eq!(a.next_deadline(), Some(S(30)));
}

#[test]
fn port_down_sends_nothing() {
    let mut a = Agent::new(AgentConfig::default(), OUR_MAC, local("eth0")).expect("valid");
    assert_eq!(a.poll(S(100)), Output::default());
    assert_eq!(a.next_deadline(), None);
}

#[test]
fn new_neighbour_starts_fast_transmission() {
    let mut a = agent(AgentConfig::default());
    let out = a.receive(&peer_frame(1, 121, vec![]), S(5));
    assert_eq!(out.frames.len(), 1, "an LLDPDU answers a new neighbour at once");
    assert!(matches!(
        out.events[..],
        [AgentEvent::Neighbour(NeighbourEvent::Inserted { remote_index: 1, .. })]
    ));
    assert!(out.neighbours_changed());
    for t in [6, 7, 8] {
        assert_eq!(a.next_deadline(), Some(S(t)));
        assert_eq!(a.poll(S(t)).frames.len(), 1);
    }
    assert_eq!(a.next_deadline(), Some(S(38)));
    // The same neighbour again: a refresh, no event, no new burst.
    let out = a.receive(&peer_frame(1, 121, vec![]), S(10));
    assert_eq!(out, Output::default());
    assert_eq!(a.statistics().remote.remote_inserts, 1);
}

#[test]
fn local_change_is_sent_at_once_without_a_burst() {
    let mut a = agent(AgentConfig::default());
    let mut changed = local("eth0");
    changed.tlvs.push(Tlv::PfcConfig(PfcConfig { pfc_enable: 0x08, ..PfcConfig::default() }));
    let out = a.set_local(changed.clone(), S(3)).expect("valid");
    assert_eq!(out.frames.len(), 1);
    assert_eq!(parse(&out.frames[0]).pfc_config().map(|p| p.pfc_enable), Some(0x08));
    // The next LLDPDU msgTxInterval later (802.1AB's SIGNAL_TX), not a fast burst.
    assert_eq!(a.next_deadline(), Some(S(33)));
    // Setting the same information again changes nothing.
    assert_eq!(a.set_local(changed, S(3)).map(|o| o.frames.len()), Ok(0));
}

#[test]
fn admin_disable_sends_a_shutdown_lldpdu() {
    let mut a = agent(AgentConfig::default());
    let config = AgentConfig { admin_status: AdminStatus::Disabled, ..AgentConfig::default() };
    let out = a.set_config(config, S(1));
    assert_eq!(out.frames.len(), 1);
    let pdu = parse(&out.frames[0]);
    assert_eq!(pdu.ttl, 0);
    assert!(pdu.tlvs.is_empty(), "a shutdown LLDPDU has only the mandatory TLVs");
    assert_eq!(a.poll(MS(1500)).frames.len(), 0);
    // Enabled again: after reinitDelay the agent transmits again.
    let out = a.set_config(AgentConfig::default(), S(2));
    assert!(out.frames.is_empty());
    assert_eq!(a.next_deadline(), Some(S(3)));
    assert_eq!(a.poll(S(3)).frames.len(), 1);
}

#[test]
fn a_short_link_flap_transmits_at_once_when_the_port_is_back() {
    // 802.1AB-2016 Figure 9-1: !portEnabled leads to TX_LLDP_INITIALIZE, no txShutdownWhile;
    // reinitDelay only follows a shutdown LLDPDU (an admin disable).
    let mut a = agent(AgentConfig::default());
    a.receive(&peer_frame(1, 121, vec![]), S(1));
    assert!(a.set_port_enabled(false, S(5)).frames.is_empty());
    let out = a.set_port_enabled(true, MS(5100));
    assert_eq!(out.frames.len(), 1, "the LLDPDU goes out as soon as the port is back");
    assert_eq!(parse(&out.frames[0]).ttl, 121);
    // The neighbour, forgotten on the down, is back with its next LLDPDU and answered at once.
    let out = a.receive(&peer_frame(1, 121, vec![]), MS(5200));
    assert!(out.neighbours_changed());
    assert_eq!(out.frames.len(), 1);
}

#[test]
fn a_link_flap_during_the_reinit_delay_ends_it() {
    let mut a = agent(AgentConfig::default());
    let disabled = AgentConfig { admin_status: AdminStatus::Disabled, ..AgentConfig::default() };
    assert_eq!(a.set_config(disabled, S(1)).frames.len(), 1);
    // The port goes down and up: TX_LLDP_INITIALIZE, the shutdown's wait is over.
    a.set_port_enabled(false, MS(1100));
    a.set_port_enabled(true, MS(1200));
    assert_eq!(a.set_config(AgentConfig::default(), MS(1300)).frames.len(), 1);
}

#[test]
fn shutdown_lldpdu_deletes_the_neighbour_at_once() {
    let mut a = agent(AgentConfig::default());
    a.receive(&peer_frame(1, 121, vec![]), S(1));
    let out = a.receive(&peer_frame(1, 0, vec![]), S(2));
    assert!(matches!(
        out.events[..],
        [AgentEvent::Neighbour(NeighbourEvent::Deleted { reason: DeleteReason::Shutdown, .. })]
    ));
    assert!(a.neighbours().is_empty());
    assert_eq!(a.statistics().remote.remote_deletes, 1);
}

#[test]
fn neighbour_ages_out_after_its_ttl() {
    let mut a = agent(AgentConfig::default());
    a.receive(&peer_frame(1, 3, vec![]), MS(500));
    assert!(a.poll(MS(3499)).events.is_empty());
    let out = a.poll(MS(3500));
    assert!(matches!(out.events[..], [AgentEvent::Neighbour(NeighbourEvent::AgedOut { .. })]));
    assert_eq!(a.statistics().rx.total_ageouts, 1);
    assert_eq!(a.statistics().remote.remote_ageouts, 1);
}

#[test]
fn malformed_lldpdus_are_discarded_and_counted_and_good_entries_stay() {
    let mut a = agent(AgentConfig::default());
    a.receive(&peer_frame(1, 121, vec![]), S(1));
    let good = peer_frame(2, 121, vec![]);
    // TTL before Port ID.
    let mut out_of_order = good[..14].to_vec();
    out_of_order.extend_from_slice(&[
        0x02, 0x07, 0x04, 2, 0, 0, 0, 1, 2, 0x06, 0x02, 0, 121, 0x04, 0x03, 0x05, b'p', b'1', 0, 0,
    ]);
    // Chassis ID only.
    let mut missing = good[..14].to_vec();
    missing.extend_from_slice(&[0x02, 0x07, 0x04, 2, 0, 0, 0, 1, 2, 0, 0]);
    // A System Name claiming more octets than there are.
    let mut past_end = good[..14 + 9 + 5 + 4].to_vec();
    past_end.extend_from_slice(&[0x0a, 0x40, b's']);
    for bad in [out_of_order, missing, past_end] {
        let out = a.receive(&bad, S(2));
        assert!(matches!(out.events[..], [AgentEvent::FrameDiscarded { .. }]), "{out:?}");
    }
    let rx = a.statistics().rx;
    assert_eq!((rx.total_frames, rx.total_discarded_frames, rx.error_frames), (4, 3, 3));
    assert_eq!(a.neighbours().len(), 1, "the good neighbour stays");
}

#[test]
fn five_octet_pfc_tlv_is_discarded_the_rest_is_used() {
    let mut a = agent(AgentConfig::default());
    let mut frame = peer_frame(1, 121, vec![]);
    // Replace End and padding by a PFC TLV of length 5 and a System Name, then End.
    let end = 14 + 9 + 5 + 4;
    frame.truncate(end);
    frame.extend_from_slice(&[
        0xfe, 0x05, 0x00, 0x80, 0xc2, 0x0b, 0xa4, 0x0a, 0x02, b's', b'w', 0, 0,
    ]);
    let out = a.receive(&frame, S(1));
    assert!(out.events.iter().any(|e| matches!(e, AgentEvent::TlvDiscarded { error: wire::Error::PfcTlvTooShort(5), source_mac, count: 1 } if *source_mac == PEER_MAC)));
    assert_eq!(a.statistics().rx.total_discarded_tlvs, 1);
    let peer = a.neighbours().single().expect("stored");
    assert_eq!(peer.lldpdu.system_name(), Some(&SystemName::from("sw")));
    assert_eq!(peer.lldpdu.pfc_config(), None);
}

#[test]
fn unknown_tlvs_are_counted_and_kept() {
    let mut a = agent(AgentConfig::default());
    let unknown =
        Tlv::Unknown(crate::wire::RawTlv { tlv_type: crate::wire::TlvType(9), info: vec![1, 2] });
    let org = Tlv::Org(crate::wire::OrgTlv {
        oui: crate::wire::Oui([0xaa, 0xbb, 0xcc]),
        subtype: 1,
        info: vec![7],
    });
    a.receive(&peer_frame(1, 121, vec![unknown.clone(), org.clone()]), S(1));
    assert_eq!(a.statistics().rx.total_unrecognized_tlvs, 2);
    let peer = a.neighbours().single().expect("stored");
    assert_eq!(peer.lldpdu.tlvs, vec![unknown, org]);
}

#[test]
fn other_destinations_belong_to_other_agents() {
    let mut a = agent(AgentConfig::default());
    let mut frame = peer_frame(1, 121, vec![]);
    frame[5] = 0x03; // nearest non-TPMR bridge
    assert_eq!(a.receive(&frame, S(1)), Output::default());
    assert_eq!(a.statistics().rx.total_frames, 0);
}

#[test]
fn too_many_neighbours_drops_the_newcomer() {
    let mut a = agent(AgentConfig { max_neighbours: 1, ..AgentConfig::default() });
    a.receive(&peer_frame(1, 121, vec![]), S(1));
    let out = a.receive(&peer_frame(2, 121, vec![]), S(1));
    assert!(matches!(out.events[..], [AgentEvent::Neighbour(NeighbourEvent::Dropped { .. })]));
    assert!(!out.neighbours_changed());
    assert!(a.neighbours().too_many_neighbours());
    assert_eq!(a.statistics().remote.remote_drops, 1);
}

#[test]
fn port_down_forgets_neighbours_and_rx_disable_too() {
    let mut a = agent(AgentConfig::default());
    a.receive(&peer_frame(1, 121, vec![]), S(1));
    let out = a.set_port_enabled(false, S(2));
    assert!(out.frames.is_empty(), "nothing can be sent on a port that is down");
    assert!(matches!(
        out.events[..],
        [AgentEvent::Neighbour(NeighbourEvent::Deleted { reason: DeleteReason::PortDisabled, .. })]
    ));
    a.set_port_enabled(true, S(5));
    a.receive(&peer_frame(1, 121, vec![]), S(6));
    let out = a.set_config(
        AgentConfig { admin_status: AdminStatus::TxOnly, ..AgentConfig::default() },
        S(7),
    );
    assert!(out.neighbours_changed());
    assert!(a.neighbours().is_empty());
    // Receive disabled: frames are not even counted.
    assert_eq!(a.receive(&peer_frame(1, 121, vec![]), S(8)), Output::default());
}

#[test]
fn oversized_local_information_is_cut_and_counted() {
    let mut info = local("eth0");
    info.tlvs =
        (0..4).map(|_| Tlv::SystemName(SystemName::from("x".repeat(450).as_str()))).collect();
    let mut a = Agent::new(AgentConfig::default(), OUR_MAC, info).expect("each TLV encodes");
    let out = a.set_port_enabled(true, S(0));
    assert_eq!(out.events, vec![AgentEvent::LengthError { left_out: 1 }]);
    assert_eq!(parse(&out.frames[0]).tlvs.len(), 3);
    assert_eq!(a.statistics().tx.total_length_errors, 1);
}

#[test]
fn unencodable_local_information_is_refused() {
    let mut info = local("eth0");
    info.tlvs.push(Tlv::Ttl(Ttl(3)));
    assert!(Agent::new(AgentConfig::default(), OUR_MAC, info).is_err());
}

#[test]
fn a_new_port_mac_is_the_source_address_at_once() {
    let mut a = agent(AgentConfig::default());
    let new_mac = MacAddr([0x02, 0, 0, 0, 0, 0x99]);
    let out = a.set_port_mac(new_mac, S(3));
    assert_eq!(out.frames.len(), 1, "the peer hears the new address at once");
    assert_eq!(LldpFrame::parse(&out.frames[0]).expect("parses").src, new_mac);
    assert_eq!(a.port_mac(), new_mac);
    assert_eq!(a.set_port_mac(new_mac, S(4)), Output::default());
}

#[test]
fn a_new_chassis_id_retires_the_old_one_with_a_shutdown_lldpdu_first() {
    let mut a = agent(AgentConfig::default());
    let new_chassis = ChassisId::MacAddress(MacAddr([0x02, 0, 0, 0, 0, 0x99]));
    let changed = LocalInfo { chassis_id: new_chassis.clone(), ..local("eth0") };
    let out = a.set_local(changed, S(3)).expect("valid");
    assert_eq!(out.frames.len(), 2, "a shutdown for the old MSAP, then the new information");
    let (retired, announced) = (parse(&out.frames[0]), parse(&out.frames[1]));
    assert_eq!((retired.chassis_id, retired.ttl), (ChassisId::MacAddress(OUR_MAC), 0));
    assert_eq!((announced.chassis_id, announced.ttl), (new_chassis, 121));
    // Other information changes nothing of the MSAP: no shutdown.
    let mut renamed = a.local().clone();
    renamed.tlvs = vec![Tlv::SystemName(SystemName::from("other"))];
    let out = a.set_local(renamed, S(4)).expect("valid");
    assert!(out.frames.iter().all(|f| parse(f).ttl != 0));
}

#[test]
fn a_port_that_is_down_has_no_old_identity_to_retire() {
    let mut a = agent(AgentConfig::default());
    a.set_port_enabled(false, S(1));
    let changed = LocalInfo {
        chassis_id: ChassisId::MacAddress(MacAddr([0x02, 0, 0, 0, 0, 0x99])),
        ..local("eth0")
    };
    assert!(a.set_local(changed, S(2)).expect("valid").frames.is_empty());
}

/// A peer's frame whose LLDPDU holds `n` zero-length System Capabilities TLVs (malformed: the
/// TLV is 4 octets) after the mandatory ones.
fn frame_of_empty_tlvs(n: usize) -> Vec<u8> {
    let mut frame = peer_frame(1, 121, vec![]);
    frame.truncate(14 + 9 + 5 + 4);
    for _ in 0..n {
        frame.extend_from_slice(&[0x0e, 0x00]);
    }
    frame.extend_from_slice(&[0, 0]);
    frame
}

#[test]
fn an_lldpdu_of_many_malformed_tlvs_is_one_event_and_every_tlv_counted() {
    let mut a = agent(AgentConfig::default());
    let out = a.receive(&frame_of_empty_tlvs(700), S(1));
    let discarded: Vec<_> =
        out.events.iter().filter(|e| matches!(e, AgentEvent::TlvDiscarded { .. })).collect();
    assert!(
        matches!(discarded[..], [AgentEvent::TlvDiscarded { count: 700, source_mac, .. }] if *source_mac == PEER_MAC),
        "{discarded:?}"
    );
    assert_eq!(a.statistics().rx.total_discarded_tlvs, 700);
    assert_eq!(a.neighbours().len(), 1, "the rest of the LLDPDU is used");
}

#[test]
fn an_lldpdu_of_more_tlvs_than_a_frame_holds_is_discarded_whole_and_counted() {
    let mut a = agent(AgentConfig::default());
    // 3 mandatory TLVs and 747 more: the most a 1500-octet frame could hold.
    let out = a.receive(&frame_of_empty_tlvs(wire::MAX_TLVS - 3), S(1));
    let at_bound = |e: &AgentEvent| matches!(e, AgentEvent::TlvDiscarded { count: 747, .. });
    assert!(out.events.iter().any(at_bound), "{out:?}");
    assert_eq!(a.neighbours().len(), 1, "at the bound, the LLDPDU is used");
    let out = a.receive(&frame_of_empty_tlvs(4_000), S(2));
    assert!(
        matches!(
            out.events[..],
            [AgentEvent::FrameDiscarded { error: wire::Error::TooManyTlvs { limit: 750 }, .. }]
        ),
        "{out:?}"
    );
    let rx = a.statistics().rx;
    assert_eq!((rx.total_frames, rx.total_discarded_frames, rx.error_frames), (2, 1, 1));
    assert_eq!(
        rx.total_discarded_tlvs, 747,
        "the refused LLDPDU's TLVs are not counted one by one"
    );
}
