//! What a program holding a socket on an interface says when the interface changes under it
//! (`dataplane::io::FollowedLink`): the bridge's ports, pfcd's LLDP sockets and `pfc-lldp`'s
//! say it in these words, with a `socket` field naming which socket it is.

/// The interface was made anew or given another address, and the socket opened again on it.
pub const REOPENED: &str = "interface created anew or readdressed: socket reopened";

/// Opening the socket again failed; it is tried again at the next look (logged once until a
/// reopen works).
pub const REOPEN_FAILED: &str = "cannot reopen the socket on the interface; trying again";

/// The interface is gone; the socket waits for it to come back.
pub const GONE: &str = "interface gone: waiting for it to come back";
