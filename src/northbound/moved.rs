//! The data nodes pfcd's modules moved between releases, so that a configuration stored by an
//! earlier release starts as it was (mgmt carries it over, `mgmt::datastore::migrate`): the
//! configuration leaves that left the IEEE-namespace modules for pfcd's own when those were
//! cut to what the draft defines, the second administrative PFC Enable, pfcd's own modules
//! leaving the unregistered `urn:pfcd:` for UUID URNs, and the headroom methods renamed.

use mgmt::datastore::migrate::Moved;
use pfc_yang_names::{
    pfcd_deviations, pfcd_headroom, pfcd_lab, pfcd_lldp, pfcd_nic, pfcd_pfc, pfcd_pipeline,
    pfcd_watchdog,
};

use super::namespaces::{DCBX_NS, PFCD_LLDP_NS, PFCD_PFC_NS, PFC_BRIDGE_NS, PFC_NS, PFC_TLV_NS};

/// Each of pfcd's own modules: its namespace under `urn:pfcd:`, and its namespace now.
const RENAMED_NAMESPACES: [(&str, &str); 8] = [
    ("urn:pfcd:yang:pfcd-deviations", pfcd_deviations::NAMESPACE),
    ("urn:pfcd:yang:pfcd-headroom", pfcd_headroom::NAMESPACE),
    ("urn:pfcd:yang:pfcd-lab", pfcd_lab::NAMESPACE),
    ("urn:pfcd:yang:pfcd-lldp", pfcd_lldp::NAMESPACE),
    ("urn:pfcd:yang:pfcd-nic", pfcd_nic::NAMESPACE),
    ("urn:pfcd:yang:pfcd-pfc", pfcd_pfc::NAMESPACE),
    ("urn:pfcd:yang:pfcd-pipeline", pfcd_pipeline::NAMESPACE),
    ("urn:pfcd:yang:pfcd-watchdog", pfcd_watchdog::NAMESPACE),
];

/// The headroom methods of ieee802-dot1q-pfc that were allowance sources too: old name, new.
const RENAMED_METHODS: [(&str, &str); 3] = [
    ("calculated", "link-delay"),
    ("measured", "measurement"),
    ("calculated-and-measured", "link-delay-and-measurement"),
];

/// Every move, oldest first.
pub fn moved() -> Vec<Moved> {
    let mut moves = vec![
        // A priority's buffer allocation: implementation detail (N.1), now pfcd-pfc's.
        Moved::Node {
            parent_ns: PFC_BRIDGE_NS,
            parent: "priority",
            name: "buffer-allocation",
            from: PFC_BRIDGE_NS,
            to: Some(PFCD_PFC_NS),
        },
        // Sending the 6-octet PFC Configuration TLV: not the draft's, now pfcd-lldp's.
        Moved::Node {
            parent_ns: DCBX_NS,
            parent: "pfc-tlv-extension",
            name: "legacy-tlv",
            from: PFC_TLV_NS,
            to: Some(PFCD_LLDP_NS),
        },
        // A port's PFC TLV enable: the Bridge Port's pfc-enable is the one administrative PFC
        // Enable (pfcd-deviations); the two were kept equal, so nothing is lost.
        Moved::Node {
            parent_ns: DCBX_NS,
            parent: "pfc-tlv-extension",
            name: "enable",
            from: DCBX_NS,
            to: None,
        },
    ];
    moves.extend(RENAMED_NAMESPACES.iter().map(|&(from, to)| Moved::Namespace { from, to }));
    // The headroom methods named as 36.8 names its calculations; `manual` and
    // `dcbx-negotiated` kept their names (the allowance sources are state, never stored).
    moves.extend(RENAMED_METHODS.iter().map(|&(from, to)| Moved::Identity {
        module: PFC_NS,
        from,
        to,
    }));
    moves
}
