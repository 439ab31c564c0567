//! Our encoder against the kernel's own structs: a small C program (`c/dcb_messages.c`),
//! compiled here against the installed `<linux/dcbnl.h>` and `<linux/rtnetlink.h>`, fills
//! `struct ieee_pfc`, `struct ieee_ets`, `struct dcbnl_buffer` and `struct dcb_app` and prints
//! each message; ours must be the same octets, and our decoder must read theirs back to the
//! values they were filled with.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use pfc_dcb::app::APP_SEL_ETHERTYPE;
use pfc_dcb::ets::{TSA_CB_SHAPER, TSA_ETS, TSA_STRICT};
use pfc_dcb::kernel::{
    DCB_CMD_IEEE_DEL, DCB_CMD_IEEE_GET, DCB_CMD_IEEE_SET, RTM_GETDCB, RTM_SETDCB,
};
use pfc_dcb::{
    decode, DcbApp, DcbBuffer, DcbxMode, IeeeEts, IeeeObjects, IeeePfc, Incoming, Request,
};
use test_support::{external_tool, Scratch};

/// An interface name whose NUL and padding do not fill four octets exactly.
const INTERFACE: &str = "enp3s0f1";

/// The C program's messages by name, or `None` (skipped loudly) without gcc or the headers.
fn c_messages() -> Option<BTreeMap<String, Vec<u8>>> {
    let gcc = external_tool("/usr/bin/gcc", "gcc")?;
    external_tool("/usr/include/linux/dcbnl.h", "linux-libc-dev")?;
    let scratch = Scratch::new("dcb-c");
    let program = scratch.path("dcb_messages");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/dcb_messages.c");
    let built = Command::new(gcc)
        .args(["-Wall", "-Wextra", "-Werror", "-o"])
        .arg(&program)
        .arg(&source)
        .output()
        .expect("run gcc");
    assert!(built.status.success(), "gcc: {}", String::from_utf8_lossy(&built.stderr));
    let out = Command::new(&program).arg(INTERFACE).output().expect("run dcb_messages");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("hex text");
    Some(
        text.lines()
            .map(|line| {
                let (name, hex) = line.split_once(' ').expect("name hex");
                (name.to_string(), hex::decode(hex).expect("hex"))
            })
            .collect(),
    )
}

fn pfc() -> IeeePfc {
    IeeePfc {
        pfc_cap: 8,
        pfc_en: 0x28,
        mbc: 1,
        delay: 0xa1b2,
        requests: std::array::from_fn(|i| 0x0102_0304_0506_0700 + i as u64),
        indications: std::array::from_fn(|i| 0xf1f2_f3f4_f5f6_f700 + i as u64),
    }
}

fn ets() -> IeeeEts {
    IeeeEts {
        willing: 1,
        ets_cap: 8,
        cbs: 0,
        tc_tx_bw: [10, 20, 30, 40, 0, 0, 0, 0],
        tc_rx_bw: [40, 30, 20, 10, 0, 0, 0, 0],
        tc_tsa: [
            TSA_ETS, TSA_ETS, TSA_ETS, TSA_ETS, TSA_STRICT, TSA_STRICT, TSA_STRICT, TSA_STRICT,
        ],
        prio_tc: [0, 1, 2, 3, 4, 5, 6, 7],
        tc_reco_bw: [25, 25, 25, 25, 0, 0, 0, 0],
        tc_reco_tsa: [TSA_CB_SHAPER; 8],
        reco_prio_tc: [7, 6, 5, 4, 3, 2, 1, 0],
    }
}

fn buffer() -> DcbBuffer {
    DcbBuffer {
        prio2buffer: [0, 0, 0, 1, 0, 2, 0, 0],
        buffer_size: std::array::from_fn(|i| 0x0001_2345 * (i as u32 + 1)),
        total_size: 0x000a_bcde,
    }
}

