//! tshark, an independent decoder, reads the frames pfcd emits with the values we put in them.

use dataplane::wire::{MacAddr, PauseFrame, PfcFrame};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use test_support::{external_tool, tshark_fields, tshark_number, write_pcap, Scratch};

const SA: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);

#[test]
fn tshark_decodes_pfc_and_pause_frames() {
    let Some(tshark) = external_tool("/usr/bin/tshark", "tshark") else { return };

    // The acceptance vector first, then a few hundred generated frames.
    let mut pfc = vec![PfcFrame::pause(SA, 0b0001_1000, 0xffff)];
    let mut runner = TestRunner::deterministic();
    let strategy = (any::<[u8; 6]>(), any::<u8>(), any::<[u16; 8]>());
    for _ in 0..300 {
        let (src, enable, time) = strategy.new_tree(&mut runner).expect("value").current();
        // tshark checks the source is an individual address; keep the I/G bit clear.
        let src = MacAddr([src[0] & 0xfe, src[1], src[2], src[3], src[4], src[5]]);
        pfc.push(PfcFrame { src, enable, time, ..PfcFrame::pause(SA, 0, 0) });
    }
    let pauses: Vec<PauseFrame> =
        [0u16, 1, 0x1234, 0xffff].iter().map(|t| PauseFrame::new(SA, *t)).collect();

    let scratch = Scratch::new("tshark-macc");
    let pcap = scratch.path("macc.pcap");
    let frames: Vec<Vec<u8>> =
        pfc.iter().map(|f| f.to_vec()).chain(pauses.iter().map(|f| f.to_vec())).collect();
    write_pcap(&pcap, &frames);

    let mut fields = vec!["eth.src", "macc.opcode", "macc.cbfc.enbv", "macc.pause_time"];
    let pause_time_fields: Vec<String> =
        (0..8).map(|n| format!("macc.cbfc.pause_time.c{n}")).collect();
    fields.extend(pause_time_fields.iter().map(String::as_str));
    let rows = tshark_fields(&tshark, &pcap, &fields);
    assert_eq!(rows.len(), frames.len(), "tshark saw every frame");

    for (frame, row) in pfc.iter().zip(&rows) {
        assert_eq!(row[0], frame.src.to_string().replace('-', ":"));
        assert_eq!(tshark_number(&row[1]), 0x0101, "opcode of {frame:?}");
        assert_eq!(tshark_number(&row[2]), u64::from(frame.enable), "enable vector of {frame:?}");
        assert_eq!(row[3], "", "no PAUSE time in a PFC frame");
        for n in 0..8 {
            assert_eq!(
                tshark_number(&row[4 + n]),
                u64::from(frame.time[n]),
                "time[{n}] of {frame:?}"
            );
        }
    }
    for (frame, row) in pauses.iter().zip(&rows[pfc.len()..]) {
        assert_eq!(tshark_number(&row[1]), 0x0001);
        assert_eq!(tshark_number(&row[3]), u64::from(frame.pause_time));
    }
}

mod lldp_frames {
    use dataplane::sim::SimRng;
    use dataplane::wire::MacAddr;
    use lldp::wire::{
        AppEntry, AppPriority, AppSelector, ChassisId, EtsConfig, EtsTables, LldpFrame, Lldpdu,
        PfcConfig, PfcFormat, PfcLocalDelay, PortId, Text, TimeInterval, Tlv, Tsa,
    };
    use serde_json::Value;
    use test_support::{external_tool, tshark_fields, tshark_number, write_pcap, Scratch};

