//! Opening an `AF_PACKET` socket on one interface: what [`PacketSocket`] and [`RawPort`] share.
//!
//! Both look the interface up with `getifaddrs` (its index and MAC address), create a raw packet
//! socket, set their options, make it non-blocking for a poll loop, bind it to the interface,
//! drop the stale error a bind to a down interface leaves, and join what they listen to. What
//! differs is a parameter of [`open`]: when the socket is given its protocol ([`Listen`]), the
//! options set before the bind, and the memberships added after it.
//!
//! [`PacketSocket`]: super::PacketSocket
//! [`RawPort`]: super::RawPort

use std::io;
use std::os::fd::{AsRawFd, RawFd};

use nix::ifaddrs::getifaddrs;
use socket2::{Domain, Protocol, Socket, Type};

use super::{stale_down, IoError};
use crate::wire::MacAddr;

/// Which frames a socket takes, and from when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Listen {
    /// Frames of this EtherType (host order) from the socket's creation on; the bind names the
    /// interface and keeps the protocol. [`PacketSocket`](super::PacketSocket)'s way.
    FromSocket(u16),
    /// Frames of this protocol (host order; `ETH_P_ALL` for every frame) from the bind on: the
    /// socket is created for none, so nothing is queued before the bind names the interface.
    /// [`RawPort`](super::RawPort)'s way.
    FromBind(u16),
}

/// A socket bound to an interface, with what `getifaddrs` said of the interface.
#[derive(Debug)]
pub(super) struct Opened {
    pub socket: Socket,
    pub ifindex: i32,
    pub mac: MacAddr,
}

/// Opens a raw `AF_PACKET` socket on `interface` for `listen`: `configure` sets its options
/// before the bind, `join` adds its memberships (given the interface's index) after it. Needs
/// CAP_NET_RAW.
pub(super) fn open(
    interface: &str,
    listen: Listen,
    configure: impl FnOnce(&Socket) -> Result<(), IoError>,
    join: impl FnOnce(&Socket, i32) -> Result<(), IoError>,
) -> Result<Opened, IoError> {
    let os = |op| move |source| IoError::Os { op, interface: interface.to_string(), source };
    let (ifindex, mac) = link(interface)?;
    let (created_for, bound_for) = match listen {
        Listen::FromSocket(ethertype) => {
            (Some(Protocol::from(i32::from(ethertype.to_be()))), KEEP_PROTOCOL)
        }
        Listen::FromBind(protocol) => (None, protocol),
    };
    let socket = Socket::new(Domain::PACKET, Type::RAW, created_for).map_err(os("socket"))?;
    configure(&socket)?;
    socket.set_nonblocking(true).map_err(os("set non-blocking"))?;
    bind(socket.as_raw_fd(), ifindex, bound_for).map_err(os("bind"))?;
    stale_down::forget(&socket);
    join(&socket, ifindex)?;
    Ok(Opened { socket, ifindex, mac })
}

/// The protocol of a bind that keeps the one the socket was created with.
const KEEP_PROTOCOL: u16 = 0;

/// The interface's index and MAC address, as `getifaddrs` lists them.
fn link(interface: &str) -> Result<(i32, MacAddr), IoError> {
    let addrs = getifaddrs().map_err(|e| IoError::Os {
        op: "getifaddrs",
        interface: interface.to_string(),
        source: io::Error::from_raw_os_error(e as i32),
    })?;
    addrs
        .filter(|a| a.interface_name == interface)
        .find_map(|a| a.address.and_then(|s| s.as_link_addr().copied()))
        .map(|l| {
            (i32::try_from(l.ifindex()).unwrap_or(0), l.addr().map(MacAddr).unwrap_or_default())
        })
        .ok_or_else(|| no_link_address(interface))
}

/// Why `getifaddrs` gave no Ethernet address for `interface`: it does not exist, or it does but
/// has no MAC address (a tun device, say), which no packet socket of ours can serve. The two
/// differ for whoever waits for an interface to appear: the second one is there already.
fn no_link_address(interface: &str) -> IoError {
    if nix::net::if_::if_nametoindex(interface).is_err() {
        return IoError::NoSuchInterface(interface.to_string());
    }
    IoError::Os {
        op: "link-layer address",
        interface: interface.to_string(),
        source: io::Error::new(
            io::ErrorKind::Unsupported,
            "not an Ethernet interface (it has no MAC address)",
        ),
    }
}

/// Binds a packet socket to interface `ifindex` for frames of `protocol` (host order; 0 keeps
/// the protocol the socket was created with).
#[allow(unsafe_code)] // nix's LinkAddr cannot be built with a protocol; libc::bind takes a pointer
fn bind(fd: RawFd, ifindex: i32, protocol: u16) -> io::Result<()> {
    let addr = libc::sockaddr_ll {
        sll_family: libc::AF_PACKET as u16,
        sll_protocol: protocol.to_be(),
        sll_ifindex: ifindex,
        sll_hatype: 0,
        sll_pkttype: 0,
        sll_halen: 0,
        sll_addr: [0; 8],
    };
    let len = std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t;
    // SAFETY: `addr` is an initialised sockaddr_ll on our stack for the whole call and `len` is
    // its size; the kernel only reads it.
    let rc = unsafe { libc::bind(fd, std::ptr::addr_of!(addr).cast(), len) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Adds a `PACKET_ADD_MEMBERSHIP` of `kind` on `ifindex`: `PACKET_MR_MULTICAST` with a group
/// `address` (so a NIC that filters multicast passes it), `PACKET_MR_PROMISC` with none. The
/// membership ends with the socket.
#[allow(unsafe_code)] // setsockopt with a packet_mreq, which neither nix nor socket2 wraps
pub(super) fn add_membership(
    socket: &Socket,
    ifindex: i32,
    kind: i32,
    address: Option<MacAddr>,
) -> io::Result<()> {
    let mut mr_address = [0u8; 8];
    let mut mr_alen = 0;
    if let Some(address) = address {
        mr_address[..address.0.len()].copy_from_slice(&address.0);
        mr_alen = address.0.len() as u16;
    }
    let mreq = libc::packet_mreq { mr_ifindex: ifindex, mr_type: kind as u16, mr_alen, mr_address };
    let len = std::mem::size_of::<libc::packet_mreq>() as libc::socklen_t;
    // SAFETY: `mreq` is an initialised packet_mreq on our stack that outlives the call; `len` is
    // its size; the fd is an open AF_PACKET socket. The kernel only reads it during the call.
    let rc = unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            libc::SOL_PACKET,
            libc::PACKET_ADD_MEMBERSHIP,
            std::ptr::addr_of!(mreq).cast(),
            len,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_interface_is_named_before_any_socket_is_made() {
        let opened = open(
            "pfcd-no-such-if0",
            Listen::FromBind(0x0003),
            |_| panic!("configured a socket for a missing interface"),
            |_, _| panic!("joined on a missing interface"),
        );
        match opened {
            Err(IoError::NoSuchInterface(name)) => assert_eq!(name, "pfcd-no-such-if0"),
            other => panic!("expected NoSuchInterface, got {other:?}"),
        }
    }
}
