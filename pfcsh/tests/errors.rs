//! Wrong credentials, an unreachable daemon and a changed host key: one clear line each on
//! stderr, a non-zero exit, and nothing written (no history, no known_hosts change).

mod common;

use common::{run, stderr, Home, Lab};

const IDLE: &str = "[lab]\ntraffic = false\n";

fn assert_one_line_failure(o: &std::process::Output, expect: &str) {
    assert!(!o.status.success(), "exit status is non-zero");
    let err = stderr(o);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err:?}");
    assert!(err.contains(expect), "{expect:?} in {err:?}");
}

#[test]
fn wrong_password_is_one_line_and_writes_nothing() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    let wrong = home.path().join("wrong.password");
    std::fs::write(&wrong, "not-the-password\n").expect("file");
    let o = run(&mut home.pfcsh(lab.port, &wrong), &["show interfaces pfc"]);
    assert_one_line_failure(&o, "login as admin");
    assert!(!home.known_hosts().exists(), "no host key pinned after a refused login");
    assert!(!home.history().exists());
}

#[test]
fn unreachable_daemon_is_one_line() {
    let home = Home::new();
    // A port nobody listens on: bind one, learn its number, close it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let pw = home.path().join("pw");
    std::fs::write(&pw, "x").expect("file");
    let o = run(&mut home.pfcsh(port, &pw), &["show interfaces pfc"]);
    assert_one_line_failure(&o, &format!("cannot connect to 127.0.0.1:{port}"));
    assert!(!home.known_hosts().exists());
}

#[test]
fn first_use_pins_the_host_key_and_a_changed_key_is_refused() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    let o = run(&mut home.pfcsh(lab.port, &lab.password_file), &["show interfaces pfc"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let pinned = std::fs::read_to_string(home.known_hosts()).expect("pinned on first use");
    assert!(pinned.contains(&format!("[127.0.0.1]:{}", lab.port)), "{pinned}");
    // Same key again: accepted, file unchanged.
    let o = run(&mut home.pfcsh(lab.port, &lab.password_file), &["show interfaces pfc"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(home.known_hosts()).expect("file"), pinned);
    // Another key pinned for this host (as if the daemon's key were regenerated).
    let changed = format!("[127.0.0.1]:{} sha256:{}\n", lab.port, "ab".repeat(32));
    std::fs::write(home.known_hosts(), &changed).expect("write");
    let o = run(&mut home.pfcsh(lab.port, &lab.password_file), &["show interfaces pfc"]);
    assert_one_line_failure(&o, "host key");
    assert!(stderr(&o).contains(&home.known_hosts().display().to_string()), "names the file");
    assert!(stdout(&o).is_empty(), "no data shown");
    assert_eq!(std::fs::read_to_string(home.known_hosts()).expect("file"), changed, "untouched");
}

use common::stdout;

/// The fingerprint in OpenSSH's form (`SHA256:` and 43 characters of base64) in `text`.
fn fingerprint_in(text: &str) -> String {
    let at = text.find("SHA256:").unwrap_or_else(|| panic!("a SHA256: fingerprint in {text:?}"));
    text[at..].chars().take(7 + 43).collect()
}

/// With nobody to ask (no terminal), a host seen for the first time is not trusted on its
/// word: pfcsh says the key's fingerprint (the form pfcd logs) and that --accept-new pins it,
/// sends no password and pins nothing; with --accept-new it pins that key.
#[test]
fn a_new_host_key_needs_accept_new_without_a_terminal() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    let o = run(&mut home.pfcsh_asking(lab.port, &lab.password_file), &["show interfaces pfc"]);
    assert_one_line_failure(&o, "--accept-new");
    let shown = fingerprint_in(&stderr(&o));
    assert!(lab.log().contains(&shown), "pfcd logged the same fingerprint {shown}:\n{}", lab.log());
    assert!(stdout(&o).is_empty(), "no data shown");
    assert!(!home.known_hosts().exists(), "nothing pinned");

    let o = run(&mut home.pfcsh(lab.port, &lab.password_file), &["show interfaces pfc"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains(&shown), "says what it pinned: {}", stderr(&o));
    let pinned = std::fs::read_to_string(home.known_hosts()).expect("pinned");
    assert_eq!(pinned, format!("[127.0.0.1]:{} {shown}\n", lab.port));
    let o = run(&mut home.pfcsh_asking(lab.port, &lab.password_file), &["show interfaces pfc"]);
    assert!(o.status.success(), "a pinned key needs no flag: {}", stderr(&o));
}

/// A pinned line that does not parse (an OpenSSH fingerprint mistyped, a key pasted whole)
/// is an error naming the file and line: never a pin dropped, which would let any key in.
#[test]
fn a_pin_that_does_not_parse_is_an_error_not_an_open_door() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    std::fs::create_dir_all(home.known_hosts().parent().expect("dir")).expect("dir");
    let broken = format!("[127.0.0.1]:{} SHA256:not-base64!\n", lab.port);
    std::fs::write(home.known_hosts(), &broken).expect("write");
    let o = run(&mut home.pfcsh(lab.port, &lab.password_file), &["show interfaces pfc"]);
    assert_one_line_failure(&o, &format!("{}:1:", home.known_hosts().display()));
    assert!(stdout(&o).is_empty(), "no data shown");
    assert_eq!(std::fs::read_to_string(home.known_hosts()).expect("file"), broken, "untouched");
}

/// Another key pinned in OpenSSH's form (as pasted from `ssh-keygen -lf` or pfcd's log) is
/// held against the server like any pin.
#[test]
fn a_pin_in_openssh_form_is_checked() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    std::fs::create_dir_all(home.known_hosts().parent().expect("dir")).expect("dir");
    // 32 octets of 0xab in unpadded base64.
    let other =
        format!("[127.0.0.1]:{} SHA256:q6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6s\n", lab.port);
    std::fs::write(home.known_hosts(), &other).expect("write");
    let o = run(&mut home.pfcsh(lab.port, &lab.password_file), &["show interfaces pfc"]);
    assert_one_line_failure(&o, "has changed");
    assert!(stdout(&o).is_empty(), "no data shown");
}
