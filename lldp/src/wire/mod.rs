//! LLDP wire formats (IEEE 802.1AB, with the IEEE 802.1Q DCBX TLVs and the P802.1Qdt additions):
//! a high-level representation per frame, LLDPDU and TLV with `parse`, `emit`, `buffer_len` and
//! `to_vec`.
//!
//! ```text
//! LLDP frame:  | DA 01-80-C2-00-00-0E | SA | 88-CC | LLDPDU | padding to 60 octets |
//! LLDPDU:      | Chassis ID | Port ID | TTL | optional TLVs ... | End |
//! TLV:         | type (7 bits) | length (9 bits) | information string (0..=511 octets) |
//! type 127:    | 127 | length | OUI (3) | subtype (1) | organizationally defined information |
//! ```
//!
//! - [`LldpFrame`]: a whole frame (Ethernet header, LLDPDU, padding); [`Lldpdu`]: the LLDPDU.
//! - [`Tlv`]: any TLV, decoded by type (and by OUI and subtype for type 127). Each kind also has
//!   its own type with the same four methods: [`ChassisId`], [`PortId`], [`Ttl`],
//!   [`PortDescription`], [`SystemName`], [`SystemDescription`], [`SystemCapabilities`],
//!   [`ManagementAddress`], [`OrgTlv`] (any organizationally specific TLV), and the IEEE 802.1
//!   (OUI 00-80-C2) TLVs [`EtsConfig`], [`EtsRecommendation`], [`PfcConfig`], [`AppPriority`],
//!   [`PfcLocalDelay`]. [`RawTlv`] reads any TLV without interpreting it.
//!
//! Each format declares where its fields lie once, in a `mod field` beside its parser (counted
//! from the start of the information string, so the OUI and subtype of an organizationally
//! specific TLV are octets 0 to 3), and parse and emit both use those names: parsers read them
//! with `pfc_wire::Fields`, emitters write them with a `Writer` (`write.rs`), neither with any
//! indexing that could panic.
//!
//! Parsers return a typed [`Error`] for anything malformed; none panics on any input (each is
//! driven with 100 000 random and mutated inputs on every test run, and fuzzed).
//! Unknown TLV types, unknown OUIs and subtypes are kept as octets and re-emitted identically;
//! a parsed LLDPDU re-emits to the octets it came from (see [`Lldpdu`] for the exceptions:
//! padding after End, and reserved bits, which are sent as 0). Emitters refuse, with an error,
//! any field that does not fit its bits rather than truncate it. Where the standards leave a
//! choice, each module's documentation says what we chose.

mod any_tlv;
mod app;
mod basic;
mod error;
mod ets;
mod frame;
mod ids;
mod lldpdu;
mod local_delay;
mod mgmt_addr;
mod names;
mod org;
mod pfc;
mod text;
mod tlv;
mod write;

pub use any_tlv::Tlv;
pub use app::{AppEntry, AppPriority, AppSelector, APP_PRIORITY_SUBTYPE};
pub use basic::{PortDescription, SystemCapabilities, SystemDescription, SystemName, Ttl};
pub use error::Error;
pub use ets::{
    EtsConfig, EtsRecommendation, EtsTables, Tsa, ETS_CONFIG_SUBTYPE, ETS_INFO_LEN,
    ETS_RECOMMENDATION_SUBTYPE,
};
pub use frame::{LldpFrame, NEAREST_BRIDGE, NEAREST_CUSTOMER_BRIDGE, NEAREST_NON_TPMR_BRIDGE};
pub use ids::{ChassisId, NetworkAddress, PortId};
pub use lldpdu::{Lldpdu, MAX_TLVS};
pub use local_delay::{
    PfcLocalDelay, TimeInterval, PFC_LOCAL_DELAY_INFO_LEN, PFC_LOCAL_DELAY_SUBTYPE,
};
pub use mgmt_addr::{InterfaceNumbering, ManagementAddress};
pub use names::{Oui, TlvType};
pub use org::{OrgTlv, ORG_HEADER_LEN};
pub use pfc::{PfcConfig, PfcFormat, PFC_CONFIG_SUBTYPE, PFC_LEGACY_INFO_LEN, PFC_QDT_INFO_LEN};
pub use text::Text;
pub use tlv::{RawTlv, MAX_INFO_LEN, MAX_TLV_TYPE, TLV_HEADER_LEN};

/// The LLDP EtherType, 88-CC (the same constant as `pfc_wire::EtherType::LLDP`).
pub const LLDP_ETHERTYPE: pfc_wire::EtherType = pfc_wire::EtherType::LLDP;
