//! Frames built by scapy (an independent Ethernet/LLDP implementation) parse with pfcd's codecs
//! to exactly the values scapy was given.

use std::process::Command;

use dataplane::wire::{EtherType, EthernetHeader, Hmpdu, MacAddr, PauseFrame, PfcFrame, TupleUse};
use serde_json::Value;
use test_support::external_tool;

fn mac(v: &Value) -> MacAddr {
    v.as_str().expect("MAC as text").parse().expect("scapy prints MACs we can read")
}

fn num(v: &Value) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("{v} is not an integer"))
}

/// Runs the scapy generator and returns (kind, frame bytes, expected values) per frame.
fn scapy_frames(count: u32, seed: u32) -> Option<Vec<(String, Vec<u8>, Value)>> {
    let python = external_tool("/usr/bin/python3", "python3-scapy")?;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/interop/scapy_frames.py");
    let out = Command::new(python)
        .arg(script)
        .args(["--count", &count.to_string(), "--seed", &seed.to_string()])
        .output()
        .expect("run scapy generator");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && stderr.contains("No module named 'scapy'") {
        external_tool("/nonexistent/python3-scapy", "python3-scapy")?;
    }
    assert!(out.status.success(), "scapy generator failed: {stderr}");
    let frames = String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("generator prints JSON lines");
            let bytes = hex::decode(v["hex"].as_str().expect("hex")).expect("valid hex");
            (v["kind"].as_str().expect("kind").to_string(), bytes, v["expect"].clone())
        })
        .collect();
    Some(frames)
}

fn check_pfc(bytes: &[u8], e: &Value) {
    let f = PfcFrame::parse(bytes).unwrap_or_else(|err| panic!("{err}: {}", hex::encode(bytes)));
    assert_eq!(f.src, mac(&e["src"]));
    assert_eq!(i64::from(f.enable), num(&e["enable"]));
    let times: Vec<i64> = e["time"].as_array().expect("times").iter().map(num).collect();
    assert_eq!(f.time.iter().map(|t| i64::from(*t)).collect::<Vec<_>>(), times);
    assert_eq!(f.to_vec(), bytes, "our emitter writes scapy's octets");
}

fn check_pause(bytes: &[u8], e: &Value) {
    let f = PauseFrame::parse(bytes).unwrap_or_else(|err| panic!("{err}: {}", hex::encode(bytes)));
    assert_eq!(f.src, mac(&e["src"]));
    assert_eq!(i64::from(f.pause_time), num(&e["pause_time"]));
    assert_eq!(f.to_vec(), bytes);
}

fn check_tagged(bytes: &[u8], e: &Value) {
    let (h, _) = EthernetHeader::parse(bytes).expect("tagged header parses");
    let tag = h.vlan.expect("tag present");
    assert_eq!((h.src, h.dst), (mac(&e["src"]), mac(&e["dst"])));
    assert_eq!(i64::from(tag.pcp), num(&e["pcp"]));
    assert_eq!(i64::from(h.priority(0)), num(&e["pcp"]), "priority comes from the PCP");
    assert_eq!(tag.dei, num(&e["dei"]) == 1);
    assert_eq!(i64::from(tag.vid), num(&e["vid"]));
    assert_eq!(h.ethertype, EtherType(num(&e["ethertype"]) as u16));
}

fn check_hmpdu(bytes: &[u8], e: &Value) {
    let p = Hmpdu::parse(bytes).unwrap_or_else(|err| panic!("{err}: {}", hex::encode(bytes)));
    assert_eq!(p.src, mac(&e["src"]));
    assert_eq!(i64::from(p.version), num(&e["version"]));
    assert_eq!(i64::from(p.path.code()), num(&e["path"]));
    for (tuple, exp) in [p.tuple1, p.tuple2].iter().zip(e["tuples"].as_array().expect("tuples")) {
        let code = match tuple.map(|t| t.kind) {
            None => 0,
            Some(TupleUse::ResponseNoAdjustment) => 1,
            Some(TupleUse::Response) => 2,
            Some(TupleUse::Request) => 3,
        };
        assert_eq!(code, num(&exp["use"]), "use code");
        if let Some(t) = tuple {
            assert_eq!(i64::from(t.request_timestamp), num(&exp["timestamp"]));
            assert_eq!(i64::from(t.request_adjustment), num(&exp["request_adjustment"]));
            assert_eq!(i64::from(t.response_adjustment), num(&exp["response_adjustment"]));
        }
    }
    assert_eq!(p.to_vec(), bytes);
}

