//! Wire formats: a high-level representation per frame with `parse`, `emit` and `buffer_len`.
//!
//! Every parser takes a whole Ethernet frame without FCS, checks it, and returns a typed
//! [`Error`] for anything malformed; none of them panics on any input (they are fuzzed).
//! Emitters write exactly `buffer_len()` octets, zero-padded to the 60-octet minimum frame.
//! Each format declares its fields' octets once, in a `mod field` (802.3 Annex 31B/31D for
//! PAUSE and PFC, P802.1Qdt 36.9 for the HMPDU), and parse and emit both use those names.
//!
//! The Ethernet header, MAC addresses, EtherTypes and the error are the workspace's shared wire
//! crate's (`pfc-wire`, which `lldp` uses too), re-exported here at the paths the data plane's
//! users name them by.

mod hmpdu;
mod mac_control;

pub use hmpdu::{Hmpdu, HmpduTuple, PathCode, TupleUse, HMPDU_SUBTYPE};
pub use mac_control::{MacControl, PauseFrame, PfcFrame, MAC_CONTROL_GROUP, PRIORITIES};
pub use pfc_wire::{
    Error, EtherType, EthernetHeader, MacAddr, VlanTag, ETHERNET_HEADER_LEN, MIN_FRAME_LEN,
    VLAN_TAG_LEN,
};

/// Anything the data plane can be handed on a port, classified by EtherType and opcode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame<'a> {
    /// A PFC or PAUSE frame (EtherType 88-08).
    MacControl(MacControl),
    /// A Headroom Measurement PDU (EtherType 89-A2, subtype 1).
    Hmpdu(Hmpdu),
    /// Anything else: the header and the payload after it, untouched.
    Other { header: EthernetHeader, payload: &'a [u8] },
}

impl<'a> Frame<'a> {
    /// Classifies and parses a frame. Frames that are not MAC Control or HMPDU are not errors.
    pub fn parse(frame: &'a [u8]) -> Result<Self, Error> {
        let (header, payload) = EthernetHeader::parse(frame)?;
        match header.ethertype {
            EtherType::MAC_CONTROL => MacControl::parse(frame).map(Frame::MacControl),
            EtherType::HMPDU => Hmpdu::parse(frame).map(Frame::Hmpdu),
            _ => Ok(Frame::Other { header, payload }),
        }
    }
}
