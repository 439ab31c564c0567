//! pfcsh as an operator meets it, through a pseudo-terminal against a live lab: Tab
//! completion of a port and of a configuration path, `?` help, history across runs,
//! configure → set → show | compare → commit seen in `show interfaces pfc` and `show dcbx`,
//! a refused commit that keeps the candidate, and `commit confirmed` rolled back.

mod common;

use std::time::Duration;

use common::{Home, Lab};
use netconf_client::Datastore;
use rexpect::session::{spawn_command, PtySession};

fn shell(home: &Home, lab: &Lab) -> PtySession {
    let mut p = spawn_command(home.pfcsh(lab.port, &lab.password_file), Some(20_000)).expect("pty");
    p.exp_string("pfcsh> ").expect("the first prompt");
    p
}

/// Types `text` (rexpect buffers what `send` writes until a flush).
fn keys(p: &mut PtySession, text: &str) {
    p.send(text).expect("send");
    p.flush().expect("flush");
}

/// Waits for a line with no output to be accepted (rustyline turns bracketed paste off) and for
/// the next prompt: a prompt alone could be a redraw while the line is still being read (after
/// Tab, or as a long line wraps), and the test's next expectation would then race the line.
fn accepted_then_prompt(p: &mut PtySession) {
    p.exp_string("\x1b[?2004l").expect("accepted");
    p.exp_string("pfcsh# ").expect("prompt");
}

/// lab0's PFC Enable in running, as the test's own client reads it.
fn running_pfc_enable(lab: &Lab) -> String {
    let mut c = lab.client();
    let reply = c
        .get_config(
            Datastore::Running,
            Some(&pfcsh::show::filters::pfc(Some("lab0"), "<pfc-enable/>")),
        )
        .expect("get-config");
    let data = reply.data().unwrap_or_default().to_string();
    let _ = c.close_session();
    data.split("<pfc-enable>")
        .nth(1)
        .and_then(|r| r.split("</pfc-enable>").next())
        .unwrap_or_default()
        .to_string()
}

#[test]
fn completion_help_configure_commit_and_refusal() {
    let lab = Lab::start("");
    let home = Home::new();
    let mut p = shell(&home, &lab);

    // Tab completes a port name: `la` becomes `lab`, then the user picks lab3.
    keys(&mut p, "show dcbx la\t");
    keys(&mut p, "3\r");
    p.exp_string("neither-willing").expect("lab3's DCBX detail (its peer is not willing)");
    p.exp_string("pfcsh> ").expect("prompt");

    // `?` lists what may follow with descriptions, and gives the line back to finish.
    keys(&mut p, "show ?");
    p.exp_string("Possible completions:").expect("help");
    p.exp_string("DCBX: admin, peer and operational PFC enable").expect("dcbx described");
    keys(&mut p, "pipeline\r");
    p.exp_string("pause indications").expect("show pipeline ran from the kept line");
    p.exp_string("pfcsh> ").expect("prompt");

    // Configuration: Tab completes schema names (an interface's `bridge-p` is only
    // `bridge-port`, pfc's `pfc-en` only `pfc-enable`).
    p.send_line("configure").expect("send");
    p.exp_string("pfcsh# ").expect("configuration prompt");
    keys(&mut p, "set interfaces interface lab0 bridge-p\t");
    keys(&mut p, "pfc pfc-en\t");
    keys(&mut p, "p3 p4\r");
    accepted_then_prompt(&mut p);
    p.send_line("show | compare").expect("send");
    p.exp_string("- set interfaces interface lab0 bridge-port pfc pfc-enable p3").expect("old");
    p.exp_string("+ set interfaces interface lab0 bridge-port pfc pfc-enable \"p3 p4\"")
        .expect("new");
    p.send_line("commit").expect("send");
    p.exp_string("commit complete").expect("committed");
    assert_eq!(running_pfc_enable(&lab), "p3 p4");
    p.send_line("exit").expect("send");
    p.exp_string("pfcsh> ").expect("operational prompt");
    p.send_line("show interfaces pfc").expect("send");
    p.exp_regex(r"lab0\s+3,4\s").expect("lab0 has PFC on 3 and 4");
    p.exp_string("pfcsh> ").expect("prompt");
    p.send_line("show dcbx lab0").expect("send");
    p.exp_regex(r"admin PFC enable\s+3,4").expect("DCBX advertises 3,4");
    p.exp_string("pfcsh> ").expect("prompt");

    // A commit the server refuses: the reason, with the path in set words; the edit stays.
    p.send_line("configure").expect("send");
    p.exp_string("pfcsh# ").expect("prompt");
    p.send_line(
        "set interfaces interface lab0 bridge-port pfc pfc-headroom-allowance 999999999999",
    )
    .expect("send");
    accepted_then_prompt(&mut p);
    p.send_line("commit").expect("send");
    p.exp_string(
        "commit refused: at `interfaces interface lab0 bridge-port pfc pfc-headroom-allowance`",
    )
    .expect("the server's reason");
    p.exp_string("receive buffer").expect("what is wrong");
    p.send_line("show | compare").expect("send");
    p.exp_string(
        "+ set interfaces interface lab0 bridge-port pfc pfc-headroom-allowance 999999999999",
    )
    .expect("the candidate kept the edit");
    assert_eq!(running_pfc_enable(&lab), "p3 p4", "running unchanged");
    p.exp_string("pfcsh# ").expect("prompt");
    p.send_line("discard").expect("send");
    p.exp_string("candidate reverted").expect("discarded");
    p.exp_string("pfcsh# ").expect("prompt");

    // commit confirmed 5s, not confirmed: running goes back by itself.
    p.send_line("set interfaces interface lab0 bridge-port pfc pfc-enable p3 p5").expect("send");
    accepted_then_prompt(&mut p);
    p.send_line("commit confirmed 5s").expect("send");
    p.exp_string("rolled back in 5 s").expect("confirmed commit");
    assert_eq!(running_pfc_enable(&lab), "p3 p5", "in running until the time-out");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while running_pfc_enable(&lab) != "p3 p4" {
        assert!(std::time::Instant::now() < deadline, "rolled back within 20 s");
        std::thread::sleep(Duration::from_millis(500));
    }
    p.exp_string("pfcsh# ").expect("prompt");
    p.send_line("exit").expect("send");
    p.exp_string("pfcsh> ").expect("prompt");
    p.send_line("exit").expect("send");
    p.exp_eof().expect("pfcsh ends");
}

