//! mgmt: the schema-driven NETCONF server (SSH, framing, datastores, NACM, notifications). It
//! knows nothing of PFC; the daemon plugs its component logic in through the
//! [`backend::Backend`] trait. See `mgmt/README.md` for what is built and what is left.
//!
//! The layers, bottom up; each folder uses only the ones below it:
//!
//! - `netconf_proto`, a crate of its own shared with the client: RFC 6242 framing, the
//!   `<hello>` exchange, a small namespace-aware XML tree;
//! - [`protocol`]: NETCONF's own messages and sessions as data, without YANG: `<rpc>` and
//!   `<rpc-reply>` ([`protocol::rpc`]), `<rpc-error>` ([`protocol::error`]), the session table
//!   ([`protocol::sessions`]);
//! - [`yang`]: YANG through libyang ([`yang::schema`]) and its pure-Rust index
//!   ([`yang::model`]), data trees ([`yang::data`]), edit-config on a tree ([`yang::edit`]),
//!   subtree filters and XPath prefixes ([`yang::filter`]), libyang's refusals as rpc-errors;
//! - [`datastore`]: running, candidate and startup in sled, validated snapshots, `when`
//!   after an edit; [`access`]: NACM ([`access::nacm`]), keeping the administrator in, the
//!   users file ([`access::users`]); [`notify`]: the event stream with replay, and the
//!   [`notify::Notifier`] backends publish through; [`backend`]: the trait the daemon
//!   implements; [`config`]: the server's settings;
//! - [`engine`]: the state every session shares (schema, datastores, NACM rules, locks,
//!   commits, backends, the writer mutex and the [`engine::Mode`] a request takes it in,
//!   the server's own state for monitoring);
//! - [`dispatch`]: one operation, one reply;
//! - [`session`]: one session over any byte stream, which requests it runs on its own task
//!   ([`session::inline`]), the memory budget, which notifications it delivers;
//! - [`ssh`]: the transport, admission before authentication, password checks; [`state_dir`]:
//!   the state directory checked before it is trusted, and files written into it whole.

pub mod access;
pub mod backend;
pub mod config;
pub mod datastore;
pub mod dispatch;
pub mod engine;
pub mod fuzzing;
pub mod notify;
pub mod protocol;
pub mod session;
pub mod ssh;
pub mod state_dir;
pub mod yang;

// The daemon reads and writes the users file through `mgmt::users` (its first start's
// administrator); the file's home is the access layer.
pub use access::users;
