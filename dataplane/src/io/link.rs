//! Is an interface up, and when might that have changed?
//!
//! [`is_up`] reads the interface's carrier from sysfs. [`LinkWatcher`] is a netlink
//! socket subscribed to link notifications (RTMGRP_LINK): it becomes readable whenever any link
//! changes, and the caller then asks [`is_up`] again for the ports it cares about. The messages
//! themselves are not parsed: one more sysfs read is cheaper than a netlink decoder, and cannot
//! disagree with the kernel.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};

use nix::sys::socket::{
    bind, recv, socket, AddressFamily, MsgFlags, NetlinkAddr, SockFlag, SockProtocol, SockType,
};

use super::IoError;
use crate::wire::MacAddr;

/// Netlink multicast group of link changes.
const RTMGRP_LINK: u32 = 1;

/// True when `interface` can pass frames: administratively up with carrier. The carrier flag
/// is read rather than the operational state because the kernel updates the latter through its
/// link watch, up to a second late; the carrier is current as soon as the link comes up.
/// Missing interfaces, and interfaces that are down (whose carrier cannot be read), are down.
///
/// The administrative flag is read too: while an interface is being brought up the kernel
/// turns the carrier on (a veth's open does, for both ends) before it sets IFF_UP, and a
/// frame sent in that window fails with ENETDOWN although the carrier reads 1.
pub fn is_up(interface: &str) -> bool {
    let admin_up = sysfs(interface, "flags")
        .and_then(|f| u32::from_str_radix(f.trim_start_matches("0x"), 16).ok())
        .is_some_and(|flags| flags & IFF_UP != 0);
    admin_up && sysfs(interface, "carrier").is_some_and(|s| s == "1")
}

/// `IFF_UP` of `<linux/if.h>`: the interface is administratively up.
const IFF_UP: u32 = 0x1;

/// The interface's index and MAC address as they are now, or `None` when it does not exist.
/// An interface deleted and created again under its name has a new index (and maybe a new
/// address): a socket bound to the old one sends nothing (ENXIO) and receives nothing.
pub fn identity(interface: &str) -> Option<(i32, MacAddr)> {
    let ifindex = sysfs(interface, "ifindex")?.parse().ok()?;
    let mac = sysfs(interface, "address")?.parse().ok()?;
    Some((ifindex, mac))
}

/// One attribute of `/sys/class/net/<interface>/`, trimmed; `None` when it cannot be read.
fn sysfs(interface: &str, attribute: &str) -> Option<String> {
    if interface.is_empty() || interface.contains('/') || interface.starts_with('.') {
        return None;
    }
    std::fs::read_to_string(format!("/sys/class/net/{interface}/{attribute}"))
        .ok()
        .map(|s| s.trim().to_string())
}

/// Readable when some link changed.
#[derive(Debug)]
pub struct LinkWatcher {
    fd: OwnedFd,
}

impl LinkWatcher {
    pub fn new() -> Result<Self, IoError> {
        let os = |op| {
            move |e: nix::errno::Errno| IoError::Os {
                op,
                interface: "netlink".into(),
                source: std::io::Error::from_raw_os_error(e as i32),
            }
        };
        let fd = socket(
            AddressFamily::Netlink,
            SockType::Raw,
            SockFlag::SOCK_CLOEXEC | SockFlag::SOCK_NONBLOCK,
            SockProtocol::NetlinkRoute,
        )
        .map_err(os("socket"))?;
        bind(fd.as_raw_fd(), &NetlinkAddr::new(0, RTMGRP_LINK)).map_err(os("bind"))?;
        Ok(LinkWatcher { fd })
    }

    /// Reads and drops every pending notification; true if there was any.
    pub fn drain(&self) -> bool {
        let mut buf = [0u8; 8192];
        let mut any = false;
        loop {
            match recv(self.fd.as_raw_fd(), &mut buf, MsgFlags::MSG_DONTWAIT) {
                Ok(0) => return any,
                Ok(_) => any = true,
                // ENOBUFS: notifications were lost; the caller rechecks everything anyway.
                Err(nix::errno::Errno::ENOBUFS) => any = true,
                Err(nix::errno::Errno::EINTR) => {}
                Err(_) => return any,
            }
        }
    }
}

impl AsFd for LinkWatcher {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_is_up_and_nonsense_is_not() {
        assert!(is_up("lo"));
        assert!(!is_up("no-such-interface-0"));
        assert!(!is_up("../lo"));
        assert!(identity("lo").is_some_and(|(i, _)| i > 0));
        assert_eq!(identity("no-such-interface-0"), None);
    }
}
