//! Transmit timestamps (`SO_TIMESTAMPING`): the kernel's time for the moment a frame reached the
//! driver, read from the socket's error queue after the send. Software timestamps
//! (`SOF_TIMESTAMPING_TX_SOFTWARE`, taken where the driver calls `skb_tx_timestamp`, as veth
//! does) on the kernel's receive clock (CLOCK_REALTIME), so they compare with received frames'
//! times. What they are for: the time between our reading the clock for a frame and the frame
//! leaving, which a one-step protocol (HMPDUs) must put in the frame before it is sent.

use std::io::IoSliceMut;
use std::os::fd::{AsFd, AsRawFd};

use nix::sys::socket::{
    recvmsg, setsockopt, sockopt, ControlMessageOwned, MsgFlags, SockaddrStorage, TimestampingFlag,
};

/// Asks for software transmit timestamps of every frame sent on `socket`, reported without the
/// frame (`OPT_TSONLY`).
pub fn enable(socket: &impl AsFd) -> std::io::Result<()> {
    let flags = TimestampingFlag::SOF_TIMESTAMPING_TX_SOFTWARE
        | TimestampingFlag::SOF_TIMESTAMPING_SOFTWARE
        | TimestampingFlag::SOF_TIMESTAMPING_OPT_TSONLY;
    setsockopt(socket, sockopt::Timestamping, &flags).map_err(std::io::Error::from)
}

/// The next transmit timestamp waiting in `socket`'s error queue, nanoseconds on
/// CLOCK_REALTIME; `None` when none waits.
pub fn take(socket: &impl AsFd) -> Option<u64> {
    let mut buf = [0u8; 64];
    let mut iov = [IoSliceMut::new(&mut buf)];
    let mut cmsg = nix::cmsg_space!(nix::sys::socket::Timestamps, libc::sock_extended_err);
    let flags = MsgFlags::MSG_ERRQUEUE | MsgFlags::MSG_DONTWAIT;
    let msg =
        recvmsg::<SockaddrStorage>(socket.as_fd().as_raw_fd(), &mut iov, Some(&mut cmsg), flags)
            .ok()?;
    let stamp = msg.cmsgs().ok()?.find_map(|c| match c {
        ControlMessageOwned::ScmTimestampsns(t) => Some(t.system),
        _ => None,
    })?;
    let ns = u64::try_from(stamp.tv_sec()).ok()? * 1_000_000_000
        + u64::try_from(stamp.tv_nsec()).ok()?;
    (ns > 0).then_some(ns)
}

/// Empties `socket`'s error queue (timestamps of frames whose sender did not wait for them).
pub fn drain(socket: &impl AsFd) {
    for _ in 0..64 {
        if take(socket).is_none() {
            return;
        }
    }
}