#[test]
fn scapy_built_frames_parse_to_scapys_values() {
    let Some(frames) = scapy_frames(200, 20261122) else { return };
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for (kind, bytes, expect) in &frames {
        match kind.as_str() {
            "pfc" => check_pfc(bytes, expect),
            "pause" => check_pause(bytes, expect),
            "tagged" => check_tagged(bytes, expect),
            "hmpdu" => check_hmpdu(bytes, expect),
            "lldpdu" => lldp_checks::check_lldpdu(bytes, expect),
            other => panic!("generator produced unknown kind {other}"),
        }
        *seen.entry(kind.clone()).or_default() += 1;
    }
    assert!(seen.values().all(|n| *n == 200), "every kind checked 200 times: {seen:?}");
}

mod lldp_checks {
    use lldp::wire::{ChassisId, LldpFrame, PfcFormat, PortId};
    use serde_json::Value;

    use super::{mac, num};

    fn nums(v: &Value) -> Vec<i64> {
        v.as_array().expect("array").iter().map(num).collect()
    }

    fn bit(v: &Value) -> bool {
        num(v) == 1
    }

    pub fn check_lldpdu(bytes: &[u8], e: &Value) {
        let frame =
            LldpFrame::parse(bytes).unwrap_or_else(|err| panic!("{err}: {}", hex::encode(bytes)));
        assert_eq!(frame.src, mac(&e["src"]));
        let pdu = &frame.lldpdu;
        assert_eq!(pdu.chassis_id, ChassisId::MacAddress(mac(&e["chassis_mac"])));
        match &pdu.port_id {
            PortId::InterfaceName(name) => assert_eq!(name.as_str(), e["port_name"].as_str()),
            other => panic!("port ID {other:?}"),
        }
        assert_eq!(i64::from(pdu.ttl), num(&e["ttl"]));
        let name = pdu.system_name().expect("system name");
        assert_eq!(name.0.as_str(), e["system_name"].as_str());

        let ets = pdu.ets_config().expect("ETS Configuration TLV");
        let x = &e["ets"];
        assert_eq!((ets.willing, ets.cbs), (bit(&x["willing"]), bit(&x["cbs"])));
        assert_eq!(i64::from(ets.max_tcs), num(&x["max_tcs"]));
        let tables = &ets.tables;
        assert_eq!(
            tables.priority_tc.iter().map(|v| i64::from(*v)).collect::<Vec<_>>(),
            nums(&x["prio_tc"])
        );
        assert_eq!(
            tables.tc_bandwidth.iter().map(|v| i64::from(*v)).collect::<Vec<_>>(),
            nums(&x["tc_bandwidth"])
        );
        assert_eq!(tables.tsa.iter().map(|t| i64::from(t.0)).collect::<Vec<_>>(), nums(&x["tsa"]));

        let pfc = pdu.pfc_config().expect("PFC Configuration TLV");
        let x = &e["pfc"];
        assert_eq!(pfc.willing, bit(&x["willing"]));
        assert_eq!(pfc.mbc, bit(&x["mbc"]));
        assert_eq!(i64::from(pfc.pfc_cap), num(&x["cap"]));
        assert_eq!(i64::from(pfc.pfc_enable), num(&x["enable"]));
        assert_eq!(pfc.macsec_capable, bit(&x["macsec_cap"]));
        assert_eq!(pfc.privacy_capable, bit(&x["privacy_cap"]));
        assert_eq!(pfc.rtm_hdrm, bit(&x["rtm"]));
        assert_eq!(pfc.ptp_hdrm, bit(&x["ptp"]));
        let legacy = x["legacy"].as_bool().expect("bool");
        assert_eq!(pfc.format == PfcFormat::Legacy, legacy, "length 6 vs 7");

        let app = pdu.app_priority().expect("Application Priority TLV");
        let entries = e["app"].as_array().expect("entries");
        assert_eq!(app.entries.len(), entries.len());
        for (got, want) in app.entries.iter().zip(entries) {
            assert_eq!(i64::from(got.priority), num(&want["priority"]));
            assert_eq!(i64::from(got.selector.0), num(&want["selector"]));
            assert_eq!(i64::from(got.protocol), num(&want["protocol"]));
        }

        let delay = pdu.pfc_local_delay().expect("PFC Local Delay TLV");
        assert_eq!(delay.delay.0, num(&e["local_delay"]));

        // Our emitter writes the LLDPDU scapy built, octet for octet (scapy pads to 60 too).
        assert_eq!(frame.to_vec().expect("emits"), bytes);
    }
}
