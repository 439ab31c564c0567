//! The bridge loop's transmit side: each port's frames the pipeline sent, handed to its
//! socket in order, except those of a priority (or traffic class) the peer holds paused; a
//! look for PFC frames before each frame a pause can stop.

use dataplane::io::RxBatch;
use dataplane::wire::PRIORITIES;
use tracing::warn;

use super::forward::Forwarder;
use super::port::BridgePort;
use super::reaction::now_ns;
use super::receive::{take_mac_control, Clock};
use super::BridgeIo;

/// Frames handed to one port's socket per system call.
const TX_BURST: usize = 64;
/// Frames sent to one port per turn of the loop: a turn that sent a whole backlog one lossless
/// frame at a time could last milliseconds, while no receive ring is read and no PFC refresh
/// goes out. The rest waits for the next turn, a few microseconds later.
pub const TX_PER_TURN: usize = 256;

/// Sends port `p`'s waiting frames in order until the socket refuses one for now, or
/// [`TX_PER_TURN`] have gone (then returns true: more are due at once).
///
/// Frames of a priority the peer holds paused stay, in their order, until it releases them:
/// the pipeline sent them before it knew of the pause, but they have not left. A frame of a
/// lossless priority goes alone, just after a look for PFC frames on the port, so one that came
/// in meanwhile stops the priority before its next frame: what leaves after a PFC frame's
/// arrival is the frame whose send had begun, as on a wire (36.3.3). Lossy frames go many per
/// system call.
pub fn flush_backlog<P: BridgeIo>(
    ports: &mut [BridgePort<P>],
    p: usize,
    fwd: &mut Forwarder,
    control: &mut RxBatch,
    clock: &Clock,
) -> bool {
    let mut held: Vec<u32> = Vec::new();
    let mut held_priorities = 0u8;
    let mut budget = TX_PER_TURN;
    while let Some(&head) = ports[p].tx_backlog.front() {
        if budget == 0 {
            break;
        }
        let priority = frame_priority(fwd, head);
        let expired = fwd
            .store
            .arrived(head)
            .is_some_and(|at| clock.wall().saturating_sub(at) > fwd.max_transit);
        if expired {
            // Held past the maximum bridge transit delay (a pause that never ends, a deadlock):
            // discarded, so that its buffer does not stay taken for good.
            ports[p].tx_backlog.pop_front();
            ports[p].counters.transit_drops += 1;
            fwd.release(ports, head, p);
            continue;
        }
        if ports[p].watchdog.drops(priority) {
            // A stormed priority's queued frames are discarded, freeing the buffers they hold.
            ports[p].tx_backlog.pop_front();
            ports[p].counters.watchdog_drops += 1;
            ports[p].watchdog.count_dropped(priority, 1);
            fwd.release(ports, head, p);
            continue;
        }
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
        // The head alone, or the lossy frames after it up to the first a pause may stop.
        let mut handles = [0u32; TX_BURST];
        let count = if lossless {
            handles[0] = head;
            1
        } else {
            let not_now = stopped | pausable;
            let burst = ports[p]
                .tx_backlog
                .iter()
                .take(TX_BURST)
                .take_while(|h| not_now & (1 << frame_priority(fwd, **h)) == 0);
            let mut n = 0;
            for (slot, h) in handles.iter_mut().zip(burst) {
                *slot = *h;
                n += 1;
            }
            n
        };
        budget = budget.saturating_sub(count);
        if !send_frames(ports, p, fwd, &handles[..count], clock) {
            break;
        }
    }
    for handle in held.into_iter().rev() {
        ports[p].tx_backlog.push_front(handle);
    }
    let waiting = super::watchdog::waiting(&ports[p], p, fwd, held_priorities);
    ports[p].watchdog.waiting(clock.wall(), waiting);
    budget == 0
}

/// Sends `handles` (the head of port `p`'s backlog) in one system call and takes what was
/// sent off the backlog; false when the socket took fewer for now.
fn send_frames<P: BridgeIo>(
    ports: &mut [BridgePort<P>],
    p: usize,
    fwd: &mut Forwarder,
    handles: &[u32],
    clock: &Clock,
) -> bool {
    let mut frames: [&[u8]; TX_BURST] = [&[]; TX_BURST];
    for (f, h) in frames.iter_mut().zip(handles) {
        *f = fwd.store.get(*h);
    }
    let frames = &frames[..handles.len()];
    let port = &mut ports[p];
    let started = now_ns();
    let sent_at = clock.wall();
    let (sent, failed) = match port.io.send_many(frames) {
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
    for (handle, frame) in handles.iter().zip(frames).take(sent) {
        let priority = frame_priority(fwd, *handle);
        port.counters.tx_frames += 1;
        port.counters.tx_octets += frame.len() as u64;
        port.counters.tx_per_priority[priority] += 1;
        // The priority is not paused now: a pause tracked for it has ended.
        if port.reaction.is_paused(priority) {
            port.reaction.resumed(priority);
        }
        port.reaction.sent(priority, started);
        port.watchdog.frame_sent(sent_at, priority);
    }
    let done = if failed { 1 } else { sent };
    // The sent ones are the backlog's first `done`, `handles`' too.
    ports[p].tx_backlog.drain(..done);
    for &handle in &handles[..done] {
        fwd.release(ports, handle, p);
    }
    done == handles.len() || failed
}

pub fn frame_priority(fwd: &Forwarder, handle: u32) -> usize {
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
