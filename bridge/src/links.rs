//! Following each port's interface while the bridge runs: its link going down and up, and the
//! interface deleted and created again under its name (a veth made anew, a driver reloaded).
//!
//! The loop hands every turn to [`LinkWatch::step`], which looks at the interfaces (sysfs:
//! index, MAC address, carrier) when the kernel tells of a link change (rtnetlink, which the
//! loop also sleeps on), every [`WATCH_EVERY`] in any case, and at once after a send error on a
//! port thought up. Then:
//!
//! - **link down** (or the interface gone): the addresses learned on the port are forgotten
//!   (frames to them are flooded, not sent into a dead port until ageing), and frames that were
//!   to leave on it are dropped and counted (`link_down_drops`) for as long as it stays down,
//!   their copies released so the ingress buffers they occupied are freed;
//! - **link up**: forwarding resumes; the measurement participant's hmOperUp follows the link;
//! - **a new interface index**: the old socket is bound to an interface that no longer exists
//!   and never works again, so the port is opened anew with the `open` the bridge started with
//!   (tried again every [`WATCH_EVERY`] until it works, logged once). Counters, buffers and
//!   configuration stay; a new MAC address is taken by the MAC halves and the participant
//!   ([`BridgePort::readdress`]).

use std::time::{Duration, Instant};

use dataplane::io::{link, FollowedLink, FramePort, IoError, Seen};
use dataplane::wire::MacAddr;
use pfc_logging::link as words;
use tracing::{info, warn};

use super::forward::Forwarder;
use super::port::BridgePort;

/// How often every port's interface is looked at.
pub const WATCH_EVERY: Duration = Duration::from_millis(200);
/// A send error brings the next look forward, but no more often than this (a port whose
/// sends fail for another reason costs a few sysfs reads a few times a second, not a spin).
const ERROR_LOOK_EVERY: Duration = Duration::from_millis(5);

/// Opens a port's interface by name: what `Bridge::start` was given, kept for reopening.
pub type Open<P> = Box<dyn Fn(&str) -> Result<P, IoError> + Send>;

/// Reads an interface's state (sysfs; a test gives its own).
pub type Probe = Box<dyn Fn(&str) -> Seen + Send>;

/// What the watch knows of one port.
#[derive(Debug, Clone)]
struct Watched {
    link: FollowedLink,
    /// The port's `tx_errors` at the last turn.
    tx_errors: u64,
}

/// Every port's interface, followed.
pub struct LinkWatch<P> {
    open: Open<P>,
    probe: Probe,
    watched: Vec<Watched>,
    last_look: Option<Instant>,
    /// The kernel's link notifications (rtnetlink): a change is looked at in the turn it is
    /// told, not at the next [`WATCH_EVERY`]. Without it (no netlink), the periodic look.
    netlink: Option<link::LinkWatcher>,
}

impl<P: FramePort> LinkWatch<P> {
    /// `seen[i]`: port `i`'s interface just before its socket was opened (a socket opened on
    /// an interface re-created since is then reopened once, needlessly, rather than never).
    /// Sets each port's link state from it.
    pub fn new(ports: &mut [BridgePort<P>], seen: &[Seen], open: Open<P>) -> Self {
        let netlink = link::LinkWatcher::new()
            .inspect_err(
                |e| warn!(error = %e, "no link notifications: links are looked at periodically"),
            )
            .ok();
        LinkWatch { netlink, ..LinkWatch::with_probe(ports, seen, open, Box::new(Seen::probe)) }
    }

    /// Readable when the kernel tells of a link change (the loop sleeps on it too).
    pub fn notifications(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        self.netlink.as_ref().map(std::os::fd::AsFd::as_fd)
    }

    /// The same, reading interfaces with `probe`.
    pub fn with_probe(
        ports: &mut [BridgePort<P>],
        seen: &[Seen],
        open: Open<P>,
        probe: Probe,
    ) -> Self {
        let watched = ports
            .iter_mut()
            .zip(seen)
            .map(|(port, seen)| {
                let link = FollowedLink::new(*seen);
                set_link(port, link.is_up());
                Watched { link, tx_errors: port.counters.tx_errors }
            })
            .collect();
        LinkWatch { open, probe, watched, last_look: Some(Instant::now()), netlink: None }
    }

