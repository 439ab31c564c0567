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

use super::forward::Forwarder;
use super::port::BridgePort;
use super::reaction::now_ns;
use super::snapshot::BridgeSnapshot;
use super::BridgeIo;

/// Frames taken from one port before the others get a turn.
const RX_BURST: usize = 32;
/// Frames handed to one port's socket per system call.
const TX_BURST: usize = 64;
/// MAC Control frames taken per system call.
const CONTROL_BURST: usize = 8;
/// System calls of MAC Control frames in one look at most: a peer flooding PFC frames cannot
/// hold the loop there (what it sent after waits for the next look, a frame later).
const CONTROL_CALLS_PER_LOOK: usize = 4;
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
    let mut batches = Batches {
        data: ports.iter().map(|_| RxBatch::new(RX_BURST, fwd.max_len + 4)).collect(),
        control: RxBatch::new(CONTROL_BURST, fwd.max_len + 4),
    };
    let mut departures: Vec<Departure> = Vec::new();
    let mut last_publish = start;
    let mut last_age = start;
    while !stop.load(Ordering::Relaxed) {
        let mut byte = [0u8; 8];
        while woken.recv(&mut byte).is_ok() {}
        while let Ok(c) = controls.try_recv() {
            super::control::apply(c, &mut ports, &mut fwd, speed);
        }
        super::control::change_mode(&mut fwd);
        super::control::change_traffic_classes(&mut ports, &mut fwd);
        let wall = Instant::now();
        let now = Picos((wall - start).as_nanos() as u64 * 1_000);
        let clock = Clock { start, start_unix, now };
        let received = receive(&mut ports, &mut batches, &mut fwd, &clock);
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
        let moved = received > 0 || !departures.is_empty();
        for d in departures.drain(..) {
            let p = usize::from(d.port);
            if p < ports.len() {
                ports[p].tx_backlog.push_back(d.buffer);
            }
        }
        watch.step(&mut ports, &mut fwd, wall);
        for p in 0..ports.len() {
            flush_backlog(&mut ports, p, &mut fwd, &mut batches.control, &clock);
        }
        // A port whose link is down sends nothing (its frames are dropped by the watch).
        for port in ports.iter_mut().filter(|p| p.link_up) {
            pfc_initiator(port, now);
            headroom_measurement(port, start);
        }
        if wall - last_age >= AGE_EVERY {
            fwd.fdb.age(wall);
            last_age = wall;
        }
        if wall - last_publish >= PUBLISH_EVERY {
            count_kernel_drops(&mut ports);
            publish(&published, &ports, &fwd);
            last_publish = wall;
        }
        wait(&ports, &fwd, now, moved, [Some(woken.as_fd()), watch.notifications()]);
    }
    publish(&published, &ports, &fwd);
}

/// Takes the MAC Control frames of every port first, then every port's other frames: within
/// one turn of the loop the order of arrival across ports is not known, and a PFC frame that
/// came in while the loop was busy must not let data that came in after it leave first.
fn receive<P: BridgeIo>(
    ports: &mut [BridgePort<P>],
    batches: &mut Batches,
    fwd: &mut Forwarder,
    clock: &Clock,
) -> usize {
    let mut got = 0;
    for i in 0..ports.len() {
        got += take_mac_control(ports, i, &mut batches.control, fwd, clock);
    }
    for (port, batch) in ports.iter_mut().zip(batches.data.iter_mut()) {
        if let Err(e) = port.io.recv_many(batch) {
            warn!(port = %port.setup.name, error = %e, "receive failed");
        }
        // A full batch: more waits in the kernel's queue.
        if batch.len() == batch.capacity() || port.behind {
            follow_receive_queue(port);
        }
    }
    let at = Instant::now();
    for (i, batch) in batches.data.iter().enumerate() {
        for k in 0..batch.len() {
            let Some(frame) = batch.get(k) else { continue };
            // Taken from the port's MAC Control socket.
            if is_mac_control(frame) {
                continue;
            }
            let arrived = clock.arrival(batch.received_ns(k), fwd.engine.now());
            fwd.receive(ports, i, frame, at, arrived);
            got += 1;
        }
    }
    got
}

