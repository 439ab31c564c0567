//! `mgmt-serve`'s command line: help, and errors that say what to fix instead of a debug dump.

use std::process::{Command, Output};

fn serve(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mgmt-serve")).args(args).output().expect("run mgmt-serve")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn help_lists_every_option_and_how_to_write_the_users_file() {
    // Run where nothing else is, to see that asking for help writes nothing (an early build
    // took `--help` for its state directory and made a host key in it).
    let cwd = tempfile::tempdir().expect("temporary directory");
    let o = Command::new(env!("CARGO_BIN_EXE_mgmt-serve"))
        .arg("--help")
        .current_dir(cwd.path())
        .output()
        .expect("run mgmt-serve");
    assert!(o.status.success(), "--help exits 0");
    assert_eq!(std::fs::read_dir(cwd.path()).expect("list").count(), 0, "--help writes nothing");
    let text = String::from_utf8_lossy(&o.stdout);
    for option in [
        "--yang",
        "--module",
        "--admin",
        "--idle",
        "--login-grace",
        "--max-startups",
        "--per-source",
        "--max-connections",
        "--max-sessions",
        "--auth-threads",
        "--workers",
        "--blocking",
        "--max-message",
        "--max-elements",
        "--max-depth",
        "--request-memory",
        "--session-memory",
        "--max-filter-cost",
        "PORT",
    ] {
        assert!(text.contains(option), "help mentions {option}:\n{text}");
    }
    assert!(text.contains("hash_password"), "help says how to make a password hash:\n{text}");
}

#[test]
fn a_state_directory_without_users_file_is_refused_with_a_hint() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let o = serve(&[dir.path().to_str().expect("UTF-8 path"), "0"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("no users file") && err.contains("--help"), "{err}");
    assert!(!err.contains("Io {"), "not a debug dump: {err}");
    assert_eq!(
        std::fs::read_dir(dir.path()).expect("list the directory").count(),
        0,
        "nothing written: {err}"
    );
}

#[test]
fn bad_options_name_the_option_and_the_value() {
    let dir = tempfile::tempdir().expect("temporary directory");
    std::fs::write(dir.path().join("users"), "").expect("write users");
    let d = dir.path().to_str().expect("UTF-8 path");
    for (args, expected) in [
        (vec![d, "0", "--workers", "0"], "--workers takes a whole number of at least 1, not \"0\""),
        (vec![d, "0", "--blocking", "many"], "--blocking takes a whole number"),
        (vec![d, "0", "--idle"], "--idle needs a value"),
        (vec![d, "0", "--max-message", "64Q"], "--max-message takes a size such as"),
        (vec![d, "0", "--request-memory", "0"], "--request-memory takes a size"),
        (vec![d, "0", "--max-depth", "100000"], "--max-depth is at most 512"),
        (vec![d, "0", "--bogus"], "unknown option \"--bogus\""),
        (vec![d, "eighty"], "\"eighty\" is not a port number"),
        (vec!["--module", "x"], "STATE_DIR comes first"),
    ] {
        let o = serve(&args);
        assert!(!o.status.success(), "{args:?} refused");
        assert!(stderr(&o).contains(expected), "{args:?}: {}", stderr(&o));
    }
}
