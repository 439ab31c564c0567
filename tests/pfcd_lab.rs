//! The pfcd binary with its embedded lab, as a user meets it: started on a free port with a
//! fresh state directory, reached with the credentials it printed, read and changed over
//! NETCONF (`netconf-client`: libssh2, not the server's SSH code).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use netconf_client::{Auth, Client, ConnectOptions, Datastore};

use test_support::lab::{read_banner, Banner};
use test_support::pfcd::{pfc_action, pfc_of, value, wait_state_within};

const IF_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-interfaces";
const DOT1Q_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-bridge";
const PFCB_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-pfc-bridge";
const PFC_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-pfc";
const PFCD_PFC_NS: &str = pfc_yang_names::pfcd_pfc::NAMESPACE;
const PFC_NTF_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-pfc-bridge-notifications";
const PORTS: [&str; 4] = ["lab0", "lab1", "lab2", "lab3"];

/// A running pfcd; stopped with SIGTERM when dropped.
struct Daemon {
    child: Child,
    port: u16,
    password: String,
    banner: String,
}

impl Daemon {
    fn start(state_dir: &Path) -> Daemon {
        Daemon::start_with(state_dir, &[])
    }

    fn start_with(state_dir: &Path, extra: &[&str]) -> Daemon {
        let log = std::fs::File::create(state_dir.with_extension("log")).expect("log file");
        let mut child = Command::new(env!("CARGO_BIN_EXE_pfcd"))
            .args(["--listen", "127.0.0.1:0", "--state-dir"])
            .arg(state_dir)
            .args(extra)
            .env("RUST_LOG", "info")
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("pfcd starts");
        let Banner { port, password, text: banner } = read_banner(&mut child);
        assert!(!banner.contains(&password), "the password is not printed");
        assert!(banner.contains(&format!("ssh -p {port} admin@127.0.0.1 -s netconf")), "{banner}");
        assert!(banner.contains("from ncclient import manager"), "{banner}");
        Daemon { child, port, password, banner }
    }

    fn client(&self) -> Client {
        let opts = ConnectOptions::new(
            "127.0.0.1",
            self.port,
            "admin",
            Auth::Password(self.password.clone()),
        );
        Client::connect(&opts).expect("connects with the printed credentials")
    }

    fn signal(&self, signal: nix::sys::signal::Signal) {
        let pid = nix::unistd::Pid::from_raw(i32::try_from(self.child.id()).expect("pid"));
        nix::sys::signal::kill(pid, signal).expect("signal");
    }

    fn stop(mut self) {
        self.terminate();
    }

    /// SIGKILL: no chance to save anything.
    fn kill(mut self) {
        self.child.kill().expect("SIGKILL");
        let _ = self.child.wait();
    }

