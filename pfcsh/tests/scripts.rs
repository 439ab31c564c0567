//! pfcsh scripted (`-c`) against a live lab: configuration-mode commands as Junos writes
//! them, quotes that keep `;` inside a value, a script that stops at its first error, `--json`
//! as JSON Lines in both modes, and messages that say what to type instead.

mod common;

use common::{run, stderr, stdout, Home, Lab};
use netconf_client::Datastore;

const IDLE: &str = "[lab]\ntraffic = false\n";

/// A leaf of lab0 in running, as the test's own client reads it (`inner` selects it inside
/// the interface entry).
fn running_lab0(lab: &Lab, inner: &str, leaf: &str) -> String {
    let mut c = lab.client();
    let filter = format!(
        "<interfaces xmlns=\"{}\"><interface><name>lab0</name>{inner}</interface></interfaces>",
        pfcsh::show::filters::IF_NS
    );
    let reply = c.get_config(Datastore::Running, Some(&filter)).expect("get-config");
    let data = reply.data().unwrap_or_default().to_string();
    let _ = c.close_session();
    let open = format!("<{leaf}>");
    data.split(&open)
        .nth(1)
        .and_then(|r| r.split(&format!("</{leaf}>")).next())
        .unwrap_or_default()
        .to_string()
}

fn description(lab: &Lab) -> String {
    running_lab0(lab, "<description/>", "description")
}

#[test]
fn a_semicolon_inside_quotes_stays_in_the_value() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    let o = run(
        &mut home.pfcsh(lab.port, &lab.password_file),
        &["configure; set interfaces interface lab0 description \"uplink; to sw2\"; commit"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(description(&lab), "uplink; to sw2");
}

#[test]
fn a_script_stops_at_its_first_error_and_says_which_command() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    let o = run(
        &mut home.pfcsh(lab.port, &lab.password_file),
        &[
            "configure",
            "set interfaces interface lab0 description first",
            "set interfaces interface lab0 bridge-port pfc pfc-enable p9",
            "commit",
        ],
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("command 3"), "names the failed command: {}", stderr(&o));
    assert!(stderr(&o).contains("not run"), "says the rest was not run: {}", stderr(&o));
    assert_eq!(description(&lab), "", "nothing committed after the error");
}

#[test]
fn commit_words_of_configuration_mode_are_known_there() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    // commit and-quit: committed, back in operational mode (where `set` is refused).
    let o = run(
        &mut home.pfcsh(lab.port, &lab.password_file),
        &["configure", "set interfaces interface lab0 description aq", "commit and-quit"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(description(&lab), "aq");
    let o = run(
        &mut home.pfcsh(lab.port, &lab.password_file),
        &["configure", "commit and-quit", "set interfaces interface lab0 description x"],
    );
    assert!(stderr(&o).contains("type `configure` first"), "left: {}", stderr(&o));

    // commit confirmed without a number: Junos's 10 minutes.
    let o = run(
        &mut home.pfcsh(lab.port, &lab.password_file),
        &["configure", "set interfaces interface lab0 description cc", "commit confirmed"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("10 min"), "{}", stdout(&o));

    // rollback 1: pfcd keeps no earlier configurations; said as such.
    let o = run(&mut home.pfcsh(lab.port, &lab.password_file), &["configure", "rollback 1"]);
    assert!(!o.status.success());
    assert!(!stderr(&o).contains("type `configure` first"), "{}", stderr(&o));
    assert!(stderr(&o).contains("rollback"), "{}", stderr(&o));
}

#[test]
fn commit_confirmed_counts_minutes_unless_told_seconds() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    let o = run(
        &mut home.pfcsh(lab.port, &lab.password_file),
        &[
            "configure",
            "set interfaces interface lab0 description five",
            "commit confirmed 5",
            "set interfaces interface lab0 description thirty",
            "commit confirmed 30s",
            "commit",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("rolled back in 5 min"), "{out}");
    assert!(out.contains("rolled back in 30 s"), "{out}");
}

#[test]
fn json_is_one_value_a_line_for_every_command_in_both_modes() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    let mut cmd = home.pfcsh(lab.port, &lab.password_file);
    cmd.arg("--json");
    let commands = [
        "show interfaces pfc",
        "show counters lab1",
        "configure",
        "configure",
        "set interfaces interface lab0 description j",
        "show | compare",
        "show interfaces pfc lab0",
        "commit check",
        "commit",
        "exit",
        "show configuration interfaces interface lab0",
    ];
    let o = run(&mut cmd, &commands);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), commands.len(), "one line per command:\n{out}");
    for l in &lines {
        let v: serde_json::Value =
            serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: not JSON: {l}"));
        assert!(v.is_object(), "{l}");
    }
    assert!(lines[6].contains("ietf-interfaces:interfaces"), "data in config mode: {}", lines[6]);
    // And as a script in Python reads it: json.loads on each line.
    let mut python = std::process::Command::new("python3")
        .args(["-c", "import json, sys\nfor line in sys.stdin: json.loads(line)"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    use std::io::Write as _;
    python.stdin.take().expect("stdin").write_all(out.as_bytes()).expect("write");
    assert!(python.wait().expect("python3 ends").success(), "json.loads refuses a line:\n{out}");
}

#[test]
fn an_unknown_port_in_a_set_path_is_said_plainly() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    let o = run(
        &mut home.pfcsh(lab.port, &lab.password_file),
        &["configure", "set interfaces interface lab9 bridge-port pfc pfc-enable p3"],
    );
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("pfcd has no port 'lab9'"), "{err}");
    assert!(!err.contains("when"), "no XPath: {err}");
}

#[test]
fn priorities_typed_as_numbers_get_a_hint() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    let o = run(
        &mut home.pfcsh(lab.port, &lab.password_file),
        &["configure", "set interfaces interface lab0 bridge-port pfc pfc-enable 3 4"],
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("p3 p4"), "the form to type: {}", stderr(&o));
    assert!(stderr(&o).contains("p0"), "the values a priority set takes: {}", stderr(&o));
}

/// Commands on stdin run as they arrive: a producer that waits between two commands gets the
/// first one's output before it sends the second (a pipe from a program that reacts to it).
#[test]
fn stdin_commands_run_as_they_arrive() {
    use std::io::{BufRead, BufReader, Write};
    let lab = Lab::start("[lab]\ntraffic = false\n");
    let home = Home::new();
    let mut child = home
        .pfcsh(lab.port, &lab.password_file)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("pfcsh runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    writeln!(stdin, "show lldp neighbors lab0").expect("the first command");
    // Its output comes while stdin is still open (read on a thread: a pfcsh that waited for the
    // end of stdin would never answer).
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut first = String::new();
        out.read_line(&mut first).expect("a line of output");
        let _ = tx.send(first);
        out
    });
    let first = rx
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("the first command's output before the second command was sent");
    assert!(first.contains("PORT") && first.contains("TTL"), "{first}");
    let mut out = reader.join().expect("reader");
    writeln!(stdin, "show dcbx lab3").expect("the second command");
    drop(stdin);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).expect("the rest");
    assert!(rest.contains("lab3"), "{rest}");
    assert!(child.wait().expect("pfcsh ends").success());
}
