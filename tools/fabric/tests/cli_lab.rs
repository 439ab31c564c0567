//! The `pfc-fabric` program against pfcd's lab on loopback: what it prints, as text and as
//! JSON Lines, the SVG it draws, a device that does not answer, and what it refuses.

use std::process::{Command, Stdio};

use test_support::lab::read_banner;
use test_support::{program, Scratch};

/// A lab pfcd on a free loopback port: (the process, its port, its password file).
struct Lab {
    child: std::process::Child,
    port: u16,
}

impl Drop for Lab {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn lab(scratch: &Scratch) -> Lab {
    let mut child = Command::new(program("pfcd"))
        .args(["--listen", "127.0.0.1:0", "--state-dir"])
        .arg(scratch.path("state"))
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(scratch.path("pfcd.log")).expect("log"))
        .spawn()
        .expect("pfcd starts");
    let banner = read_banner(&mut child);
    std::fs::write(scratch.path("password"), format!("{}\n", banner.password)).expect("password");
    Lab { child, port: banner.port }
}

fn fabric(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(program("pfc-fabric")).args(args).output().expect("pfc-fabric runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn one_refresh_as_json_and_svg_reports_the_lab_and_the_device_that_does_not_answer() {
    let scratch = Scratch::new("fv-cli");
    let lab = lab(&scratch);
    let device = format!("lab=127.0.0.1:{}", lab.port);
    let password = scratch.path("password");
    let svg = scratch.path("fabric.svg");
    let (code, stdout, stderr) = fabric(&[
        "--device",
        &device,
        "--device",
        "gone=127.0.0.1:1",
        "--user",
        "admin",
        "--password-file",
        password.to_str().expect("utf-8"),
        "--accept-any-host-key",
        "--json",
        "--svg",
        svg.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "one device answered: {stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one refresh, one JSON line: {stdout}");
    let v: serde_json::Value = serde_json::from_str(lines[0]).expect("a JSON document");
    assert_eq!(v["refresh"], 1);
    assert_eq!(v["devices"][0]["name"], "lab");
    assert_eq!(v["devices"][0]["error"], serde_json::Value::Null, "{v}");
    assert!(v["devices"][0]["chassis_id"].is_string(), "{v}");
    let gone = v["devices"][1]["error"].as_str().unwrap_or_default();
    assert!(gone.contains("cannot connect to 127.0.0.1:1"), "{v}");
    // The lab's four ports each hear their simulated peer station, none a listed device.
    assert_eq!(v["outside"].as_array().map(Vec::len), Some(4), "{v}");
    let drawn = std::fs::read_to_string(&svg).expect("the SVG is written");
    assert!(drawn.starts_with("<svg") && drawn.trim_end().ends_with("</svg>"), "{drawn}");
    assert!(drawn.contains(">lab</text>") && drawn.contains(">gone</text>"), "{drawn}");
}

#[test]
fn watch_refreshes_until_stopped_and_text_names_every_section() {
    let scratch = Scratch::new("fv-watch");
    let lab = lab(&scratch);
    let device = format!("lab=127.0.0.1:{}", lab.port);
    let password = scratch.path("password");
    let mut child = Command::new(program("pfc-fabric"))
        .args(["--device", &device, "--user", "admin", "--password-file"])
        .arg(&password)
        .args(["--accept-any-host-key", "--watch", "0.2"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("pfc-fabric runs");
    let stdout = child.stdout.take().expect("stdout");
    let mut text = String::new();
    use std::io::BufRead as _;
    for line in std::io::BufReader::new(stdout).lines() {
        let line = line.expect("a line");
        text.push_str(&line);
        text.push('\n');
        if line.starts_with("refresh 3 ") {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(text.contains("refresh 1 at") && text.contains("refresh 3 at"), "{text}");
    for section in ["devices:", "links:", "paused or XOFF", "deadlocks:", "congestion trees"] {
        assert!(text.contains(section), "{section} in {text}");
    }
}

#[test]
fn bad_arguments_are_refused_saying_what_to_fix() {
    for (args, says) in [
        (&["--device", "lab"][..], "NAME=HOST:PORT"),
        (
            &["--device", "a=h:1", "--device", "a=h:2", "--password-file", "/dev/null"][..],
            "device name a given twice",
        ),
        (
            &["--device", "a=h:1", "--user", "u", "--password-file", "/nonexistent/pw"][..],
            "cannot read the password file",
        ),
        (&["--device", "a=h:1", "--password-file", "/dev/null", "--watch", "0"][..], "--watch 0"),
    ] {
        let (code, _, stderr) = fabric(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}