    /// One turn of the loop, at `now`: looks at the interfaces when due and follows what
    /// changed; drops what waits for a port whose link is down.
    pub fn step(&mut self, ports: &mut [BridgePort<P>], fwd: &mut Forwarder, now: Instant) {
        let since = self.last_look.map(|t| now.saturating_duration_since(t));
        let failed_send = ports
            .iter()
            .zip(&self.watched)
            .any(|(p, w)| p.link_up && p.counters.tx_errors != w.tx_errors);
        let told = self.netlink.as_ref().is_some_and(link::LinkWatcher::drain);
        let due = told
            || since.is_none_or(|s| s >= WATCH_EVERY || (failed_send && s >= ERROR_LOOK_EVERY));
        if due {
            self.last_look = Some(now);
            for i in 0..ports.len().min(self.watched.len()) {
                let seen = (self.probe)(&ports[i].setup.name);
                self.follow(ports, fwd, i, seen);
            }
        }
        for (i, w) in self.watched.iter_mut().enumerate() {
            if let Some(port) = ports.get(i) {
                w.tx_errors = port.counters.tx_errors;
            }
        }
        for i in 0..ports.len() {
            if !ports[i].link_up {
                drop_backlog(ports, fwd, i);
            }
        }
    }

    /// Port `i`'s interface as `seen` now.
    fn follow(&mut self, ports: &mut [BridgePort<P>], fwd: &mut Forwarder, i: usize, seen: Seen) {
        let w = &mut self.watched[i];
        let name = ports[i].setup.name.clone();
        let look = w.link.look(seen);
        if look.gone {
            warn!(port = %name, socket = "frames", "{}", words::GONE);
        }
        // A socket to reopen is a link down, whatever follows.
        self.settle(ports, fwd, i);
        let w = &mut self.watched[i];
        if let Some((ifindex, _)) = look.reopen {
            match (self.open)(&name) {
                Ok(io) => {
                    let port = &mut ports[i];
                    let mac = io.mac();
                    port.io = io;
                    port.counters.reopened += 1;
                    w.link.reopened(ifindex, mac);
                    info!(port = %name, socket = "frames", ifindex, %mac, "{}", words::REOPENED);
                    readdress(port, mac);
                }
                Err(e) => {
                    if w.link.reopen_failed() {
                        warn!(port = %name, socket = "frames", error = %e, every = ?WATCH_EVERY, "{}", words::REOPEN_FAILED);
                    }
                }
            }
        }
        if let Some(mac) = look.readdressed {
            readdress(&mut ports[i], mac);
        }
        self.settle(ports, fwd, i);
    }

    /// Port `i` takes its link's state where that changed.
    fn settle(&mut self, ports: &mut [BridgePort<P>], fwd: &mut Forwarder, i: usize) {
        if let Some(up) = self.watched[i].link.link() {
            if up != ports[i].link_up {
                transition(ports, fwd, i, up);
            }
        }
    }
}

/// The port's link went down (`up` false) or came up.
fn transition<P>(ports: &mut [BridgePort<P>], fwd: &mut Forwarder, i: usize, up: bool) {
    let port = &mut ports[i];
    set_link(port, up);
    port.counters.link_changes += 1;
    if up {
        info!(port = %port.setup.name, "link up: forwarding");
        return;
    }
    let before = fwd.fdb.len();
    fwd.fdb.flush_port(i);
    let waiting = port.tx_backlog.len();
    warn!(
        port = %port.setup.name,
        addresses_forgotten = before - fwd.fdb.len(),
        frames_dropped = waiting,
        "link down: addresses learned on the port forgotten, frames to it dropped until it is up"
    );
    drop_backlog(ports, fwd, i);
}

fn set_link<P>(port: &mut BridgePort<P>, up: bool) {
    port.link_up = up;
    if let Some(m) = port.measure.as_mut() {
        m.set_oper_up(up);
    }
}

