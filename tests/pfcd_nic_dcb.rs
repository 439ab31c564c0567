//! pfcd on a DCB-capable NIC named by `DCB_NIC` (e.g. `DCB_NIC=eth2`): started with
//! `data-plane = "nic"` on it, a committed PFC enable reaches the NIC, and iproute2's
//! `dcb pfc show` reads back exactly the operational PFC enable pfcd reports (DCBX's outcome with
//! whatever peer is on the wire); on a NIC whose driver has buffer operations, `dcb buffer show`
//! has each operational PFC-enabled priority in a buffer of its own, the others in buffer 0; the
//! NIC's PFC, buffers and DCBX mode are put back afterwards. Without
//! `DCB_NIC` the test says loudly that it was skipped: no NIC here has DCB.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use netconf_client::{Auth, Client, ConnectOptions};
use pfc_dcb::{DcbBuffer, DcbSocket, DcbxMode, IeeeObjects, IeeePfc};
use test_support::pfcd::{commit_pfc, pfc_of, value};
use test_support::Scratch;

/// The NIC's PFC and DCBX mode as they were, put back when the test ends, however it ends.
struct Restore {
    nic: String,
    pfc: Option<IeeePfc>,
    buffer: Option<DcbBuffer>,
    mode: Option<DcbxMode>,
    pfcd: Option<Child>,
}

impl Drop for Restore {
    fn drop(&mut self) {
        if let Some(mut pfcd) = self.pfcd.take() {
            let pid = nix::unistd::Pid::from_raw(i32::try_from(pfcd.id()).expect("pid"));
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
            let _ = pfcd.wait();
        }
        let Ok(mut dcb) = DcbSocket::open() else { return };
        if let Some(mode) = self.mode {
            if let Err(e) = dcb.dcbx_set(&self.nic, mode) {
                eprintln!("{}: DCBX mode not restored: {e}", self.nic);
            }
        }
        if let Some(pfc) = self.pfc {
            let objects = IeeeObjects { pfc: Some(pfc), ..Default::default() };
            if let Err(e) = dcb.ieee_set(&self.nic, &objects) {
                eprintln!("{}: PFC not restored: {e}", self.nic);
            }
        }
        if let Some(buffer) = self.buffer {
            let objects = IeeeObjects { buffer: Some(buffer), ..Default::default() };
            if let Err(e) = dcb.ieee_set(&self.nic, &objects) {
                eprintln!("{}: receive buffers not restored: {e}", self.nic);
            }
        }
    }
}

