//! ieee802-dot1ab-lldp with ieee802-dot1q-lldp-dcbx-tlv and ieee802-dot1q-lldp-pfc-tlv, one
//! file per direction: [`config`] (each port's LLDP agent and DCBX settings, read into the
//! port's [`PortIntent`](crate::ports::PortIntent); [`ets_app`] its ETS and APP tables),
//! [`state`] (counters, the peer as its LLDPDUs describe it, the DCBX outcome; the peer's ETS
//! and APP TLVs in [`ets_app_state`]), [`notification`] (pfc-dcbx-misconfiguration,
//! remote-table-change); [`wire_text`] (what a peer's text TLVs become in the state: visible
//! escapes for the characters no client should get raw).
//!
//! A port runs LLDP when `/lldp/port` has an entry for it with the nearest bridge address;
//! without one it runs no agent and PFC runs on `pfc-enable` alone. A setting on the port entry
//! wins over the same setting at `/lldp`, which wins over the YANG default.

pub mod config;
pub mod ets_app;
pub mod ets_app_state;
pub mod notification;
pub mod state;
pub mod wire_text;

use lldp::wire::NEAREST_BRIDGE;

/// The modules this family serves.
pub const MODULES: [&str; 4] = [
    "ieee802-dot1ab-lldp",
    "ieee802-dot1q-lldp-dcbx-tlv",
    "ieee802-dot1q-lldp-pfc-tlv",
    "pfcd-lldp",
];

/// The nearest bridge address as the YANG module writes it.
pub fn nearest_bridge() -> String {
    NEAREST_BRIDGE.to_string().to_uppercase()
}
