//! [`RawPort`]: every frame of one interface, as it was on the wire, in batches.
//!
//! What a bridge, a traffic generator or a delay line needs from Linux, which [`PacketSocket`]
//! (one EtherType, one frame per call) does not give:
//!
//! - **every frame** (`ETH_P_ALL`), bound to one interface with the protocol in the bind itself,
//!   so the socket never holds a frame of another interface;
//! - **none of our own**: `ETH_P_ALL` sockets are shown every transmission on the interface as
//!   well; `PACKET_IGNORE_OUTGOING` stops that in the kernel and frames marked
//!   `PACKET_OUTGOING` are dropped here as well;
//! - **the VLAN tag back**: Linux takes the 802.1Q tag out of a received frame before any packet
//!   socket sees it and reports it in `PACKET_AUXDATA`; the tag is put back with its real TCI
//!   (so PCP, the priority, survives) and TPID. Each frame is received 4 octets into its slot so
//!   that this moves only the 12 address octets;
//! - **batches**: `recvmmsg` and `sendmmsg`, up to [`MAX_BATCH`] frames a system call;
//! - optionally the kernel's **receive timestamp** of each frame (`SO_TIMESTAMPNS`);
//! - optionally **promiscuous** reception (a bridge port) and **`PACKET_QDISC_BYPASS`** (send
//!   straight to the driver, as a NIC's own queue would; no qdisc drop or reordering).
//!
//! [`PacketSocket`]: super::PacketSocket

mod auxdata;
mod sys;
mod tx_stamp;

use std::os::fd::{AsFd, AsRawFd, BorrowedFd};

use socket2::Socket;

use super::af_packet::{self, Listen};
use super::{stale_down, FramePort, IoError};
use crate::wire::MacAddr;
use auxdata::{parse_control, reinsert_tag, CONTROL_LEN, HEADROOM};
pub use sys::MAX_BATCH;

/// `ETH_P_ALL`: every protocol.
const ETH_P_ALL: u16 = 0x0003;
/// `sll_pkttype` of our own transmissions.
const PACKET_OUTGOING: u8 = 4;

/// How a [`RawPort`] is opened.
#[derive(Debug, Clone, Default)]
pub struct RawOptions {
    /// Receive frames to any destination address (a bridge port); veth passes every frame
    /// without it, a real NIC filters unicast to other stations.
    pub promiscuous: bool,
    /// Send straight to the driver's queue (`PACKET_QDISC_BYPASS`): no qdisc, lower latency,
    /// but the driver's queue filling shows as send errors instead of waiting in a qdisc.
    pub qdisc_bypass: bool,
    /// Socket receive buffer in octets (`SO_RCVBUFFORCE` as root, else capped by
    /// `net.core.rmem_max`); the kernel default holds about a hundred 1500-octet frames.
    pub recv_buffer: Option<usize>,
    /// Socket send buffer in octets.
    pub send_buffer: Option<usize>,
    /// Have the kernel stamp each received frame with its arrival time (`SO_TIMESTAMPNS`,
    /// software, CLOCK_REALTIME): [`RxBatch::received_ns`]. Linux turns timestamping on in
    /// deferred work after the first socket asks for it, so frames of the first milliseconds
    /// may carry the time they were read instead.
    pub timestamps: bool,
    /// Have the kernel stamp each frame sent with the moment it reached the driver
    /// (`SO_TIMESTAMPING`, software): [`RawPort::send_stamped`].
    pub tx_timestamps: bool,
    /// Receive only frames of this EtherType (the socket is bound to it) instead of every
    /// frame: a second socket for MAC Control costs one system call to look at and never holds
    /// a data frame. Frames sent are not affected.
    pub ethertype: Option<u16>,
}

/// Frames received but not handed over, by reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RawCounters {
    /// Longer than a slot of the batch (or the caller's buffer): dropped.
    pub truncated: u64,
    /// Our own transmissions the kernel showed us anyway: dropped.
    pub outgoing: u64,
    /// Frames whose VLAN tag was put back from the auxiliary data.
    pub tags_restored: u64,
}