    fn terminate(&mut self) {
        let pid = nix::unistd::Pid::from_raw(i32::try_from(self.child.id()).expect("pid"));
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
        let status = self.child.wait().expect("pfcd exits");
        assert!(status.success(), "pfcd exits 0 on SIGTERM: {status}");
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Removes a test's state directory and the daemon's log beside it.
fn remove_state(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_file(dir.with_extension("log"));
}

fn state_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pfcd-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A leaf of the pfc container itself (outside the priority and headroom entries).
fn top_leaf(pfc: &str, leaf: &str) -> Option<String> {
    let mut top = pfc.to_string();
    for inner in ["priority", "headroom"] {
        while let (Some(a), Some(b)) =
            (top.find(&format!("<{inner}>")), top.rfind(&format!("</{inner}>")))
        {
            top.replace_range(a..b + inner.len() + 3, "");
        }
    }
    value(&top, leaf)
}

fn number(xml: &str, leaf: &str) -> u64 {
    top_leaf(xml, leaf)
        .unwrap_or_else(|| panic!("{leaf} in {xml}"))
        .parse()
        .unwrap_or_else(|_| panic!("{leaf} is a number"))
}

/// A leaf of priority `n`'s entry.
fn priority_leaf(pfc: &str, n: u8, leaf: &str) -> u64 {
    let marker = format!("<priority><priority>{n}</priority>");
    let start = pfc.find(&marker).unwrap_or_else(|| panic!("priority {n} in {pfc}"));
    let rest = &pfc[start + marker.len()..];
    let end = rest.find("<priority><priority>").unwrap_or(rest.len());
    value(&rest[..end], leaf)
        .unwrap_or_else(|| panic!("{leaf} of priority {n}"))
        .parse()
        .expect("a number")
}

/// Every notification in the replay log up to now, through ncclient (Debian's
/// python3-ncclient): the subscription's stop time ends the replay with notificationComplete,
/// however busy the live stream is.
fn notifications(daemon: &Daemon) -> Vec<String> {
    let script = format!(
        "import datetime\n\
         from ncclient import manager\n\
         m = manager.connect(host='127.0.0.1', port={port}, username='admin', password='{password}', \
         hostkey_verify=False, timeout=60)\n\
         now = datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.%fZ')\n\
         m.create_subscription(start_time='1970-01-01T00:00:00Z', stop_time=now)\n\
         while True:\n\
         \x20   n = m.take_notification(block=True, timeout=10)\n\
         \x20   if n is None: break\n\
         \x20   print(n.notification_xml.replace('\\n', ' '))\n\
         \x20   if 'notificationComplete' in n.notification_xml: break\n",
        port = daemon.port,
        password = daemon.password,
    );
    let out =
        Command::new("/usr/bin/python3").args(["-c", &script]).output().expect("python3 runs");
    assert!(out.status.success(), "ncclient: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect()
}

/// The port a `headroom-allowance-changed` notification is about: it is defined on the Bridge
/// Port's `pfc` container, so it arrives inside `/interfaces/interface[name]/bridge-port/pfc`
/// (RFC 7950 §7.16.2). `None` for any other notification.
fn allowance_change_of(notification: &str) -> Option<String> {
    let n = netconf_proto::xml::parse(notification.as_bytes()).ok()?;
    let interface = n.child(IF_NS, "interfaces")?.child(IF_NS, "interface")?;
    interface
        .child(DOT1Q_NS, "bridge-port")?
        .child(PFCB_NS, "pfc")?
        .child(PFC_NTF_NS, "headroom-allowance-changed")?;
    Some(interface.child(IF_NS, "name")?.text().to_string())
}

/// `edit` goes into the candidate, its commit is refused with an rpc-error whose path contains
/// `path` and whose message contains `message`, and running stays `before`.
fn assert_commit_refused(c: &mut Client, edit: &str, path: &str, message: &str, before: &str) {
    c.edit_config(Datastore::Candidate, edit, None).expect("the candidate takes it");
    let err = c.commit().expect_err("refused");
    let errors = err.reply().map(|r| r.errors().to_vec()).unwrap_or_default();
    assert!(
        errors.iter().any(|e| {
            e.error_path.as_deref().is_some_and(|p| p.contains(path))
                && e.error_message.as_deref().is_some_and(|m| m.contains(message))
        }),
        "{path}: {message} in {errors:?}"
    );
    c.discard_changes().expect("discard");
    let running = c.get_config(Datastore::Running, None).expect("get-config");
    assert_eq!(running.data().unwrap_or_default(), before, "running unchanged");
}

fn pfc_edit(port: &str, inner: &str) -> String {
    format!(
        "<interfaces xmlns=\"{IF_NS}\"><interface><name>{port}</name>\
         <bridge-port xmlns=\"{DOT1Q_NS}\"><pfc xmlns=\"{PFCB_NS}\">{inner}</pfc></bridge-port>\
         </interface></interfaces>"
    )
}

#[test]
fn the_lab_pauses_and_the_under_provisioned_port_stops_dropping_once_measured() {
    let dir = state_dir("traffic");
    let daemon = Daemon::start(&dir);
    assert!(daemon.banner.contains("(made now)"), "{}", daemon.banner);
    let mut c = daemon.client();

    // The four Table 12-1 objects on every lab port.
    for port in PORTS {
        let pfc = pfc_of(&mut c, port);
        for leaf in [
            "pfc-link-delay-allowance",
            "pfc-requests",
            "pfc-indications",
            "pfc-headroom-allowance",
        ] {
            assert!(top_leaf(&pfc, leaf).is_some(), "{port}: {leaf} in {pfc}");
        }
        assert!(top_leaf(&pfc, "allowance-source").is_some(), "{port}: {pfc}");
    }

    // Lab traffic congests lab1..lab3 (the peers also pause our priority 0 there).
    for port in ["lab1", "lab2", "lab3"] {
        wait_state_within(
            &mut c,
            port,
            Duration::from_secs(60),
            "PFC requests and indications",
            |p| number(p, "pfc-requests") > 0 && number(p, "pfc-indications") > 0,
        );
    }
    // lab2 runs 10 km on Annex N's 100 m allowance: it drops; the others have enough.
    let lab2 = wait_state_within(&mut c, "lab2", Duration::from_secs(30), "drops", |p| {
        priority_leaf(p, 3, "frames-dropped") > 0
    });
    assert_eq!(top_leaf(&lab2, "allowance-source").as_deref(), Some("pfc:link-delay-allowance"));
    for port in ["lab0", "lab1", "lab3"] {
        let pfc = pfc_of(&mut c, port);
        assert_eq!(priority_leaf(&pfc, 3, "frames-dropped"), 0, "{port}: {pfc}");
        assert!(priority_leaf(&pfc, 3, "frames-accepted") > 0, "{port}: {pfc}");
    }
    let lab0 = pfc_of(&mut c, "lab0");
    assert_eq!(number(&lab0, "pfc-requests"), 0, "lab0 is not congested: {lab0}");

    // Measured headroom on lab2: the allowance comes from the measurement, close to the link's
    // true headroom as the lab reports it, and the drops stop.
    let measured =
        format!("<headroom><method xmlns:pfc=\"{PFC_NS}\">pfc:measurement</method></headroom>");
    c.edit_config(Datastore::Candidate, &pfc_edit("lab2", &measured), None).expect("edit");
    c.commit().expect("commit");
    let lab2 =
        wait_state_within(&mut c, "lab2", Duration::from_secs(60), "the measured allowance", |p| {
            top_leaf(p, "allowance-source").as_deref() == Some("pfc:measurement-result")
        });
    let allowance = number(&lab2, "allowance-in-force");
    // PFCHeadroomAllowance reads as 12.23 d) names it: the automatically calculated value.
    assert_eq!(number(&lab2, "pfc-headroom-allowance"), allowance, "{lab2}");
    assert_eq!(number(&lab2, "calculated-allowance"), allowance, "{lab2}");
    // On every lab port the four Table 12-1 objects read as 12.23 describes them: the manual
    // allowance, the PFC frames sent and received, and PFCHeadroomAllowance the automatic
    // value where automatic calculation has one, its default (PFCLinkDelayAllowance) else.
    for port in PORTS {
        let p = pfc_of(&mut c, port);
        let automatic = value(&p, "calculated-allowance")
            .map(|v| v.parse::<u64>().expect("a number"))
            .unwrap_or_else(|| number(&p, "pfc-link-delay-allowance"));
        assert_eq!(number(&p, "pfc-headroom-allowance"), automatic, "{port}: {p}");
        for counter in ["pfc-requests", "pfc-indications"] {
            assert!(value(&p, counter).is_some(), "{port}'s {counter}: {p}");
        }
    }
    assert!(lab2.contains("<measurement><round-trip>"), "{lab2}");
    assert!(
        lab2.contains(&format!("<breakdown xmlns=\"{PFCD_PFC_NS}\"><line><index>1</index>")),
        "itemised, in pfcd-pfc: {lab2}"
    );
    let lab3 = pfc_of(&mut c, "lab3");
    let calculated = value(&lab3, "calculation").expect("lab3's calculation");
    // The lab's peers' delays are the link's stations', configured (no Local Delay TLV used).
    assert_eq!(value(&calculated, "peer-delay-source").as_deref(), Some("configured"), "{lab3}");
    assert!(
        calculated.contains(&format!("<line xmlns=\"{PFCD_PFC_NS}\"><index>1</index>")),
        "itemised, in pfcd-pfc: {lab3}"
    );
    let lab = c
        .get(Some(&format!("<lab xmlns=\"{LAB_NS}\"><port><name>lab2</name></port></lab>")))
        .expect("lab state");
    let truth: u64 = value(lab.data().unwrap_or_default(), "true-headroom")
        .expect("true-headroom")
        .parse()
        .expect("a number");
    assert!(allowance.abs_diff(truth) <= 8 * 512, "measured {allowance} vs true {truth}");
    let dropped = priority_leaf(&lab2, 3, "frames-dropped");
    let requests = number(&lab2, "pfc-requests");
    // Several round trips of simulated time later (10 km: 0.1 ms each).
    wait_state_within(&mut c, "lab2", Duration::from_secs(60), "more pauses", |p| {
        number(p, "pfc-requests") > requests + 4
    });
    std::thread::sleep(Duration::from_secs(2));
    let later = pfc_of(&mut c, "lab2");
    assert_eq!(priority_leaf(&later, 3, "frames-dropped"), dropped, "{later}");

    // The drops and the new allowance were notified (replayed to a late subscriber).
    let notes = notifications(&daemon);
    assert!(
        notes.iter().any(|n| n.contains("<receive-buffer-drop")
            && n.contains("<interface>lab2</interface>")
            && n.contains("<priority>3</priority>")),
        "{notes:#?}"
    );
    assert!(
        notes.iter().any(|n| allowance_change_of(n).as_deref() == Some("lab2")
            && value(n, "new-source").as_deref() == Some("pfc:measurement-result")
            && n.contains(&format!("<new-allowance>{allowance}</new-allowance>"))),
        "{notes:#?}"
    );
    assert!(!notes
        .iter()
        .any(|n| n.contains("<receive-buffer-drop") && n.contains("<interface>lab1</interface>")));

    // measure-headroom re-measures where measurement is in force, and is refused elsewhere.
    let ok = c.rpc(&pfc_action("lab2", "measure-headroom")).expect("reply");
    assert!(ok.is_ok(), "{}", ok.raw());
    let refused = c.rpc(&pfc_action("lab1", "measure-headroom")).expect("reply");
    let message =
        refused.errors().first().and_then(|e| e.error_message.clone()).unwrap_or_default();
    assert!(message.contains("not in force on lab1"), "{}", refused.raw());

    // clear-pfc-counters on lab3: its Table 12-1 counters start again, its discontinuity-time
    // moves; lab1's go on.
    let lab3 = pfc_of(&mut c, "lab3");
    let (requests, since) = (number(&lab3, "pfc-requests"), top_leaf(&lab3, "discontinuity-time"));
    let lab1_indications = number(&pfc_of(&mut c, "lab1"), "pfc-indications");
    let ok = c.rpc(&pfc_action("lab3", "clear-pfc-counters")).expect("reply");
    assert!(ok.is_ok(), "{}", ok.raw());
    wait_state_within(&mut c, "lab3", Duration::from_secs(10), "counters cleared", |p| {
        top_leaf(p, "discontinuity-time") != since && number(p, "pfc-requests") < requests
    });
    assert!(number(&pfc_of(&mut c, "lab1"), "pfc-indications") >= lab1_indications);
    c.close_session().expect("close");
    daemon.stop();
    remove_state(&dir);
}

#[test]
fn refusals_name_the_path_and_change_nothing_and_restarts_keep_the_configuration() {
    let dir = state_dir("refusals");
    let daemon = Daemon::start(&dir);
    let mut c = daemon.client();
    let before = running_config(&mut c);
    assert!(before.contains("<name>lab3</name>"), "the lab's ports are in running: {before}");
    let bridge = c
        .get(Some(&format!("<bridges xmlns=\"{DOT1Q_NS}\"/>")))
        .expect("get")
        .data()
        .unwrap_or_default()
        .to_string();
    for port in PORTS {
        assert!(bridge.contains(&format!("<bridge-port>{port}</bridge-port>")), "{bridge}");
    }

    let refusals = [
        (
            pfc_edit("lab0", "<pfc-link-delay-allowance>900000000</pfc-link-delay-allowance>"),
            "pfc-link-delay-allowance",
            "receive buffer",
        ),
        (
            format!(
                "<interfaces xmlns=\"{IF_NS}\"><interface><name>lab9</name>\
                 <type xmlns:ianaift=\"urn:ietf:params:xml:ns:yang:iana-if-type\">ianaift:ethernetCsmacd</type>\
                 <bridge-port xmlns=\"{DOT1Q_NS}\"><bridge-name>br0</bridge-name>\
                 <component-name>c0</component-name></bridge-port></interface></interfaces>"
            ),
            "lab9",
            "no port 'lab9'",
        ),
        (
            pfc_edit(
                "lab1",
                "<pfc-enable>p0 p1 p2 p3 p4 p5 p6 p7</pfc-enable>\
                 <pfc-link-delay-allowance>2000000</pfc-link-delay-allowance>",
            ),
            "pfc-enable",
            "receive buffer",
        ),
        (
            pfc_edit(
                "lab1",
                "<headroom><minimum-allowance>500000</minimum-allowance>\
                 <maximum-allowance>400000</maximum-allowance></headroom>",
            ),
            "maximum-allowance",
            "below the minimum",
        ),
    ];
    for (edit, path, message) in refusals {
        assert_commit_refused(&mut c, &edit, path, message, &before);
    }

    // IEEE 802.3 link pause is not the PFC model's (IEEE 802.3.2's ethernet-interface
    // module has it, which pfcd does not implement): refused at once, by name.
    let edit = pfc_edit("lab1", "<link-pause>true</link-pause>");
    let err = c.edit_config(Datastore::Candidate, &edit, None).expect_err("link-pause refused");
    let errors = err.reply().map(|r| r.errors().to_vec()).unwrap_or_default();
    assert!(
        errors.iter().any(|e| e.error_tag == "unknown-element"
            && e.error_message.as_deref().is_some_and(|m| m.contains("link-pause"))),
        "link-pause: {errors:?}"
    );

    // A priority outside 0-7 is refused at once, by its type.
    let edit = pfc_edit(
        "lab1",
        &format!(
            "<priority><priority>8</priority><buffer-allocation xmlns=\"{PFCD_PFC_NS}\">\
             100000</buffer-allocation></priority>"
        ),
    );
    let err = c.edit_config(Datastore::Candidate, &edit, None).expect_err("priority 8 refused");
    let errors = err.reply().map(|r| r.errors().to_vec()).unwrap_or_default();
    assert!(
        errors.iter().any(|e| e.error_tag == "invalid-value"
            && e.error_path.as_deref().is_some_and(|p| p.contains("priority"))),
        "priority 8: {errors:?}"
    );
    c.discard_changes().expect("discard");
    assert_eq!(running_config(&mut c), before, "running unchanged");

    // A change that fits, then a restart: running and the port keep it.
    c.edit_config(Datastore::Candidate, &pfc_edit("lab1", "<pfc-enable>p3 p4</pfc-enable>"), None)
        .expect("edit");
    c.commit().expect("commit");
    wait_state_within(&mut c, "lab1", Duration::from_secs(10), "p3 p4 in force", |p| {
        top_leaf(p, "oper-pfc-enable").as_deref() == Some("p3 p4")
    });
    let after = running_config(&mut c);
    c.close_session().expect("close");
    daemon.stop();

    let daemon = Daemon::start(&dir);
    assert!(!daemon.banner.contains("(made now)"), "the same administrator: {}", daemon.banner);
    let mut c = daemon.client();
    assert_eq!(running_config(&mut c), after);
    wait_state_within(
        &mut c,
        "lab1",
        Duration::from_secs(10),
        "p3 p4 in force after the restart",
        |p| top_leaf(p, "oper-pfc-enable").as_deref() == Some("p3 p4"),
    );

    // kill -9 right after a commit's reply: the commit is kept and the port runs it.
    c.edit_config(Datastore::Candidate, &pfc_edit("lab1", "<pfc-enable>p3</pfc-enable>"), None)
        .expect("edit");
    c.commit().expect("commit");
    let committed = running_config(&mut c);
    drop(c);
    daemon.kill();
    let daemon = Daemon::start(&dir);
    let mut c = daemon.client();
    assert_eq!(running_config(&mut c), committed);
    wait_state_within(&mut c, "lab1", Duration::from_secs(10), "p3 in force after kill -9", |p| {
        top_leaf(p, "oper-pfc-enable").as_deref() == Some("p3")
    });
    c.close_session().expect("close");
    daemon.stop();
    remove_state(&dir);
}

const LLDP_NS: &str = "urn:ieee:std:802.1AB:yang:ieee802-dot1ab-lldp";
const DCBX_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-lldp-dcbx-tlv";
const LAB_NS: &str = pfc_yang_names::pfcd_lab::NAMESPACE;

/// `<get>` with a subtree filter: the data.
fn get(c: &mut Client, filter: &str) -> String {
    c.get(Some(filter)).expect("get").data().unwrap_or_default().to_string()
}

/// The `/lldp/port` state of one port (our agent: counters, neighbour, DCBX outcome).
fn lldp_port(c: &mut Client, port: &str) -> String {
    let data = get(
        c,
        &format!(
            "<lldp xmlns=\"{LLDP_NS}\"><port><name>{port}</name><dest-mac-address>01-80-C2-00-00-0E\
             </dest-mac-address></port></lldp>"
        ),
    );
    assert!(data.contains(&format!("<name>{port}</name>")), "{port} in {data}");
    data
}

/// The lab's state of one port: the link's truth and the peer's side of DCBX.
fn lab_port(c: &mut Client, port: &str) -> String {
    get(c, &format!("<lab xmlns=\"{LAB_NS}\"><port><name>{port}</name></port></lab>"))
}

/// The content of `<outer>…</outer>` (the first one).
fn inside<'a>(xml: &'a str, outer: &str) -> &'a str {
    let start = xml.find(&format!("<{outer}")).unwrap_or_else(|| panic!("<{outer}> in {xml}"));
    let end = xml[start..].find(&format!("</{outer}>")).map_or(xml.len(), |e| start + e);
    &xml[start..end]
}

#[test]
fn a_willing_peer_adopts_our_pfc_enable_within_a_second_and_the_headroom_is_measured() {
    let dir = state_dir("dcbx-willing");
    let daemon = Daemon::start(&dir);
    let mut c = daemon.client();
    // lab0's peer is willing: it runs the PFC Enable we advertise.
    let lab = lab_port(&mut c, "lab0");
    assert_eq!(value(inside(&lab, "peer-dcbx"), "oper-pfc-enable").as_deref(), Some("p3"), "{lab}");
    let before = lldp_port(&mut c, "lab0");
    let remote = inside(&before, "remote-systems-data");
    assert_eq!(value(remote, "system-name").as_deref(), Some("peer0"), "{remote}");
    assert_eq!(value(remote, "willing").as_deref(), Some("true"), "{remote}");
    assert!(remote.contains("<rtm-hdrm"), "the peer's P802.1Qdt bits are shown: {remote}");
    assert!(
        inside(remote, "pfc-local-delay-tlv-extension").contains("<delay>"),
        "the peer's Local Delay TLV is shown: {remote}"
    );

    // PFC on 3 and 4, the headroom as DCBX agrees (both ends advertise RTM HDRM: measured).
    let edit = pfc_edit(
        "lab0",
        &format!(
            "<pfc-enable>p3 p4</pfc-enable><headroom><method xmlns:pfc=\"{PFC_NS}\">\
             pfc:dcbx-negotiated</method></headroom>"
        ),
    );
    // ncclient commits it and reads both ends until they run p3 p4.
    let script = format!(
        "import sys, time\n\
         from ncclient import manager\n\
         m = manager.connect(host='127.0.0.1', port={port}, username='admin', password='{password}', \
         hostkey_verify=False, timeout=60)\n\
         m.edit_config(target='candidate', config='<config>' + sys.argv[1] + '</config>')\n\
         m.commit()\n\
         t = time.monotonic()\n\
         ours = '<interfaces xmlns=\"{IF_NS}\"><interface><name>lab0</name><bridge-port xmlns=\"{DOT1Q_NS}\"><pfc xmlns=\"{PFCB_NS}\"><oper-pfc-enable/></pfc></bridge-port></interface></interfaces>'\n\
         peer = '<lab xmlns=\"{LAB_NS}\"><port><name>lab0</name><peer-dcbx/></port></lab>'\n\
         want = '<oper-pfc-enable>p3 p4</oper-pfc-enable>'\n\
         while not (want in m.get(('subtree', ours)).data_xml and want in m.get(('subtree', peer)).data_xml):\n\
         \x20   if time.monotonic() - t > 5: break\n\
         print(time.monotonic() - t)\n",
        port = daemon.port,
        password = daemon.password,
    );
    let out = Command::new("/usr/bin/python3")
        .args(["-c", &script, &edit])
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "ncclient: {}", String::from_utf8_lossy(&out.stderr));
    let seconds: f64 =
        String::from_utf8_lossy(&out.stdout).trim().parse().expect("ncclient prints the time");
    assert!(seconds < 1.0, "both ends run p3 p4 within 1 s of the commit: {seconds} s");
    let after = lldp_port(&mut c, "lab0");
    let sent = number(inside(&after, "tx-statistics"), "total-frames");
    assert!(
        sent > number(inside(&before, "tx-statistics"), "total-frames"),
        "the changed TLV was sent at once (a fast transmission)"
    );
    let dcbx = inside(&after, "pfc-dcbx");
    assert_eq!(value(dcbx, "reason").as_deref(), Some("peer-adopts-ours"), "{dcbx}");
    assert_eq!(value(dcbx, "headroom-measurement").as_deref(), Some("true"), "{dcbx}");

