//! Two hosts around a bridge, each a network namespace joined to the bridge's namespace by a
//! veth pair: h1 eth0 — p1 [sw] p2 — eth0 h2. The test sends and reads the hosts' frames on raw
//! sockets opened inside their namespaces: tagged test frames with a sequence number per
//! priority, PFC frames, and a PFC storm from h2.

use std::process::Command;
use std::time::{Duration, Instant};

use dataplane::io::{FramePort, RawOptions, RawPort};
use dataplane::time::LinkSpeed;
use dataplane::wire::{EtherType, EthernetHeader, MacAddr, MacControl, PfcFrame, VlanTag};

use super::netns::{in_netns, veth, Netns};

pub const H1: MacAddr = MacAddr([0x02, 0, 0, 0, 0x01, 0x01]);
pub const H2: MacAddr = MacAddr([0x02, 0, 0, 0, 0x02, 0x02]);
/// The EtherType of the test's frames (IEEE 802 local experimental 1).
pub const TEST_TYPE: EtherType = EtherType(0x88b5);
pub const VID: u16 = 10;
pub const FRAME: usize = 1000;

/// The three namespaces, links up, and the hosts' sockets.
pub struct Hosts {
    pub h1: RawPort,
    pub h2: RawPort,
    pub h1_ns: Netns,
    pub sw: Netns,
    pub h2_ns: Netns,
}

/// h1 — p1 [sw] p2 — h2, every link up, IPv6 off (no neighbour discovery or MLD: the hosts
/// send only the test's frames).
pub fn hosts(tag: &str) -> Hosts {
    let h1 = Netns::new(&format!("{tag}h1"));
    let sw = Netns::new(&format!("{tag}sw"));
    let h2 = Netns::new(&format!("{tag}h2"));
    veth(&h1, "eth0", "02:00:00:00:01:01", &sw, "p1", "02:00:00:00:0f:01");
    veth(&sw, "p2", "02:00:00:00:0f:02", &h2, "eth0", "02:00:00:00:02:02");
    for (ns, ifs) in [(&h1, &["eth0"][..]), (&sw, &["p1", "p2"][..]), (&h2, &["eth0"][..])] {
        ns.run("/usr/sbin/sysctl", &["-qw", "net.ipv6.conf.all.disable_ipv6=1"]);
        ns.run("/usr/sbin/sysctl", &["-qw", "net.ipv6.conf.default.disable_ipv6=1"]);
        for i in ifs {
            ns.link(&["set", i, "up"]);
        }
    }
    Hosts { h1: host_socket(&h1), h2: host_socket(&h2), h1_ns: h1, sw, h2_ns: h2 }
}

/// The test's socket on a host's eth0 (opened again when the interface is made anew).
pub fn host_socket(ns: &Netns) -> RawPort {
    // A large receive buffer: the test reads in bursts.
    let options = RawOptions { recv_buffer: Some(16 << 20), ..RawOptions::default() };
    in_netns(ns, || RawPort::open("eth0", &options)).expect("host socket")
}

/// A tagged test frame from h1 to h2: priority, sequence number within it.
pub fn data(priority: u8, seq: u32) -> Vec<u8> {
    data_between(H1, H2, priority, seq)
}

/// A tagged test frame from `src` to `dst`.
pub fn data_between(src: MacAddr, dst: MacAddr, priority: u8, seq: u32) -> Vec<u8> {
    let header = EthernetHeader {
        dst,
        src,
        vlan: Some(VlanTag { pcp: priority, dei: false, vid: VID }),
        ethertype: TEST_TYPE,
    };
    let mut frame = vec![0u8; FRAME];
    let at = header.emit(&mut frame).expect("header");
    frame[at] = priority;
    frame[at + 1..at + 5].copy_from_slice(&seq.to_be_bytes());
    frame
}

/// (priority, sequence number) of a test frame.
pub fn parse_data(frame: &[u8]) -> Option<(u8, u32)> {
    let (header, body) = EthernetHeader::parse(frame).ok()?;
    if header.ethertype != TEST_TYPE || body.len() < 5 {
        return None;
    }
    let pcp = header.vlan?.pcp;
    assert_eq!(body[0], pcp, "the frame's priority is its PCP");
    Some((pcp, u32::from_be_bytes(body[1..5].try_into().ok()?)))
}