/// A raw socket on one interface for every frame, implementing [`FramePort`] one frame at a
/// time and [`RawPort::recv_batch`] / [`RawPort::send_batch`] many.
#[derive(Debug)]
pub struct RawPort {
    socket: Socket,
    name: String,
    ifindex: i32,
    mac: MacAddr,
    counters: RawCounters,
}

impl RawPort {
    /// Opens `interface` for every frame. Needs CAP_NET_RAW (and CAP_NET_ADMIN for
    /// `recv_buffer` above `net.core.rmem_max`).
    pub fn open(interface: &str, options: &RawOptions) -> Result<Self, IoError> {
        let os = |op| move |source| IoError::Os { op, interface: interface.to_string(), source };
        let configure = |socket: &Socket| -> Result<(), IoError> {
            let fd = socket.as_raw_fd();
            sys::set_int(fd, libc::SOL_PACKET, libc::PACKET_AUXDATA, 1)
                .map_err(os("PACKET_AUXDATA"))?;
            // Kernels before 4.20 lack it; the PACKET_OUTGOING check below covers them.
            let _ = sys::set_int(fd, libc::SOL_PACKET, libc::PACKET_IGNORE_OUTGOING, 1);
            if options.qdisc_bypass {
                sys::set_int(fd, libc::SOL_PACKET, libc::PACKET_QDISC_BYPASS, 1)
                    .map_err(os("PACKET_QDISC_BYPASS"))?;
            }
            if let Some(bytes) = options.recv_buffer {
                let bytes = i32::try_from(bytes).unwrap_or(i32::MAX);
                if sys::set_int(fd, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, bytes).is_err() {
                    socket.set_recv_buffer_size(bytes as usize).map_err(os("SO_RCVBUF"))?;
                }
            }
            if options.timestamps {
                sys::set_int(fd, libc::SOL_SOCKET, libc::SO_TIMESTAMPNS, 1)
                    .map_err(os("SO_TIMESTAMPNS"))?;
            }
            if options.tx_timestamps {
                tx_stamp::enable(socket).map_err(os("SO_TIMESTAMPING"))?;
            }
            if let Some(bytes) = options.send_buffer {
                socket.set_send_buffer_size(bytes).map_err(os("SO_SNDBUF"))?;
            }
            Ok(())
        };
        let join = |socket: &Socket, ifindex| -> Result<(), IoError> {
            if options.promiscuous {
                af_packet::add_membership(socket, ifindex, libc::PACKET_MR_PROMISC, None)
                    .map_err(os("PACKET_MR_PROMISC"))?;
            }
            Ok(())
        };
        let listen = Listen::FromBind(options.ethertype.unwrap_or(ETH_P_ALL));
        let opened = af_packet::open(interface, listen, configure, join)?;
        Ok(RawPort {
            socket: opened.socket,
            name: interface.to_string(),
            ifindex: opened.ifindex,
            mac: opened.mac,
            counters: RawCounters::default(),
        })
    }

    pub fn ifindex(&self) -> i32 {
        self.ifindex
    }

    /// Frames dropped here, and tags restored, since the port was opened.
    pub fn counters(&self) -> RawCounters {
        self.counters
    }

    /// How full the socket's receive queue is: octets held (with the kernel's per-frame
    /// overhead) and the most it holds before the kernel drops frames.
    pub fn receive_queue(&self) -> Result<(u64, u64), IoError> {
        sys::receive_queue(self.socket.as_raw_fd())
            .map(|(held, limit)| (u64::from(held), u64::from(limit)))
            .map_err(|e| self.os_error("SO_MEMINFO", e))
    }

