//! A NIC port's PFCRequests and PFCIndications come from the NIC's `struct ieee_pfc`, read with
//! an IEEE GET: the kernel's answer, laid out by a C program from the kernel's own structs
//! (`dcb/tests/c/dcb_messages.c`, with the peer's PFC beside ours as `dcbnl_ieee_fill` puts it),
//! is decoded by `pfc_dcb` and turned into the port's counters per priority and in all; the
//! receive buffers, ETS and APP table in the same answer are served in pfcd-nic's read-back.

use std::path::Path;
use std::process::Command;

use pfc_dcb::{decode, IeeePfc, Incoming};
use pfcd::nic::apply::pfc_counters;
use pfcd::nic::state::NicState;
use pfcd::northbound::nic::port_entry;
use test_support::{external_tool, Scratch};

/// The kernel's answer to an IEEE GET, from the C program, or `None` (skipped loudly).
fn get_answer() -> Option<Vec<u8>> {
    let gcc = external_tool("/usr/bin/gcc", "gcc")?;
    external_tool("/usr/include/linux/dcbnl.h", "linux-libc-dev")?;
    let scratch = Scratch::new("nic-read-back");
    let program = scratch.path("dcb_messages");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("dcb/tests/c/dcb_messages.c");
    let built =
        Command::new(gcc).args(["-Wall", "-Werror", "-o"]).arg(&program).arg(&source).output();
    let built = built.expect("run gcc");
    assert!(built.status.success(), "gcc: {}", String::from_utf8_lossy(&built.stderr));
    let out = Command::new(&program).arg("eth9").output().expect("run dcb_messages");
    let text = String::from_utf8(out.stdout).expect("hex text");
    let hex = text.lines().find_map(|l| l.strip_prefix("ieee-get-answer ")).expect("the answer");
    Some(hex::decode(hex).expect("hex"))
}

/// Our PFC in the answer (not the peer's, which enables every priority).
fn our_pfc(answer: &[u8]) -> IeeePfc {
    let [Ok(Incoming::Dcb(m))] = &decode(answer)[..] else { panic!("not one DCB message") };
    m.ieee.as_ref().and_then(|i| i.pfc).expect("our ieee_pfc")
}

#[test]
fn the_nics_pfc_counters_are_the_ports_pfc_requests_and_indications_per_priority() {
    let Some(answer) = get_answer() else { return };
    let pfc = our_pfc(&answer);
    assert_eq!((pfc.pfc_en, pfc.delay), (0x28, 0xa1b2), "our PFC, not the peer's");
    let (sent, received) = pfc_counters(&pfc, &IeeePfc::default());
    for p in 0..8u64 {
        let n = p as usize;
        assert_eq!(sent.pfc_requests_per_priority[n], 0x0102_0304_0506_0700 + p, "requests {p}");
        assert_eq!(received.pfc_indications_per_priority[n], 0xf1f2_f3f4_f5f6_f700 + p, "{p}");
    }
    // In all: eight counters near 2^56 add up without wrapping; eight near 2^64 saturate.
    let requests: u64 = (0..8).map(|p| 0x0102_0304_0506_0700 + p).sum();
    assert_eq!(sent.pfc_requests, requests);
    assert_eq!(received.pfc_indications, u64::MAX);
}

#[test]
fn cleared_counters_count_from_what_the_nic_said_when_they_were_cleared() {
    let Some(answer) = get_answer() else { return };
    let now = our_pfc(&answer);
    let mut base = now;
    base.requests[3] -= 5;
    base.indications[3] -= 7;
    // A counter below its base: the driver started again, and counts from zero.
    base.requests[5] = u64::MAX;
    let (sent, received) = pfc_counters(&now, &base);
    assert_eq!(sent.pfc_requests_per_priority[3], 5);
    assert_eq!(received.pfc_indications_per_priority[3], 7);
    assert_eq!(sent.pfc_requests_per_priority[5], now.requests[5]);
    assert_eq!(sent.pfc_requests_per_priority[0], 0);
    assert_eq!(sent.pfc_requests, 5 + now.requests[5]);
    assert_eq!(received.pfc_indications, 7);
}

#[test]
fn the_nics_receive_buffers_ets_and_app_table_as_it_reports_them_are_served_beside_its_pfc() {
    let Some(answer) = get_answer() else { return };
    let [Ok(Incoming::Dcb(m))] = &decode(&answer)[..] else { panic!("not one DCB message") };
    let ieee = m.ieee.as_ref().expect("an IEEE nest");
    let state = NicState {
        read_back: ieee.pfc,
        read_back_buffer: ieee.buffer,
        read_back_ets: ieee.ets,
        read_back_apps: ieee.apps.clone(),
        ..NicState::default()
    };
    let xml = port_entry("eth9", &state).to_xml();
    let read_back = &xml[xml.find("<read-back>").expect("read-back")..];
    // The C program's answer. Its buffer: p3 in buffer 1, p5 in buffer 2, buffer n of
    // 0x12345 * (n + 1) octets, 0xabcde in all.
    for shown in [
        "<buffers><total-size>703710</total-size>",
        "<buffer><index>0</index><priorities>p0 p1 p2 p4 p6 p7</priorities><size>74565</size>",
        "<buffer><index>1</index><priorities>p3</priorities><size>149130</size></buffer>",
        "<buffer><index>2</index><priorities>p5</priorities><size>223695</size></buffer>",
        "<pfc-enable>p3 p5</pfc-enable>",
        // Its ETS: priority n in traffic class n, classes 0 to 3 ETS at 10 to 40%, the rest
        // strict; its APP table: RoCE and FCoE at priority 3.
        "<ets><priority><priority>0</priority><traffic-class>0</traffic-class></priority>",
        "<priority><priority>5</priority><traffic-class>5</traffic-class></priority>",
        "<traffic-class><traffic-class>3</traffic-class><bandwidth>40</bandwidth>\
         <tsa>enhanced-transmission-selection</tsa></traffic-class>",
        "<traffic-class><traffic-class>4</traffic-class><bandwidth>0</bandwidth>\
         <tsa>strict-priority</tsa></traffic-class>",
        "<app><selector>pri-udp-dccp</selector><protocol>4791</protocol><priority>3</priority></app>",
        "<app><selector>default</selector><protocol>35078</protocol><priority>3</priority></app>",
    ] {
        assert!(read_back.contains(shown), "{shown} in {read_back}");
    }
}
