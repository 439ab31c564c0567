//! What can go wrong reading a message, and talking to the kernel.

use nix::errno::Errno;

/// A message, or a part of it, that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("{what} truncated: needs {needed} octets, has {got}")]
    Truncated { what: &'static str, needed: usize, got: usize },
    #[error("{what}: length field says {length}, outside 4..={room}")]
    BadLength { what: &'static str, length: usize, room: usize },
    #[error("interface name is not NUL-terminated UTF-8")]
    BadInterfaceName,
}

/// A request to the kernel that did not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum DcbError {
    /// The kernel refused it: an `NLMSG_ERROR`, or the status attribute of a SET's reply.
    #[error("{interface}: the kernel refused DCB {request}: {errno:?} ({})", describe(*errno))]
    Refused { interface: String, request: String, errno: Errno },
    /// The socket failed (opening it, sending, receiving, or no answer in time).
    #[error("{interface}: DCB {request} over netlink: {op} failed: {errno:?} ({})", describe(*errno))]
    Socket { interface: String, request: String, op: &'static str, errno: Errno },
    /// The kernel's answer could not be read.
    #[error("{interface}: DCB {request}: unreadable reply: {source}")]
    Reply { interface: String, request: String, source: DecodeError },
    /// No netlink socket could be opened.
    #[error("opening a NETLINK_ROUTE socket for DCB failed: {errno:?} ({})", describe(*errno))]
    Open { errno: Errno },
    /// An interface name the kernel cannot hold (empty, or longer than IFNAMSIZ - 1).
    #[error("{interface:?} is not an interface name (1 to 15 octets)")]
    BadInterfaceName { interface: String },
}

impl DcbError {
    /// The kernel's errno, for a refusal or a socket failure.
    pub fn errno(&self) -> Option<Errno> {
        match self {
            DcbError::Refused { errno, .. } | DcbError::Socket { errno, .. } => Some(*errno),
            _ => None,
        }
    }

    /// True when the interface has no DCB operations at all (veth, most virtual devices).
    pub fn not_supported(&self) -> bool {
        self.errno() == Some(Errno::EOPNOTSUPP)
    }
}

/// The C library's words for `errno` ("Operation not supported" for EOPNOTSUPP, as `dcb` and
/// `ip` print it), without Rust's "(os error N)".
fn describe(errno: Errno) -> String {
    let text = std::io::Error::from_raw_os_error(errno as i32).to_string();
    match text.rfind(" (os error ") {
        Some(end) => text[..end].to_string(),
        None => text,
    }
}