/// The priorities `dcb pfc show` reports on ("prio-pfc 0:off 1:off 2:off 3:on …"), as pfcd's
/// bits ("p3").
fn dcb_pfc_enabled(nic: &str) -> String {
    let out =
        Command::new("/usr/sbin/dcb").args(["pfc", "show", "dev", nic]).output().expect("dcb");
    assert!(out.status.success(), "dcb pfc show: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = text.lines().find(|l| l.contains("prio-pfc")).unwrap_or_else(|| panic!("{text}"));
    let on: Vec<String> = line
        .split_whitespace()
        .filter_map(|w| w.strip_suffix(":on"))
        .map(|p| format!("p{p}"))
        .collect();
    on.join(" ")
}

/// The buffer of each priority as `dcb buffer show` reports it ("prio-buffer 0:0 1:0 … 3:1 …").
fn dcb_prio_buffer(nic: &str) -> [u8; 8] {
    let out =
        Command::new("/usr/sbin/dcb").args(["buffer", "show", "dev", nic]).output().expect("dcb");
    assert!(out.status.success(), "dcb buffer show: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = text.lines().find(|l| l.contains("prio-buffer")).unwrap_or_else(|| panic!("{text}"));
    let mut map = [0; 8];
    for (p, b) in line.split_whitespace().filter_map(|w| w.split_once(':')) {
        if let (Ok(p), Ok(b)) = (p.parse::<usize>(), b.parse()) {
            map[p] = b;
        }
    }
    map
}

/// Whether `map` has each priority of `oper` ("p3 p4") in a buffer of its own and the others in
/// buffer 0.
fn buffers_follow(map: [u8; 8], oper: &str) -> bool {
    let lossless: Vec<usize> =
        oper.split_whitespace().filter_map(|p| p.strip_prefix('p')?.parse().ok()).collect();
    let own = lossless.iter().all(|p| {
        lossless.iter().filter(|q| map[**q] == map[*p]).count() == 1
            && (map[*p] != 0 || lossless.len() == 8)
    });
    own && (0..8).filter(|p| !lossless.contains(p)).all(|p| map[p] == 0)
}

#[test]
fn pfcd_programs_a_dcb_nics_pfc_and_dcb_reads_it_back() {
    let Some(nic) = std::env::var_os("DCB_NIC").map(|n| n.to_string_lossy().into_owned()) else {
        eprintln!(
            "\n!!!!! SKIPPED: no DCB-capable NIC named (set DCB_NIC=ethX to run this) !!!!!\n"
        );
        return;
    };
    let mut dcb = DcbSocket::open().expect("a DCB socket");
    let (objects, mode) = dcb.ieee_get(&nic).expect("the NIC answers an IEEE GET");
    let has_buffers = objects.buffer.is_some();
    let mut restore =
        Restore { nic: nic.clone(), pfc: objects.pfc, buffer: objects.buffer, mode, pfcd: None };

    let scratch = Scratch::new("pfcd-nic-dcb");
    let settings = scratch.path("pfcd.toml");
    std::fs::write(
        &settings,
        format!(
            "ports = \"interfaces\"\n[interfaces]\nnames = [\"{nic}\"]\ndata-plane = \"nic\"\n"
        ),
    )
    .expect("settings");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pfcd"))
        .arg("--config")
        .arg(&settings)
        .args(["--listen", "127.0.0.1:0", "--state-dir"])
        .arg(scratch.path("state"))
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(scratch.path("pfcd.log")).expect("log"))
        .spawn()
        .expect("pfcd starts");
    let stdout = child.stdout.take().expect("stdout");
    restore.pfcd = Some(child);
    let port = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .find_map(|l| l.strip_prefix("pfcd ready on ").map(|a| a.trim().to_string()))
        .and_then(|a| a.parse::<std::net::SocketAddr>().ok())
        .unwrap_or_else(|| {
            panic!(
                "pfcd never said ready: {}",
                std::fs::read_to_string(scratch.path("pfcd.log")).unwrap_or_default()
            )
        })
        .port();
    let password = std::fs::read_to_string(scratch.path("state/admin.password")).expect("password");
    let opts =
        ConnectOptions::new("127.0.0.1", port, "admin", Auth::Password(password.trim().into()));
    let mut c = Client::connect(&opts).expect("connects");

    // Two commits in turn, so that the second is a change the NIC must take whatever it had.
    for asked in ["p3", "p3 p4"] {
        commit_pfc(&mut c, &[&nic], &format!("<pfc-enable>{asked}</pfc-enable>"));
        let end = Instant::now() + Duration::from_secs(10);
        loop {
            let pfc = pfc_of(&mut c, &nic);
            let oper = value(&pfc, "oper-pfc-enable").unwrap_or_default();
            let on_nic = dcb_pfc_enabled(&nic);
            let buffers = if has_buffers { Some(dcb_prio_buffer(&nic)) } else { None };
            let buffered = buffers.is_none_or(|map| buffers_follow(map, &oper));
            if on_nic == oper && buffered && value(&pfc, "pfc-enable").as_deref() == Some(asked) {
                eprintln!("{nic}: asked {asked}, operational {oper:?}, dcb pfc show {on_nic:?}");
                break;
            }
            assert!(
                Instant::now() < end,
                "{nic}: dcb pfc show says {on_nic:?}, dcb buffer show {buffers:?}, pfcd's \
                 operational PFC enable is {oper:?}: {}",
                std::fs::read_to_string(scratch.path("pfcd.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    drop(c);
    drop(restore);
}