    // The measurement is in force, within 8 quanta of the link's true round trip.
    let pfc =
        wait_state_within(&mut c, "lab0", Duration::from_secs(10), "measured headroom", |p| {
            top_leaf(p, "allowance-source").as_deref() == Some("pfc:measurement-result")
        });
    assert_eq!(value(&pfc, "method-in-force").as_deref(), Some("pfc:measurement"), "{pfc}");
    assert_eq!(top_leaf(&pfc, "oper-pfc-enable").as_deref(), Some("p3 p4"), "{pfc}");
    let measured: i64 = value(inside(&pfc, "measurement"), "round-trip")
        .expect("round-trip")
        .parse()
        .expect("a number");
    let truth: i64 = value(&lab_port(&mut c, "lab0"), "true-round-trip-quanta")
        .expect("true-round-trip-quanta")
        .parse()
        .expect("a number");
    assert!((measured - truth).abs() <= 8, "measured {measured} quanta, true {truth}");
    let measurement = inside(&pfc, "measurement");
    let kept = measurement.matches(&format!("<history xmlns=\"{PFCD_PFC_NS}\">")).count();
    assert!(kept >= 8, "the eight results the estimate takes are kept: {measurement}");
    assert_eq!(value(measurement, "result-count"), Some(kept.to_string()), "{measurement}");
    let counters = inside(measurement, "counters");
    let requests = number(counters, "requests-sent");
    assert!(requests >= 8, "the participant's counters: {counters}");
    assert_eq!(number(counters, "responses-unmatched"), 0, "{counters}");
    let notes = notifications(&daemon);
    assert!(
        notes.iter().any(|n| allowance_change_of(n).as_deref() == Some("lab0")
            && value(n, "new-source").as_deref() == Some("pfc:measurement-result")),
        "a notification says the measurement is in force: {notes:#?}"
    );
    c.close_session().expect("close");
    daemon.stop();
    let log = std::fs::read_to_string(dir.with_extension("log")).expect("log");
    assert!(!log.contains('\u{1b}'), "a log written to a file has no terminal colours:\n{log}");
    for port in PORTS {
        assert!(
            log.lines().any(|l| l.contains(port) && l.contains("LLDP shutdown LLDPDU sent")),
            "SIGTERM sends {port}'s shutdown LLDPDU:\n{log}"
        );
    }
    remove_state(&dir);
}

