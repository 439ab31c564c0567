//! The client's error type: one variant per way a NETCONF exchange can fail, so a caller (the
//! CLI, nc-load, tests) can tell "the server said no" ([`Error::Rpc`]) from "the server is not
//! there" ([`Error::Connect`]), "wrong credentials" ([`Error::Auth`]) and "the session is
//! broken" (framing, closed, time-out).

use std::time::Duration;

use thiserror::Error;

use netconf_proto::framing::FramingError;
use netconf_proto::hello::HelloError;

use crate::reply::Reply;

/// What went wrong.
#[derive(Debug, Error)]
pub enum Error {
    /// The TCP connection could not be made (refused, unreachable, DNS, time-out).
    #[error("cannot connect to {addr}: {source}")]
    Connect {
        /// `host:port` as given.
        addr: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The SSH layer failed (key exchange, channel, subsystem request), outside authentication.
    #[error("SSH {stage} failed: {source}")]
    Ssh {
        /// Which step: "handshake", "channel", "subsystem", ...
        stage: &'static str,
        /// libssh2's error.
        source: ssh2::Error,
    },
    /// The server's host key is not the one the caller pinned.
    #[error("host key mismatch: expected SHA-256 {expected}, the server presented {actual}")]
    HostKey {
        /// The pinned fingerprint, hex.
        expected: String,
        /// The server's, hex (empty if libssh2 gave none).
        actual: String,
    },
    /// The server refused the credentials (or authentication could not be completed).
    #[error("authentication of {user} by {method} refused: {reason}")]
    Auth {
        /// The user name sent.
        user: String,
        /// "password" or "public key".
        method: &'static str,
        /// libssh2's words.
        reason: String,
    },
    /// A wait for the server took longer than the configured time-out.
    #[error("no answer from the server within {after:?} ({stage})")]
    Timeout {
        /// What was awaited: "handshake", "authentication", "reply", ...
        stage: &'static str,
        /// The configured time-out.
        after: Duration,
    },
    /// The byte stream does not follow RFC 6242 framing; the session cannot continue.
    #[error("framing violation: {0}")]
    Framing(#[from] FramingError),
    /// The server's hello is unusable (not XML, no session-id, no common base version).
    #[error("bad server hello: {0}")]
    Hello(#[from] HelloError),
    /// A message that is not a well-formed `<rpc-reply>`, or one answering another request.
    #[error("unexpected message from the server: {0}")]
    Protocol(String),
    /// The server closed the session (channel EOF) while a reply was awaited.
    #[error("the server closed the session")]
    Closed,
    /// Reading or writing the SSH channel failed.
    #[error("I/O on the SSH channel: {0}")]
    Io(#[source] std::io::Error),
    /// The server answered with at least one rpc-error of severity `error`. The whole reply is
    /// kept: error-info, error-path and any warnings are in it.
    #[error("rpc-error: {}", summary(.0))]
    Rpc(Box<Reply>),
}

/// The first error's tag and message, for `Display`.
fn summary(reply: &Reply) -> String {
    match reply.errors().first() {
        Some(e) => match &e.error_message {
            Some(m) => format!("{} ({}): {m}", e.error_tag, e.error_type),
            None => format!("{} ({})", e.error_tag, e.error_type),
        },
        None => "no <rpc-error> element".into(),
    }
}

impl Error {
    /// The rpc-error reply, if this is one: lets a caller look at tags without matching.
    pub fn reply(&self) -> Option<&Reply> {
        match self {
            Error::Rpc(r) => Some(r),
            _ => None,
        }
    }
}

/// The client's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Reply {
    /// `Ok(self)` unless the reply carries an rpc-error of severity `error`.
    pub fn into_result(self) -> Result<Reply> {
        if self.has_errors() {
            Err(Error::Rpc(Box::new(self)))
        } else {
            Ok(self)
        }
    }
}