    /// A random but valid DCBX LLDPDU and its frame.
    fn random_frame(rng: &mut SimRng) -> LldpFrame {
        let mut b = |n: u64| rng.below(n) as u8;
        let src = MacAddr([0x02, b(255), b(255), b(255), b(255), b(255)]);
        let mut pdu = Lldpdu::new(
            ChassisId::MacAddress(src),
            PortId::InterfaceName(Text(format!("eth{}", b(64)).into_bytes())),
            121,
        );
        let mut tables = EtsTables::default();
        for n in 0..8 {
            tables.priority_tc[n] = b(8);
            tables.tc_bandwidth[n] = b(101);
            tables.tsa[n] =
                [Tsa::STRICT, Tsa::CREDIT_BASED_SHAPER, Tsa::ETS, Tsa::VENDOR][usize::from(b(4))];
        }
        pdu.tlvs.push(Tlv::EtsConfig(EtsConfig {
            willing: b(2) == 1,
            cbs: b(2) == 1,
            max_tcs: b(8),
            tables,
        }));
        let legacy = b(2) == 1;
        let pfc = PfcConfig {
            willing: b(2) == 1,
            mbc: b(2) == 1,
            macsec_capable: !legacy && b(2) == 1,
            privacy_capable: !legacy && b(2) == 1,
            pfc_cap: b(9),
            pfc_enable: b(255),
            rtm_hdrm: !legacy && b(2) == 1,
            ptp_hdrm: !legacy && b(2) == 1,
            format: if legacy { PfcFormat::Legacy } else { PfcFormat::Qdt },
        };
        pdu.tlvs.push(Tlv::PfcConfig(pfc));
        let entries = (0..1 + b(3))
            .map(|_| AppEntry {
                priority: b(8),
                selector: AppSelector(1 + b(5)),
                protocol: u16::from(b(255)) << 8 | u16::from(b(255)),
            })
            .collect();
        pdu.tlvs.push(Tlv::AppPriority(AppPriority { entries }));
        let delay = (rng.next_u64() as i64) >> 20;
        pdu.tlvs.push(Tlv::PfcLocalDelay(PfcLocalDelay { delay: TimeInterval(delay) }));
        LldpFrame::new(src, pdu)
    }

    fn bool_field(text: &str) -> bool {
        match text {
            "1" | "True" => true,
            "0" | "False" => false,
            other => panic!("tshark printed '{other}' for a boolean"),
        }
    }

    /// The octets of an organizationally specific TLV, built by hand from the layout in SPEC
    /// §2.4 (not by our emitter).
    fn org_tlv(subtype: u8, info: &[u8]) -> Vec<u8> {
        let len = 4 + info.len();
        let mut v = vec![(127 << 1) | (len >> 8) as u8, len as u8, 0x00, 0x80, 0xc2, subtype];
        v.extend_from_slice(info);
        v
    }

    /// The TLV tshark shows under `title`: its octets in the frame, found by the offset and
    /// length tshark reports.
    fn tlv_octets_seen_by_tshark(layers: &Value, title: &str, frame: &[u8]) -> Vec<u8> {
        let tlv = &layers["lldp"][title];
        let offset = tlv["lldp.tlv.type_raw"][1]
            .as_u64()
            .unwrap_or_else(|| panic!("tshark shows {title}")) as usize;
        let len: usize = tlv["lldp.tlv.len"].as_str().expect("length").parse().expect("number");
        frame[offset..offset + 2 + len].to_vec()
    }