#[test]
fn a_peer_that_is_not_willing_and_differs_is_reported_misconfigured() {
    let dir = state_dir("dcbx-misconfigured");
    let daemon = Daemon::start(&dir);
    let mut c = daemon.client();
    let dcbx = |c: &mut Client| inside(&lldp_port(c, "lab3"), "pfc-dcbx").to_string();
    assert_eq!(value(&dcbx(&mut c), "misconfigured").as_deref(), Some("false"));
    // lab3's peer is not willing and runs p0 p3: p3 p4 here cannot be agreed.
    c.edit_config(Datastore::Candidate, &pfc_edit("lab3", "<pfc-enable>p3 p4</pfc-enable>"), None)
        .expect("edit");
    c.commit().expect("commit");
    let deadline = Instant::now() + Duration::from_secs(2);
    let state = loop {
        let state = dcbx(&mut c);
        if value(&state, "misconfigured").as_deref() == Some("true") {
            break state;
        }
        assert!(Instant::now() < deadline, "misconfigured within 2 s: {state}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(value(&state, "misconfiguration").as_deref(), Some("enable-mismatch"), "{state}");
    assert!(
        value(&state, "misconfiguration-description").is_some_and(|d| d.contains("willing")),
        "the description says what to do: {state}"
    );
    let lab = lab_port(&mut c, "lab3");
    assert_eq!(value(inside(&lab, "peer-dcbx"), "oper-pfc-enable").as_deref(), Some("p0 p3"));
    let notes = notifications(&daemon);
    assert!(
        notes.iter().any(|n| n.contains("<pfc-dcbx-misconfiguration")
            && n.contains("<name>lab3</name>")
            && n.contains("<misconfigured>true</misconfigured>")
            && n.contains("<peer-pfc-enable>p0 p3</peer-pfc-enable>")),
        "a notification reports it: {notes:#?}"
    );
    // Back to the peer's vector: cleared, and notified.
    c.edit_config(Datastore::Candidate, &pfc_edit("lab3", "<pfc-enable>p0 p3</pfc-enable>"), None)
        .expect("edit");
    c.commit().expect("commit");
    let deadline = Instant::now() + Duration::from_secs(5);
    while value(&dcbx(&mut c), "misconfigured").as_deref() != Some("false") {
        assert!(Instant::now() < deadline, "the misconfiguration clears");
        std::thread::sleep(Duration::from_millis(50));
    }
    let notes = notifications(&daemon);
    assert!(
        notes.iter().any(|n| n.contains("<pfc-dcbx-misconfiguration")
            && n.contains("<misconfigured>false</misconfigured>")),
        "the clearing is notified: {notes:#?}"
    );
    c.close_session().expect("close");
    daemon.stop();
    remove_state(&dir);
}

#[test]
fn the_lldp_model_drives_the_agent_and_refuses_what_it_cannot_run() {
    let dir = state_dir("lldp-model");
    let daemon = Daemon::start(&dir);
    let mut c = daemon.client();
    let sent =
        |c: &mut Client| number(inside(&lldp_port(c, "lab1"), "tx-statistics"), "total-frames");
    let received =
        |c: &mut Client| number(inside(&lldp_port(c, "lab1"), "rx-statistics"), "total-frames");
    // The fast start is over after txFastInit LLDPDUs at 1 s; then one per 30 s.
    std::thread::sleep(Duration::from_secs(5));
    let first = sent(&mut c);
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(sent(&mut c), first, "message-tx-interval 30: nothing sent in 3 s");
    assert!(received(&mut c) > 0, "the peer's LLDPDUs are counted");

    // message-tx-interval 1 at /lldp: every port's agent sends each second.
    c.edit_config(
        Datastore::Candidate,
        &format!("<lldp xmlns=\"{LLDP_NS}\"><message-tx-interval>1</message-tx-interval></lldp>"),
        None,
    )
    .expect("edit");
    c.commit().expect("commit");
    // Three more LLDPDUs take 2–3 s at one a second (the commit's own may come after `from`);
    // polled, not slept on, so that a loaded machine's late tick is no failure.
    let from = sent(&mut c);
    let start = Instant::now();
    let mut now = from;
    while now - from < 3 && start.elapsed() < Duration::from_secs(8) {
        std::thread::sleep(Duration::from_millis(100));
        now = sent(&mut c);
    }
    let took = start.elapsed();
    assert!(
        now - from >= 3
            && (Duration::from_millis(1500)..Duration::from_millis(4500)).contains(&took),
        "about one LLDPDU a second: {from} → {now} in {took:?}"
    );
    let inserts: u64 =
        value(&get(&mut c, &format!("<lldp xmlns=\"{LLDP_NS}\"/>")), "remote-inserts")
            .expect("remote-statistics")
            .parse()
            .expect("a number");
    assert_eq!(inserts, 4, "one neighbour inserted per port");

    // What pfcd cannot run is refused, naming the path; running stays as it was.
    let before = running_config(&mut c);
    // One administrative PFC Enable, the Bridge Port's: the TLV's own is not supported
    // (pfcd-deviations) and refused at once, by name.
    let edit = format!(
        "<lldp xmlns=\"{LLDP_NS}\"><port><name>lab1</name>\
         <dest-mac-address>01-80-C2-00-00-0E</dest-mac-address>\
         <pfc-tlv-extension xmlns=\"{DCBX_NS}\"><enable>p5</enable></pfc-tlv-extension>\
         </port></lldp>"
    );
    let err = c.edit_config(Datastore::Candidate, &edit, None).expect_err("enable refused");
    let errors = err.reply().map(|r| r.errors().to_vec()).unwrap_or_default();
    assert!(
        errors.iter().any(|e| e.error_tag == "unknown-element"
            && e.error_message.as_deref().is_some_and(|m| m.contains("enable"))),
        "the TLV's enable: {errors:?}"
    );
    let refusals = [(
        format!(
            "<lldp xmlns=\"{LLDP_NS}\"><port><name>lab1</name>\
                 <dest-mac-address>01-80-C2-00-00-03</dest-mac-address></port></lldp>"
        ),
        "dest-mac-address='01-80-C2-00-00-03'",
        "nearest bridge address only",
    )];
    for (edit, path, message) in refusals {
        assert_commit_refused(&mut c, &edit, path, message, &before);
    }

    // Without its LLDP entry a port runs no agent: the peer forgets it, PFC runs as configured.
    c.edit_config(
        Datastore::Candidate,
        &format!(
            "<lldp xmlns=\"{LLDP_NS}\" xmlns:nc=\"urn:ietf:params:xml:ns:netconf:base:1.0\">\
             <port nc:operation=\"delete\"><name>lab1</name>\
             <dest-mac-address>01-80-C2-00-00-0E</dest-mac-address></port></lldp>"
        ),
        None,
    )
    .expect("edit");
    c.commit().expect("commit");
    // The commit's reply comes once the port has the change; its state follows within a step.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let all = get(&mut c, &format!("<lldp xmlns=\"{LLDP_NS}\"/>"));
        if !all.contains("<name>lab1</name>") {
            break;
        }
        assert!(Instant::now() < deadline, "no LLDP state for lab1: {all}");
        std::thread::sleep(Duration::from_millis(50));
    }
    let pfc = pfc_of(&mut c, "lab1");
    assert_eq!(top_leaf(&pfc, "oper-pfc-enable").as_deref(), Some("p0 p3"), "{pfc}");
    let peer = lab_port(&mut c, "lab1");
    let peer = inside(&peer, "peer-dcbx");
    assert_eq!(
        value(peer, "pfc-enable-source").as_deref(),
        Some("local"),
        "our shutdown LLDPDU made the peer forget us at once: {peer}"
    );
    c.close_session().expect("close");
    daemon.stop();
    remove_state(&dir);
}

/// yangcli (yuma123, Debian) learns pfcd's modules by get-schema (the module list from
/// /modules-state, on the yang-library:1.0 capability) and reads the PFC and DCBX state with
/// them.
#[test]
fn yangcli_reads_the_pfc_state_with_the_modules_it_fetched() {
    let Some(yangcli) = test_support::external_tool("/usr/bin/yangcli", "yangcli") else { return };
    let dir = state_dir("yangcli");
    let daemon = Daemon::start(&dir);
    let home = dir.with_extension("home");
    std::fs::create_dir_all(&home).expect("HOME for yangcli");
    let script = home.join("read.ycl");
    std::fs::write(
        &script,
        "sget /interfaces/interface/bridge-port/pfc\nsget /lldp/port/pfc-dcbx\n",
    )
    .expect("script");
    let out = Command::new(yangcli)
        .env("HOME", &home)
        .args([
            "--server=127.0.0.1".to_string(),
            format!("--ncport={}", daemon.port),
            "--user=admin".into(),
            format!("--password={}", daemon.password),
            "--batch-mode".into(),
            format!("--run-script={}", script.display()),
            "--autoload=true".into(),
            "--timeout=30".into(),
        ])
        .stdin(Stdio::null())
        .output()
        .expect("yangcli runs");
    let output =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "yangcli: {output}");
    assert!(output.contains("Getting yang-library module set"), "{output}");
    // yangcli 2.13 cannot parse a notification defined inside a data node (YANG 1.1): it may
    // refuse the module holding the one pfcd has, and nothing else (yang/README.md).
    let nested = "ieee802-dot1q-pfc-bridge-notifications";
    let lines: Vec<&str> = output.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let about_nested = line.contains(&format!("'{nested}'"))
            || lines.get(i + 1).is_some_and(|next| next.starts_with(&format!("{nested}@")));
        for bad in ["not loaded", "Error", "rpc-error", "canceled"] {
            assert!(
                !line.contains(bad) || about_nested,
                "yangcli output has {bad:?} about another module than {nested}:\n{output}"
            );
        }
    }
    for port in PORTS {
        assert!(output.contains(&format!("interface {port} {{")), "{port}: {output}");
    }
    // The four Table 12-1 objects per port; PFC frames sent and received per priority as well
    // (pfcd-pfc's).
    for (leaf, per_port) in [
        ("pfc-link-delay-allowance", 1),
        ("pfc-requests", 1),
        ("pfc-indications", 1),
        ("pfc-headroom-allowance", 1),
        ("pfc-frames-sent", 8),
        ("pfc-frames-received", 8),
    ] {
        let count = output.matches(&format!(" {leaf} ")).count();
        assert_eq!(count, per_port * PORTS.len(), "{leaf}: {output}");
    }
    assert_eq!(output.matches("reason peer-adopts-ours").count(), 3, "{output}");
    daemon.stop();
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&home);
    let _ = std::fs::remove_file(dir.with_extension("log"));
}

