//! pfc-wire: what the project's two protocol crates share on the wire, so that neither copies it
//! and `lldp` needs nothing else of `dataplane`.
//!
//! - [`MacAddr`], [`EtherType`] and the Ethernet II header with an optional IEEE 802.1Q C-tag
//!   ([`EthernetHeader`], [`ethernet`]), with the frame padding every emitter applies
//!   ([`frame_len`], [`emit_frame`]);
//! - [`Error`]: why a frame below LLDP (Ethernet, MAC Control, HMPDU) could not be parsed or
//!   emitted; `lldp` keeps its own error and converts this one;
//! - named field ranges: each format declares where its fields lie once, in a `mod field`
//!   ([`Field`], [`Rest`]), and its parser and emitter both use those names;
//! - [`Fields`], which reads named fields out of octets without any indexing that could panic,
//!   and [`check_out`], which checks an emitter's buffer.
//!
//! `dataplane::wire` re-exports the header, `MacAddr`, `EtherType` and `Error` at the paths the
//! workspace has always named them by (`dataplane::wire::MacAddr`, ...).

mod error;
mod ether_type;
pub mod ethernet;
mod fields;
mod mac_addr;

pub use error::Error;
pub use ether_type::EtherType;
pub use ethernet::{
    emit_frame, frame_len, EthernetHeader, VlanTag, ETHERNET_HEADER_LEN, MIN_FRAME_LEN,
    VLAN_TAG_LEN,
};
pub use fields::{check_out, Field, Fields, Rest};
pub use mac_addr::{MacAddr, ParseMacAddrError};
