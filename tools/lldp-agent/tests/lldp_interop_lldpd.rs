//! lldpd, the LLDP daemon most people run, against pfc-lldp on a veth pair.
//!
//! lldpd sends the DCBX TLVs as `custom-tlv`s (PFC Configuration in both lengths, ETS
//! Configuration and Recommendation, PFC Local Delay); pfc-lldp decodes and negotiates from
//! them. The other way, `lldpcli -f json show neighbors details` shows our chassis, our port and
//! our organizationally specific TLVs (as `unknown-tlvs`) with the exact octets we sent.
//!
//! lldpd runs with a private control socket (`-u`) and no configuration file (`-O /dev/null`),
//! inside a namespace removed with everything in it at the end.

use std::time::Duration;

use lldp::dcbx::PfcAdmin;
use lldp::wire::{EtsConfig, EtsTables, PfcLocalDelay, TimeInterval, Tsa};
use serde_json::Value;
use test_support::netns::{can_run, veth, wait_for, Daemon, Netns};
use test_support::pfc_lldp::Agent;
use test_support::{external_tool, Scratch};

const OUR_MAC: &str = "02:00:00:00:00:0b";

const OURS: &str = r#"
system-name = "pfcd-test"
local-delay-ns = 1500
[pfc]
willing = true
mbc = true
macsec-capable = true
pfc-cap = 4
enable = [1]
rtm-hdrm = true
ptp-hdrm = true
[ets]
willing = true
max-tcs = 4
priority-tc = [0, 0, 0, 1, 1, 2, 3, 3]
tc-bandwidth = [40, 30, 20, 10, 0, 0, 0, 0]
tsa = ["ets", "ets", "ets", "ets", "strict", "strict", "strict", "strict"]
[[port]]
name = "lldpb"
"#;

struct Lldpd {
    ns: Netns,
    socket: String,
    _daemon: Daemon,
}

impl Lldpd {
    fn cli(&self, args: &[&str]) -> String {
        let mut all = vec!["-u", &self.socket];
        all.extend_from_slice(args);
        self.ns.run("/usr/sbin/lldpcli", &all)
    }

    fn configure(&self, line: &str) {
        let mut args = vec!["configure"];
        args.extend(line.split_whitespace());
        self.cli(&args);
    }
}

/// Comma-separated hex octets, as lldpd's custom-tlv syntax and JSON output write them.
fn octets(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect::<Vec<_>>().join(",")
}