/// `ieee802-dot1q-pfc` is served implemented, not import-only (RFC 7950 9.10.2): its identities
/// are the values of the port's identityref leaves, and a client resolves a value such as
/// `headroom/method`'s default `pfc:dcbx-negotiated` only against an implemented module.
#[test]
fn the_yang_library_lists_ieee802_dot1q_pfc_implemented_and_its_identities_are_served() {
    let dir = state_dir("yang-library");
    let daemon = Daemon::start(&dir);
    let mut c = daemon.client();
    let library = get(
        &mut c,
        "<yang-library xmlns=\"urn:ietf:params:xml:ns:yang:ietf-yang-library\"><module-set/>\
         </yang-library>",
    );
    let implemented = |name: &str| {
        library.split("<module>").skip(1).any(|m| {
            let m = &m[..m.find("</module>").unwrap_or(m.len())];
            m.contains(&format!("<name>{name}</name>"))
        })
    };
    assert!(implemented("ieee802-dot1q-pfc"), "ieee802-dot1q-pfc among <module>: {library}");
    assert!(implemented("ieee802-dot1q-pfc-bridge"), "{library}");
    let import_only = library
        .split("<import-only-module>")
        .skip(1)
        .any(|m| m.starts_with("<name>ieee802-dot1q-pfc</name>"));
    assert!(!import_only, "ieee802-dot1q-pfc is not import-only: {library}");
    // The identity default is served, its prefix bound to the implemented module's namespace.
    let method = get(&mut c, &pfc_edit("lab0", "<headroom><method-in-force/></headroom>"));
    let value = inside(&method, "method-in-force");
    let prefix = value.rsplit('>').next().and_then(|v| v.split_once(':')).map(|(p, _)| p);
    let prefix = prefix.unwrap_or_else(|| panic!("an identity with a prefix: {method}"));
    assert!(method.contains(&format!("xmlns:{prefix}=\"{PFC_NS}\"")), "{method}");
    drop(c);
    daemon.stop();
    remove_state(&dir);
}

