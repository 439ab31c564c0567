//! NETCONF's own messages and sessions as data, below everything that knows YANG: an `<rpc>`
//! and its `<rpc-reply>` ([`rpc`]), the `<rpc-error>` model every layer answers with
//! ([`error`]), and the table of sessions with their ids, counters and kill signals
//! ([`sessions`]). Framing, the hello and the XML tree are `netconf_proto`'s.

pub mod error;
pub mod rpc;
pub mod sessions;