    #[test]
    fn tshark_decodes_our_lldpdus() {
        let Some(tshark) = external_tool("/usr/bin/tshark", "tshark") else { return };
        let mut rng = SimRng::new(20261122);
        let frames: Vec<LldpFrame> = (0..80).map(|_| random_frame(&mut rng)).collect();
        let bytes: Vec<Vec<u8>> = frames.iter().map(|f| f.to_vec().expect("emits")).collect();
        let scratch = Scratch::new("tshark-lldp");
        let pcap = scratch.path("lldp.pcap");
        write_pcap(&pcap, &bytes);

        let mut fields = vec![
            "lldp.dcbx.ieee.willing",
            "lldp.dcbx.ieee.ets.cbs",
            "lldp.dcbx.ieee.ets.maxtcs",
            "lldp.dcbx.ieee.pfc.mbc",
            "lldp.dcbx.ieee.pfc.numtcs",
            "lldp.dcbx.ieee.app.prio",
            "lldp.dcbx.iee.app.sf",
            "lldp.dcbx.feature.app.proto",
        ];
        let per_prio: Vec<String> = (0..8)
            .flat_map(|n| {
                [
                    format!("lldp.dcbx.feature.pfc.prio{n}"),
                    format!("lldp.dcbx.ieee.ets.tsa{n}"),
                    format!("lldp.dcbx.feature.pg.pgid_prio{n}"),
                    format!("lldp.dcbx.feature.pg.per{n}"),
                ]
            })
            .collect();
        fields.extend(per_prio.iter().map(String::as_str));
        let rows = tshark_fields(&tshark, &pcap, &fields);
        assert_eq!(rows.len(), frames.len());

        for (frame, row) in frames.iter().zip(&rows) {
            let pdu = &frame.lldpdu;
            let ets = pdu.ets_config().expect("ETS");
            let pfc = pdu.pfc_config().expect("PFC");
            let app = pdu.app_priority().expect("APP");
            // Willing appears twice: ETS first, then PFC.
            let willing: Vec<bool> = row[0].split('|').map(bool_field).collect();
            assert_eq!(willing, vec![ets.willing, pfc.willing], "willing bits");
            assert_eq!(bool_field(&row[1]), ets.cbs);
            assert_eq!(tshark_number(&row[2]), u64::from(ets.max_tcs));
            assert_eq!(bool_field(&row[3]), pfc.mbc, "MBC as the text defines it");
            assert_eq!(tshark_number(&row[4]), u64::from(pfc.pfc_cap));
            let prios: Vec<u64> = row[5].split('|').map(tshark_number).collect();
            let sels: Vec<u64> = row[6].split('|').map(tshark_number).collect();
            let protos: Vec<u64> = row[7].split('|').map(tshark_number).collect();
            let want = |f: fn(&AppEntry) -> u64| app.entries.iter().map(f).collect::<Vec<_>>();
            assert_eq!(prios, want(|e| u64::from(e.priority)));
            assert_eq!(sels, want(|e| u64::from(e.selector.0)));
            assert_eq!(protos, want(|e| u64::from(e.protocol)));
            for n in 0..8 {
                let at = 8 + 4 * n;
                assert_eq!(
                    bool_field(&row[at]),
                    pfc.pfc_enable & (1 << n) != 0,
                    "PFC enable prio {n}"
                );
                assert_eq!(tshark_number(&row[at + 1]), u64::from(ets.tables.tsa[n].0), "TSA {n}");
                assert_eq!(
                    tshark_number(&row[at + 2]),
                    u64::from(ets.tables.priority_tc[n]),
                    "TC of prio {n}"
                );
                assert_eq!(
                    tshark_number(&row[at + 3]),
                    u64::from(ets.tables.tc_bandwidth[n]),
                    "bandwidth {n}"
                );
            }
        }

        // The octets tshark does not interpret: the P802.1Qdt PFC TLV and the Local Delay TLV.
        let out = std::process::Command::new(&tshark)
            .arg("-n")
            .arg("-r")
            .arg(&pcap)
            .args(["-T", "json", "-x"])
            .output()
            .expect("run tshark");
        assert!(out.status.success());
        let packets: Value = serde_json::from_slice(&out.stdout).expect("tshark JSON");
        for ((frame, raw), packet) in
            frames.iter().zip(&bytes).zip(packets.as_array().expect("array"))
        {
            let layers = &packet["_source"]["layers"];
            let pfc = frame.lldpdu.pfc_config().expect("PFC");
            let a = u8::from(pfc.willing) << 7
                | u8::from(pfc.mbc) << 6
                | u8::from(pfc.macsec_capable) << 5
                | u8::from(pfc.privacy_capable) << 4
                | pfc.pfc_cap;
            let mut info = vec![a, pfc.pfc_enable];
            if pfc.format == PfcFormat::Qdt {
                info.push(u8::from(pfc.rtm_hdrm) << 7 | u8::from(pfc.ptp_hdrm) << 6);
            }
            let seen = tlv_octets_seen_by_tshark(
                layers,
                "IEEE - Priority Flow Control Configuration",
                raw,
            );
            assert_eq!(seen, org_tlv(0x0b, &info), "PFC TLV octets");
            let delay = frame.lldpdu.pfc_local_delay().expect("delay").delay.0;
            let seen = tlv_octets_seen_by_tshark(layers, "IEEE - Unknown subtype 0x17", raw);
            assert_eq!(seen, org_tlv(0x17, &delay.to_be_bytes()), "Local Delay TLV octets");
        }
    }
}
