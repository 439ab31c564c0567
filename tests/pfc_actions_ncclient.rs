//! The Bridge Port's PFC actions (`measure-headroom`, `clear-pfc-counters`, YANG 1.1 actions of
//! its `pfc` container) invoked by ncclient with `<action>`, and denied by NACM to a user without
//! exec rights on them: `tests/interop/pfc_actions.py` against the lab, with an `operator` user
//! added to the users file (SIGHUP re-reads it).

use std::process::Command;
use std::time::{Duration, Instant};

use test_support::lab::LabPfcd;

const DRIVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/interop/pfc_actions.py");

#[test]
fn ncclient_runs_both_actions_and_nacm_denies_them_to_a_user_without_exec() {
    let pfcd = LabPfcd::start("pfc-actions");
    let operator_password = "operator-password-1";
    let hash = mgmt::access::users::hash_password(operator_password).expect("hash");
    let users = pfcd.state_dir().join("users");
    let mut text = std::fs::read_to_string(&users).expect("the users file");
    text.push_str(&format!("operator password {hash}\n"));
    std::fs::write(&users, text).expect("users file written");
    let status =
        Command::new("kill").args(["-HUP", &pfcd.pid().to_string()]).status().expect("kill runs");
    assert!(status.success());
    let asked = Instant::now();
    while !pfcd.log_text().contains("users file re-read") {
        assert!(asked.elapsed() < Duration::from_secs(30), "SIGHUP taken: {}", pfcd.log_text());
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = Command::new("/usr/bin/python3")
        .args([DRIVER, &pfcd.port.to_string(), pfcd.password(), operator_password])
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}");
    assert!(
        out.status.success() && stdout.trim_end().ends_with("ok"),
        "ncclient: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