    /// Frames the kernel dropped since the last call because the socket's receive buffer was
    /// full (the reader fell behind): a loss no frame shows.
    pub fn take_kernel_drops(&mut self) -> Result<u64, IoError> {
        sys::take_drops(self.socket.as_raw_fd())
            .map(u64::from)
            .map_err(|e| self.os_error("PACKET_STATISTICS", e))
    }

    /// Receives what is waiting, up to the batch's capacity, without blocking; the frames are
    /// then `batch.iter()`. Returns how many (0: none waiting).
    pub fn recv_batch(&mut self, batch: &mut RxBatch) -> Result<usize, IoError> {
        batch.frames.clear();
        let slot = batch.slot_len;
        let cap = batch.capacity().min(MAX_BATCH);
        let mut meta = [sys::Received::default(); MAX_BATCH];
        let got = {
            let mut frames: Vec<&mut [u8]> =
                batch.data.chunks_mut(slot).take(cap).map(|s| &mut s[HEADROOM..]).collect();
            let mut controls: Vec<&mut [u8]> =
                batch.control.chunks_mut(CONTROL_LEN).take(cap).collect();
            sys::recv_many(self.socket.as_raw_fd(), &mut frames, &mut controls, &mut meta[..cap])
                .map_err(|e| self.os_error("recvmmsg", e))?
        };
        for (i, m) in meta.iter().enumerate().take(got) {
            let data = &mut batch.data[i * slot..(i + 1) * slot];
            let control = &batch.control[i * CONTROL_LEN..(i + 1) * CONTROL_LEN];
            if let Some((start, len, received_ns)) = self.accept(m, data, control) {
                batch.frames.push((i * slot + start, len, received_ns));
            }
        }
        Ok(batch.frames.len())
    }

    /// Sends as many of `frames` as the kernel takes without blocking, [`MAX_BATCH`] a system
    /// call; returns how many were sent (fewer than given when the send queue is full).
    pub fn send_batch(&mut self, frames: &[&[u8]]) -> Result<usize, IoError> {
        let mut sent = 0;
        for chunk in frames.chunks(MAX_BATCH) {
            let fd = self.socket.as_raw_fd();
            let n = stale_down::send_past(|| sys::send_many(fd, chunk))
                .map_err(|e| self.os_error("sendmmsg", e))?;
            sent += n;
            if n < chunk.len() {
                break;
            }
        }
        Ok(sent)
    }

    /// Sends one frame and returns the kernel's time for its reaching the driver
    /// (CLOCK_REALTIME nanoseconds), when the port was opened with `tx_timestamps` and the
    /// driver gave one during the send (veth and most drivers do; one given later is dropped
    /// before the next send, never taken for another frame's).
    pub fn send_stamped(&mut self, frame: &[u8]) -> Result<Option<u64>, IoError> {
        tx_stamp::drain(&self.socket);
        match self.send_batch(&[frame])? {
            1 => Ok(tx_stamp::take(&self.socket)),
            _ => Err(self.os_error("send", std::io::ErrorKind::WouldBlock.into())),
        }
    }

    /// Decides what becomes of one received message in `slot` (frame at `HEADROOM`): where the
    /// frame handed over starts, how long it is and when the kernel received it, or `None`
    /// when it is dropped.
    fn accept(
        &mut self,
        m: &sys::Received,
        slot: &mut [u8],
        control: &[u8],
    ) -> Option<(usize, usize, Option<u64>)> {
        if m.pkttype == PACKET_OUTGOING {
            self.counters.outgoing += 1;
            return None;
        }
        let control = parse_control(control, m.control_len);
        let room = slot.len() - HEADROOM;
        if m.truncated || m.len > room {
            self.counters.truncated += 1;
            return None;
        }
        let (start, len) = match control.tag {
            Some(tag) => {
                self.counters.tags_restored += 1;
                reinsert_tag(slot, m.len, tag)
            }
            None => (HEADROOM, m.len),
        };
        Some((start, len, control.received_ns))
    }