/// The unknown TLVs lldpd shows for its neighbour on `lldpa`: (OUI, subtype, value).
fn unknown_tlvs(neighbour: &Value) -> Vec<(String, u64, String)> {
    let list = &neighbour["unknown-tlvs"]["unknown-tlv"];
    let items: Vec<Value> = match list {
        Value::Array(a) => a.clone(),
        Value::Null => vec![],
        one => vec![one.clone()],
    };
    items
        .iter()
        .map(|t| {
            let subtype = t["subtype"].as_str().and_then(|s| s.parse().ok()).unwrap_or(0);
            (
                t["oui"].as_str().unwrap_or("").to_string(),
                subtype,
                t["value"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn lldpd_and_pfc_lldp_understand_each_other() {
    if !can_run("lldpd_and_pfc_lldp_understand_each_other") {
        return;
    }
    let Some(lldpd_bin) = external_tool("/usr/sbin/lldpd", "lldpd") else { return };
    if external_tool("/usr/sbin/lldpcli", "lldpd").is_none() {
        return;
    }
    let scratch = Scratch::new("lldpd");
    let a = Netns::new("lda");
    let b = Netns::new("ldb");
    veth(&a, "lldpa", "02:00:00:00:00:0a", &b, "lldpb", OUR_MAC);
    a.link(&["set", "lldpa", "up"]);
    b.link(&["set", "lldpb", "up"]);

    let socket = scratch.path("lldpd.ctl").display().to_string();
    let mut cmd = a.command(&lldpd_bin);
    cmd.args(["-d", "-u", &socket, "-O", "/dev/null", "-I", "lldpa", "-S", "lldpd-peer"]);
    let daemon = Daemon::spawn("lldpd", cmd, &scratch.path("lldpd.log"));
    let lldpd = Lldpd { ns: a, socket, _daemon: daemon };
    wait_for(Duration::from_secs(5), "lldpd's control socket", || {
        lldpd
            .ns
            .command("/usr/sbin/lldpcli")
            .args(["-u", &lldpd.socket, "show", "configuration"])
            .output()
            .ok()
            .filter(|o| o.status.success())
    });

    // lldpd's side: not willing, MACsec capable, PFC cap 4, priorities 3 and 4, RTM and PTP
    // (7 octets); ETS Configuration and Recommendation; a Local Delay of 4403 ns.
    let delay = TimeInterval::from_nanos(4403);
    lldpd.configure("lldp tx-interval 1");
    lldpd.configure("lldp custom-tlv oui 00,80,c2 subtype 11 oui-info 24,18,c0");
    lldpd.configure(
        "lldp custom-tlv oui 00,80,c2 subtype 9 oui-info 03,00,11,22,22,3c,28,00,00,00,00,00,00,02,02,00,00,00,00,00,00",
    );
    // Recommendation: priorities 0-1 in class 0, 2-3 in 1, 4-5 in 2, 6-7 in 3; 25 % each.
    lldpd.configure(
        "lldp custom-tlv oui 00,80,c2 subtype 10 oui-info 00,00,11,22,33,19,19,19,19,00,00,00,00,02,02,02,02,00,00,00,00",
    );
    lldpd.configure(&format!(
        "lldp custom-tlv oui 00,80,c2 subtype 23 oui-info {}",
        octets(&delay.0.to_be_bytes())
    ));

    let ours = Agent::start(&b, &scratch, "ours", OURS);
    let port = wait_for(Duration::from_secs(5), "pfc-lldp to adopt lldpd's PFC", || {
        ours.port("lldpb").filter(|p| p["dcbx"]["oper"]["pfc"]["source"] == "peer")
    });
    let peer = &port["dcbx"]["peer"];
    assert_eq!(peer["status"], "one", "{peer}");
    assert_eq!(peer["pfc"]["willing"], false);
    assert_eq!(peer["pfc"]["macsec-capable"], true);
    assert_eq!(peer["pfc"]["pfc-cap"], 4);
    assert_eq!(peer["pfc"]["enable"], serde_json::json!([3, 4]));
    assert_eq!(peer["pfc"]["tlv-length"], 7);
    assert_eq!(peer["local-delay"]["time-interval"], delay.0);
    assert_eq!(peer["ets-config"]["max-tcs"], 3);
    let oper = &port["dcbx"]["oper"];
    assert_eq!(oper["pfc"]["enable"], serde_json::json!([3, 4]));
    assert_eq!(oper["pfc"]["reason"], "peer-not-willing");
    assert_eq!(oper["pfc"]["macsec"], true, "both MACsec capable, PFC enabled");
    assert_eq!(oper["pfc"]["headroom-measurement"], true);
    assert_eq!(oper["pfc"]["headroom-link-delay"], true);
    assert_eq!(oper["pfc"]["peer-local-delay"]["text"], "4403.000 ns");
    assert_eq!(oper["ets"]["source"], "peer");
    assert_eq!(oper["ets"]["tables"]["priority-tc"], serde_json::json!([0, 0, 1, 1, 2, 2, 3, 3]));
    assert_eq!(
        oper["ets"]["tables"]["tc-bandwidth"],
        serde_json::json!([25, 25, 25, 25, 0, 0, 0, 0])
    );

    // The legacy 6-octet form: the new bits read as 0, so MACsec and both headroom methods stop.
    lldpd.configure("lldp custom-tlv replace oui 00,80,c2 subtype 11 oui-info 24,08");
    let port = wait_for(Duration::from_secs(5), "the 6-octet PFC TLV", || {
        ours.port("lldpb").filter(|p| p["dcbx"]["peer"]["pfc"]["tlv-length"] == 6)
    });
    let oper = &port["dcbx"]["oper"]["pfc"];
    assert_eq!(port["dcbx"]["peer"]["pfc"]["macsec-capable"], false);
    assert_eq!(oper["enable"], serde_json::json!([3]));
    assert_eq!(
        (oper["macsec"].clone(), oper["headroom-measurement"].clone()),
        (Value::Bool(false), Value::Bool(false))
    );
    assert_eq!(oper["headroom-link-delay"], false);

    // The other way: lldpd shows our chassis, port and TLVs, octet for octet.
    let shown: Value = wait_for(Duration::from_secs(5), "lldpd to list pfc-lldp", || {
        let out = lldpd.cli(&["-f", "json", "show", "neighbors", "details"]);
        let v: Value = serde_json::from_str(&out).ok()?;
        let n = v["lldp"]["interface"]["lldpa"].clone();
        (!n.is_null() && n["unknown-tlvs"] != Value::Null).then_some(n)
    });
    let chassis = shown["chassis"]["pfcd-test"].clone();
    assert_eq!(chassis["id"]["type"], "mac", "{shown}");
    assert_eq!(chassis["id"]["value"], OUR_MAC);
    assert_eq!(shown["port"]["id"]["type"], "ifname");
    assert_eq!(shown["port"]["id"]["value"], "lldpb");
    assert_eq!(shown["port"]["ttl"], "121");

    let pfc = PfcAdmin {
        willing: true,
        mbc: true,
        macsec_capable: true,
        pfc_cap: 4,
        pfc_enable: 0x02,
        rtm_hdrm: true,
        ptp_hdrm: true,
        ..PfcAdmin::default()
    };
    let ets = EtsConfig {
        willing: true,
        cbs: false,
        max_tcs: 4,
        tables: EtsTables {
            priority_tc: [0, 0, 0, 1, 1, 2, 3, 3],
            tc_bandwidth: [40, 30, 20, 10, 0, 0, 0, 0],
            tsa: [
                Tsa::ETS,
                Tsa::ETS,
                Tsa::ETS,
                Tsa::ETS,
                Tsa::STRICT,
                Tsa::STRICT,
                Tsa::STRICT,
                Tsa::STRICT,
            ],
        },
    };
    let local_delay = PfcLocalDelay { delay: TimeInterval::from_nanos(1500) };
    // Each TLV as we emit it, minus the TLV header, OUI and subtype: what lldpd shows as value.
    let value = |tlv: Vec<u8>| octets(&tlv[6..]);
    let expected = [
        (9, value(ets.to_vec().expect("ETS"))),
        (11, value(pfc.tlv().to_vec().expect("PFC"))),
        (23, value(local_delay.to_vec().expect("delay"))),
    ];
    let seen = unknown_tlvs(&shown);
    for (subtype, octets) in expected {
        assert!(
            seen.contains(&("00,80,C2".to_string(), subtype, octets.clone())),
            "lldpd shows subtype {subtype} as {octets}: {seen:?}"
        );
    }
    // The octets themselves, written out: PFC is Willing | MBC | MACsec cap | cap 4, priority 1,
    // RTM | PTP.
    assert!(seen.contains(&("00,80,C2".into(), 11, "E4,02,C0".into())), "{seen:?}");
    assert!(seen.contains(&("00,80,C2".into(), 23, "00,00,00,00,05,DC,00,00".into())), "{seen:?}");
}
