//! lldp: the LLDP agent with DCBX, free of YANG and NETCONF.
//!
//! - [`wire`]: the LLDP frame, the LLDPDU and every TLV pfcd sends or receives — the IEEE
//!   802.1AB basic TLVs, the IEEE 802.1Q DCBX TLVs (ETS, PFC, Application Priority) and the
//!   P802.1Qdt PFC Configuration and PFC Local Delay TLVs — exact to the octet, each field's
//!   octets named once, and never panicking on input. The Ethernet header and MAC addresses are
//!   the shared `pfc-wire` crate's; nothing here depends on the data plane.
//! - [`agent`]: one port's LLDP agent (IEEE 802.1AB-2016 clause 9): transmit and timer state
//!   machines, receive validation, ageing, statistics.
//! - [`neighbours`]: the remote systems data, every TLV kept, and its change events.
//! - [`dcbx`]: ETS, PFC (with the P802.1Qdt bits and the PFC Local Delay) and Application
//!   Priority negotiation: administrative, peer and operational values, and why.
//! - [`port`]: an agent and its DCBX together, as the daemon and the `pfc-lldp` tool run them.
//!
//! Everything here is pure: time comes in as an argument, frames and events go out as return
//! values, so the same code runs on real interfaces and in simulated time.

pub mod agent;
pub mod dcbx;
pub mod neighbours;
pub mod port;
pub mod wire;
