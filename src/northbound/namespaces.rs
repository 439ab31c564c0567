//! The namespaces of the modules pfcd serves, in one file, so that every family can name them
//! without importing from the hub or from each other; pfcd's own modules' are read from their
//! YANG at build time (`pfc-yang-names`).

pub const IF_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-interfaces";
pub const IANA_IF_NS: &str = "urn:ietf:params:xml:ns:yang:iana-if-type";
pub const DOT1Q_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-bridge";
pub const PFC_NS: &str = pfc_yang_names::ieee802_dot1q_pfc::NAMESPACE;
pub const PFC_BRIDGE_NS: &str = pfc_yang_names::ieee802_dot1q_pfc_bridge::NAMESPACE;
pub const PFC_NTF_NS: &str = pfc_yang_names::ieee802_dot1q_pfc_bridge_notifications::NAMESPACE;
pub const LLDP_NS: &str = "urn:ieee:std:802.1AB:yang:ieee802-dot1ab-lldp";
pub const DCBX_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-lldp-dcbx-tlv";
pub const PFC_TLV_NS: &str = pfc_yang_names::ieee802_dot1q_lldp_pfc_tlv::NAMESPACE;
pub const PIPE_NS: &str = pfc_yang_names::pfcd_pipeline::NAMESPACE;
pub const LAB_NS: &str = pfc_yang_names::pfcd_lab::NAMESPACE;
pub const WD_NS: &str = pfc_yang_names::pfcd_watchdog::NAMESPACE;
pub const HEADROOM_NS: &str = pfc_yang_names::pfcd_headroom::NAMESPACE;
pub const PFCD_PFC_NS: &str = pfc_yang_names::pfcd_pfc::NAMESPACE;
pub const PFCD_LLDP_NS: &str = pfc_yang_names::pfcd_lldp::NAMESPACE;
