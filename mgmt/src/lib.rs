//! mgmt: the schema-driven NETCONF server (SSH, framing, datastores, NACM). It knows nothing of
//! PFC; the daemon plugs its component logic in through a backend. Work in progress: see the
//! issue "mgmt: a schema-driven NETCONF server over SSH" and `mgmt/README.md`.
//!
//! The layers, bottom up: [`framing`] (RFC 6242 message framing, pure), [`xml`] (a small
//! namespace-aware tree), [`hello`] (capability exchange), [`rpc`] and [`error`] (requests,
//! replies, rpc-errors), [`dispatch`] (operations), [`session`] (one session over any byte
//! stream), [`sessions`] (the session table), the SSH transport in [`ssh`], and beside them
//! [`schema`] (YANG through libyang) and [`datastore`] (running/candidate/startup in sled).

pub mod config;
pub mod datastore;
pub mod dispatch;
pub mod error;
pub mod framing;
pub mod hello;
pub mod rpc;
pub mod schema;
pub mod session;
pub mod sessions;
pub mod ssh;
pub mod users;
pub mod xml;
