//! An `AF_PACKET` socket on one interface for one EtherType.
//!
//! The socket is opened for the EtherType alone (so it never sees our own transmissions, which
//! only `ETH_P_ALL` sockets are shown), bound to the interface keeping that EtherType, and made
//! non-blocking for a poll loop, as `af_packet::open` does it for [`RawPort`](super::RawPort) too.
//! The group addresses the protocol listens to are joined with `PACKET_ADD_MEMBERSHIP`, so a NIC
//! that filters multicast passes them; the membership ends with the socket.
//!
//! VLAN tags: the kernel takes the tag out of a received frame before a socket bound to one
//! EtherType sees it, and the auxiliary data (`PACKET_AUXDATA`) no longer carries it by then.
//! What is left is the packet type: a frame whose VLAN has no VLAN interface here is marked
//! `PACKET_OTHERHOST`, which a group-addressed frame never is otherwise. [`PacketSocket`] gives
//! such a frame back with a tag in it (TPID 81-00, TCI unknown and written 0), as it was on the
//! wire, so the protocol code refuses it as it would any tagged frame. A frame of a VLAN that
//! has an interface goes to that interface, not here; a priority-tagged frame (VID 0) is
//! indistinguishable from an untagged one and taken as untagged, as 802.1Q treats it.

use std::io::{ErrorKind, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};

use nix::errno::Errno;
use nix::sys::socket::{recvfrom, LinkAddr};
use socket2::Socket;

use super::af_packet::{self, Listen};
use super::{stale_down, FramePort, IoError};
use crate::wire::{EtherType, MacAddr};

/// A raw socket on one interface for one EtherType.
#[derive(Debug)]
pub struct PacketSocket {
    socket: Socket,
    name: String,
    ifindex: i32,
    mac: MacAddr,
    ethertype: EtherType,
}

impl PacketSocket {
    /// Opens a socket on `interface` receiving frames of `ethertype`, joined to `groups`
    /// (e.g. 01-80-C2-00-00-0E for LLDP). Needs CAP_NET_RAW.
    pub fn open(
        interface: &str,
        ethertype: EtherType,
        groups: &[MacAddr],
    ) -> Result<Self, IoError> {
        let os = |op| move |source| IoError::Os { op, interface: interface.to_string(), source };
        let opened = af_packet::open(
            interface,
            Listen::FromSocket(ethertype.0),
            |_| Ok(()),
            |socket, ifindex| {
                for group in groups {
                    af_packet::add_membership(
                        socket,
                        ifindex,
                        libc::PACKET_MR_MULTICAST,
                        Some(*group),
                    )
                    .map_err(os("PACKET_ADD_MEMBERSHIP"))?;
                }
                Ok(())
            },
        )?;
        Ok(PacketSocket {
            socket: opened.socket,
            name: interface.to_string(),
            ifindex: opened.ifindex,
            mac: opened.mac,
            ethertype,
        })
    }

    pub fn ifindex(&self) -> i32 {
        self.ifindex
    }

    pub fn ethertype(&self) -> EtherType {
        self.ethertype
    }

    /// One write of the whole frame.
    fn write_once(&self, frame: &[u8]) -> std::io::Result<()> {
        match (&self.socket).write(frame) {
            Ok(n) if n == frame.len() => Ok(()),
            Ok(n) => Err(std::io::Error::new(
                ErrorKind::WriteZero,
                format!("sent {n} of {} octets", frame.len()),
            )),
            Err(e) => Err(e),
        }
    }

    fn os_error(&self, op: &'static str, source: std::io::Error) -> IoError {
        IoError::Os { op, interface: self.name.clone(), source }
    }
}

impl AsFd for PacketSocket {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.socket.as_fd()
    }
}

impl FramePort for PacketSocket {
    fn name(&self) -> &str {
        &self.name
    }

    fn mac(&self) -> MacAddr {
        self.mac
    }

    fn send(&mut self, frame: &[u8]) -> Result<(), IoError> {
        stale_down::send_past(|| self.write_once(frame)).map_err(|e| self.os_error("send", e))
    }

    fn recv(&mut self, buf: &mut [u8]) -> Result<Option<usize>, IoError> {
        loop {
            match recvfrom::<LinkAddr>(self.socket.as_raw_fd(), buf) {
                Ok((n, from)) => {
                    let group = buf.first().is_some_and(|b| b & 1 == 1);
                    let other_vlan = from.is_some_and(|a| a.pkttype() == PACKET_OTHERHOST);
                    return Ok(Some(if group && other_vlan { restore_tag(buf, n) } else { n }));
                }
                Err(Errno::EAGAIN) => return Ok(None),
                Err(Errno::EINTR) => continue,
                Err(e) => {
                    return Err(self.os_error("recv", std::io::Error::from_raw_os_error(e as i32)))
                }
            }
        }
    }
}

/// `sll_pkttype` of a frame to another host (linux/if_packet.h).
const PACKET_OTHERHOST: u8 = 3;

/// Puts a VLAN tag (81-00, TCI 0: the kernel kept no more) back after the source address of
/// the `len`-octet frame in `buf`; the frame's last octets are lost if `buf` is full. Returns
/// the new length.
fn restore_tag(buf: &mut [u8], len: usize) -> usize {
    const TAG_AT: usize = 12;
    let len = len.min(buf.len());
    if len < TAG_AT || buf.len() < TAG_AT + 4 {
        return len;
    }
    let new_len = (len + 4).min(buf.len());
    buf.copy_within(TAG_AT..new_len - 4, TAG_AT + 4);
    buf[TAG_AT..TAG_AT + 4].copy_from_slice(&[0x81, 0x00, 0x00, 0x00]);
    new_len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_restored_tag_sits_after_the_source_address() {
        let mut buf = [0u8; 20];
        let frame: Vec<u8> = (1..=14).collect();
        buf[..14].copy_from_slice(&frame);
        assert_eq!(restore_tag(&mut buf, 14), 18);
        assert_eq!(&buf[..12], &frame[..12]);
        assert_eq!(&buf[12..16], &[0x81, 0, 0, 0]);
        assert_eq!(&buf[16..18], &frame[12..14]);
        // A full buffer loses the frame's tail, not the tag.
        let mut full = [7u8; 16];
        assert_eq!(restore_tag(&mut full, 16), 16);
        assert_eq!(&full[12..16], &[0x81, 0, 0, 0]);
    }
}
