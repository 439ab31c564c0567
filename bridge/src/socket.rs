//! A bridge port's sockets on its interface: one for every frame; one bound to MAC Control
//! (88-08) alone, which lets the loop look for a PFC frame just before it hands each frame of a
//! lossless priority to the interface (one system call that brings no data frame with it;
//! frames of 88-08 also reach the first socket, and the loop takes them from the second only);
//! and one that receives nothing and sends HMPDUs with the kernel's transmit timestamp.
//! The first has a receive ring (`ring.rs`) where the kernel allows one; frames come in
//! through the socket's receive queue otherwise (said once in the log, and in the state).

use std::os::fd::{AsFd, BorrowedFd};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dataplane::io::{FramePort, IoError, RawOptions, RawPort, RxBatch};
use dataplane::wire::{EtherType, MacAddr};
use tracing::warn;

use super::keeper::PauseKeeper;
use super::ring::{RingOptions, RxRing};
use super::store::memory::FrameMemory;
use super::xsk::XskTx;
use super::BridgeIo;

/// The MAC Control socket's ring: 1 MiB, 640 slots of a tagged 1522-octet frame (PFC frames
/// are 64 octets; a longer 88-08 frame is no MAC Control frame and only its start is kept).
const CONTROL_RING: RingOptions = RingOptions { octets: 1 << 20, max_frame: 1522, transmit: false };

#[derive(Debug)]
pub struct PortSockets {
    data: RawPort,
    control: RawPort,
    stamped: RawPort,
    /// The data socket's truncated frames already taken.
    truncated_taken: u64,
    /// The data socket's receive ring (`None` while the loop reads it, or without one).
    ring: Option<RxRing>,
    /// The MAC Control socket's, when the data socket has one: looking costs no system call.
    control_ring: Option<RxRing>,
    /// Its slots (0: no ring).
    ring_slots: usize,
    /// Frames lost before the ring was attached (queued on the socket then), not yet taken.
    lost_at_open: u64,
    /// Whether a transmit ring was asked for: it opens once the store's frame memory is given.
    transmit: bool,
    /// The transmit ring, where the kernel gives one.
    tx: Option<XskTx>,
    /// Keeps the peer paused while the loop does not run (with a receive ring only).
    keeper: Option<PauseKeeper>,
}

impl PortSockets {
    /// Opens the sockets on `interface` with a receive ring of the default size for frames up
    /// to 9216 octets ([`RingOptions::default`]).
    pub fn open(interface: &str, options: &RawOptions) -> Result<Self, IoError> {
        Self::open_with_ring(interface, options, RingOptions::default())
    }

    /// Opens the sockets on `interface`, the one of every frame with a receive ring of `ring`
    /// (none when `ring.octets` is 0; when the kernel refuses one, a warning says why and the
    /// socket's receive queue serves instead). The MAC Control socket has the same timestamps
    /// and the default buffers (PFC frames are small and few).
    pub fn open_with_ring(
        interface: &str,
        options: &RawOptions,
        ring: RingOptions,
    ) -> Result<Self, IoError> {
        let transmit = ring.transmit;
        let control_options = RawOptions {
            ethertype: Some(EtherType::MAC_CONTROL.0),
            timestamps: options.timestamps,
            ..RawOptions::default()
        };
        let mut control = RawPort::open(interface, &control_options)?;
        // Bound to no protocol: it receives nothing.
        let stamped_options =
            RawOptions { ethertype: Some(0), tx_timestamps: true, ..RawOptions::default() };
        let stamped = RawPort::open(interface, &stamped_options)?;
        let mut data = RawPort::open(interface, options)?;
        let ring = (ring.octets > 0).then(|| RxRing::attach(data.as_fd(), ring)).and_then(|r| {
            r.map_err(|e| {
                warn!(
                    port = interface, error = %e,
                    "no receive ring on this interface: frames come through the socket's receive queue, which the bridge cannot count exactly (a sender faster than the bridge may lose frames there)"
                );
            })
            .ok()
        });
        // Frames queued before the ring existed would keep the socket readable for ever.
        let mut lost_at_open = 0;
        if ring.is_some() {
            let mut batch = RxBatch::new(dataplane::io::MAX_BATCH, 64);
            while data.recv_batch(&mut batch).is_ok_and(|n| n > 0) {
                lost_at_open += batch.len() as u64;
            }
        }
        let control_ring = ring.as_ref().and_then(|_| {
            let r = RxRing::attach(control.as_fd(), CONTROL_RING);
            let mut batch = RxBatch::new(dataplane::io::MAX_BATCH, 64);
            while control.recv_batch(&mut batch).is_ok_and(|n| n > 0) {}
            r.ok()
        });
        let ring_slots = ring.as_ref().map_or(0, RxRing::slots);
        let keeper = ring.as_ref().and_then(|r| start_keeper(interface, r, &data));

        Ok(PortSockets {
            data,
            control,
            stamped,
            truncated_taken: 0,
            ring,
            control_ring,
            ring_slots,
            lost_at_open,
            transmit,
            tx: None,
            keeper,
        })
    }
}

/// The port's pause keeper; `None`, said in the log, where its thread or sockets cannot be had
/// (the bridge then pauses from its own thread alone).
fn start_keeper(interface: &str, ring: &RxRing, data: &RawPort) -> Option<PauseKeeper> {
    let sender_options = RawOptions { ethertype: Some(0), ..RawOptions::default() };
    let started = ring
        .watch(data.as_fd())
        .and_then(|watch| Ok((watch, data.as_fd().try_clone_to_owned()?)))
        .map_err(|e| e.to_string())
        .and_then(|(watch, readable)| {
            let sender = RawPort::open(interface, &sender_options).map_err(|e| e.to_string())?;
            PauseKeeper::start(interface, watch, readable, sender, data.mac())
                .map_err(|e| e.to_string())
        });
    started
        .map_err(|e| {
            warn!(port = interface, error = %e, "no pause keeper: a stall of the bridge's thread longer than a pause may let the peer overfill the receive ring");
        })
        .ok()
}