/// Frames waiting in a port's kernel receive queue are in no buffer of ours, and the kernel
/// drops them when the queue is full, whatever their priority: while the bridge is behind (the
/// queue a quarter full) its PFC initiator pauses every PFC priority of the peer, so a sender
/// faster than the bridge is slowed rather than lost.
fn follow_receive_queue<P: BridgeIo>(port: &mut BridgePort<P>) {
    let Some((held, limit)) = port.io.receive_queue() else { return };
    if port.follow_receive_queue(held, limit) && port.counters.behind_xoffs == 1 {
        warn!(
            port = %port.setup.name,
            held, limit,
            "the bridge falls behind this port: its PFC priorities are paused until it catches up (counted as behind_xoffs)"
        );
    }
}

/// Hands port `i`'s MAC PFC receiver (and the pipeline) every MAC Control frame that has come
/// in; how many.
fn take_mac_control<P: BridgeIo>(
    ports: &mut [BridgePort<P>],
    i: usize,
    batch: &mut RxBatch,
    fwd: &mut Forwarder,
    clock: &Clock,
) -> usize {
    let mut taken = 0;
    for _ in 0..CONTROL_CALLS_PER_LOOK {
        match ports[i].io.recv_control(batch) {
            Ok(0) => return taken,
            Ok(_) => {}
            Err(e) => {
                warn!(port = %ports[i].setup.name, error = %e, "receive of MAC Control failed");
                return taken;
            }
        }
        let at = Instant::now();
        for k in 0..batch.len() {
            let Some(frame) = batch.get(k) else { continue };
            // A tagged one is no MAC Control frame; it is counted from the other socket.
            if !is_mac_control(frame) {
                continue;
            }
            let arrived = clock.arrival(batch.received_ns(k), fwd.engine.now());
            fwd.receive(ports, i, frame, at, arrived);
            taken += 1;
        }
        if batch.len() < batch.capacity() {
            break;
        }
    }
    taken
}

/// The loop's receive buffers: one batch per port, and one for MAC Control.
struct Batches {
    data: Vec<RxBatch>,
    control: RxBatch,
}

/// The loop's clock: when it started (monotonic, and on the kernel's receive clock), and the
/// present turn.
#[derive(Debug, Clone, Copy)]
struct Clock {
    start: Instant,
    start_unix: Duration,
    now: Picos,
}

impl Clock {
    /// A frame's arrival: the kernel's receive time (CLOCK_REALTIME nanoseconds; the present
    /// without one), and the same in the pipeline's time, no earlier than the pipeline (which
    /// cannot go back) and no later than this turn.
    fn arrival(&self, received_ns: Option<u64>, pipeline: Picos) -> (u64, Picos) {
        let ns = received_ns.unwrap_or_else(now_ns);
        let since_start = Duration::from_nanos(ns).saturating_sub(self.start_unix);
        (ns, Picos(since_start.as_nanos() as u64 * 1_000).max(pipeline).min(self.now))
    }

    /// The present, in the pipeline's time scale (not this turn's: later within it).
    fn wall(&self) -> Picos {
        Picos(self.start.elapsed().as_nanos() as u64 * 1_000)
    }
}

/// An untagged frame of EtherType 88-08.
fn is_mac_control(frame: &[u8]) -> bool {
    frame.get(12..14) == Some(&[0x88, 0x08][..])
}

/// Sends port `p`'s waiting frames in order until the socket refuses one for now.
///
/// Frames of a priority the peer holds paused stay, in their order, until it releases them:
/// the pipeline sent them before it knew of the pause, but they have not left. A frame of a
/// lossless priority goes alone, just after a look for PFC frames on the port, so one that came
/// in meanwhile stops the priority before its next frame: what leaves after a PFC frame's
/// arrival is the frame whose send had begun, as on a wire (36.3.3). Lossy frames go many per
/// system call.
fn flush_backlog<P: BridgeIo>(
    ports: &mut [BridgePort<P>],
    p: usize,
    fwd: &mut Forwarder,
    control: &mut RxBatch,
    clock: &Clock,
) {
    let mut held: Vec<u32> = Vec::new();
    let mut held_priorities = 0u8;
    while let Some(&head) = ports[p].tx_backlog.front() {
        let priority = frame_priority(fwd, head);
        // A frame a PFC frame can stop: of a PFC priority or sharing its traffic class.
        let pausable = ports[p].with_classmates(ports[p].setup.pfc_enable);
        let lossless = pausable & (1 << priority) != 0;
        if lossless {
            take_mac_control(ports, p, control, fwd, clock);
        }
        let stopped = ports[p].stopped(clock.wall()) | held_priorities;
        if stopped & (1 << priority) != 0 {
            held_priorities |= 1 << priority;
            held.extend(ports[p].tx_backlog.pop_front());
            continue;
        }
        let handles: Vec<u32> = if lossless {
            vec![head]
        } else {
            let not_now = stopped | pausable;
            ports[p]
                .tx_backlog
                .iter()
                .take(TX_BURST)
                .copied()
                .take_while(|h| not_now & (1 << frame_priority(fwd, *h)) == 0)
                .collect()
        };
        if !send_frames(ports, p, fwd, &handles) {
            break;
        }
    }
    for handle in held.into_iter().rev() {
        ports[p].tx_backlog.push_front(handle);
    }
}

