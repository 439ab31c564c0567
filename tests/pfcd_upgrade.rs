//! Upgrading keeps the configuration: `tests/upgrade/state-2026-11-29.tgz` is a state directory
//! the release before the IEEE modules were cut to what the draft defines wrote (its lab with
//! lab1 described, PFC on priorities 3 and 4, an allowance of 130 000 bits, buffer allocations
//! of 40 000 and 36 000 octets written in ieee802-dot1q-pfc-bridge, the 6-octet PFC TLV asked
//! for in ieee802-dot1q-lldp-pfc-tlv, and the TLV's own PFC Enable, equal to pfc-enable). pfcd
//! starts on it, says what it carried over, and serves every value, the moved ones in their new
//! modules (pfcd-pfc, pfcd-lldp), the second PFC Enable dropped; the next start has nothing
//! left to carry.
//!
//! `tests/upgrade/state-urn-pfcd-2026-11-29.tgz` is one the release before pfcd's own modules
//! left `urn:pfcd:` wrote (lab2 described, PFC on priority 3 with a buffer allocation of
//! 200 000 octets in pfcd-pfc, a PFC watchdog in pfcd-watchdog, the pipeline's mode `fifo` in
//! pfcd-pipeline, the 6-octet PFC TLV in pfcd-lldp; lab0 and lab3 with headroom/method
//! `calculated`): every value is kept, each in its module's namespace now, the methods under
//! their new names.

use std::path::Path;
use std::process::Command;

use netconf_client::{Client, Datastore};
use test_support::lab::LabPfcd;
use test_support::pfcd::{number, priority, value};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/upgrade/state-2026-11-29.tgz");
const URN_PFCD_FIXTURE: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/upgrade/state-urn-pfcd-2026-11-29.tgz");
const PFCD_PFC_NS: &str = pfc_yang_names::pfcd_pfc::NAMESPACE;
const PFCD_LLDP_NS: &str = pfc_yang_names::pfcd_lldp::NAMESPACE;
const PIPE_NS: &str = pfc_yang_names::pfcd_pipeline::NAMESPACE;
const WD_NS: &str = pfc_yang_names::pfcd_watchdog::NAMESPACE;
const CARRIED: &str = "carried over to their new modules";

fn unpack_from(fixture: &str, state: &Path) {
    std::fs::create_dir_all(state).expect("state directory");
    let status =
        Command::new("tar").args(["xzf", fixture, "-C"]).arg(state).status().expect("tar runs");
    assert!(status.success(), "the fixture unpacks");
}

fn unpack(state: &Path) {
    unpack_from(FIXTURE, state);
}

#[test]
fn a_state_directory_of_the_previous_release_starts_with_its_configuration() {
    let mut pfcd = LabPfcd::start_on_state("upgrade", unpack);
    let log = pfcd.log_text();
    assert!(
        log.contains(CARRIED)
            && log.contains("buffer-allocation")
            && log.contains("legacy-tlv")
            && log.contains("enable"),
        "pfcd says what it carried over: {log}"
    );
    let mut c = pfcd.client();
    assert_configuration_kept(&mut c);
    // In force, not only stored: lab1's priority 3 buffer is the allocation written.
    let state = c
        .get(Some(
            "<interfaces xmlns=\"urn:ietf:params:xml:ns:yang:ietf-interfaces\"><interface>\
             <name>lab1</name></interface></interfaces>",
        ))
        .expect("get")
        .data()
        .unwrap_or_default()
        .to_string();
    assert_eq!(value(&priority(&state, 3), "allocation").as_deref(), Some("40000"), "{state}");
    drop(c);

    // What was carried over is stored: started again (after a power loss), the state
    // directory has nothing left to carry, and the same configuration.
    let kept = std::env::temp_dir().join(format!("pfcd-upgrade-{}", std::process::id()));
    pfcd.kill_and_keep_state(&kept);
    let again = LabPfcd::start_on_state("upgrade-again", |state| {
        std::fs::rename(&kept, state).expect("the state directory moves back");
    });
    assert!(!again.log_text().contains(CARRIED), "nothing left to carry: {}", again.log_text());
    assert_configuration_kept(&mut again.client());
}