/// The interface's transmit ring; `None`, said once in the log, where the kernel or the
/// interface refuses one (no `AF_XDP`, no queue 0, not allowed to lock its memory).
fn open_transmit_ring(interface: &str, data: &RawPort, memory: &Arc<FrameMemory>) -> Option<XskTx> {
    let index = u32::try_from(data.ifindex()).unwrap_or(0);
    XskTx::open(index, memory.clone())
        .map_err(|e| {
            warn!(
                port = interface, error = %e,
                "no transmit ring (AF_XDP) on this interface: frames leave through the socket (sendmmsg), at a higher cost per frame"
            );
        })
        .ok()
}

impl FramePort for PortSockets {
    fn name(&self) -> &str {
        self.data.name()
    }

    fn mac(&self) -> MacAddr {
        self.data.mac()
    }

    fn send(&mut self, frame: &[u8]) -> Result<(), IoError> {
        self.data.send(frame)
    }

    fn recv(&mut self, buf: &mut [u8]) -> Result<Option<usize>, IoError> {
        self.data.recv(buf)
    }
}

impl AsFd for PortSockets {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.data.as_fd()
    }
}

impl BridgeIo for PortSockets {
    fn recv_many(&mut self, batch: &mut RxBatch) -> Result<usize, IoError> {
        self.data.recv_batch(batch)
    }

    fn send_many(&mut self, frames: &[&[u8]]) -> Result<usize, IoError> {
        let Some(tx) = self.tx.as_mut() else { return self.data.send_batch(frames) };
        let fit = frames.iter().take_while(|f| tx.holds(f)).count();
        if fit > 0 {
            return tx.send(&frames[..fit]).map_err(|source| IoError::Os {
                op: "AF_XDP transmit",
                interface: self.data.name().to_owned(),
                source,
            });
        }
        // A frame kept on the heap (longer than a chunk, or stored while every chunk was
        // taken) leaves through the socket once the ring's frames have gone before it.
        if tx.pending() && (tx.flush().is_err() || tx.pending()) {
            return Ok(0);
        }
        let elsewhere = frames.iter().take_while(|f| !tx.holds(f)).count();
        self.data.send_batch(&frames[..elsewhere])
    }

    fn recv_control(&mut self, batch: &mut RxBatch) -> Result<usize, IoError> {
        self.control.recv_batch(batch)
    }

    fn control_fd(&self) -> BorrowedFd<'_> {
        self.control.as_fd()
    }

    fn send_stamped(&mut self, frame: &[u8]) -> Result<Option<u64>, IoError> {
        self.stamped.send_stamped(frame)
    }

    fn receive_queue(&self) -> Option<(u64, u64)> {
        self.data.receive_queue().ok()
    }

    fn take_truncated(&mut self) -> u64 {
        let total = self.data.counters().truncated;
        let new = total.saturating_sub(self.truncated_taken);
        self.truncated_taken = total;
        new
    }

    fn take_kernel_drops(&mut self) -> u64 {
        std::mem::take(&mut self.lost_at_open)
            + [&mut self.data, &mut self.control]
                .into_iter()
                .map(|s| s.take_kernel_drops().unwrap_or(0))
                .sum::<u64>()
    }

    fn take_ring(&mut self) -> Option<RxRing> {
        self.ring.take()
    }

    fn put_ring(&mut self, ring: RxRing) {
        self.ring = Some(ring);
    }

    fn take_control_ring(&mut self) -> Option<RxRing> {
        self.control_ring.take()
    }

    fn put_control_ring(&mut self, ring: RxRing) {
        self.control_ring = Some(ring);
    }

    fn ring_slots(&self) -> usize {
        self.ring_slots
    }

    fn take_socket_errors(&self) {
        for socket in [&self.data, &self.control] {
            let _ = nix::sys::socket::getsockopt(socket, nix::sys::socket::sockopt::SocketError);
        }
    }

    fn frames_waiting(&self) -> bool {
        [&self.ring, &self.control_ring].into_iter().flatten().any(|r| r.holds_at_least(1))
    }

    fn use_frame_memory(&mut self, memory: &Arc<FrameMemory>) {
        if self.transmit {
            self.tx = open_transmit_ring(self.data.name(), &self.data, memory);
        }
    }

    fn transmit_ring(&self) -> bool {
        self.tx.is_some()
    }

    fn flush_transmit(&mut self) -> bool {
        self.tx.as_mut().is_some_and(|tx| {
            let _ = tx.flush();
            tx.pending()
        })
    }

    fn take_transmit_drops(&mut self) -> u64 {
        self.tx.as_mut().map_or(0, XskTx::take_dropped)
    }

    fn keeper_turn(&self, pfc_enable: u8, quanta: u16, pause: Duration) {
        if let Some(k) = &self.keeper {
            k.turn(pfc_enable, quanta, pause);
        }
    }

    fn take_kept_pause(&self) -> Option<Instant> {
        self.keeper.as_ref().and_then(PauseKeeper::take_kept)
    }

    fn kept_pauses(&self) -> u64 {
        self.keeper.as_ref().map_or(0, PauseKeeper::kept)
    }
}