pub fn send(port: &mut RawPort, frame: &[u8]) {
    for _ in 0..1000 {
        match port.send(frame) {
            Ok(()) => return,
            Err(_) => std::thread::sleep(Duration::from_micros(100)),
        }
    }
    panic!("cannot send");
}

/// Paces a test's burst of [`FRAME`]-octet frames for a port at [`STORM_SPEED`]: after every
/// 20th frame (`seq`), 200 µs, longer than 20 frames take at 1 Gb/s. Sent as fast as the test
/// can, 200 frames outgrew an egress port's share of the lossy pool (half of 256 KiB) while
/// the 1 Gb/s port drained them, and the bridge rightly discarded the rest.
pub fn paced(seq: u32) {
    if seq % 20 == 19 {
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// Everything `port` receives within `time`.
pub fn drain(port: &mut RawPort, time: Duration) -> Vec<Vec<u8>> {
    let end = Instant::now() + time;
    let mut got = Vec::new();
    let mut buf = vec![0u8; 9300];
    loop {
        match port.recv(&mut buf) {
            Ok(Some(n)) => got.push(buf[..n].to_vec()),
            _ if Instant::now() >= end => return got,
            _ => std::thread::sleep(Duration::from_micros(200)),
        }
    }
}

/// Frames `port` receives for at least `min`, and on until `count` frames of `priority` have
/// come or `max` has passed: a loaded machine may forward a burst late, and a frame late is
/// not a frame lost. `each` runs between looks (to drain another port meanwhile).
pub fn drain_until_sequences(
    port: &mut RawPort,
    (priority, count): (u8, usize),
    (min, max): (Duration, Duration),
    mut each: impl FnMut(),
) -> Vec<Vec<u8>> {
    let start = Instant::now();
    let mut got = Vec::new();
    loop {
        got.extend(drain(port, Duration::from_millis(1)));
        each();
        let took = start.elapsed();
        if took >= max || (took >= min && sequences(&got, priority).len() >= count) {
            return got;
        }
    }
}

pub fn sequences(frames: &[Vec<u8>], priority: u8) -> Vec<u32> {
    frames
        .iter()
        .filter_map(|f| parse_data(f))
        .filter(|(p, _)| *p == priority)
        .map(|(_, s)| s)
        .collect()
}

pub fn pfc_frames(frames: &[Vec<u8>]) -> Vec<PfcFrame> {
    frames
        .iter()
        .filter_map(|f| match MacControl::parse(f) {
            Ok(MacControl::Pfc(p)) => Some(p),
            _ => None,
        })
        .collect()
}

pub fn pfc(priorities: u8, quanta: u16) -> Vec<u8> {
    PfcFrame::pause(H2, priorities, quanta).to_vec()
}

/// The speed of the bridge ports a storm holds paused, and its `--speed` argument: 1 Gb/s, at
/// which a PFC frame of 65 535 quanta pauses for 33.6 ms. At 10 Gb/s it pauses for 3.4 ms, and
/// two busy cores held every thread of the storm off the CPU for 4–13 ms at a time (synced
/// writes and namespaces made and deleted beside the test), so the pause ran out on the wire.
pub const STORM_SPEED: LinkSpeed = LinkSpeed::G1;
pub const STORM_SPEED_ARG: &str = "1G";

/// One full pause (65 535 quanta) at `speed`.
pub fn full_pause(speed: LinkSpeed) -> Duration {
    Duration::from_nanos(speed.quanta(0xffff).as_ps() / 1_000)
}

/// The longest gap between two of the storm's PFC frames after which the pause is known to have
/// been kept on at `speed`: a full pause, less a margin for the frame's way to the bridge.
pub fn storm_held(speed: LinkSpeed) -> Duration {
    full_pause(speed) * 49 / 50
}

/// Runs `attempt` (which starts a [`Storm`] at a bridge whose ports run at `speed`, and returns
/// its longest gap) until the storm kept its pause on through it, at most five times. A run in
/// which the storm's threads were all held off their cores past a pause's length says nothing
/// of what it tests (the pause ran out on the wire), so it is run again, loudly, rather than
/// failed; five such runs fail.
pub fn while_storm_held<T>(
    what: &str,
    speed: LinkSpeed,
    mut attempt: impl FnMut() -> (T, Duration),
) -> T {
    let mut gaps = Vec::new();
    for _ in 0..5 {
        let (result, gap) = attempt();
        if gap < storm_held(speed) {
            return result;
        }
        eprintln!(
            "{what}: the storm's longest gap between PFC frames was {gap:?}, past a pause's \
             length on a starved machine: the run says nothing and is run again"
        );
        gaps.push(gap);
    }
    panic!("{what}: h2 could not keep its pause on in five runs (longest gaps {gaps:?})");
}

/// h2 pausing priority 3 without end, as a NIC's PFC generator would, which no load on the
/// host holds up. Two threads send it, one pinned to each of the first two cores, each with
/// real-time priority and a socket of its own, each a PFC frame every half millisecond, until
/// stopped: a core held in the kernel does not hold up the other thread. (Both cores can still
/// be held at once for several milliseconds: see [`STORM_SPEED`].)
pub struct Storm {
    running: std::sync::Arc<std::sync::atomic::AtomicBool>,
    threads: Vec<std::thread::JoinHandle<Vec<Instant>>>,
}

/// The cores the storm's threads are pinned to, one each.
const STORM_CORES: [usize; 2] = [0, 1];

impl Storm {
    /// From h2 (namespace `h2`, interface eth0).
    pub fn start(h2: &Netns) -> Storm {
        Storm::of(h2, pfc(1 << 3, 0xffff))
    }

    /// An 802.3x PAUSE storm (65 535 quanta each) from the host in namespace `ns`.
    pub fn link_pause(ns: &Netns, src: MacAddr) -> Storm {
        Storm::of(ns, dataplane::wire::PauseFrame::new(src, 0xffff).to_vec())
    }

    /// `frame` sent every half millisecond from the host in `ns` (interface eth0) by each of
    /// the storm's threads.
    pub fn of(ns: &Netns, frame: Vec<u8>) -> Storm {
        let running = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let (first_sent, first) = std::sync::mpsc::channel();
        let threads = STORM_CORES
            .iter()
            .map(|&core| {
                let options = RawOptions::default();
                let mut port = in_netns(ns, || RawPort::open("eth0", &options)).expect("socket");
                let (running, frame, first_sent) =
                    (running.clone(), frame.clone(), first_sent.clone());
                std::thread::spawn(move || {
                    let tid = nix::unistd::gettid().to_string();
                    // Not checked: on a machine with one core both threads run on it.
                    let _ = Command::new("/usr/bin/taskset")
                        .args(["-p", "-c", &core.to_string(), &tid])
                        .stdout(std::process::Stdio::null())
                        .status();
                    let chrt =
                        Command::new("/usr/bin/chrt").args(["-f", "-p", "50", &tid]).status();
                    assert!(
                        chrt.is_ok_and(|s| s.success()),
                        "chrt gives the storm real-time priority"
                    );
                    let mut sent = Vec::with_capacity(20_000);
                    while running.load(std::sync::atomic::Ordering::Relaxed) {
                        send(&mut port, &frame);
                        if sent.is_empty() {
                            let _ = first_sent.send(());
                        }
                        sent.push(Instant::now());
                        std::thread::sleep(Duration::from_micros(500));
                    }
                    sent
                })
            })
            .collect();
        // The first PFC frame is out, and the bridge has had a moment to take it, before the
        // test sends anything.
        first.recv_timeout(Duration::from_secs(10)).expect("the storm's first PFC frame");
        std::thread::sleep(Duration::from_millis(1));
        Storm { running, threads }
    }

    /// Stops the storm; the longest gap between two of its PFC frames, whichever thread sent
    /// them.
    pub fn stop(self) -> Duration {
        self.running.store(false, std::sync::atomic::Ordering::Relaxed);
        let mut sent: Vec<Instant> =
            self.threads.into_iter().flat_map(|t| t.join().expect("storm thread")).collect();
        sent.sort_unstable();
        sent.windows(2).map(|w| w[1] - w[0]).max().unwrap_or_default()
    }
}
