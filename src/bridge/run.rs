//! The bridge's loop, on one thread: receive from every port, run the pipeline up to the wall
//! clock, send what it sent, let each port's PFC initiator ask for pauses, publish state, and
//! sleep in `ppoll(2)` until a frame arrives or there is work due.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use dataplane::io::{FramePort, RxBatch};
use dataplane::pipeline::Departure;
use dataplane::time::Picos;
use dataplane::wire::PRIORITIES;
use nix::poll::{PollFd, PollFlags};
use nix::sys::time::TimeSpec;
use tracing::{info, warn};

use dataplane::headroom::measure::Interface;

use super::forward::Forwarder;
use super::port::BridgePort;
use super::snapshot::BridgeSnapshot;
use super::BridgeIo;

/// Frames taken from one port before the others get a turn.
const RX_BURST: usize = 32;
/// Frames handed to one port's socket per system call.
const TX_BURST: usize = 64;
/// How long the loop sleeps while frames are in the bridge: the pipeline's clock must follow
/// the wall clock closely for the wire rate and the pause reaction.
const BUSY_WAIT: Duration = Duration::from_micros(20);
/// The longest sleep with nothing to do (the stop flag is looked at this often).
const IDLE_WAIT: Duration = Duration::from_millis(50);
/// State is published this often.
const PUBLISH_EVERY: Duration = Duration::from_millis(100);
/// Learned addresses are aged this often.
const AGE_EVERY: Duration = Duration::from_secs(1);

/// What ties the loop to the rest of pfcd.
pub struct Links {
    /// Set to stop the loop.
    pub stop: Arc<AtomicBool>,
    /// Where the state goes.
    pub published: Arc<Mutex<BridgeSnapshot>>,
    pub controls: std::sync::mpsc::Receiver<super::control::Control>,
    /// Readable when a control was sent.
    pub woken: std::os::unix::net::UnixDatagram,
    pub speed: dataplane::time::LinkSpeed,
}

/// Runs the bridge until `links.stop` is set; `watch` follows the ports' interfaces.
pub fn run<P: BridgeIo>(
    mut ports: Vec<BridgePort<P>>,
    mut fwd: Forwarder,
    links: Links,
    mut watch: super::links::LinkWatch<P>,
) {
    let Links { stop, published, controls, woken, speed } = links;
    // Sleeps of tens of microseconds need the timer slack (50 µs by default) to be small.
    if let Err(e) = nix::sys::prctl::set_timerslack(1_000) {
        warn!(error = %e, "cannot reduce the timer slack; pauses may react later");
    }
    let start = Instant::now();
    // The same moment on the clock the kernel stamps received frames with.
    let start_unix =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let cycle_ps = fwd.engine.config().cycle.as_ps().max(1);
    // Slots for the largest frame the bridge forwards, its VLAN tag restored; larger ones
    // are dropped by the socket layer and counted there.
    let mut batches: Vec<RxBatch> =
        ports.iter().map(|_| RxBatch::new(RX_BURST, fwd.max_len + 4)).collect();
    let mut departures: Vec<Departure> = Vec::new();
    let mut last_publish = start;
    let mut last_age = start;
    while !stop.load(Ordering::Relaxed) {
        while let Ok(c) = controls.try_recv() {
            super::control::apply(c, &mut ports, &mut fwd, speed);
        }
        super::control::change_mode(&mut fwd);
        let wall = Instant::now();
        let now = Picos((wall - start).as_nanos() as u64 * 1_000);
        let received = receive(&mut ports, &mut batches, &mut fwd, Clock { start_unix, now });
        // Pauses that have ended (by XON or by time) close their reaction sample before this
        // turn's frames are sent: a frame sent after the end is not a late one.
        for port in ports.iter_mut() {
            track_resumes(port, now);
        }
        // The pipeline catches up with the wall clock.
        let target = now.as_ps() / cycle_ps;
        let behind = target.saturating_sub(fwd.engine.now().as_ps() / cycle_ps);
        fwd.engine.run(behind);
        fwd.engine.take_departures(&mut departures);
        let sent_at = Instant::now();
        let moved = received > 0 || !departures.is_empty();
        for d in departures.drain(..) {
            let p = usize::from(d.port);
            if p < ports.len() {
                ports[p].tx_backlog.push_back(d.buffer);
            }
        }
        watch.step(&mut ports, &mut fwd, wall);
        for p in 0..ports.len() {
            flush_backlog(&mut ports, p, &mut fwd, sent_at);
        }
        for port in ports.iter_mut() {
            pfc_initiator(port, now);
            headroom_measurement(port, start);
        }
        if wall - last_age >= AGE_EVERY {
            fwd.fdb.age(wall);
            last_age = wall;
        }
        if wall - last_publish >= PUBLISH_EVERY {
            publish(&published, &ports, &fwd);
            last_publish = wall;
        }
        wait(&ports, &fwd, now, moved, &woken);
    }
    publish(&published, &ports, &fwd);
}

