//! The bridge loop's receive side: MAC Control of every port first (from its own socket),
//! then the other frames, from each port's receive ring (or its socket's queue without one);
//! the kernel's receive time of each; how full each port's ring or queue is, and what the
//! kernel dropped.

use std::time::{Duration, Instant};

use dataplane::io::RxBatch;
use dataplane::time::Picos;
use tracing::warn;

use super::forward::Forwarder;
use super::port::BridgePort;
use super::reaction::now_ns;
use super::BridgeIo;

/// Frames taken from one port before the others get a turn.
pub const RX_BURST: usize = 32;
/// Frames taken from one port's receive ring per turn of the loop (no system call: only the
/// pipeline's turn bounds it), up to [`RING_BURST_OCTETS`]. More per turn let a burst fill a
/// lossless buffer past XOFF before any of it was sent (a pause the traffic did not need),
/// and changed the rate by less than its noise.
pub const RING_BURST: usize = 64;
/// Octets taken from one port's receive ring per turn: 64 frames of 1500 octets.
pub const RING_BURST_OCTETS: usize = 96 << 10;
/// MAC Control frames taken per system call.
pub const CONTROL_BURST: usize = 8;
/// System calls of MAC Control frames in one look at most: a peer flooding PFC frames cannot
/// hold the loop there (what it sent after waits for the next look, a frame later).
const CONTROL_CALLS_PER_LOOK: usize = 4;

