//! tshark, capturing on the veth, decodes the LLDPDU pfc-lldp sends with the values configured.

use std::time::{Duration, Instant};

use test_support::netns::{can_run, veth, Netns};
use test_support::pfc_lldp::Agent;
use test_support::{external_tool, start_capture, tshark_fields, tshark_number, Scratch};

const OURS: &str = r#"
system-name = "pfcd-tshark"
local-delay-ns = -2
[lldp]
message-tx-interval = 1
[pfc]
willing = true
mbc = true
pfc-cap = 3
enable = [2, 5]
macsec-capable = true
ptp-hdrm = true
[ets]
max-tcs = 2
priority-tc = [0, 0, 0, 1, 1, 0, 0, 0]
tc-bandwidth = [70, 30, 0, 0, 0, 0, 0, 0]
tsa = ["ets", "ets", "strict", "strict", "strict", "strict", "strict", "strict"]
[app]
entries = [{ priority = 5, selector = "udp-dccp", protocol = 4791 }]
[[port]]
name = "lldpb"
"#;

#[test]
fn tshark_on_the_veth_decodes_our_lldpdus() {
    if !can_run("tshark_on_the_veth_decodes_our_lldpdus") {
        return;
    }
    let Some(tshark) = external_tool("/usr/bin/tshark", "tshark") else { return };
    let scratch = Scratch::new("lldp-tshark-live");
    let a = Netns::new("tsa");
    let b = Netns::new("tsb");
    veth(&a, "lldpa", "02:00:00:00:00:0a", &b, "lldpb", "02:00:00:00:00:0b");
    a.link(&["set", "lldpa", "up"]);
    b.link(&["set", "lldpb", "up"]);

    let pcap = scratch.path("live.pcap");
    // tshark says "Capturing on 'lldpa'" once it listens (or just before: msgTxInterval 1 s
    // makes sure a later LLDPDU is caught even if the first one is missed).
    let mut capture = start_capture(&a, &tshark, ("lldpa", "ether proto 0x88cc"), 1, &pcap);
    let _agent = Agent::start(&b, &scratch, "ours", OURS);
    let deadline = Instant::now() + Duration::from_secs(10);
    while capture.try_wait().expect("tshark").is_none() {
        assert!(Instant::now() < deadline, "tshark captured nothing");
        std::thread::sleep(Duration::from_millis(20));
    }

    let fields = [
        "eth.src",
        "lldp.chassis.id.mac",
        "lldp.port.id",
        "lldp.time_to_live",
        "lldp.tlv.system.name",
        "lldp.dcbx.ieee.willing",
        "lldp.dcbx.ieee.ets.maxtcs",
        "lldp.dcbx.ieee.pfc.mbc",
        "lldp.dcbx.ieee.pfc.numtcs",
        "lldp.dcbx.ieee.app.prio",
        "lldp.dcbx.iee.app.sf",
        "lldp.dcbx.feature.app.proto",
        "lldp.dcbx.feature.pfc.prio2",
        "lldp.dcbx.feature.pfc.prio3",
        "lldp.dcbx.feature.pfc.prio5",
        "lldp.dcbx.feature.pg.pgid_prio3",
        "lldp.dcbx.feature.pg.per0",
        "lldp.dcbx.feature.pg.per1",
        "lldp.dcbx.ieee.ets.tsa2",
    ];
    let rows = tshark_fields(&tshark, &pcap, &fields);
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    let flag = |s: &str| matches!(s, "1" | "True");
    assert_eq!(r[0], "02:00:00:00:00:0b");
    assert_eq!(r[1], "02:00:00:00:00:0b", "chassis ID: the port's MAC");
    assert_eq!(r[2], "lldpb", "port ID: the interface name");
    assert_eq!(r[3], "5", "TTL = 1 × 4 + 1");
    assert_eq!(r[4], "pfcd-tshark");
    assert_eq!(r[5], "0|1", "ETS not willing, PFC willing");
    assert_eq!(tshark_number(&r[6]), 2);
    assert!(flag(&r[7]), "MBC");
    assert_eq!(tshark_number(&r[8]), 3, "PFC cap");
    assert_eq!(tshark_number(&r[9]), 5);
    assert_eq!(tshark_number(&r[10]), 3, "selector UDP");
    assert_eq!(tshark_number(&r[11]), 4791);
    assert!(flag(&r[12]) && !flag(&r[13]) && flag(&r[14]), "PFC on priorities 2 and 5: {r:?}");
    assert_eq!(tshark_number(&r[15]), 1, "priority 3 in traffic class 1");
    assert_eq!((tshark_number(&r[16]), tshark_number(&r[17])), (70, 30));
    assert_eq!(tshark_number(&r[18]), 0, "TC 2 strict");
    // tshark does not decode subtype 0x17; the captured frame (after the 24-octet pcap header
    // and the 16-octet record header) carries the Local Delay TLV, -2 ns = -131072.
    let captured = std::fs::read(&pcap).expect("pcap");
    let frame = captured.get(40..).expect("one frame");
    let tlv = hex::decode("fe0c0080c217fffffffffffe0000").expect("hex");
    assert!(frame.windows(tlv.len()).any(|w| w == tlv), "Local Delay TLV on the wire");
    // And the 7-octet PFC TLV: Willing | MBC | MACsec cap | cap 3; priorities 2, 5; PTP HDRM.
    let pfc = hex::decode("fe070080c20be32440").expect("hex");
    assert!(frame.windows(pfc.len()).any(|w| w == pfc), "PFC TLV on the wire");
}
