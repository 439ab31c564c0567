//! The kernel's stale "interface down" on packet sockets.
//!
//! Linux reports an interface going down to each packet socket bound to it once, as a pending
//! socket error (ENETDOWN) that whichever call comes next returns; binding to an interface that
//! is down leaves one too. A socket opened before its link came up, or kept over a flap, would
//! fail its first send after the link is back with that old news, and the frame would be lost.

use socket2::Socket;

/// Drops the error a bind to a down interface leaves: it tells nothing once the link is up,
/// and the caller follows the link's state by itself.
pub(super) fn forget(socket: &Socket) {
    let _stale = socket.take_error();
}

/// Runs `send`, and once more when it fails with ENETDOWN: the first failure may be the old
/// news, and the second try tells, since the kernel then checks whether the interface is up
/// afresh.
pub(super) fn send_past<T>(mut send: impl FnMut() -> std::io::Result<T>) -> std::io::Result<T> {
    match send() {
        Err(e) if e.raw_os_error() == Some(libc::ENETDOWN) => send(),
        other => other,
    }
}