/// Takes what every port has received, then hands the MAC Control frames of all ports to
/// their MACs before any data frame is forwarded: within one turn of the loop the order of
/// arrival across ports is not known, and a PFC frame that came in while the loop was busy
/// must not let data that came in after it leave first.
fn receive<P: BridgeIo>(
    ports: &mut [BridgePort<P>],
    batches: &mut [RxBatch],
    fwd: &mut Forwarder,
    clock: Clock,
) -> usize {
    for (port, batch) in ports.iter_mut().zip(batches.iter_mut()) {
        if let Err(e) = port.io.recv_many(batch) {
            warn!(port = %port.setup.name, error = %e, "receive failed");
        }
    }
    let at = Instant::now();
    for control_pass in [true, false] {
        for (i, batch) in batches.iter().enumerate() {
            for k in 0..batch.len() {
                let Some(frame) = batch.get(k) else { continue };
                if is_mac_control(frame) == control_pass {
                    let arrived = clock.arrival(batch.received_ns(k), fwd.engine.now());
                    fwd.receive(ports, i, frame, at, arrived);
                }
            }
        }
    }
    batches.iter().map(RxBatch::len).sum()
}

/// The loop's clock: when it started on the kernel's receive clock, and the present turn.
#[derive(Debug, Clone, Copy)]
struct Clock {
    start_unix: Duration,
    now: Picos,
}

impl Clock {
    /// A frame's arrival in the pipeline's time: the kernel's receive time (CLOCK_REALTIME
    /// nanoseconds), no earlier than the pipeline (which cannot go back) and no later than this
    /// turn; this turn without one.
    fn arrival(&self, received_ns: Option<u64>, pipeline: Picos) -> Picos {
        let Some(ns) = received_ns else { return self.now };
        let since_start = Duration::from_nanos(ns).saturating_sub(self.start_unix);
        Picos(since_start.as_nanos() as u64 * 1_000).max(pipeline).min(self.now)
    }
}

/// An untagged frame of EtherType 88-08.
fn is_mac_control(frame: &[u8]) -> bool {
    frame.get(12..14) == Some(&[0x88, 0x08][..])
}

/// Sends port `p`'s waiting frames, in order and many per system call, until the socket
/// refuses one for now.
fn flush_backlog<P: BridgeIo>(
    ports: &mut [BridgePort<P>],
    p: usize,
    fwd: &mut Forwarder,
    at: Instant,
) {
    while !ports[p].tx_backlog.is_empty() {
        let handles: Vec<u32> = ports[p].tx_backlog.iter().take(TX_BURST).copied().collect();
        let frames: Vec<&[u8]> = handles.iter().map(|h| fwd.store.get(*h)).collect();
        let port = &mut ports[p];
        let (sent, failed) = match port.io.send_many(&frames) {
            Ok(n) => (n, false),
            Err(e) if would_block(&e) => (0, false),
            Err(e) => {
                port.counters.tx_errors += 1;
                if port.counters.tx_errors == 1 {
                    warn!(port = %port.setup.name, error = %e, "send failed; frames to it are dropped and counted");
                }
                // The head frame is given up, so one bad frame cannot hold the port.
                (0, true)
            }
        };
        for (handle, frame) in handles.iter().zip(&frames).take(sent) {
            let priority = frame_priority(fwd, *handle);
            port.counters.tx_frames += 1;
            port.counters.tx_octets += frame.len() as u64;
            port.counters.tx_per_priority[priority] += 1;
            port.reaction.sent(priority, at);
        }
        let done = if failed { 1 } else { sent };
        drop(frames);
        for handle in ports[p].tx_backlog.drain(..done).collect::<Vec<_>>() {
            fwd.release(ports, handle);
        }
        if done < handles.len() && !failed {
            return;
        }
    }
}

fn frame_priority(fwd: &Forwarder, handle: u32) -> usize {
    fwd.store.priority(handle).map_or(0, usize::from) % PRIORITIES
}

fn would_block(e: &dataplane::io::IoError) -> bool {
    match e {
        dataplane::io::IoError::Os { source, .. } => {
            source.kind() == std::io::ErrorKind::WouldBlock
                || source.raw_os_error() == Some(nix::libc::ENOBUFS)
        }
        dataplane::io::IoError::NoSuchInterface(_) => false,
    }
}