    fn os_error(&self, op: &'static str, source: std::io::Error) -> IoError {
        IoError::Os { op, interface: self.name.clone(), source }
    }
}

impl AsFd for RawPort {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.socket.as_fd()
    }
}

impl FramePort for RawPort {
    fn name(&self) -> &str {
        &self.name
    }

    fn mac(&self) -> MacAddr {
        self.mac
    }

    fn send(&mut self, frame: &[u8]) -> Result<(), IoError> {
        match self.send_batch(&[frame])? {
            1 => Ok(()),
            _ => Err(self.os_error("send", std::io::ErrorKind::WouldBlock.into())),
        }
    }

    /// One frame into `buf` (tag restored, so up to 4 octets more than the kernel delivered);
    /// a frame longer than `buf` is dropped and counted as truncated.
    fn recv(&mut self, buf: &mut [u8]) -> Result<Option<usize>, IoError> {
        if buf.len() <= HEADROOM {
            return Ok(None);
        }
        loop {
            let mut control = [0u8; CONTROL_LEN];
            let mut meta = [sys::Received::default()];
            let got = sys::recv_many(
                self.socket.as_raw_fd(),
                &mut [&mut buf[HEADROOM..]],
                &mut [&mut control[..]],
                &mut meta,
            )
            .map_err(|e| self.os_error("recvmsg", e))?;
            if got == 0 {
                return Ok(None);
            }
            if let Some((start, len, _)) = self.accept(&meta[0], buf, &control) {
                buf.copy_within(start..start + len, 0);
                return Ok(Some(len));
            }
        }
    }
}

/// Buffers for [`RawPort::recv_batch`]: fixed slots, reused from call to call.
#[derive(Debug, Clone)]
pub struct RxBatch {
    data: Vec<u8>,
    control: Vec<u8>,
    slot_len: usize,
    /// (offset in `data`, length, kernel receive time) of each frame of the last receive.
    frames: Vec<(usize, usize, Option<u64>)>,
}

impl RxBatch {
    /// Room for `frames` frames (at most [`MAX_BATCH`] are used) of up to `max_frame` octets,
    /// tag included (e.g. 1522 for a tagged standard frame, 9220 for jumbo).
    pub fn new(frames: usize, max_frame: usize) -> Self {
        let frames = frames.clamp(1, MAX_BATCH);
        let slot_len = max_frame + HEADROOM;
        RxBatch {
            data: vec![0; frames * slot_len],
            control: vec![0; frames * CONTROL_LEN],
            slot_len,
            frames: Vec::with_capacity(frames),
        }
    }

    pub fn capacity(&self) -> usize {
        self.data.len() / self.slot_len
    }

    /// Frames of the last receive.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Frame `i` of the last receive.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        self.frames.get(i).map(|&(at, len, _)| &self.data[at..at + len])
    }

    /// When the kernel received frame `i` of the last receive (CLOCK_REALTIME ns), if the port
    /// was opened with [`RawOptions::timestamps`].
    pub fn received_ns(&self, i: usize) -> Option<u64> {
        self.frames.get(i).and_then(|f| f.2)
    }

    /// The frames of the last receive, in arrival order.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.frames.iter().map(|&(at, len, _)| &self.data[at..at + len])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_interface_is_named() {
        match RawPort::open("pfcd-no-such-if0", &RawOptions::default()) {
            Err(IoError::NoSuchInterface(name)) => assert_eq!(name, "pfcd-no-such-if0"),
            other => panic!("expected NoSuchInterface, got {other:?}"),
        }
    }

    #[test]
    fn a_batch_has_the_slots_asked_for_up_to_the_system_call_limit() {
        assert_eq!(RxBatch::new(8, 1522).capacity(), 8);
        assert_eq!(RxBatch::new(1000, 64).capacity(), MAX_BATCH);
        assert_eq!(RxBatch::new(0, 64).capacity(), 1);
        assert!(RxBatch::new(4, 64).is_empty());
    }
}
