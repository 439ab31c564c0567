//! The bridge's loop, on one thread: receive from every port, run the pipeline up to the wall
//! clock, send what it sent, let each port's PFC initiator ask for pauses, publish state, and
//! sleep in `ppoll(2)` until a frame arrives or there is work due.

use std::os::fd::{AsFd, BorrowedFd};
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

use super::epoch::{rebase_when_idle, Epoch};
use super::forward::Forwarder;
use super::port::BridgePort;
use super::reaction::now_ns;
use super::receive::{count_kernel_drops, receive, Batches, Clock, CONTROL_BURST, RX_BURST};
use super::snapshot::BridgeSnapshot;
use super::transmit::{flush_backlog, frame_priority};
use super::BridgeIo;

/// How long the loop sleeps while frames are in the bridge: the pipeline's clock must follow
/// the wall clock closely for the wire rate and the pause reaction.
const BUSY_WAIT: Duration = Duration::from_micros(20);
/// How long the loop looks at the receive rings before it sleeps, after a turn that moved
/// frames: at the rates that keep it busy the next frame comes sooner, and a sleep and a
/// wake-up cost more than the look.
const SPIN: Duration = Duration::from_micros(10);
/// The longest sleep with nothing to do (the stop flag is looked at this often).
const IDLE_WAIT: Duration = Duration::from_millis(50);
/// State is published this often.
const PUBLISH_EVERY: Duration = Duration::from_millis(100);
/// Learned addresses looked at for ageing per turn of the loop: a few each turn, never the
/// whole table at once.
const AGE_PER_TURN: usize = 64;

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
    let mut epoch = Epoch::now();
    let cycle_ps = fwd.engine.config().cycle.as_ps().max(1);
    // Slots for the largest frame the bridge forwards, its VLAN tag restored; larger ones
    // are dropped by the socket layer and counted there.
    let mut batches = Batches {
        data: ports.iter().map(|_| RxBatch::new(RX_BURST, fwd.max_len + 4)).collect(),
        control: RxBatch::new(CONTROL_BURST, fwd.max_len + 4),
        tagged: Vec::with_capacity(fwd.max_len + 4),
    };
    let mut departures: Vec<Departure> = Vec::new();
    let mut last_publish = epoch.start;
    while !stop.load(Ordering::Relaxed) {
        let mut byte = [0u8; 8];
        while woken.recv(&mut byte).is_ok() {}
        while let Ok(c) = controls.try_recv() {
            super::control::apply(c, &mut ports, &mut fwd, speed);
        }
        super::control::change_mode(&mut fwd);
        super::control::change_traffic_classes(&mut ports, &mut fwd);
        let wall = Instant::now();
        let mut now = epoch.at(wall);
        if rebase_when_idle(&mut epoch, wall, now, &mut ports, &mut fwd) {
            now = epoch.at(wall);
        }
        let clock = Clock { start: epoch.start, start_unix: epoch.start_unix, now };
        for port in ports.iter_mut() {
            port.keeper_turn();
            if let Some(at) = port.io.take_kept_pause() {
                port.initiator.paused_elsewhere(epoch.at(at), port.setup.pfc_enable);
            }
        }
        let received = receive(&mut ports, &mut batches, &mut fwd, &clock);
        // Pauses that have ended (by XON or by time) close their reaction sample before this
        // turn's frames are sent: a frame sent after the end is not a late one.
        for (i, port) in ports.iter_mut().enumerate() {
            track_resumes(port, now);
            super::watchdog::step(port, i, &mut fwd, now, epoch.start_unix);
        }
        // The pipeline catches up with the wall clock.
        let target = now.as_ps() / cycle_ps;
        let behind = target.saturating_sub(fwd.engine.now().as_ps() / cycle_ps);
        fwd.engine.run(behind);
        fwd.engine.take_departures(&mut departures);
        let moved = received > 0 || !departures.is_empty();
        for d in departures.drain(..) {
            let p = usize::from(d.port);
            if p < ports.len() {
                ports[p].tx_backlog.push_back(d.buffer);
            }
        }
        watch.step(&mut ports, &mut fwd, wall);
        // PFC before data: an XOFF this turn's receive asked for leaves before the turn's
        // frames. A port whose link is down sends nothing (its frames are dropped by the watch).
        for port in ports.iter_mut().filter(|p| p.link_up) {
            pfc_initiator(port, now);
            headroom_measurement(port, epoch.start);
        }
        // What a transmit ring still holds goes before anything newer.
        let mut transmit_waits = false;
        for port in ports.iter_mut() {
            transmit_waits |= port.io.flush_transmit();
        }
        let mut more_due = false;
        for p in 0..ports.len() {
            more_due |= flush_backlog(&mut ports, p, &mut fwd, &mut batches.control, &clock);
        }
        fwd.fdb.age(wall, AGE_PER_TURN);
        if wall - last_publish >= PUBLISH_EVERY {
            count_kernel_drops(&mut ports);
            publish(&published, &ports, &fwd);
            last_publish = wall;
        }
        let frames_coming = !more_due && moved && frames_come_soon(&ports);
        if !(more_due || frames_coming) {
            let wakers = [Some(woken.as_fd()), watch.notifications()];
            wait(&ports, &fwd, now, (moved, transmit_waits), wakers);
        }
    }
    publish(&published, &ports, &fwd);
}