/// kill -9 in the middle of a stream of commits: after the restart running holds the last
/// acknowledged commit (or the one in flight, stored but not yet answered), and the port runs it.
#[test]
fn kill_9_during_a_stream_of_commits_keeps_the_last_acknowledged_one() {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    let dir = state_dir("kill-stream");
    let daemon = Daemon::start(&dir);
    let base = 126_224u64;
    let acked = Arc::new(AtomicU64::new(0));
    let mut c = daemon.client();
    let writer = {
        let acked = acked.clone();
        std::thread::spawn(move || {
            for i in 1u64.. {
                let edit = pfc_edit(
                    "lab1",
                    &format!("<pfc-link-delay-allowance>{}</pfc-link-delay-allowance>", base + i),
                );
                if c.edit_config(Datastore::Candidate, &edit, None).is_err() || c.commit().is_err()
                {
                    return;
                }
                acked.store(i, Ordering::SeqCst);
            }
        })
    };
    let started = Instant::now();
    while acked.load(Ordering::SeqCst) < 20 {
        assert!(started.elapsed() < Duration::from_secs(60), "commits go through");
        std::thread::sleep(Duration::from_millis(10));
    }
    daemon.kill();
    writer.join().expect("the writer ends when the connection drops");
    let last = acked.load(Ordering::SeqCst);

    let daemon = Daemon::start(&dir);
    let mut c = daemon.client();
    let running = c
        .get_config(Datastore::Running, None)
        .expect("get-config")
        .data()
        .unwrap_or_default()
        .to_string();
    let lab1 = &running[running.find("<name>lab1</name>").expect("lab1 in running")..];
    let stored: u64 = value(lab1, "pfc-link-delay-allowance")
        .expect("the allowance in running")
        .parse()
        .expect("a number");
    assert!(
        stored == base + last || stored == base + last + 1,
        "running holds the last acknowledged commit ({}) or the one in flight: {stored}",
        base + last
    );
    wait_state_within(&mut c, "lab1", Duration::from_secs(10), "the port runs it", |p| {
        top_leaf(p, "pfc-link-delay-allowance") == Some(stored.to_string())
    });
    c.close_session().expect("close");
    daemon.stop();
    remove_state(&dir);
}

/// SIGHUP re-reads the settings file: a change is logged as taking effect at the next start,
/// a broken file changes nothing and pfcd keeps serving; the settings take effect on restart.
#[test]
fn sighup_rereads_the_settings_file() {
    use nix::sys::signal::Signal;
    let dir = state_dir("sighup");
    let file = dir.with_extension("toml");
    let log = dir.with_extension("log");
    std::fs::write(&file, "[lab]\ntick-ms = 50\n").expect("settings file");
    let args = ["--config", file.to_str().expect("utf-8 path")];
    let daemon = Daemon::start_with(&dir, &args);
    let wait_log = |what: &str| {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            if text.contains(what) {
                return text;
            }
            assert!(Instant::now() < deadline, "the log says {what:?}:\n{text}");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    daemon.signal(Signal::SIGHUP);
    wait_log("settings file re-read, unchanged");

    std::fs::write(&file, "[lab]\ntick-ms = 60\nports = 2\n").expect("settings file");
    daemon.signal(Signal::SIGHUP);
    let text = wait_log("take effect at the next start");
    assert!(text.contains("lab.tick-ms, lab.ports"), "the changed fields are named: {text}");

    std::fs::write(&file, "[lab]\ntick-ms = 0\n").expect("settings file");
    daemon.signal(Signal::SIGHUP);
    let text = wait_log("the settings file cannot be used");
    assert!(text.contains("lab.tick-ms is 0"), "what is wrong is said: {text}");
    let mut c = daemon.client();
    assert_eq!(get(&mut c, &format!("<lab xmlns=\"{LAB_NS}\"/>")).matches("<port>").count(), 4);
    c.close_session().expect("close");
    daemon.stop();

    // At the next start the file's settings are in force: two lab ports.
    std::fs::write(&file, "[lab]\nports = 2\n").expect("settings file");
    let daemon = Daemon::start_with(&dir, &args);
    let mut c = daemon.client();
    let lab = get(&mut c, &format!("<lab xmlns=\"{LAB_NS}\"/>"));
    assert_eq!(lab.matches("<port>").count(), 2, "{lab}");
    // lab2's and lab3's stored configuration stays, unused, and does not block other changes.
    c.edit_config(Datastore::Candidate, &pfc_edit("lab1", "<pfc-enable>p3</pfc-enable>"), None)
        .expect("edit");
    c.commit().expect("a change to a port pfcd has commits");
    c.close_session().expect("close");
    daemon.stop();
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&file);
    let _ = std::fs::remove_file(&log);
}

