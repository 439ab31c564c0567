//! pfcd as a long-running, root-run process meets its host: a state directory others could
//! tamper with is refused before anything in it is trusted, and a SIGHUP while it starts is
//! neither fatal nor lost.

use std::io::{BufRead as _, BufReader};
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use test_support::Scratch;

fn pfcd(state_dir: &Path, log: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_pfcd"))
        .args(["--listen", "127.0.0.1:0", "--state-dir"])
        .arg(state_dir)
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(log).expect("log file"))
        .spawn()
        .expect("pfcd starts")
}

/// Waits for pfcd to exit (it must, within `limit`); returns its exit status and its stderr.
fn exits_within(
    mut child: Child,
    log: &Path,
    limit: Duration,
) -> (std::process::ExitStatus, String) {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return (status, std::fs::read_to_string(log).unwrap_or_default());
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("pfcd kept running:\n{}", std::fs::read_to_string(log).unwrap_or_default());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn stop(child: &mut Child) {
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("pid"));
    let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
    let status = child.wait().expect("pfcd exits");
    assert!(status.success(), "pfcd exits 0 on SIGTERM: {status}");
}

/// A state directory anyone may write to (someone could plant a users file or a host key)
/// stops pfcd at once, with the command that fixes it; once fixed, pfcd starts.
#[test]
fn a_state_directory_others_can_write_is_refused_with_the_fix() {
    let scratch = Scratch::new("host-mode");
    let dir = scratch.path("state");
    std::fs::create_dir(&dir).expect("state dir");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let log = scratch.path("pfcd.log");
    let (status, text) = exits_within(pfcd(&dir, &log), &log, Duration::from_secs(30));
    assert!(!status.success(), "{text}");
    assert!(text.contains("writable by group or others (mode 0777)"), "{text}");
    assert!(text.contains(&format!("chmod go-w {}", dir.display())), "{text}");
    assert!(!dir.join("users").exists(), "nothing is written into it");
    assert!(!dir.join("ssh_host_ed25519_key").exists(), "nothing is written into it");
}

/// A state directory owned by another user is refused (they could replace its files).
#[test]
fn a_state_directory_owned_by_another_user_is_refused() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: only root can give a directory to another user");
        return;
    }
    let scratch = Scratch::new("host-owner");
    let dir = scratch.path("state");
    std::fs::create_dir(&dir).expect("state dir");
    std::os::unix::fs::chown(&dir, Some(12_345), None).expect("chown");
    let log = scratch.path("pfcd.log");
    let (status, text) = exits_within(pfcd(&dir, &log), &log, Duration::from_secs(30));
    assert!(!status.success(), "{text}");
    assert!(text.contains("owned by uid 12345"), "{text}");
    assert!(text.contains(&format!("chown 0 {}", dir.display())), "{text}");
}

