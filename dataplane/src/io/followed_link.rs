//! One interface followed by name by whoever holds a socket on it (a bridge port, an LLDP
//! agent): its link going down and up, the interface deleted and created again under its name
//! (a veth made anew, a driver reloaded: a new index, which the old socket is not bound to, so
//! it never sends or receives again), and a new MAC address on the same interface.
//!
//! The holder looks when it has reason to ([`super::link::LinkWatcher`] readable, a period, a
//! failed send), in two steps: [`FollowedLink::look`] says whether the socket must be opened
//! again and whether the address changed; once the holder has reopened (or failed to),
//! [`FollowedLink::link`] says whether the link is usable and whether that changed. A socket
//! waiting to be reopened is a link down, whatever the carrier says.

use super::link::{identity, is_up};
use crate::wire::MacAddr;

/// An interface as the system shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    /// Its index and MAC address; `None` when there is no interface of that name.
    pub identity: Option<(i32, MacAddr)>,
    /// Administratively up with carrier.
    pub up: bool,
}

impl Seen {
    /// `name` now, from sysfs.
    pub fn probe(name: &str) -> Seen {
        Seen { identity: identity(name), up: is_up(name) }
    }
}

/// What a look found that the holder must act on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Look {
    /// The socket must be opened again on this interface (index, address): it was created
    /// anew. Asked at every look until [`FollowedLink::reopened`].
    pub reopen: Option<(i32, MacAddr)>,
    /// The same interface has another MAC address.
    pub readdressed: Option<MacAddr>,
    /// The interface has just gone (told once; the holder waits for it to come back).
    pub gone: bool,
}

/// One interface, as its holder last saw it.
#[derive(Debug, Clone)]
pub struct FollowedLink {
    /// The interface the socket is bound to, and its address.
    bound: Option<(i32, MacAddr)>,
    /// The socket must be opened again before the link can be used.
    reopen: bool,
    /// The last attempt to reopen failed (for logging once until one works).
    reopen_failed: bool,
    /// The carrier at the last look, and the link as last reported by [`FollowedLink::link`].
    seen_up: bool,
    up: bool,
}

impl FollowedLink {
    /// An interface whose socket was just opened on `seen` (read just before the open: a
    /// socket opened on an interface created anew since is then reopened once, needlessly,
    /// rather than never).
    pub fn new(seen: Seen) -> Self {
        let up = seen.up && seen.identity.is_some();
        FollowedLink {
            bound: seen.identity,
            reopen: seen.identity.is_none(),
            reopen_failed: false,
            seen_up: seen.up,
            up,
        }
    }

    /// The link as last reported: usable (up, and the socket bound to the interface).
    pub fn is_up(&self) -> bool {
        self.up
    }

    /// The interface as `seen` now: what the holder must do about its socket.
    pub fn look(&mut self, seen: Seen) -> Look {
        self.seen_up = seen.up;
        let mut look = Look::default();
        match seen.identity {
            None => {
                look.gone = !self.reopen;
                self.reopen = true;
            }
            Some((ifindex, mac)) => {
                if self.bound.map(|(i, _)| i) != Some(ifindex) {
                    self.reopen = true;
                }
                if self.reopen {
                    look.reopen = Some((ifindex, mac));
                } else if self.bound.map(|(_, m)| m) != Some(mac) {
                    look.readdressed = Some(mac);
                    self.bound = Some((ifindex, mac));
                }
            }
        }
        look
    }

    /// The socket was opened again on interface `ifindex` with address `mac`.
    pub fn reopened(&mut self, ifindex: i32, mac: MacAddr) {
        self.bound = Some((ifindex, mac));
        self.reopen = false;
        self.reopen_failed = false;
    }

    /// Opening again failed. Returns whether it is the first failure since the last success
    /// (what the holder logs; it tries again at its next look).
    pub fn reopen_failed(&mut self) -> bool {
        !std::mem::replace(&mut self.reopen_failed, true)
    }

    /// After a look and the holder's reopening: the link's state, `Some` when it changed
    /// since the last call.
    pub fn link(&mut self) -> Option<bool> {
        let up = self.seen_up && self.bound.is_some() && !self.reopen;
        (up != self.up).then(|| {
            self.up = up;
            up
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: MacAddr = MacAddr([2, 0, 0, 0, 0, 1]);
    const B: MacAddr = MacAddr([2, 0, 0, 0, 0, 2]);

    fn seen(ifindex: i32, mac: MacAddr, up: bool) -> Seen {
        Seen { identity: Some((ifindex, mac)), up }
    }

    #[test]
    fn carrier_down_and_up_is_told_once_each() {
        let mut f = FollowedLink::new(seen(5, A, true));
        assert!(f.is_up());
        assert_eq!(f.look(seen(5, A, false)), Look::default());
        assert_eq!(f.link(), Some(false));
        assert_eq!(f.look(seen(5, A, false)), Look::default());
        assert_eq!(f.link(), None);
        f.look(seen(5, A, true));
        assert_eq!(f.link(), Some(true));
    }

    #[test]
    fn an_interface_made_anew_wants_its_socket_reopened_until_it_is() {
        let mut f = FollowedLink::new(seen(5, A, true));
        assert!(f.look(Seen { identity: None, up: false }).gone);
        assert_eq!(f.link(), Some(false));
        // Gone is told once.
        assert!(!f.look(Seen { identity: None, up: false }).gone);
        // Back with a new index: reopen, and the link stays down until the socket is.
        assert_eq!(f.look(seen(9, B, true)).reopen, Some((9, B)));
        assert!(f.reopen_failed());
        assert!(!f.reopen_failed(), "a failure is told once");
        assert_eq!(f.link(), None);
        assert_eq!(f.look(seen(9, B, true)).reopen, Some((9, B)));
        f.reopened(9, B);
        assert_eq!(f.link(), Some(true));
        assert_eq!(f.look(seen(9, B, true)), Look::default());
        assert!(f.reopen_failed(), "a success resets the failure");
    }

    #[test]
    fn a_new_index_under_the_same_name_without_going_is_a_reopen() {
        let mut f = FollowedLink::new(seen(5, A, true));
        assert_eq!(f.look(seen(6, A, true)).reopen, Some((6, A)));
        assert_eq!(f.link(), Some(false));
    }

    #[test]
    fn a_new_address_on_the_same_interface_is_told_once() {
        let mut f = FollowedLink::new(seen(5, A, true));
        assert_eq!(f.look(seen(5, B, true)).readdressed, Some(B));
        assert_eq!(f.look(seen(5, B, true)), Look::default());
        assert_eq!(f.link(), None);
    }

    #[test]
    fn a_socket_opened_on_no_interface_waits_for_one() {
        let mut f = FollowedLink::new(Seen { identity: None, up: false });
        assert!(!f.is_up());
        assert!(!f.look(Seen { identity: None, up: false }).gone);
        assert_eq!(f.look(seen(3, A, true)).reopen, Some((3, A)));
    }
}