/// Whether a frame comes into a receive ring within [`SPIN`], looked at without a system call.
fn frames_come_soon<P: BridgeIo>(ports: &[BridgePort<P>]) -> bool {
    let start = Instant::now();
    loop {
        if ports.iter().any(|p| !p.rx_held && p.io.frames_waiting()) {
            return true;
        }
        if start.elapsed() >= SPIN {
            return false;
        }
        std::hint::spin_loop();
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
    let xoff = port.xoff();
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
fn headroom_measurement<P: BridgeIo>(port: &mut BridgePort<P>, start: Instant) {
    let Some(m) = port.measure.as_mut() else { return };
    // The clock read just before the HMPDU goes to the socket, not at the start of the turn:
    // a request's timestamp and a response's adjustment are then off by the send path alone,
    // which the transmit timestamps measure (`handover.rs` says why it is not taken out).
    let now = Picos::from_duration(start.elapsed());
    let stamped_ns = now_ns();
    while m.wants_transmit(now, Interface::Unprotected) {
        let Some(pdu) = m.poll_transmit(now, Interface::Unprotected, Picos::ZERO) else { break };
        match port.io.send_stamped(&pdu.to_vec()) {
            Ok(Some(sent_ns)) => port.handover.sample(stamped_ns, sent_ns),
            Ok(None) => {}
            Err(e) => {
                port.counters.tx_errors += 1;
                warn!(port = %port.setup.name, error = %e, "cannot send an HMPDU");
                break;
            }
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

/// Sleeps until a frame arrives on any port, a waker is readable (a control was sent, the
/// kernel told of a link change), or the next thing due: soon while frames are
/// moving through the bridge (`moved`: some came in or left in this turn) or a transmit ring
/// still holds some (`transmit_waits`: the interface was busy); otherwise at the next PFC
/// refresh, pause end or measurement deadline. Frames held by
/// a pause wait without the loop spinning: a PFC storm costs no CPU.
fn wait<P: BridgeIo>(
    ports: &[BridgePort<P>],
    fwd: &Forwarder,
    now: Picos,
    (moved, transmit_waits): (bool, bool),
    wakers: [Option<BorrowedFd<'_>>; 2],
) {
    // Frames held for a pause wait for its end (below), not in a spin.
    let backlog = ports.iter().any(|p| {
        let stopped = p.stopped(now);
        p.tx_backlog.iter().any(|h| stopped & (1 << frame_priority(fwd, *h)) == 0)
    });
    let busy = backlog || transmit_waits || (moved && fwd.store.in_use() > 0);
    let mut timeout = if busy { BUSY_WAIT } else { IDLE_WAIT };
    for port in ports {
        let due = [
            port.initiator.next_refresh(now),
            port.receiver.next_resume(now),
            port.measure.as_ref().and_then(|m| m.next_deadline()),
            port.watchdog.next_deadline(),
        ];
        for t in due.into_iter().flatten() {
            let ps = t.as_ps().saturating_sub(now.as_ps());
            timeout = timeout.min(Duration::from_nanos(ps / 1_000).max(Duration::from_micros(1)));
        }
    }
    // A ring whose front frame waits for buffer room is readable until frames leave: not
    // waited for (what frees the room is a send, due at one of the times above).
    let mut fds: Vec<PollFd> = ports
        .iter()
        .flat_map(|p| [(!p.rx_held).then(|| p.io.as_fd()), Some(p.io.control_fd())])
        .flatten()
        .map(|fd| PollFd::new(fd, PollFlags::POLLIN))
        .collect();
    fds.extend(wakers.into_iter().flatten().map(|fd| PollFd::new(fd, PollFlags::POLLIN)));
    let ts = TimeSpec::from_duration(timeout);
    // EINTR and the like: the loop comes straight back here if there is still nothing to do.
    let _ = nix::poll::ppoll(&mut fds, Some(ts), None);
    // A link that went down leaves its error (ENETDOWN) on the port's sockets, and a socket
    // with an error is always ready: taken, or the loop would spin (the link watch follows
    // the link from the kernel's notifications, not from these errors).
    if fds.iter().any(|f| f.revents().is_some_and(|r| r.contains(PollFlags::POLLERR))) {
        drop(fds);
        for port in ports {
            port.io.take_socket_errors();
        }
    }
}

fn publish<P>(published: &Mutex<BridgeSnapshot>, ports: &[BridgePort<P>], fwd: &Forwarder) {
    let snapshot = BridgeSnapshot::take(ports, fwd);
    *published.lock().unwrap_or_else(PoisonError::into_inner) = snapshot;
}
