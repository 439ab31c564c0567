//! The bridge's loop, on one thread: receive from every port, run the pipeline up to the wall
//! clock, send what it sent, let each port's PFC initiator ask for pauses, publish state, and
//! sleep in `ppoll(2)` until a frame arrives or there is work due.

use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use dataplane::io::FramePort;
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

/// Frames taken from one port before the others get a turn.
const RX_BURST: usize = 32;
/// How long the loop sleeps while frames are in the bridge: the pipeline's clock must follow
/// the wall clock closely for the wire rate and the pause reaction.
const BUSY_WAIT: Duration = Duration::from_micros(20);
/// The longest sleep with nothing to do (the stop flag is looked at this often).
const IDLE_WAIT: Duration = Duration::from_millis(50);
/// State is published this often.
const PUBLISH_EVERY: Duration = Duration::from_millis(100);
/// Learned addresses are aged this often.
const AGE_EVERY: Duration = Duration::from_secs(1);

/// Runs the bridge until `stop` is set.
pub fn run<P: FramePort + AsFd>(
    mut ports: Vec<BridgePort<P>>,
    mut fwd: Forwarder,
    stop: Arc<AtomicBool>,
    published: Arc<Mutex<BridgeSnapshot>>,
) {
    // Sleeps of tens of microseconds need the timer slack (50 µs by default) to be small.
    if let Err(e) = nix::sys::prctl::set_timerslack(1_000) {
        warn!(error = %e, "cannot reduce the timer slack; pauses may react later");
    }
    let start = Instant::now();
    let cycle_ps = fwd.engine.config().cycle.as_ps().max(1);
    let mut buf = vec![0u8; 65_536];
    let mut departures: Vec<Departure> = Vec::new();
    let mut last_publish = start;
    let mut last_age = start;
    while !stop.load(Ordering::Relaxed) {
        let wall = Instant::now();
        let now = Picos((wall - start).as_nanos() as u64 * 1_000);
        for i in 0..ports.len() {
            for _ in 0..RX_BURST {
                match ports[i].io.recv(&mut buf) {
                    Ok(Some(n)) => fwd.receive(&mut ports, i, &buf[..n], Instant::now(), now),
                    Ok(None) => break,
                    Err(e) => {
                        warn!(port = %ports[i].setup.name, error = %e, "receive failed");
                        break;
                    }
                }
            }
        }
        // The pipeline catches up with the wall clock.
        let target = now.as_ps() / cycle_ps;
        let behind = target.saturating_sub(fwd.engine.now().as_ps() / cycle_ps);
        fwd.engine.run(behind);
        fwd.engine.take_departures(&mut departures);
        let sent_at = Instant::now();
        for d in departures.drain(..) {
            let p = usize::from(d.port);
            if p < ports.len() {
                ports[p].tx_backlog.push_back(d.buffer);
            }
        }
        for p in 0..ports.len() {
            flush_backlog(&mut ports, p, &mut fwd, sent_at);
        }
        for port in ports.iter_mut() {
            track_resumes(port, now);
            pfc_initiator(port, now);
            headroom_measurement(port, now);
        }
        if wall - last_age >= AGE_EVERY {
            fwd.fdb.age(wall);
            last_age = wall;
        }
        if wall - last_publish >= PUBLISH_EVERY {
            publish(&published, &ports, &fwd);
            last_publish = wall;
        }
        wait(&ports, &fwd, now);
    }
    publish(&published, &ports, &fwd);
}

/// Sends port `p`'s waiting frames, in order, until the socket refuses one for now.
fn flush_backlog<P: FramePort>(
    ports: &mut [BridgePort<P>],
    p: usize,
    fwd: &mut Forwarder,
    at: Instant,
) {
    while let Some(&handle) = ports[p].tx_backlog.front() {
        let frame = fwd.store.get(handle);
        let priority = frame_priority(fwd, handle);
        let len = frame.len();
        let port = &mut ports[p];
        match port.io.send(frame) {
            Ok(()) => {
                port.counters.tx_frames += 1;
                port.counters.tx_octets += len as u64;
                port.counters.tx_per_priority[priority] += 1;
                port.reaction.sent(priority, at);
            }
            Err(e) if would_block(&e) => return,
            Err(e) => {
                port.counters.tx_errors += 1;
                if port.counters.tx_errors == 1 {
                    warn!(port = %port.setup.name, error = %e, "send failed; frames to it are dropped and counted");
                }
            }
        }
        ports[p].tx_backlog.pop_front();
        fwd.release(ports, handle);
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
fn headroom_measurement<P: FramePort>(port: &mut BridgePort<P>, now: Picos) {
    let Some(m) = port.measure.as_mut() else { return };
    while m.wants_transmit(now, Interface::Unprotected) {
        let Some(pdu) = m.poll_transmit(now, Interface::Unprotected, Picos::ZERO) else { break };
        if let Err(e) = port.io.send(&pdu.to_vec()) {
            port.counters.tx_errors += 1;
            warn!(port = %port.setup.name, error = %e, "cannot send an HMPDU");
            break;
        }
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

/// Sleeps until a frame arrives on any port, or the next thing due: soon while frames are in
/// the bridge, at the next PFC refresh or pause end otherwise.
fn wait<P: AsFd>(ports: &[BridgePort<P>], fwd: &Forwarder, now: Picos) {
    let busy = fwd.store.in_use() > 0 || ports.iter().any(|p| !p.tx_backlog.is_empty());
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
    let ts = TimeSpec::from_duration(timeout);
    // EINTR and the like: the loop comes straight back here if there is still nothing to do.
    let _ = nix::poll::ppoll(&mut fds, Some(ts), None);
}

fn publish<P>(published: &Mutex<BridgeSnapshot>, ports: &[BridgePort<P>], fwd: &Forwarder) {
    let snapshot = BridgeSnapshot::take(ports, fwd);
    *published.lock().unwrap_or_else(PoisonError::into_inner) = snapshot;
}