/// Port `i`'s frames waiting for its socket are dropped and counted, and their copies
/// released (the last copy frees the ingress buffer the frame occupied).
fn drop_backlog<P>(ports: &mut [BridgePort<P>], fwd: &mut Forwarder, i: usize) {
    let waiting = std::mem::take(&mut ports[i].tx_backlog);
    ports[i].counters.link_down_drops += waiting.len() as u64;
    for handle in waiting {
        fwd.release(ports, handle, i);
    }
}

/// The port takes `mac` if it is a new address.
fn readdress<P>(port: &mut BridgePort<P>, mac: MacAddr) {
    if mac == port.mac {
        return;
    }
    let old = port.mac;
    match port.readdress(mac) {
        Ok(()) => {
            info!(port = %port.setup.name, %old, new = %mac, "the port's MAC address changed")
        }
        Err(e) => {
            warn!(port = %port.setup.name, error = %e, "new MAC address not taken: PFC and HMPDUs keep the old")
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::fd::{AsFd, BorrowedFd};
    use std::os::unix::net::UnixDatagram;
    use std::sync::{Arc, Mutex};

    use dataplane::pipeline::{PauseMode, Pipeline};
    use dataplane::time::{LinkSpeed, Picos};
    use dataplane::wire::MacControl;

    use super::super::port::BridgePortSetup;
    use super::super::{fdb, forward, pipeline_config, store};
    use super::*;

    const OLD: MacAddr = MacAddr([2, 0, 0, 0, 0x0f, 0x02]);
    const NEW: MacAddr = MacAddr([2, 0, 0, 0, 0x0f, 0x12]);
    const STATION: MacAddr = MacAddr([2, 0, 0, 0, 2, 2]);

    /// A port that records what it is asked to send; `generation` tells sockets apart.
    struct Fake {
        name: String,
        mac: MacAddr,
        generation: u32,
        fd: UnixDatagram,
    }

    impl FramePort for Fake {
        fn name(&self) -> &str {
            &self.name
        }
        fn mac(&self) -> MacAddr {
            self.mac
        }
        fn send(&mut self, _frame: &[u8]) -> Result<(), IoError> {
            Ok(())
        }
        fn recv(&mut self, _buf: &mut [u8]) -> Result<Option<usize>, IoError> {
            Ok(None)
        }
    }

    impl AsFd for Fake {
        fn as_fd(&self) -> BorrowedFd<'_> {
            self.fd.as_fd()
        }
    }

    /// What the fake system shows, and how many times the bridge opened a port.
    #[derive(Default)]
    struct System {
        seen: Vec<Seen>,
        opens: u32,
        refuse: bool,
    }

    fn fake(name: &str, mac: MacAddr, generation: u32) -> Fake {
        let (fd, _) = UnixDatagram::pair().expect("socket pair");
        Fake { name: name.into(), mac, generation, fd }
    }

    struct Bench {
        ports: Vec<BridgePort<Fake>>,
        fwd: forward::Forwarder,
        watch: LinkWatch<Fake>,
        system: Arc<Mutex<System>>,
        t: Instant,
    }

    /// Two ports, p1 and p2 (index 1, with `measure`), both up.
    fn bench() -> Bench {
        let speed = LinkSpeed::G10;
        let mut ports: Vec<BridgePort<Fake>> = ["p1", "p2"]
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let mac = if i == 1 { OLD } else { MacAddr([2, 0, 0, 0, 0x0f, 1]) };
                let setup =
                    BridgePortSetup { measure: i == 1, ..BridgePortSetup::new(name, 1 << 3) };
                BridgePort::new(setup, fake(name, mac, 0), mac, speed).expect("port")
            })
            .collect();
        let mut engine =
            Pipeline::new(pipeline_config(2, PauseMode::External, speed, 1522)).expect("engine");
        engine.record_departures();
        let fwd = forward::Forwarder {
            engine,
            fdb: fdb::Fdb::new(fdb::DEFAULT_AGEING),
            store: store::FrameStore::default(),
            max_len: 1522,
            pending_mode: None,
            max_transit: Picos::from_ms(1_000),
            out: Vec::new(),
        };
        let seen = vec![
            Seen { identity: Some((10, ports[0].mac)), up: true },
            Seen { identity: Some((11, OLD)), up: true },
        ];
        let system = Arc::new(Mutex::new(System { seen: seen.clone(), ..System::default() }));
        let open: Open<Fake> = {
            let system = system.clone();
            Box::new(move |name: &str| {
                let mut s = system.lock().expect("system");
                if s.refuse {
                    return Err(IoError::NoSuchInterface(name.into()));
                }
                s.opens += 1;
                let i = usize::from(name == "p2");
                let mac = s.seen[i].identity.map_or(MacAddr::default(), |(_, m)| m);
                Ok(fake(name, mac, s.opens))
            })
        };
        let probe: Probe = {
            let system = system.clone();
            Box::new(move |name: &str| {
                system.lock().expect("system").seen[usize::from(name == "p2")]
            })
        };
        let watch = LinkWatch::with_probe(&mut ports, &seen, open, probe);
        Bench { ports, fwd, watch, system, t: Instant::now() }
    }

    impl Bench {
        fn show(&self, seen: Seen) {
            self.system.lock().expect("system").seen[1] = seen;
        }

        /// The watch's next look (one interval later).
        fn look(&mut self) {
            self.t += WATCH_EVERY;
            self.watch.step(&mut self.ports, &mut self.fwd, self.t);
        }

        /// A frame received on p1 for the station on p2, stored and waiting for p2's socket.
        fn waiting_for_p2(&mut self) {
            let frame = [0u8; 100];
            let p1 = &mut self.ports[0];
            assert!(matches!(
                p1.ingress.admit(3, frame.len()),
                super::super::ingress::Admission::Stored
            ));
            let handle = self.fwd.store.put(&frame, (0, 3, Picos::ZERO), 1);
            self.ports[1].tx_backlog.push_back(handle);
        }
    }

    #[test]
    fn link_down_forgets_the_ports_addresses_and_frees_what_waited_for_it() {
        let mut b = bench();
        b.fwd.fdb.learn(1, STATION, 1, b.t);
        b.fwd.fdb.learn(1, MacAddr([2, 0, 0, 0, 1, 1]), 0, b.t);
        for _ in 0..3 {
            b.waiting_for_p2();
        }
        assert!(b.ports[0].ingress.occupancy(3) > 0);
        b.show(Seen { identity: Some((11, OLD)), up: false });
        b.look();
        let p2 = &b.ports[1];
        assert!(!p2.link_up);
        assert_eq!((p2.counters.link_changes, p2.counters.link_down_drops), (1, 3));
        assert!(p2.tx_backlog.is_empty());
        assert_eq!(b.fdb_port(STATION), fdb::Destination::Flood, "forgotten");
        assert_eq!(b.fwd.fdb.len(), 1, "p1's address stays");
        assert_eq!(b.ports[0].ingress.occupancy(3), 0, "the ingress buffer is freed");
        assert_eq!(b.fwd.store.in_use(), 0);
        assert!(!b.ports[1].measure.as_ref().expect("measuring").oper_up());
        // Frames that come for it while it is down are dropped at every turn.
        b.waiting_for_p2();
        b.t += Duration::from_millis(1);
        b.watch.step(&mut b.ports, &mut b.fwd, b.t);
        assert_eq!(b.ports[1].counters.link_down_drops, 4);
        assert_eq!(b.ports[0].ingress.occupancy(3), 0);
        b.show(Seen { identity: Some((11, OLD)), up: true });
        b.look();
        let p2 = &b.ports[1];
        assert!(p2.link_up);
        assert_eq!((p2.counters.link_changes, p2.counters.reopened), (2, 0), "same socket");
        assert_eq!(p2.io.generation, 0);
        assert!(p2.measure.as_ref().expect("measuring").oper_up());
        b.waiting_for_p2();
        b.look();
        assert_eq!(b.ports[1].tx_backlog.len(), 1, "an up port's frames wait for its socket");
    }

    /// A static entry toward a port survives its link going down and up (only learned
    /// addresses are forgotten), so frames to the station never flood after a flap.
    #[test]
    fn a_link_flap_keeps_the_static_entries_through_the_port() {
        use super::super::static_entries::{PortMap, StaticEntry};
        let mut b = bench();
        let p2 = PortMap::of([1]);
        b.fwd.fdb.set_static(&[StaticEntry { vid: 1, address: STATION, forward: p2 }]);
        b.show(Seen { identity: Some((11, OLD)), up: false });
        b.look();
        assert!(!b.ports[1].link_up);
        assert_eq!(b.fdb_port(STATION), fdb::Destination::Static(p2), "kept while down");
        b.show(Seen { identity: Some((11, OLD)), up: true });
        b.look();
        assert!(b.ports[1].link_up);
        assert_eq!(b.fdb_port(STATION), fdb::Destination::Static(p2), "kept once up");
    }

    impl Bench {
        fn fdb_port(&self, mac: MacAddr) -> fdb::Destination {
            self.fwd.fdb.lookup(1, mac, self.t)
        }
    }

    #[test]
    fn an_interface_created_anew_is_reopened_and_its_new_address_taken() {
        let mut b = bench();
        b.fwd.fdb.learn(1, STATION, 1, b.t);
        b.ports[1].counters.tx_frames = 7;
        let generation = b.ports[1].measure_generation;
        // Deleted: down, waiting for it.
        b.show(Seen { identity: None, up: false });
        b.look();
        assert!(!b.ports[1].link_up);
        assert_eq!(b.fwd.fdb.len(), 0);
        assert_eq!(b.system.lock().expect("system").opens, 0, "nothing to open");
        // Created again: a new index and address, up.
        b.show(Seen { identity: Some((42, NEW)), up: true });
        b.look();
        let p2 = &mut b.ports[1];
        assert!(p2.link_up);
        assert_eq!(p2.io.generation, 1, "a new socket");
        assert_eq!((p2.counters.reopened, p2.counters.link_changes), (1, 2));
        assert_eq!(p2.counters.tx_frames, 7, "counters kept");
        assert_eq!(p2.mac, NEW);
        assert_eq!(p2.measure_generation, generation + 1, "measured again from the new address");
        // Our PFC frames leave from the new address; PFC sent to it is taken.
        p2.initiator.set_xoff(3, true);
        match p2.initiator.poll(Picos::ZERO) {
            Some(MacControl::Pfc(f)) => assert_eq!(f.src, NEW),
            other => panic!("a PFC frame: {other:?}"),
        }
        let to_us = MacControl::Pfc(dataplane::wire::PfcFrame {
            dst: NEW,
            ..dataplane::wire::PfcFrame::pause(STATION, 1 << 3, 100)
        });
        assert!(matches!(
            p2.receiver.receive(Picos::ZERO, &to_us, Picos::ZERO),
            dataplane::mac::RxOutcome::PfcApplied { .. }
        ));
        // Nothing changes: nothing is reopened.
        b.look();
        assert_eq!(b.ports[1].counters.reopened, 1);
        assert_eq!(b.ports[1].counters.link_changes, 2);
    }

    #[test]
    fn a_port_that_cannot_be_reopened_is_tried_at_the_interval_and_a_send_error_looks_at_once() {
        let mut b = bench();
        b.system.lock().expect("system").refuse = true;
        b.show(Seen { identity: Some((42, OLD)), up: true });
        // A send error on p2 (thought up) brings the look forward.
        b.ports[1].counters.tx_errors += 1;
        b.t += ERROR_LOOK_EVERY;
        b.watch.step(&mut b.ports, &mut b.fwd, b.t);
        assert!(!b.ports[1].link_up, "re-created, not reopened: down");
        // Not before the interval.
        b.system.lock().expect("system").refuse = false;
        b.t += Duration::from_millis(50);
        b.watch.step(&mut b.ports, &mut b.fwd, b.t);
        assert_eq!(b.ports[1].counters.reopened, 0);
        b.look();
        assert_eq!(b.ports[1].counters.reopened, 1);
        assert!(b.ports[1].link_up);
        assert_eq!(b.ports[1].mac, OLD, "same address: the MAC halves stay");
    }
}
