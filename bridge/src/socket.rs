//! A bridge port's sockets on its interface: one for every frame; one bound to MAC Control
//! (88-08) alone, which lets the loop look for a PFC frame just before it hands each frame of a
//! lossless priority to the interface (one system call that brings no data frame with it;
//! frames of 88-08 also reach the first socket, and the loop takes them from the second only);
//! and one that receives nothing and sends HMPDUs with the kernel's transmit timestamp.

use std::os::fd::{AsFd, BorrowedFd};

use dataplane::io::{FramePort, IoError, RawOptions, RawPort, RxBatch};
use dataplane::wire::{EtherType, MacAddr};

use super::BridgeIo;

#[derive(Debug)]
pub struct PortSockets {
    data: RawPort,
    control: RawPort,
    stamped: RawPort,
    /// The data socket's truncated frames already taken.
    truncated_taken: u64,
}

impl PortSockets {
    /// Opens both sockets on `interface`; the MAC Control one with the same timestamps, and the
    /// default buffers (PFC frames are small and few).
    pub fn open(interface: &str, options: &RawOptions) -> Result<Self, IoError> {
        let control_options = RawOptions {
            ethertype: Some(EtherType::MAC_CONTROL.0),
            timestamps: options.timestamps,
            ..RawOptions::default()
        };
        let control = RawPort::open(interface, &control_options)?;
        // Bound to no protocol: it receives nothing.
        let stamped_options =
            RawOptions { ethertype: Some(0), tx_timestamps: true, ..RawOptions::default() };
        let stamped = RawPort::open(interface, &stamped_options)?;
        let data = RawPort::open(interface, options)?;
        Ok(PortSockets { data, control, stamped, truncated_taken: 0 })
    }
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
        self.data.send_batch(frames)
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
        [&mut self.data, &mut self.control]
            .into_iter()
            .map(|s| s.take_kernel_drops().unwrap_or(0))
            .sum()
    }
}
