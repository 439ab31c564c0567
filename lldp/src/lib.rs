//! lldp: the LLDP agent with DCBX, free of YANG and NETCONF.
//!
//! - [`wire`]: the LLDP frame, the LLDPDU and every TLV pfcd sends or receives — the IEEE
//!   802.1AB basic TLVs, the IEEE 802.1Q DCBX TLVs (ETS, PFC, Application Priority) and the
//!   P802.1Qdt PFC Configuration and PFC Local Delay TLVs — exact to the octet, parsed with nom
//!   and never panicking on input.

pub mod wire;
