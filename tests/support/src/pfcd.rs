//! pfcd on real interfaces in a test's namespace, and reading its PFC state over NETCONF.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use netconf_client::{Auth, Client, ConnectOptions, Datastore};

use super::netns::{in_netns, Netns};
use super::Scratch;

pub const IF_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-interfaces";
pub const DOT1Q_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-bridge";
pub const PFCB_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-pfc-bridge";
pub const PFC_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-pfc";
pub const PIPE_NS: &str = "urn:uuid:efc1e1ad-781a-5967-ad09-aaaae237bbf0";
pub const WD_NS: &str = "urn:uuid:fbfc2dec-3453-5731-97c0-ce5c9430369a";

/// pfcd running in the switch's namespace on p1 and p2; SIGKILLed with the namespace.
pub struct Pfcd {
    _child: Child,
    port: u16,
    password: String,
}

pub fn start_pfcd(sw: &Netns, scratch: &Scratch, names: &[&str]) -> Pfcd {
    start_pfcd_with(sw, scratch, names, "")
}

/// pfcd on `names` at [`super::hosts::STORM_SPEED`], for tests that hold a port paused with a
/// [`super::hosts::Storm`].
pub fn start_pfcd_for_storms(sw: &Netns, scratch: &Scratch, names: &[&str]) -> Pfcd {
    let speed = format!("speed = \"{}\"\n", super::hosts::STORM_SPEED_ARG);
    start_pfcd_with(sw, scratch, names, &speed)
}

