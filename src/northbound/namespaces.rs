//! The namespaces of the modules pfcd serves, in one file that imports nothing, so that every
//! family can name them without importing from the hub or from each other.

pub const IF_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-interfaces";
pub const IANA_IF_NS: &str = "urn:ietf:params:xml:ns:yang:iana-if-type";
pub const DOT1Q_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-bridge";
pub const PFC_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-pfc";
pub const PFC_BRIDGE_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-pfc-bridge";
pub const LLDP_NS: &str = "urn:ieee:std:802.1AB:yang:ieee802-dot1ab-lldp";
pub const DCBX_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-lldp-dcbx-tlv";
pub const PFC_TLV_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-lldp-pfc-tlv";
pub const PIPE_NS: &str = "urn:pfcd:yang:pfcd-pipeline";
pub const LAB_NS: &str = "urn:pfcd:yang:pfcd-lab";
pub const WD_NS: &str = "urn:pfcd:yang:pfcd-watchdog";
pub const HEADROOM_NS: &str = "urn:pfcd:yang:pfcd-headroom";
pub const PFCD_PFC_NS: &str = "urn:pfcd:yang:pfcd-pfc";
pub const PFCD_LLDP_NS: &str = "urn:pfcd:yang:pfcd-lldp";
