//! A leaf pfcsh has never heard of, in a module the server loads (mgmt-serve over a test
//! module directory): `?` describes it, Tab completes it, `set` writes it and `commit` puts it
//! in running, with no change to pfcsh.

mod common;

use std::io::{BufRead as _, BufReader};
use std::process::{Command, Stdio};

use common::{sibling_bin, Home};
use netconf_client::{Auth, Client, ConnectOptions, Datastore};
use rexpect::session::spawn_command;

const MODULE: &str = r#"module pfcsh-extra {
  yang-version 1.1;
  namespace "urn:pfcsh:test:extra";
  prefix x;
  revision 2026-11-26;
  container gadget {
    description "A test container.";
    leaf colour {
      type string;
      description "The gadget's colour, a leaf pfcsh knows nothing of.";
    }
  }
}
"#;

#[test]
fn a_new_leaf_is_completable_and_settable() {
    let dir = common::scratch();
    let yang = dir.path().join("yang");
    std::fs::create_dir_all(&yang).expect("dir");
    std::fs::write(yang.join("pfcsh-extra@2026-11-26.yang"), MODULE).expect("module");
    let state = dir.path().join("state");
    std::fs::create_dir_all(&state).expect("dir");
    let hash = mgmt::users::hash_password("extra-secret").expect("hash");
    std::fs::write(state.join("users"), format!("admin password {hash}\n")).expect("users");
    let password_file = dir.path().join("pw");
    std::fs::write(&password_file, "extra-secret\n").expect("pw");
    let mut server = Command::new(sibling_bin("mgmt-serve"))
        .arg(&state)
        .arg("0")
        .arg("--yang")
        .arg(&yang)
        .args(["--admin", "admin"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("mgmt-serve");
    let mut port = None;
    for line in BufReader::new(server.stdout.take().expect("stdout")).lines() {
        let line = line.expect("line");
        if let Some(addr) = line.strip_prefix("listening on ") {
            port = Some(addr.trim().parse::<std::net::SocketAddr>().expect("addr").port());
            break;
        }
    }
    let port = port.expect("mgmt-serve listens");

    let home = Home::new();
    let mut p = spawn_command(home.pfcsh(port, &password_file), Some(20_000)).expect("pty");
    p.exp_string("pfcsh> ").expect("prompt");
    p.send_line("configure").expect("send");
    p.exp_string("pfcsh# ").expect("prompt");
    p.send("set gadget ?").expect("send");
    p.flush().expect("flush");
    p.exp_string("colour").expect("listed");
    p.exp_string("The gadget's colour").expect("described");
    p.send("col\t").expect("send");
    p.flush().expect("flush");
    p.send("blue\r").expect("send");
    p.flush().expect("flush");
    // The line was accepted (rustyline turns bracketed paste off), then the next prompt: a
    // prompt alone could be the redraw after Tab.
    p.exp_string("\x1b[?2004l").expect("accepted");
    p.exp_string("pfcsh# ").expect("prompt");
    p.send_line("commit").expect("send");
    p.exp_string("commit complete").expect("committed");
    p.send_line("exit").expect("send");
    p.exp_string("pfcsh> ").expect("prompt");
    p.send_line("exit").expect("send");
    p.exp_eof().expect("ends");

    let opts =
        ConnectOptions::new("127.0.0.1", port, "admin", Auth::Password("extra-secret".into()));
    let mut c = Client::connect(&opts).expect("connects");
    let running = c
        .get_config(Datastore::Running, Some("<gadget xmlns=\"urn:pfcsh:test:extra\"/>"))
        .expect("get-config");
    assert!(
        running.data().unwrap_or_default().contains("<colour>blue</colour>"),
        "{}",
        running.raw()
    );
    let _ = server.kill();
    let _ = server.wait();
}