/// lab1's configuration as the fixture has it, the moved leaves in their new modules.
fn assert_configuration_kept(c: &mut Client) {
    let reply = c.get_config(Datastore::Running, None).expect("get-config");
    let all = reply.data().unwrap_or_default();
    let at = all.find("<interface><name>lab1</name>").unwrap_or_else(|| panic!("lab1 in {all}"));
    let running = &all[at..at + all[at..].find("</interface>").expect("lab1's end")];
    assert!(running.contains("<description>uplink to sw2</description>"), "{running}");
    assert!(running.contains("<pfc-enable>p3 p4</pfc-enable>"), "{running}");
    assert_eq!(number(running, "pfc-link-delay-allowance"), 130_000, "{running}");
    for (n, octets) in [(3, "40000"), (4, "36000")] {
        let p = priority(running, n);
        let moved =
            format!("<buffer-allocation xmlns=\"{PFCD_PFC_NS}\">{octets}</buffer-allocation>");
        assert!(p.contains(&moved), "priority {n}'s allocation, in pfcd-pfc: {p}");
    }
    let moved = format!("<legacy-tlv xmlns=\"{PFCD_LLDP_NS}\">true</legacy-tlv>");
    assert!(all.contains(&moved), "legacy-tlv, in pfcd-lldp: {all}");
    // The TLV's own PFC Enable, once kept equal to the Bridge Port's, is gone: pfc-enable says
    // what the TLV advertises (p3 p4, above).
    assert!(!all.contains("<enable>"), "the TLV's enable dropped: {all}");
}

#[test]
fn a_state_directory_with_pfcds_modules_under_urn_pfcd_starts_with_its_configuration() {
    let pfcd = LabPfcd::start_on_state("upgrade-urn", |state| unpack_from(URN_PFCD_FIXTURE, state));
    let log = pfcd.log_text();
    for old in ["pfcd-pfc", "pfcd-lldp", "pfcd-pipeline", "pfcd-watchdog"] {
        let said = format!("urn:pfcd:yang:{old}");
        assert!(log.contains(CARRIED) && log.contains(&said), "pfcd says it carried {said}: {log}");
    }
    let mut c = pfcd.client();
    let reply = c.get_config(Datastore::Running, None).expect("get-config");
    let all = reply.data().unwrap_or_default();
    assert!(!all.contains("urn:pfcd:"), "no node left in an old namespace: {all}");
    let at = all.find("<interface><name>lab2</name>").unwrap_or_else(|| panic!("lab2 in {all}"));
    let lab2 = &all[at..at + all[at..].find("</interface>").expect("lab2's end")];
    assert!(lab2.contains("<description>to the storage rack</description>"), "{lab2}");
    assert!(lab2.contains("<pfc-enable>p3</pfc-enable>"), "{lab2}");
    let moved = format!("<buffer-allocation xmlns=\"{PFCD_PFC_NS}\">200000</buffer-allocation>");
    assert!(priority(lab2, 3).contains(&moved), "priority 3's allocation in pfcd-pfc: {lab2}");
    let watchdog = format!("<pfc-watchdog xmlns=\"{WD_NS}\"><detection-time>100</detection-time>");
    assert!(lab2.contains(&watchdog), "the watchdog in pfcd-watchdog: {lab2}");
    assert!(value(lab2, "action").as_deref() == Some("alert"), "{lab2}");
    let pipeline = format!("<pipeline xmlns=\"{PIPE_NS}\"><mode>fifo</mode>");
    assert!(all.contains(&pipeline), "the pipeline's mode in pfcd-pipeline: {all}");
    let legacy = format!("<legacy-tlv xmlns=\"{PFCD_LLDP_NS}\">true</legacy-tlv>");
    assert!(all.contains(&legacy), "legacy-tlv in pfcd-lldp: {all}");
    // lab0 and lab3 were stored with headroom/method `calculated`: now `link-delay` (36.8 a)).
    for port in ["lab0", "lab3"] {
        let at = all.find(&format!("<interface><name>{port}</name>")).expect("the port");
        let method = value(&all[at..], "method").unwrap_or_default();
        assert!(method.ends_with(":link-delay"), "{port}'s method carried over: {method}");
    }
    assert!(log.contains("calculated"), "pfcd says it renamed the method: {log}");
    // In force, not only stored: lab2's priority 3 buffer is the allocation written, and the
    // pipeline runs in the mode kept.
    let state = c
        .get(Some(&format!(
            "<interfaces xmlns=\"urn:ietf:params:xml:ns:yang:ietf-interfaces\"><interface>\
             <name>lab2</name></interface></interfaces><pipeline xmlns=\"{PIPE_NS}\"><mode/>\
             </pipeline>"
        )))
        .expect("get")
        .data()
        .unwrap_or_default()
        .to_string();
    assert_eq!(value(&priority(&state, 3), "allocation").as_deref(), Some("200000"), "{state}");
    assert!(state.contains(&pipeline), "{state}");
}