/// Each request of ours, by the C program's name for it.
fn ours() -> Vec<(&'static str, Request)> {
    let set = Request::ieee_set;
    vec![
        ("pfc-set", set(IeeeObjects { pfc: Some(pfc()), ..Default::default() })),
        ("ets-set", set(IeeeObjects { ets: Some(ets()), ..Default::default() })),
        ("buffer-set", set(IeeeObjects { buffer: Some(buffer()), ..Default::default() })),
        ("app-add", set(IeeeObjects { apps: vec![DcbApp::roce_v2(3)], ..Default::default() })),
        ("app-del", Request::AppDelete(vec![DcbApp::roce_v2(3)])),
        ("ieee-get", Request::IeeeGet),
        ("dcbx-get", Request::GetDcbx),
        ("dcbx-set", Request::SetDcbx(DcbxMode::HOST_IEEE)),
    ]
}

#[test]
fn our_messages_are_the_octets_the_kernels_structs_make() {
    let Some(theirs) = c_messages() else { return };
    for (name, request) in ours() {
        let mine = request.encode(INTERFACE, 0, 0).expect("encode");
        assert_eq!(hex::encode(&mine), hex::encode(&theirs[name]), "{name}");
    }
}

/// The one DCB message of `octets`.
fn dcb_message(octets: &[u8]) -> pfc_dcb::DcbMessage {
    match &decode(octets)[..] {
        [Ok(Incoming::Dcb(m))] => (**m).clone(),
        other => panic!("not one DCB message: {other:?}"),
    }
}

#[test]
fn our_decoder_reads_the_kernels_structs_back_to_their_values() {
    let Some(theirs) = c_messages() else { return };
    let ieee = |name: &str| {
        let m = dcb_message(&theirs[name]);
        assert_eq!((m.nl_type, m.interface.as_deref()), (RTM_SETDCB, Some(INTERFACE)), "{name}");
        m.ieee.unwrap_or_else(|| panic!("{name}: no DCB_ATTR_IEEE nest"))
    };
    assert_eq!(ieee("pfc-set"), IeeeObjects { pfc: Some(pfc()), ..Default::default() });
    assert_eq!(ieee("ets-set"), IeeeObjects { ets: Some(ets()), ..Default::default() });
    assert_eq!(ieee("buffer-set"), IeeeObjects { buffer: Some(buffer()), ..Default::default() });
    let roce = IeeeObjects { apps: vec![DcbApp::roce_v2(3)], ..Default::default() };
    assert_eq!(ieee("app-add"), roce);
    assert_eq!(ieee("app-del"), roce);
    assert_eq!(dcb_message(&theirs["app-add"]).cmd, DCB_CMD_IEEE_SET);
    assert_eq!(dcb_message(&theirs["app-del"]).cmd, DCB_CMD_IEEE_DEL);
    assert_eq!(dcb_message(&theirs["dcbx-set"]).dcbx, Some(DcbxMode::HOST_IEEE.0));
}

#[test]
fn our_decoder_reads_the_kernels_answers_ours_apart_from_the_peers() {
    let Some(theirs) = c_messages() else { return };
    let get = dcb_message(&theirs["ieee-get-answer"]);
    assert_eq!((get.nl_type, get.cmd), (RTM_GETDCB, DCB_CMD_IEEE_GET));
    assert_eq!(get.interface.as_deref(), Some(INTERFACE));
    let fcoe = DcbApp { selector: APP_SEL_ETHERTYPE, priority: 3, protocol: 0x8906 };
    // The rate limits and the peer's ETS and PFC (enabled on every priority) are not ours.
    let expected = IeeeObjects {
        ets: Some(ets()),
        pfc: Some(pfc()),
        buffer: Some(buffer()),
        apps: vec![DcbApp::roce_v2(3), fcoe],
    };
    assert_eq!(get.ieee, Some(expected));
    assert_eq!(get.dcbx, Some(DcbxMode::HOST_IEEE.0));
    // A SET the driver refused: its answer carries -EOPNOTSUPP cut to one octet.
    let set = dcb_message(&theirs["ieee-set-answer"]);
    assert_eq!((set.nl_type, set.cmd, set.ieee_status), (RTM_SETDCB, DCB_CMD_IEEE_SET, Some(161)));
    assert_eq!(set.ieee, None);
}
