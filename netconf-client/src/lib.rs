//! A small blocking NETCONF client over SSH (RFC 6241 over RFC 6242), on libssh2 through the
//! `ssh2` crate.
//!
//! It exists for the CLI and for `nc-load`, the benchmark that drives this server and others
//! (netconfd behind OpenSSH) with the same workload. It is deliberately a second SSH
//! implementation (libssh2, C) next to the server's (russh): a client sharing the server's SSH
//! code would not notice that code's mistakes. The NETCONF layer is the server's own pure
//! code, `netconf_proto`'s [`framing`](netconf_proto::framing) and
//! [`hello`](netconf_proto::hello), without the server.
//!
//! ```no_run
//! use netconf_client::{Auth, Client, ConnectOptions, Datastore};
//! let opts = ConnectOptions::new("127.0.0.1", 830, "alice", Auth::Password("secret".into()));
//! let mut c = Client::connect(&opts)?;
//! let reply = c.get_config(Datastore::Running, None)?;
//! println!("{}", reply.data().unwrap_or_default());
//! c.close_session()?;
//! # Ok::<(), netconf_client::Error>(())
//! ```
//!
//! Files, bottom up: `transport.rs` (SSH, subsystem, framed I/O), `reply.rs` (a reply and its
//! `<rpc-error>`s), `error.rs` (what can go wrong, an rpc-error reply among them), `parse.rs`
//! (`<rpc-reply>` and `<rpc-error>` parsing), `client.rs` (the session), `ops.rs` (the
//! operation helpers), `known_hosts.rs` (host keys pinned as ssh does, which pfcsh writes and
//! the fabric view reads). The nc-load benchmark's workload is the `netconf-load` crate's.

mod client;
mod error;
pub mod known_hosts;
mod ops;
mod parse;
mod reply;
mod transport;

pub use client::Client;
pub use error::{Error, Result};
pub use ops::{Datastore, DefaultOperation};
pub use parse::{parse_message, Incoming};
pub use reply::{Reply, RpcError, NOTIFICATION_NS};
pub use transport::{Auth, ConnectOptions};
