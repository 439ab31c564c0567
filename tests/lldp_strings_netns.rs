//! Text from the wire reaches every client safely: h2 (a network namespace on pfcd's port p2)
//! sends an LLDPDU whose system name and description carry ESC, BEL, NUL, DEL, a C1 control
//! and a right-to-left override. pfcd's `<get>` (full, subtree-filtered to `/lldp`, and
//! XPath-filtered) parses in lxml and libyang (yanglint), the name shows the characters as
//! visible escapes (`\x1b`, `\u202e`), and pfcsh prints no control character.
//!
//! Needs root (namespaces); skipped loudly without it, failed in CI.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use dataplane::wire::MacAddr;
use lldp::wire::{ChassisId, LldpFrame, Lldpdu, PortId, SystemDescription, SystemName, Tlv};
use netconf_client::Client;
use test_support::external_tool;
use test_support::hosts::*;
use test_support::netns::can_run;
use test_support::pfcd::*;
use test_support::Scratch;

const LLDP_NS: &str = "urn:ieee:std:802.1AB:yang:ieee802-dot1ab-lldp";
const NAME: &str = "evil\u{1b}[2J\u{1b}]0;owned\u{7}\u{0}\u{7f}\u{9b}\u{202e}txt";
const SHOWN: &str = "evil\\x1b[2J\\x1b]0;owned\\x07\\x00\\x7f\\x9b\\u202etxt";
const DESCRIPTION: &str = "line one\r\nline\u{1b}[31m two\u{0}";

fn peer_lldpdu(src: MacAddr) -> Vec<u8> {
    let mut pdu =
        Lldpdu::new(ChassisId::MacAddress(src), PortId::InterfaceName("eth0".into()), 120);
    pdu.tlvs.push(Tlv::SystemName(SystemName::from(NAME)));
    pdu.tlvs.push(Tlv::SystemDescription(SystemDescription::from(DESCRIPTION)));
    LldpFrame::new(src, pdu).to_vec().expect("emits")
}