/// Sends `handles` (the head of port `p`'s backlog) in one system call and takes what was
/// sent off the backlog; false when the socket took fewer for now.
fn send_frames<P: BridgeIo>(
    ports: &mut [BridgePort<P>],
    p: usize,
    fwd: &mut Forwarder,
    handles: &[u32],
) -> bool {
    let frames: Vec<&[u8]> = handles.iter().map(|h| fwd.store.get(*h)).collect();
    let port = &mut ports[p];
    let started = now_ns();
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
        // The priority is not paused now: a pause tracked for it has ended.
        if port.reaction.is_paused(priority) {
            port.reaction.resumed(priority);
        }
        port.reaction.sent(priority, started);
    }
    let done = if failed { 1 } else { sent };
    drop(frames);
    for handle in ports[p].tx_backlog.drain(..done).collect::<Vec<_>>() {
        fwd.release(ports, handle);
    }
    done == handles.len() || failed
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
    let now = Picos(start.elapsed().as_nanos() as u64 * 1_000);
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
/// moving through the bridge (`moved`: some came in or left in this turn), or wait for the
/// socket; otherwise at the next PFC refresh, pause end or measurement deadline. Frames held by
/// a pause wait without the loop spinning: a PFC storm costs no CPU.
fn wait<P: BridgeIo>(
    ports: &[BridgePort<P>],
    fwd: &Forwarder,
    now: Picos,
    moved: bool,
    wakers: [Option<BorrowedFd<'_>>; 2],
) {
    // Frames held for a pause wait for its end (below), not in a spin.
    let backlog = ports.iter().any(|p| {
        let stopped = p.stopped(now);
        p.tx_backlog.iter().any(|h| stopped & (1 << frame_priority(fwd, *h)) == 0)
    });
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
    let mut fds: Vec<PollFd> = ports
        .iter()
        .flat_map(|p| [p.io.as_fd(), p.io.control_fd()])
        .map(|fd| PollFd::new(fd, PollFlags::POLLIN))
        .collect();
    fds.extend(wakers.into_iter().flatten().map(|fd| PollFd::new(fd, PollFlags::POLLIN)));
    let ts = TimeSpec::from_duration(timeout);
    // EINTR and the like: the loop comes straight back here if there is still nothing to do.
    let _ = nix::poll::ppoll(&mut fds, Some(ts), None);
}

/// Adds what the kernel dropped on each port's sockets since the last look (warned once per
/// port: a loss on a lossless priority that no PFC frame could have prevented).
fn count_kernel_drops<P: BridgeIo>(ports: &mut [BridgePort<P>]) {
    for port in ports.iter_mut() {
        let dropped = port.io.take_kernel_drops();
        if dropped > 0 && port.counters.rx_kernel_drops == 0 {
            warn!(port = %port.setup.name, dropped, "the kernel dropped received frames: the bridge falls behind this port (counted as rx_kernel_drops)");
        }
        port.counters.rx_kernel_drops += dropped;
    }
}

fn publish<P>(published: &Mutex<BridgeSnapshot>, ports: &[BridgePort<P>], fwd: &Forwarder) {
    let snapshot = BridgeSnapshot::take(ports, fwd);
    *published.lock().unwrap_or_else(PoisonError::into_inner) = snapshot;
}
