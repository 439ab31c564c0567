//! mgmt: the schema-driven NETCONF server (SSH, framing, datastores, NACM, notifications). It
//! knows nothing of PFC; the daemon plugs its component logic in through the
//! [`backend::Backend`] trait. See `mgmt/README.md` for what is built and what is left.
//!
//! The layers, bottom up: `netconf_proto` (a crate of its own, shared with the client:
//! RFC 6242 message framing, the capability exchange, a small namespace-aware XML tree),
//! [`rpc`] and [`error`] (requests, replies, rpc-errors), [`session`] (one session over any byte stream; [`inline`] says which
//! requests it runs itself), [`sessions`] (the session table), the SSH transport in [`ssh`].
//! Beside them: [`schema`] (YANG through libyang)
//! and its pure-Rust index [`model`], data trees in [`data`], [`edit`] (edit-config) and
//! [`filter`] (subtree filters, XPath prefixes), [`datastore`] (running/candidate/startup in
//! sled), [`engine`] (the state every session shares: locks, commits, backends), [`dispatch`]
//! (operations), [`nacm`] (access control), [`notify`] (the event stream), [`monitoring`]
//! (capabilities, ietf-netconf-monitoring, yang-library) and [`backend`].

mod admin_access;
pub mod backend;
pub mod budget;
pub mod config;
pub mod cross_refs;
pub mod data;
pub mod datastore;
mod delivery;
pub mod dispatch;
pub mod edit;
pub mod engine;
pub mod error;
pub mod filter;
mod filter_cost;
pub mod fuzzing;
pub mod inline;
mod max_depth;
pub mod model;
pub mod monitoring;
pub mod nacm;
pub mod notify;
mod path_text;
pub mod rpc;
pub mod schema;
pub mod session;
pub mod sessions;
pub mod ssh;
pub mod users;
mod when;
pub mod xpath_cost;
mod yang_errors;