/// Whether lxml parses `xml`; its error otherwise.
fn lxml(python: &Path, xml: &str) -> Result<(), String> {
    let mut child = Command::new(python)
        .args([
            "-c",
            "import sys\nfrom lxml import etree\netree.fromstring(sys.stdin.buffer.read())",
        ])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child.stdin.take().expect("stdin").write_all(xml.as_bytes()).expect("write");
    let out = child.wait_with_output().expect("python3 ends");
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Whether yanglint (libyang) parses `data` (the content of a `<get>` reply's `<data>` with
/// the LLDP modules) as the reply to a `<get>`; its error otherwise.
fn yanglint(yanglint: &Path, scratch: &Scratch, data: &str) -> Result<(), String> {
    let yang = Path::new(env!("CARGO_MANIFEST_DIR")).join("yang");
    let file = scratch.path("lldp.xml");
    std::fs::write(&file, data).expect("write");
    // ieee802-dot1q-pfc implemented too, so that its features (which the TLV bits depend on)
    // are on, as pfcd announces them.
    let modules = ["ieee802-dot1q-pfc.yang", "ieee802-dot1q-lldp-pfc-tlv.yang", "pfcd-lldp.yang"]
        .map(|m| yang.join(m));
    let out = Command::new(yanglint)
        .args(["-f", "xml", "-t", "get", "-p"])
        .arg(&yang)
        .arg("-p")
        .arg(yang.join("standard"))
        .args(modules)
        .arg(&file)
        .output()
        .expect("yanglint runs");
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

fn wait_neighbour(c: &mut Client) {
    let filter = format!("<lldp xmlns=\"{LLDP_NS}\"><port><name>p2</name></port></lldp>");
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let reply = c.get(Some(&filter)).expect("get");
        if reply.data().unwrap_or_default().contains("<system-name>") {
            return;
        }
        assert!(Instant::now() < end, "h2 a neighbour of p2 within 10 s: {}", reply.raw());
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The characters a terminal acts on: C0 controls but the line feed, DEL, C1 controls and the
/// bidirectional controls.
fn terminal_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| {
            (c < ' ' && c != '\n')
                || ('\u{7f}'..='\u{9f}').contains(&c)
                || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect()
}

#[test]
fn control_characters_from_a_peer_reach_netconf_clients_and_pfcsh_as_visible_escapes() {
    if !can_run("control_characters_from_a_peer_reach_netconf_clients_and_pfcsh_as_visible_escapes")
    {
        return;
    }
    let Some(python) = external_tool("/usr/bin/python3", "python3-lxml") else { return };
    let Some(yanglint_bin) = external_tool("/usr/bin/yanglint", "libyang2-tools") else { return };
    let scratch = Scratch::new("lldp-strings");
    let Hosts { mut h2, h1_ns: _h1_ns, sw, h2_ns: _h2_ns, .. } = hosts("lstr");
    let pfcd = start_pfcd(&sw, &scratch, &["p1", "p2"]);
    let mut c = pfcd.client(&sw);
    send(&mut h2, &peer_lldpdu(H2));
    wait_neighbour(&mut c);

    let full = c.get(None).expect("the full get");
    lxml(&python, full.raw()).unwrap_or_else(|e| panic!("lxml parses the full get: {e}"));

    let subtree = c.get(Some(&format!("<lldp xmlns=\"{LLDP_NS}\"/>"))).expect("get /lldp");
    lxml(&python, subtree.raw()).unwrap_or_else(|e| panic!("lxml parses /lldp: {e}"));
    let data = subtree.data().unwrap_or_default();
    assert_eq!(value(data, "system-name").as_deref(), Some(SHOWN), "{data}");
    let description = "line one\\r\\nline\\x1b[31m two\\x00";
    assert!(data.contains(&format!("<system-description>{description}<")), "{data}");
    yanglint(&yanglint_bin, &scratch, data).unwrap_or_else(|e| panic!("yanglint: {e}"));

    let xpath = c
        .rpc(&format!(
            "<get><filter type=\"xpath\" xmlns:lldp=\"{LLDP_NS}\" \
             select=\"/lldp:lldp/lldp:port/lldp:remote-systems-data\"/></get>"
        ))
        .expect("the XPath-filtered get");
    assert!(xpath.is_ok() || xpath.data().is_some(), "answered with data: {}", xpath.raw());
    lxml(&python, xpath.raw()).unwrap_or_else(|e| panic!("lxml parses the XPath get: {e}"));
    let selected = xpath.data().unwrap_or_default();
    assert_eq!(value(selected, "system-name").as_deref(), Some(SHOWN), "{}", xpath.raw());
    yanglint(&yanglint_bin, &scratch, selected).unwrap_or_else(|e| panic!("yanglint: {e}"));

    // pfcsh, in every format, prints the name escaped and no character a terminal acts on.
    let pfcsh = test_support::program("pfcsh");
    let home = scratch.path("home");
    let accepts_new = Command::new(&pfcsh)
        .arg("--help")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("--accept-new"));
    for format in [None, Some("--json"), Some("--xml")] {
        let mut cmd = sw.command(&pfcsh);
        cmd.env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("XDG_CACHE_HOME", home.join("cache"))
            .env("XDG_DATA_HOME", home.join("data"))
            .args(["--host", "127.0.0.1", "--port", &pfcd.port().to_string(), "--user", "admin"])
            .arg("--password-file")
            .arg(scratch.path("state/admin.password"))
            .args(["-c", "show lldp neighbors p2 detail"])
            .args(format);
        if accepts_new {
            cmd.arg("--accept-new");
        }
        let out = cmd.stdin(Stdio::null()).output().expect("pfcsh runs");
        let (stdout, stderr) =
            (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "pfcsh {format:?}: {stdout}{stderr}");
        assert!(stdout.contains("evil"), "pfcsh {format:?} shows the name: {stdout}");
        let controls = terminal_controls(&format!("{stdout}{stderr}"));
        assert!(controls.is_empty(), "pfcsh {format:?} printed {controls:?}: {stdout:?}");
    }
}