/// Takes the MAC Control frames of every port first, then every port's other frames: within
/// one turn of the loop the order of arrival across ports is not known, and a PFC frame that
/// came in while the loop was busy must not let data that came in after it leave first.
pub fn receive<P: BridgeIo>(
    ports: &mut [BridgePort<P>],
    batches: &mut Batches,
    fwd: &mut Forwarder,
    clock: &Clock,
) -> usize {
    let mut got = 0;
    for i in 0..ports.len() {
        got += take_mac_control(ports, i, &mut batches.control, fwd, clock);
    }
    for i in 0..ports.len() {
        if let Some(mut ring) = ports[i].io.take_ring() {
            got += drain_ring(ports, i, &mut ring, fwd, clock, &mut batches.tagged);
            follow_ring(&mut ports[i], &ring);
            ports[i].io.put_ring(ring);
        }
    }
    for (port, batch) in ports.iter_mut().zip(batches.data.iter_mut()) {
        if port.io.ring_slots() > 0 {
            continue;
        }
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
        if ports[i].io.ring_slots() > 0 {
            continue;
        }
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

/// Hands port `i` the frames waiting in its ring, oldest first, up to [`RING_BURST`]: each is
/// read in place (its VLAN tag put back in `tagged`, a buffer kept for it) and its slot given
/// back once the bridge has stored it. A frame of a lossless priority whose allocation is full
/// stays in its slot (`rx_held`), and what came after it with it: the ring's slots are part of
/// the priority's buffer, and the ring being full past an eighth pauses the peer.
fn drain_ring<P: BridgeIo>(
    ports: &mut [BridgePort<P>],
    i: usize,
    ring: &mut super::ring::RxRing,
    fwd: &mut Forwarder,
    clock: &Clock,
    tagged: &mut Vec<u8>,
) -> usize {
    let at = Instant::now();
    let (mut got, mut octets) = (0, 0);
    ports[i].rx_held = false;
    while got < RING_BURST && octets < RING_BURST_OCTETS {
        let Some(frame) = ring.front_as_on_wire() else { break };
        let bytes = if frame.copied {
            // Longer than a slot: whole on the socket, the next frame there.
            let big = &mut batches_big(tagged, fwd.max_len);
            match ports[i].io.recv(big) {
                Ok(Some(len)) => {
                    big.truncate(len);
                    std::mem::swap(tagged, big);
                    &tagged[..]
                }
                _ => {
                    ports[i].counters.rx_kernel_drops += 1;
                    ring.advance();
                    continue;
                }
            }
        } else if frame.truncated {
            // Longer than a slot, and the socket had no room for a copy: lost in the kernel
            // (or longer than any frame forwarded).
            if frame.wire_len > fwd.max_len {
                ports[i].counters.oversize += 1;
            } else {
                ports[i].counters.rx_kernel_drops += 1;
            }
            ring.advance();
            continue;
        } else if frame.tag.is_some() {
            frame.restore_into(tagged);
            &tagged[..]
        } else {
            frame.data
        };
        // Taken from the port's MAC Control socket.
        if is_mac_control(bytes) {
            ring.advance();
            continue;
        }
        // (A frame read from the socket cannot be left in its slot: it is admitted or dropped.)
        if !frame.copied && !fwd.has_room(&ports[i], bytes) {
            ports[i].rx_held = true;
            break;
        }
        let arrived = clock.arrival(Some(frame.received_ns), fwd.engine.now());
        octets += bytes.len();
        fwd.receive(ports, i, bytes, at, arrived);
        ring.advance();
        got += 1;
    }
    got
}

/// A buffer for one whole frame (`max_len` and a tag), its allocation taken from `spare`.
fn batches_big(spare: &mut Vec<u8>, max_len: usize) -> Vec<u8> {
    let mut big = std::mem::take(spare);
    big.clear();
    big.resize(max_len + 4 + 64, 0);
    big
}

/// The ring's frames are in no buffer of ours until read: while an eighth of it waits, the
/// port's PFC initiator pauses every PFC priority of the peer (`BridgePort::follow_ring`).
fn follow_ring<P: BridgeIo>(port: &mut BridgePort<P>, ring: &super::ring::RxRing) {
    if port.follow_ring(|n| ring.holds_at_least(n), ring.slots()) && port.counters.behind_xoffs == 1
    {
        warn!(
            port = %port.setup.name,
            slots = ring.slots(),
            "the bridge falls behind this port: its PFC priorities are paused until its receive ring drains (counted as behind_xoffs)"
        );
    }
}

/// Frames waiting in a port's kernel receive queue are in no buffer of ours, and the kernel
/// drops them when the queue is full, whatever their priority: while the bridge is behind (the
/// queue an eighth full) its PFC initiator pauses every PFC priority of the peer, so a sender
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
pub fn take_mac_control<P: BridgeIo>(
    ports: &mut [BridgePort<P>],
    i: usize,
    batch: &mut RxBatch,
    fwd: &mut Forwarder,
    clock: &Clock,
) -> usize {
    if let Some(mut ring) = ports[i].io.take_control_ring() {
        let taken = drain_control_ring(ports, i, &mut ring, fwd, clock);
        ports[i].io.put_control_ring(ring);
        return taken;
    }
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

/// The MAC Control frames waiting in port `i`'s control ring, up to what
/// [`CONTROL_CALLS_PER_LOOK`] calls would take: a look costs a read of one status word when
/// none waits, so it can precede every lossless frame sent.
fn drain_control_ring<P: BridgeIo>(
    ports: &mut [BridgePort<P>],
    i: usize,
    ring: &mut super::ring::RxRing,
    fwd: &mut Forwarder,
    clock: &Clock,
) -> usize {
    let mut taken = 0;
    let at = Instant::now();
    for _ in 0..CONTROL_CALLS_PER_LOOK * CONTROL_BURST {
        let Some(frame) = ring.front() else { break };
        // A tagged one is no MAC Control frame, and a truncated one none either (PFC frames
        // are 64 octets); both are counted from the ring of every frame.
        if frame.tag.is_none() && !frame.truncated && is_mac_control(frame.data) {
            let arrived = clock.arrival(Some(frame.received_ns), fwd.engine.now());
            fwd.receive(ports, i, frame.data, at, arrived);
            taken += 1;
        }
        ring.advance();
    }
    taken
}

/// The loop's receive buffers: one batch per port, and one for MAC Control.
pub struct Batches {
    pub data: Vec<RxBatch>,
    pub control: RxBatch,
    /// A ring's tagged frame, its tag put back.
    pub tagged: Vec<u8>,
}

/// The loop's clock: when it started (monotonic, and on the kernel's receive clock), and the
/// present turn.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    pub start: Instant,
    pub start_unix: Duration,
    pub now: Picos,
}

impl Clock {
    /// A frame's arrival: the kernel's receive time (CLOCK_REALTIME nanoseconds; the present
    /// without one), and the same in the pipeline's time, no earlier than the pipeline (which
    /// cannot go back) and no later than this turn.
    fn arrival(&self, received_ns: Option<u64>, pipeline: Picos) -> (u64, Picos) {
        let ns = received_ns.unwrap_or_else(now_ns);
        let since_start = Duration::from_nanos(ns).saturating_sub(self.start_unix);
        (ns, Picos::from_duration(since_start).max(pipeline).min(self.now))
    }

    /// The present, in the pipeline's time scale (not this turn's: later within it).
    pub fn wall(&self) -> Picos {
        Picos::from_duration(self.start.elapsed())
    }
}

/// An untagged frame of EtherType 88-08.
fn is_mac_control(frame: &[u8]) -> bool {
    frame.get(12..14) == Some(&[0x88, 0x08][..])
}

/// Adds what the kernel dropped on each port's sockets since the last look (warned once per
/// port: a loss on a lossless priority that no PFC frame could have prevented), and the frames
/// too long for the receive slots.
pub fn count_kernel_drops<P: BridgeIo>(ports: &mut [BridgePort<P>]) {
    for port in ports.iter_mut() {
        let dropped = port.io.take_kernel_drops();
        if dropped > 0 && port.counters.rx_kernel_drops == 0 {
            warn!(port = %port.setup.name, dropped, "the kernel dropped received frames: the bridge falls behind this port (counted as rx_kernel_drops)");
        }
        port.counters.rx_kernel_drops += dropped;
        port.counters.oversize += port.io.take_truncated();
        port.rx_ring_slots = port.io.ring_slots();
        port.tx_ring = port.io.transmit_ring();
        port.counters.keeper_pauses = port.io.kept_pauses();
        port.counters.tx_kernel_drops += port.io.take_transmit_drops();
    }
}
