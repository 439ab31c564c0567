//! NETCONF over SSH (RFC 6242): the server, its host key and the per-connection handler.

pub mod admission;
pub mod auth_pool;
mod connection;
mod flood_log;
pub mod handler;
pub mod hostkey;
pub mod login_cache;
mod quick_ack;
pub mod server;

pub use admission::AdmissionStats;
pub use server::{Server, StartError};