#[test]
fn history_is_recalled_in_the_next_run() {
    let lab = Lab::start("[lab]\ntraffic = false\n");
    let home = Home::new();
    let mut p = shell(&home, &lab);
    p.send_line("show counters lab2").expect("send");
    p.exp_string("LLDP TX").expect("ran");
    p.exp_string("pfcsh> ").expect("prompt");
    p.send_line("exit").expect("send");
    p.exp_eof().expect("ends");
    assert!(home.history().is_file(), "history written");

    let mut p = shell(&home, &lab);
    // The last line was `exit`; the one before it is the command.
    keys(&mut p, "\x1b[A");
    p.exp_string("exit").expect("recalled");
    keys(&mut p, "\x1b[A");
    p.exp_string("show counters lab2").expect("recalled");
    keys(&mut p, "\r");
    p.exp_string("LLDP TX").expect("ran again");
    p.send_line("exit").expect("send");
    p.exp_eof().expect("ends");
}

/// First contact at a terminal: pfcsh shows the host key's fingerprint (the form pfcd logs)
/// and asks; "n" connects to nothing and pins nothing, "y" pins it and the shell starts.
#[test]
fn first_contact_shows_the_fingerprint_and_asks() {
    let lab = Lab::start("[lab]\ntraffic = false\n");
    let home = Home::new();
    let mut p =
        spawn_command(home.pfcsh_asking(lab.port, &lab.password_file), Some(20_000)).expect("pty");
    p.exp_string("its fingerprint is SHA256:").expect("the fingerprint is shown");
    let rest = p.exp_string("[y/N]").expect("asked");
    let shown = format!("SHA256:{}", rest.split_whitespace().next().expect("fingerprint"));
    assert!(lab.log().contains(&shown), "pfcd logged {shown}:\n{}", lab.log());
    p.send_line("n").expect("answer");
    p.exp_string("not accepted").expect("refused");
    p.exp_eof().expect("pfcsh ends");
    assert!(!home.known_hosts().exists(), "nothing pinned");

    let mut p =
        spawn_command(home.pfcsh_asking(lab.port, &lab.password_file), Some(20_000)).expect("pty");
    p.exp_string("[y/N]").expect("asked again");
    p.send_line("y").expect("answer");
    p.exp_string("pfcsh> ").expect("the shell starts");
    let pinned = std::fs::read_to_string(home.known_hosts()).expect("pinned");
    assert_eq!(pinned, format!("[127.0.0.1]:{} {shown}\n", lab.port));
}

/// pfcsh in configuration mode on a fresh lab (keep the lab and home as long as the shell).
fn configuring() -> (Lab, Home, PtySession) {
    let lab = Lab::start("");
    let home = Home::new();
    let mut p = shell(&home, &lab);
    p.send_line("configure").expect("send");
    p.exp_string("pfcsh# ").expect("configuration prompt");
    (lab, home, p)
}

/// Lines typed ahead, or pasted together into a terminal without bracketed paste, each run in
/// their turn: the second is not lost while the first is read and run.
#[test]
fn lines_typed_ahead_run_in_order() {
    let (_lab, _home, mut p) = configuring();
    keys(
        &mut p,
        "set interfaces interface lab0 bridge-port pfc pfc-enable p3 p5\rshow | compare\r",
    );
    p.exp_string("+ set interfaces interface lab0 bridge-port pfc pfc-enable \"p3 p5\"")
        .expect("the line typed ahead ran, after the first");
}

/// A paste of several lines into a terminal with bracketed paste (one edit holding them all)
/// runs each line, as typed one by one.
#[test]
fn a_pasted_block_of_lines_runs_each_line() {
    let (_lab, _home, mut p) = configuring();
    let block = "set interfaces interface lab0 bridge-port pfc pfc-enable p3 p5\rshow | compare\r";
    keys(&mut p, &format!("\x1b[200~{block}\x1b[201~\r"));
    p.exp_string("+ set interfaces interface lab0 bridge-port pfc pfc-enable \"p3 p5\"")
        .expect("both lines ran, the second after the first");
}