/// Closes the reaction samples of pauses that have ended.
fn track_resumes<P>(port: &mut BridgePort<P>, now: Picos) {
    for n in 0..PRIORITIES {
        if port.reaction.is_paused(n) && !port.receiver.priority_paused(now, n) {
            port.reaction.resumed(n);
        }
    }
}

/// The port's PFC initiator asks the peer to pause the priorities whose buffer is past XOFF,
/// refreshes those pauses, and releases them (XON) below XON.
fn pfc_initiator<P: FramePort>(port: &mut BridgePort<P>, now: Picos) {
    let xoff = port.ingress.xoff();
    for n in 0..PRIORITIES {
        port.initiator.set_xoff(n, xoff & (1 << n) != 0);
    }
    while let Some(control) = port.initiator.poll(now) {
        match port.io.send(&control.to_vec()) {
            Ok(()) => port.counters.pfc_requests += 1,
            Err(e) => {
                port.counters.tx_errors += 1;
                warn!(port = %port.setup.name, error = %e, "cannot send a PFC frame");
                break;
            }
        }
    }
}

/// The port's measurement participant sends what it has (requests, responses), and a new
/// estimate is put in force.
fn headroom_measurement<P: FramePort>(port: &mut BridgePort<P>, start: Instant) {
    let Some(m) = port.measure.as_mut() else { return };
    // The clock read just before the HMPDU goes to the socket, not at the start of the turn:
    // a request's timestamp and a response's adjustment are then off by the send call alone.
    let now = Picos(start.elapsed().as_nanos() as u64 * 1_000);
    while m.wants_transmit(now, Interface::Unprotected) {
        let Some(pdu) = m.poll_transmit(now, Interface::Unprotected, Picos::ZERO) else { break };
        if let Err(e) = port.io.send(&pdu.to_vec()) {
            port.counters.tx_errors += 1;
            warn!(port = %port.setup.name, error = %e, "cannot send an HMPDU");
            break;
        }
    }
    for r in m.take_results() {
        if port.results.len() == super::port::RESULTS_KEPT {
            port.results.pop_front();
        }
        port.results.push_back(r);
    }
    if port.follow_measurement() {
        info!(
            port = %port.setup.name,
            bits = port.headroom_bits,
            round_trip_quanta = ?port.measure.as_ref().and_then(|m| m.round_trip_quanta()),
            "measured headroom allowance in force"
        );
    }
}

/// Sleeps until a frame arrives on any port, or the next thing due: soon while frames are
/// moving through the bridge (`moved`: some came in or left in this turn), or wait for the
/// socket; otherwise at the next PFC refresh, pause end or measurement deadline. Frames held by
/// a pause wait without the loop spinning: a PFC storm costs no CPU.
fn wait<P: BridgeIo>(
    ports: &[BridgePort<P>],
    fwd: &Forwarder,
    now: Picos,
    moved: bool,
    woken: &std::os::unix::net::UnixDatagram,
) {
    let backlog = ports.iter().any(|p| !p.tx_backlog.is_empty());
    let busy = backlog || (moved && fwd.store.in_use() > 0);
    let mut timeout = if busy { BUSY_WAIT } else { IDLE_WAIT };
    for port in ports {
        let due = [
            port.initiator.next_refresh(now),
            port.receiver.next_resume(now),
            port.measure.as_ref().and_then(|m| m.next_deadline()),
        ];
        for t in due.into_iter().flatten() {
            let ps = t.as_ps().saturating_sub(now.as_ps());
            timeout = timeout.min(Duration::from_nanos(ps / 1_000).max(Duration::from_micros(1)));
        }
    }
    let mut fds: Vec<PollFd> =
        ports.iter().map(|p| PollFd::new(p.io.as_fd(), PollFlags::POLLIN)).collect();
    fds.push(PollFd::new(std::os::fd::AsFd::as_fd(woken), PollFlags::POLLIN));
    let ts = TimeSpec::from_duration(timeout);
    // EINTR and the like: the loop comes straight back here if there is still nothing to do.
    let _ = nix::poll::ppoll(&mut fds, Some(ts), None);
    let mut byte = [0u8; 8];
    while woken.recv(&mut byte).is_ok() {}
}

fn publish<P>(published: &Mutex<BridgeSnapshot>, ports: &[BridgePort<P>], fwd: &Forwarder) {
    let snapshot = BridgeSnapshot::take(ports, fwd);
    *published.lock().unwrap_or_else(PoisonError::into_inner) = snapshot;
}