const PIPE_NS: &str = pfc_yang_names::pfcd_pipeline::NAMESPACE;
const WD_NS: &str = pfc_yang_names::pfcd_watchdog::NAMESPACE;

/// pfcd logs DCBX's outcome with the model's names (the same function logs it in pfc-lldp):
/// `oper_pfc_enable` as the leaf writes it, `pfc_enable_source`, `reason`, and the P802.1Qdt
/// outcome's `headroom_measurement` and `headroom_link_delay`, so that a log line and a `<get>`
/// say the same thing in the same words.
#[test]
fn dcbx_outcomes_are_logged_with_the_models_names() {
    let dir = state_dir("log-names");
    let daemon = Daemon::start(&dir);
    let log = dir.with_extension("log");
    let line = |kind: &str| {
        let end = Instant::now() + Duration::from_secs(10);
        loop {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            if let Some(l) = text.lines().find(|l| l.contains(kind) && l.contains("lab0")) {
                return l.to_string();
            }
            assert!(Instant::now() < end, "{kind} logged for lab0: {text}");
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    let pfc = line("DCBX: operational PFC Enable");
    for field in
        ["oper_pfc_enable=\"", "oper_pfc_enable_before=\"", "pfc_enable_source=", "reason="]
    {
        assert!(pfc.contains(field), "{field} in {pfc}");
    }
    assert!(!pfc.contains(" to=") && !pfc.contains(" source="), "{pfc}");
    let qdt = line("DCBX: P802.1Qdt operational");
    for field in ["macsec=", "privacy=", "headroom_measurement=", "headroom_link_delay="] {
        assert!(qdt.contains(field), "{field} in {qdt}");
    }
    daemon.stop();
    remove_state(&dir);
}

/// The pipeline's statistics start from zero when the pipeline is built, at start and at each
/// change of its configuration: `statistics/discontinuity-time` says when, so that a client
/// computing rates from two reads knows the counts started again.
#[test]
fn the_pipeline_statistics_say_when_they_started_again() {
    let dir = state_dir("pipeline-discontinuity");
    let daemon = Daemon::start(&dir);
    let mut c = daemon.client();
    let filter = format!("<pipeline xmlns=\"{PIPE_NS}\"><statistics/></pipeline>");
    let since = |c: &mut Client| value(&get(c, &filter), "discontinuity-time");
    let at_start =
        since(&mut c).unwrap_or_else(|| panic!("set at start: {}", get(&mut c, &filter)));
    let edit = format!("<pipeline xmlns=\"{PIPE_NS}\"><mode>fifo</mode></pipeline>");
    c.edit_config(Datastore::Candidate, &edit, None).expect("edit-config");
    c.commit().expect("commit");
    let after = since(&mut c).expect("discontinuity-time");
    assert!(after > at_start, "moved with the new mode: {at_start} -> {after}");
    // A commit that leaves the pipeline as it is does not start its counts again.
    c.edit_config(Datastore::Candidate, &pfc_edit("lab1", "<pfc-enable>p3</pfc-enable>"), None)
        .expect("edit-config");
    c.commit().expect("commit");
    assert_eq!(since(&mut c).as_deref(), Some(after.as_str()), "unchanged pipeline");
    c.close_session().expect("close");
    daemon.stop();
    remove_state(&dir);
}

/// The bridge's pipeline follows the ports' pauses: lab1's peer holds priority 0 paused, so its
/// pipeline class is paused and its frames wait in external memory while the other priorities
/// flow, in order; switched to on-chip FIFOs, nothing is recycled to external memory.
#[test]
fn the_pipeline_holds_a_paused_priority_in_external_memory_and_follows_its_mode() {
    let dir = state_dir("pipeline");
    let daemon = Daemon::start(&dir);
    let mut c = daemon.client();
    let class = |c: &mut Client, n: u8| {
        let data = get(
            c,
            &format!(
                "<interfaces xmlns=\"{IF_NS}\"><interface><name>lab1</name>\
                 <bridge-port xmlns=\"{DOT1Q_NS}\"><pipeline xmlns=\"{PIPE_NS}\"><priority>\
                 <priority>{n}</priority></priority></pipeline></bridge-port></interface>\
                 </interfaces>"
            ),
        );
        inside(&data, "pipeline").to_string()
    };
    let statistics =
        |c: &mut Client| get(c, &format!("<pipeline xmlns=\"{PIPE_NS}\"><statistics/></pipeline>"));
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let paused = class(&mut c, 0);
        if value(&paused, "pause").as_deref() == Some("true")
            && value(&paused, "external-fifo-depth").is_some_and(|d| d != "0")
        {
            assert_ne!(value(&paused, "fsm-state").as_deref(), Some("idle"), "{paused}");
            break;
        }
        assert!(Instant::now() < deadline, "lab1's priority 0 held in external memory: {paused}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let flowing = class(&mut c, 1);
    assert_eq!(value(&flowing, "pause").as_deref(), Some("false"), "{flowing}");
    assert!(value(&flowing, "departed").is_some_and(|d| d != "0"), "{flowing}");
    let stats = statistics(&mut c);
    assert_eq!(value(&stats, "order-violations").as_deref(), Some("0"), "{stats}");
    // The memory's peak: at least the deepest FIFO, and at least what it holds now.
    let memory =
        get(&mut c, &format!("<pipeline xmlns=\"{PIPE_NS}\"><external-memory/></pipeline>"));
    let peak = number(&memory, "peak-used");
    assert!(peak >= number(&stats, "external-fifo-peak") && peak > 0, "{memory} {stats}");
    assert!(peak >= number(&memory, "used"), "{memory}");

    c.edit_config(
        Datastore::Candidate,
        &format!("<pipeline xmlns=\"{PIPE_NS}\"><mode>fifo</mode></pipeline>"),
        None,
    )
    .expect("edit");
    c.commit().expect("commit");
    std::thread::sleep(Duration::from_secs(2));
    let stats = statistics(&mut c);
    assert!(value(&stats, "pause-indications").is_some_and(|d| d != "0"), "{stats}");
    assert_eq!(value(&stats, "order-violations").as_deref(), Some("0"), "{stats}");
    let paused = class(&mut c, 0);
    assert_eq!(value(&paused, "pause").as_deref(), Some("true"), "{paused}");
    assert_eq!(value(&paused, "external-fifo-depth").as_deref(), Some("0"), "fifo mode: {paused}");
    let memory =
        get(&mut c, &format!("<pipeline xmlns=\"{PIPE_NS}\"><external-memory/></pipeline>"));
    assert_eq!(value(&memory, "used").as_deref(), Some("0"), "fifo mode: {memory}");
    c.close_session().expect("close");
    daemon.stop();
    remove_state(&dir);
}

/// `[lab] traffic = false`: an idle lab. LLDP/DCBX still run and agree with the peers, nothing
/// is sent on the links, and the clock's simulated time stays still.
#[test]
fn an_idle_lab_runs_dcbx_and_carries_no_traffic() {
    let dir = state_dir("idle");
    let file = dir.with_extension("toml");
    std::fs::write(&file, "[lab]\ntraffic = false\n").expect("settings file");
    let daemon = Daemon::start_with(&dir, &["--config", file.to_str().expect("utf-8 path")]);
    let mut c = daemon.client();
    std::thread::sleep(Duration::from_secs(2));
    let dcbx = inside(&lldp_port(&mut c, "lab0"), "pfc-dcbx").to_string();
    assert_eq!(value(&dcbx, "reason").as_deref(), Some("peer-adopts-ours"), "{dcbx}");
    for port in PORTS {
        let pfc = pfc_of(&mut c, port);
        assert_eq!(number(&pfc, "pfc-requests"), 0, "{port}: {pfc}");
        assert_eq!(number(&pfc, "pfc-indications"), 0, "{port}: {pfc}");
    }
    let lab = get(&mut c, &format!("<lab xmlns=\"{LAB_NS}\"><clock/></lab>"));
    assert_eq!(value(&lab, "simulated-time").as_deref(), Some("0"), "{lab}");
    c.close_session().expect("close");
    daemon.stop();
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&file);
    let _ = std::fs::remove_file(dir.with_extension("log"));
}

/// An edit of port `port`'s traffic class table (the leaves `table`) and of its pfc `inner`.
fn traffic_class_edit(port: &str, table: &str, inner: &str) -> String {
    format!(
        "<interfaces xmlns=\"{IF_NS}\"><interface><name>{port}</name>\
         <bridge-port xmlns=\"{DOT1Q_NS}\"><traffic-class><traffic-class-table>{table}\
         </traffic-class-table></traffic-class><pfc xmlns=\"{PFCB_NS}\">{inner}</pfc>\
         </bridge-port></interface></interfaces>"
    )
}

/// The lab's simulated pipeline puts priority n in traffic class n: a commit of any other
/// traffic class table is refused, saying so and where tables apply, and nothing of it is
/// applied (running and the port as before); the identity, written out, is taken.
#[test]
fn the_lab_refuses_a_traffic_class_table_other_than_the_identity() {
    let dir = state_dir("traffic-class");
    let file = dir.with_extension("toml");
    std::fs::write(&file, "[lab]\ntraffic = false\n").expect("settings file");
    let daemon = Daemon::start_with(&dir, &["--config", file.to_str().expect("utf-8 path")]);
    let mut c = daemon.client();
    let before = running_config(&mut c);
    let oper = top_leaf(&pfc_of(&mut c, "lab1"), "oper-pfc-enable");
    assert_ne!(oper.as_deref(), Some("p5"), "lab1 does not start with PFC on p5 alone");

    // Priority 4 in class 3, with PFC on 5 alone in the same commit: all of it refused.
    let four_in_three = traffic_class_edit(
        "lab1",
        "<number-of-traffic-classes>8</number-of-traffic-classes><priority4>3</priority4>",
        "<pfc-enable>p5</pfc-enable>",
    );
    let path = "dot1q:traffic-class-table/dot1q:priority4";
    assert_commit_refused(
        &mut c,
        &four_in_three,
        path,
        "map priority n to traffic class n",
        &before,
    );
    assert_commit_refused(
        &mut c,
        &four_in_three,
        path,
        "The table is applied on real interfaces (ports = \"interfaces\"",
        &before,
    );
    // Four classes: priorities 4 to 7 in class 3, named by the number of classes.
    let four_classes = traffic_class_edit(
        "lab1",
        "<number-of-traffic-classes>4</number-of-traffic-classes>",
        "<pfc-enable>p5</pfc-enable>",
    );
    assert_commit_refused(
        &mut c,
        &four_classes,
        "dot1q:traffic-class-table/dot1q:number-of-traffic-classes",
        "priority 7 to traffic class 3",
        &before,
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        top_leaf(&pfc_of(&mut c, "lab1"), "oper-pfc-enable"),
        oper,
        "the refused commit's pfc-enable is not in force"
    );

    // The identity, written out, is taken with the rest of the commit.
    let identity = traffic_class_edit(
        "lab1",
        "<number-of-traffic-classes>8</number-of-traffic-classes><priority3>3</priority3>\
         <priority4>4</priority4>",
        "<pfc-enable>p5</pfc-enable>",
    );
    c.edit_config(Datastore::Candidate, &identity, None).expect("edit");
    c.commit().expect("the identity is taken");
    assert!(
        running_config(&mut c).contains("<priority4>4</priority4>"),
        "{}",
        running_config(&mut c)
    );
    wait_state_within(&mut c, "lab1", Duration::from_secs(10), "p5 in force", |p| {
        top_leaf(p, "oper-pfc-enable").as_deref() == Some("p5")
    });
    c.close_session().expect("close");
    daemon.stop();
    remove_state(&dir);
    let _ = std::fs::remove_file(&file);
}

/// The running datastore as the server gives it.
fn running_config(c: &mut Client) -> String {
    c.get_config(Datastore::Running, None)
        .expect("get-config")
        .data()
        .unwrap_or_default()
        .to_string()
}

/// The lab's simulated ports run the PFC watchdog: a port's `pfc-watchdog` settings are
/// accepted and show in its state (the class's action), a storm's need for traffic is said when
/// the lab has none, and running keeps the watchdog.
#[test]
fn the_lab_honours_a_pfc_watchdog() {
    let dir = state_dir("watchdog");
    let file = dir.with_extension("toml");
    std::fs::write(&file, "[lab]\ntraffic = false\n").expect("settings file");
    let daemon = Daemon::start_with(&dir, &["--config", file.to_str().expect("utf-8 path")]);
    let mut c = daemon.client();
    let edit = format!(
        "<interfaces xmlns=\"{IF_NS}\"><interface><name>lab1</name>\
         <bridge-port xmlns=\"{DOT1Q_NS}\"><pfc-watchdog xmlns=\"{WD_NS}\">\
         <detection-time>100</detection-time>\
         <priority><priority>5</priority><action>alert</action></priority>\
         </pfc-watchdog></bridge-port></interface></interfaces>"
    );
    c.edit_config(Datastore::Candidate, &edit, None).expect("edit-config");
    c.commit().expect("the lab takes a watchdog");
    let running = running_config(&mut c);
    assert!(running.contains("<detection-time>100</detection-time>"), "{running}");
    let filter = format!(
        "<interfaces xmlns=\"{IF_NS}\"><interface><name>lab1</name>\
         <bridge-port xmlns=\"{DOT1Q_NS}\"><pfc-watchdog xmlns=\"{WD_NS}\"/></bridge-port>\
         </interface></interfaces>"
    );
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let wd = get(&mut c, &filter);
        let five = wd.find("<name>5</name>").map(|at| &wd[at..]).unwrap_or_default();
        if value(five, "action").as_deref() == Some("alert") {
            assert_eq!(value(five, "status").as_deref(), Some("operational"), "{wd}");
            break;
        }
        assert!(Instant::now() < end, "priority 5's action in the lab's state: {wd}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let storm = format!(
        "<peer-storms xmlns=\"{LAB_NS}\"><storm><port>lab1</port><class>3</class></storm>\
         </peer-storms>"
    );
    let before = running_config(&mut c);
    assert_commit_refused(&mut c, &storm, "pfcd-lab:peer-storms", "traffic = true", &before);
}
