//! The data nodes pfcd's modules moved between releases, so that a configuration stored by an
//! earlier release starts as it was (mgmt carries it over, `mgmt::datastore::migrate`): the
//! configuration leaves that left the IEEE-namespace modules for pfcd's own when those were
//! cut to what the draft defines, and the second administrative PFC Enable.

use mgmt::datastore::migrate::Moved;

use super::namespaces::{DCBX_NS, PFCD_LLDP_NS, PFCD_PFC_NS, PFC_BRIDGE_NS, PFC_TLV_NS};

/// Every move, oldest first.
pub fn moved() -> Vec<Moved> {
    vec![
        // A priority's buffer allocation: implementation detail (N.1), now pfcd-pfc's.
        Moved {
            parent_ns: PFC_BRIDGE_NS,
            parent: "priority",
            name: "buffer-allocation",
            from: PFC_BRIDGE_NS,
            to: Some(PFCD_PFC_NS),
        },
        // Sending the 6-octet PFC Configuration TLV: not the draft's, now pfcd-lldp's.
        Moved {
            parent_ns: DCBX_NS,
            parent: "pfc-tlv-extension",
            name: "legacy-tlv",
            from: PFC_TLV_NS,
            to: Some(PFCD_LLDP_NS),
        },
        // A port's PFC TLV enable: the Bridge Port's pfc-enable is the one administrative PFC
        // Enable (pfcd-deviations); the two were kept equal, so nothing is lost.
        Moved {
            parent_ns: DCBX_NS,
            parent: "pfc-tlv-extension",
            name: "enable",
            from: DCBX_NS,
            to: None,
        },
    ]
}