/// SIGHUPs sent while pfcd starts (a first start hashes the administrator's password, builds
/// the schema and starts the ports: seconds on a busy machine) do not end it: it becomes
/// ready, and re-reads the users file as SIGHUP asks.
#[test]
fn a_sighup_during_start_up_is_neither_fatal_nor_lost() {
    use nix::sys::signal::{kill, Signal};
    let scratch = Scratch::new("host-sighup");
    let dir = scratch.path("state");
    let log = scratch.path("pfcd.log");
    let mut child = pfcd(&dir, &log);
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("pid"));
    let stdout = child.stdout.take().expect("stdout");
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut lines = BufReader::new(stdout).lines();
        let ready = lines.any(|l| l.is_ok_and(|l| l.starts_with("pfcd ready on ")));
        let _ = ready_tx.send(ready);
        // Keep reading pfcd's stdout so that it never blocks on it.
        lines.for_each(drop);
    });
    // Once pfcd runs its own code (it has made the state directory), until it is ready.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !dir.exists() {
        assert!(Instant::now() < deadline, "pfcd never made its state directory");
        std::thread::sleep(Duration::from_millis(1));
    }
    let mut sent = 0;
    let ready = loop {
        match ready_rx.try_recv() {
            Ok(ready) => break ready,
            Err(std::sync::mpsc::TryRecvError::Disconnected) => break false,
            Err(std::sync::mpsc::TryRecvError::Empty) => {}
        }
        assert!(Instant::now() < deadline, "pfcd never became ready");
        if kill(pid, Signal::SIGHUP).is_ok() {
            sent += 1;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(ready, "pfcd became ready after {sent} SIGHUPs during start-up:\n{text}");
    assert!(sent > 0, "SIGHUPs were sent during start-up");
    assert!(child.try_wait().expect("wait").is_none(), "pfcd still runs:\n{text}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !std::fs::read_to_string(&log).unwrap_or_default().contains("SIGHUP: users file re-read")
    {
        assert!(Instant::now() < deadline, "the SIGHUP held during start-up was acted on");
        std::thread::sleep(Duration::from_millis(50));
    }
    stop(&mut child);
    let _ = reader.join();
}

/// A port task whose thread dies at its first step (as a bug's panic would end it).
struct DiesAtFirstStep(pfcd::ports::snapshot::PortSnapshot);

impl pfcd::ports::run::PortTask for DiesAtFirstStep {
    fn wait(&self) -> Duration {
        Duration::from_millis(1)
    }
    fn apply(&mut self, _: pfcd::ports::intent::PortIntent) {}
    fn measure(&mut self) {}
    fn clear_counters(&mut self) {}
    fn shutdown_lldp(&mut self) -> bool {
        false
    }
    fn step(&mut self, _: bool) -> bool {
        panic!("a bug in the port's step");
    }
    fn snapshot(&self) -> pfcd::ports::snapshot::PortSnapshot {
        self.0.clone()
    }
}

/// A port whose thread has died takes no configuration and its state no longer moves: the
/// ports report it, naming the port and the panic, which is what stops pfcd (fail-stop, for
/// its supervisor to restart it) rather than serve stale state and acknowledge commits
/// nobody applies. A port stopped on purpose is no failure.
#[test]
fn a_dead_port_thread_is_noticed_and_named() {
    use pfcd::ports::handle::PortHandle;
    use pfcd::ports::set::PortSet as _;
    let settings = pfcd::settings::LabSettings { ports: 1, traffic: false, ..Default::default() };
    let mut lab = pfcd::lab::Lab::start(&settings).expect("lab");
    assert_eq!(lab.failure(), None, "a healthy lab");
    let snapshot = (*lab.ports[0].snapshot()).clone();
    let dying = PortHandle::start(
        "lab9".into(),
        pfcd::ports::headroom::ReceiveBuffer::for_max_frame(0, 9216),
        DiesAtFirstStep(snapshot),
    )
    .expect("thread");
    lab.ports.push(dying);
    let deadline = Instant::now() + Duration::from_secs(10);
    let why = loop {
        if let Some(why) = lab.failure() {
            break why;
        }
        assert!(Instant::now() < deadline, "the dead thread was never noticed");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(why.contains("port lab9"), "{why}");
    assert!(why.contains("a bug in the port's step"), "{why}");
    lab.ports[0].stop();
    lab.ports.swap_remove(1);
    assert_eq!(lab.failure(), None, "a port stopped on purpose is no failure");
    lab.stop();
}

/// On real interfaces, a frame longer than max-frame (whether the bridge's receive slot
/// holds it or not) and a frame tagged with the reserved VID 4095 are discarded, never reach
/// the other host, and each is counted in the port's state.
#[test]
fn oversize_and_vid_4095_frames_are_discarded_and_counted_in_the_state() {
    use dataplane::wire::{EthernetHeader, VlanTag};
    use test_support::hosts::{drain, hosts, send, Hosts, H1, H2, TEST_TYPE};
    use test_support::pfcd::{frame_discards_of, number, start_pfcd};
    if !test_support::netns::can_run("oversize_and_vid_4095_frames_are_discarded_and_counted") {
        return;
    }
    let scratch = Scratch::new("host-discards");
    let Hosts { mut h1, mut h2, h1_ns, sw, h2_ns: _h2_ns } = hosts("hdis");
    // Links that carry frames beyond pfcd's largest (9216 octets by default).
    h1_ns.link(&["set", "eth0", "mtu", "9500"]);
    sw.link(&["set", "p1", "mtu", "9500"]);
    let pfcd = start_pfcd(&sw, &scratch, &["p1", "p2"]);
    let mut c = pfcd.client(&sw);
    let frame = |vid: u16, len: usize| {
        let header = EthernetHeader {
            dst: H2,
            src: H1,
            vlan: Some(VlanTag { pcp: 0, dei: false, vid }),
            ethertype: TEST_TYPE,
        };
        let mut f = vec![0u8; len];
        header.emit(&mut f).expect("header");
        f
    };
    let test_frames = |frames: Vec<Vec<u8>>| -> Vec<usize> {
        frames
            .iter()
            .filter(|f| EthernetHeader::parse(f).is_ok_and(|(h, _)| h.ethertype == TEST_TYPE))
            .map(Vec::len)
            .collect()
    };
    // Once the bridge forwards (its ports may open a moment after pfcd is ready).
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        send(&mut h1, &frame(4094, 200));
        if !test_frames(drain(&mut h2, Duration::from_millis(200))).is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "the bridge never forwarded h1's frame to h2");
    }
    let _ = drain(&mut h2, Duration::from_millis(200));
    send(&mut h1, &frame(10, 9216 + 2)); // Over max-frame, within the bridge's receive slot.
    send(&mut h1, &frame(10, 9400)); // Beyond the slot: the socket drops it.
    send(&mut h1, &frame(4095, 200));
    send(&mut h1, &frame(4094, 200)); // Forwarded: the discards are those frames alone.
    let lengths = test_frames(drain(&mut h2, Duration::from_secs(1)));
    assert_eq!(lengths, [200], "only the VID 4094 frame reaches h2");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let state = frame_discards_of(&mut c, "p1");
        if state.contains("<oversize>") && number(&state, "oversize") == 2 {
            assert_eq!(number(&state, "reserved-vid"), 1, "{state}");
            break;
        }
        assert!(Instant::now() < deadline, "the discards are counted: {state}");
        std::thread::sleep(Duration::from_millis(100));
    }
}
