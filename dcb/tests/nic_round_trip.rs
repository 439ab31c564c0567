//! On a DCB-capable NIC named by `DCB_NIC` (e.g. `DCB_NIC=eth2`): its IEEE objects are read, its
//! PFC is written back unchanged and read again, and iproute2's `dcb` still reads it. Without
//! `DCB_NIC` the test says loudly that it was skipped: no NIC here has DCB.

use pfc_dcb::{DcbSocket, IeeeObjects};
use std::process::Command;

#[test]
fn a_dcb_nic_answers_and_takes_its_own_pfc_back() {
    let Some(nic) = std::env::var_os("DCB_NIC").map(|n| n.to_string_lossy().into_owned()) else {
        eprintln!(
            "\n!!!!! SKIPPED: no DCB-capable NIC named (set DCB_NIC=ethX to run this) !!!!!\n"
        );
        return;
    };
    let mut dcb = DcbSocket::open().expect("open a DCB socket");
    let (objects, dcbx) = dcb.ieee_get(&nic).expect("the NIC answers an IEEE GET");
    let pfc = objects.pfc.unwrap_or_else(|| panic!("{nic} reports no PFC object: {objects:?}"));
    eprintln!("{nic}: PFC {pfc:?}, DCBX mode {dcbx:?}");
    dcb.ieee_set(&nic, &IeeeObjects { pfc: Some(pfc), ..Default::default() })
        .expect("the NIC takes its own PFC back");
    let again = dcb.ieee_get(&nic).expect("a second GET").0.pfc.expect("PFC");
    assert_eq!(
        (again.pfc_cap, again.pfc_en, again.mbc, again.delay),
        (pfc.pfc_cap, pfc.pfc_en, pfc.mbc, pfc.delay)
    );
    let shown =
        Command::new("/usr/sbin/dcb").args(["pfc", "show", "dev", &nic]).output().expect("dcb");
    assert!(shown.status.success(), "dcb pfc show: {}", String::from_utf8_lossy(&shown.stderr));
}