/// The same with `more` appended to the `[interfaces]` settings (TOML lines).
pub fn start_pfcd_with(sw: &Netns, scratch: &Scratch, names: &[&str], more: &str) -> Pfcd {
    let settings = scratch.path("pfcd.toml");
    let names: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    let text =
        format!("ports = \"interfaces\"\n[interfaces]\nnames = [{}]\n{more}", names.join(", "));
    std::fs::write(&settings, text).expect("settings");
    let log = std::fs::File::create(scratch.path("pfcd.log")).expect("log");
    let mut child = sw
        .command(super::program("pfcd"))
        .arg("--config")
        .arg(&settings)
        .args(["--listen", "127.0.0.1:0", "--state-dir"])
        .arg(scratch.path("state"))
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .expect("pfcd starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut port = None;
    for line in BufReader::new(stdout).lines() {
        let line = line.expect("a line");
        if let Some(addr) = line.strip_prefix("pfcd ready on ") {
            let addr: std::net::SocketAddr = addr.trim().parse().expect("an address");
            port = Some(addr.port());
            break;
        }
    }
    let port = port.unwrap_or_else(|| {
        panic!(
            "pfcd never said ready: {}",
            std::fs::read_to_string(scratch.path("pfcd.log")).unwrap_or_default()
        )
    });
    let password = std::fs::read_to_string(scratch.path("state/admin.password"))
        .expect("password")
        .trim()
        .to_string();
    Pfcd { _child: child, port, password }
}

impl Pfcd {
    /// The port pfcd listens on (on the namespace's loopback).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// pfcd's process id (`ip netns exec` execs pfcd, so it is the child's).
    pub fn pid(&self) -> u32 {
        self._child.id()
    }

    /// A NETCONF session from inside the switch's namespace (pfcd listens on its loopback).
    pub fn client(&self, sw: &Netns) -> Client {
        let opts = ConnectOptions::new(
            "127.0.0.1",
            self.port,
            "admin",
            Auth::Password(self.password.clone()),
        );
        in_netns(sw, || Client::connect(&opts)).expect("connects")
    }
}

pub fn pfc_of(c: &mut Client, port: &str) -> String {
    let filter = format!(
        "<interfaces xmlns=\"{IF_NS}\"><interface><name>{port}</name>\
         <bridge-port xmlns=\"{DOT1Q_NS}\"><pfc xmlns=\"{PFCB_NS}\"/></bridge-port>\
         </interface></interfaces>"
    );
    c.get(Some(&filter)).expect("get").data().unwrap_or_default().to_string()
}

/// Port `port`'s `frame-discards` (pfcd-pipeline, within its Bridge Port).
pub fn frame_discards_of(c: &mut Client, port: &str) -> String {
    let filter = format!(
        "<interfaces xmlns=\"{IF_NS}\"><interface><name>{port}</name>\
         <bridge-port xmlns=\"{DOT1Q_NS}\"><pipeline xmlns=\"{PIPE_NS}\"><frame-discards/>\
         </pipeline></bridge-port></interface></interfaces>"
    );
    c.get(Some(&filter)).expect("get").data().unwrap_or_default().to_string()
}

/// A real port's pause reaction (pfcd-pipeline's `pause-reaction` of its Bridge Port).
pub fn pause_reaction_of(c: &mut Client, port: &str) -> String {
    let filter = format!(
        "<interfaces xmlns=\"{IF_NS}\"><interface><name>{port}</name>\
         <bridge-port xmlns=\"{DOT1Q_NS}\"><pipeline xmlns=\"{PIPE_NS}\"><pause-reaction/>\
         </pipeline></bridge-port></interface></interfaces>"
    );
    let reply = c.get(Some(&filter)).expect("get");
    let data = reply.data().unwrap_or_default().to_string();
    assert!(data.contains(&format!("<name>{port}</name>")), "{port} in {data}");
    data
}

/// The YANG 1.1 `<action>` (RFC 7950 7.15.2) running `action` (`measure-headroom`,
/// `clear-pfc-counters`) of `port`'s `pfc` container.
pub fn pfc_action(port: &str, action: &str) -> String {
    format!(
        "<action xmlns=\"urn:ietf:params:xml:ns:yang:1\"><interfaces xmlns=\"{IF_NS}\"><interface>\
         <name>{port}</name><bridge-port xmlns=\"{DOT1Q_NS}\"><pfc xmlns=\"{PFCB_NS}\">\
         <{action}/></pfc></bridge-port></interface></interfaces></action>"
    )
}

/// The first `<leaf>value</leaf>` in `xml`, the start tag possibly with declarations.
pub fn value(xml: &str, leaf: &str) -> Option<String> {
    let open = [format!("<{leaf}>"), format!("<{leaf} ")]
        .iter()
        .filter_map(|tag| xml.find(tag.as_str()))
        .min()?;
    let start = xml[open..].find('>')? + open + 1;
    let end = xml[start..].find(&format!("</{leaf}>"))? + start;
    Some(xml[start..end].to_string())
}

pub fn number(xml: &str, leaf: &str) -> u64 {
    value(xml, leaf).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{leaf} in {xml}"))
}

/// Priority `n`'s entry of a port's pfc state.
pub fn priority(pfc: &str, n: u8) -> String {
    let tag = format!("<priority>{n}</priority>");
    let at = pfc.find(&tag).unwrap_or_else(|| panic!("priority {n} in {pfc}"));
    let end = pfc[at..].find("</priority>").map_or(pfc.len(), |e| at + e);
    let end = pfc[end + 1..].find("</priority>").map_or(pfc.len(), |e| end + 1 + e);
    pfc[at..end].to_string()
}

pub fn commit_pfc(c: &mut Client, ports: &[&str], inner: &str) {
    edit_pfc(c, ports, inner);
    c.commit().expect("commit");
}

/// `inner` into the `pfc` container of each of `ports`' Bridge Ports, in the candidate.
pub fn edit_pfc(c: &mut Client, ports: &[&str], inner: &str) {
    let mut config = format!("<interfaces xmlns=\"{IF_NS}\">");
    for port in ports {
        config.push_str(&format!(
            "<interface><name>{port}</name><bridge-port xmlns=\"{DOT1Q_NS}\">\
             <pfc xmlns=\"{PFCB_NS}\">{inner}</pfc></bridge-port></interface>"
        ));
    }
    config.push_str("</interfaces>");
    c.edit_config(Datastore::Candidate, &config, None).expect("edit-config");
}

/// `inner` into the `pfc-watchdog` container of each of `ports`' Bridge Ports, committed.
pub fn commit_watchdog(c: &mut Client, ports: &[&str], inner: &str) {
    let mut config = format!("<interfaces xmlns=\"{IF_NS}\">");
    for port in ports {
        config.push_str(&format!(
            "<interface><name>{port}</name><bridge-port xmlns=\"{DOT1Q_NS}\">\
             <pfc-watchdog xmlns=\"{WD_NS}\">{inner}</pfc-watchdog></bridge-port></interface>"
        ));
    }
    config.push_str("</interfaces>");
    c.edit_config(Datastore::Candidate, &config, None).expect("edit-config");
    c.commit().expect("commit");
}

/// Port `port`'s PFC watchdog state (pfcd-watchdog's `pfc-watchdog` container).
pub fn watchdog_of(c: &mut Client, port: &str) -> String {
    let filter = format!(
        "<interfaces xmlns=\"{IF_NS}\"><interface><name>{port}</name>\
         <bridge-port xmlns=\"{DOT1Q_NS}\"><pfc-watchdog xmlns=\"{WD_NS}\"/></bridge-port>\
         </interface></interfaces>"
    );
    c.get(Some(&filter)).expect("get").data().unwrap_or_default().to_string()
}

/// The `class` entry `name` (a priority, or `link-pause`) of a watchdog state.
pub fn watchdog_class(wd: &str, name: &str) -> String {
    let tag = format!("<name>{name}</name>");
    let at = wd.find(&tag).unwrap_or_else(|| panic!("class {name} in {wd}"));
    let end = wd[at..].find("</class>").map_or(wd.len(), |e| at + e);
    wd[at..end].to_string()
}

pub fn wait_state(c: &mut Client, port: &str, what: &str, ready: impl Fn(&str) -> bool) -> String {
    wait_state_within(c, port, Duration::from_secs(10), what, ready)
}

/// The same for at most `limit`.
pub fn wait_state_within(
    c: &mut Client,
    port: &str,
    limit: Duration,
    what: &str,
    ready: impl Fn(&str) -> bool,
) -> String {
    let end = Instant::now() + limit;
    loop {
        let pfc = pfc_of(c, port);
        if ready(&pfc) {
            return pfc;
        }
        assert!(Instant::now() < end, "{port}: {what} within {limit:?}: {pfc}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits until priority `n`'s traffic class in force on `port` (pfcd-pipeline's state) is
/// `class`.
pub fn wait_traffic_class(c: &mut Client, port: &str, n: u8, class: u8) {
    let filter = format!(
        "<interfaces xmlns=\"{IF_NS}\"><interface><name>{port}</name>\
         <bridge-port xmlns=\"{DOT1Q_NS}\"><pipeline xmlns=\"{PIPE_NS}\"><priority>\
         <priority>{n}</priority><traffic-class/></priority></pipeline></bridge-port>\
         </interface></interfaces>"
    );
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let reply = c.get(Some(&filter)).expect("get");
        let data = reply.data().unwrap_or_default();
        if value(data, "traffic-class").as_deref() == Some(&class.to_string()) {
            return;
        }
        assert!(Instant::now() < end, "{port}: priority {n} in traffic class {class}: {data}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Commits `inner` into the Bridge Port of each of `ports` (beside what is there).
pub fn commit_bridge_port(c: &mut Client, ports: &[&str], inner: &str) {
    let mut config = format!("<interfaces xmlns=\"{IF_NS}\">");
    for port in ports {
        config.push_str(&format!(
            "<interface><name>{port}</name><bridge-port xmlns=\"{DOT1Q_NS}\">{inner}\
             </bridge-port></interface>"
        ));
    }
    config.push_str("</interfaces>");
    c.edit_config(Datastore::Candidate, &config, None).expect("edit-config");
    c.commit().expect("commit");
}

/// A traffic class table (`traffic-class/traffic-class-table` of a Bridge Port) with these
/// leaves, for [`commit_bridge_port`].
pub fn traffic_class_table(leaves: &str) -> String {
    format!("<traffic-class><traffic-class-table>{leaves}</traffic-class-table></traffic-class>")
}

/// Waits (10 s at most) for pfcd's log to have `count` lines that contain every one of
/// `words`; returns those lines.
pub fn wait_log(scratch: &Scratch, words: &[&str], count: usize) -> Vec<String> {
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let log = std::fs::read_to_string(scratch.path("pfcd.log")).unwrap_or_default();
        let lines: Vec<String> = log
            .lines()
            .filter(|l| words.iter().all(|w| l.contains(w)))
            .map(str::to_string)
            .collect();
        if lines.len() >= count {
            return lines;
        }
        assert!(Instant::now() < end, "{count} lines with {words:?} in pfcd's log:\n{log}");
        std::thread::sleep(Duration::from_millis(50));
    }
}
