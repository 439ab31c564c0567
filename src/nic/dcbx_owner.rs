//! Who runs DCBX on a NIC: pfcd, or the NIC's firmware agent (DCB_CAP_DCBX_LLD_MANAGED in the
//! mode found at start). Two agents on one link would fight, so `nic-dcbx` picks one; decided
//! once per port at start, from the setting and the mode found, without I/O.

use pfc_dcb::DcbxMode;

use crate::settings::NicDcbx;

/// What became of `nic-dcbx` on one NIC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DcbxOwner {
    /// `take-over`: pfcd sets the DCBX mode to host and IEEE, runs LLDP/DCBX and programs PFC.
    TakenOver,
    /// `leave` on a NIC whose firmware runs DCBX: pfcd sets nothing on it, runs no LLDP on the
    /// interface, and reads the NIC's PFC back as the operational one.
    LeftToFirmware,
    /// `leave` on a NIC whose DCBX is host-managed (or that reported no mode): there is no
    /// firmware agent to leave it to, so pfcd runs DCBX as with take-over.
    NothingToLeave,
}

impl DcbxOwner {
    pub fn decide(setting: NicDcbx, found: Option<DcbxMode>) -> DcbxOwner {
        let firmware = found.is_some_and(DcbxMode::lld_managed);
        match (setting, firmware) {
            (NicDcbx::TakeOver, _) => DcbxOwner::TakenOver,
            (NicDcbx::Leave, true) => DcbxOwner::LeftToFirmware,
            (NicDcbx::Leave, false) => DcbxOwner::NothingToLeave,
        }
    }

    /// Whether pfcd runs LLDP/DCBX on the interface and programs the NIC.
    pub fn pfcd_runs_dcbx(self) -> bool {
        self != DcbxOwner::LeftToFirmware
    }

    /// Who runs DCBX, as pfcd-nic's `dcbx-agent` names it.
    pub fn agent(self) -> &'static str {
        if self.pfcd_runs_dcbx() {
            "pfcd"
        } else {
            "nic-firmware"
        }
    }

    /// The decision in words, for the log line at start and pfcd-nic's `dcbx-decision`;
    /// `firmware_found` whether the NIC's firmware ran DCBX when pfcd started.
    pub fn describe(self, firmware_found: bool) -> &'static str {
        match (self, firmware_found) {
            (DcbxOwner::TakenOver, true) => {
                "the NIC's firmware ran DCBX; nic-dcbx = \"take-over\": pfcd set the DCBX mode \
                 to host and IEEE and runs DCBX itself"
            }
            (DcbxOwner::TakenOver, false) => {
                "the NIC's DCBX is host-managed: pfcd runs DCBX (nic-dcbx = \"take-over\")"
            }
            (DcbxOwner::LeftToFirmware, _) => {
                "the NIC's firmware runs DCBX; nic-dcbx = \"leave\": pfcd sets neither the DCBX \
                 mode nor PFC on this NIC, runs no LLDP on it, and serves the NIC's PFC as read \
                 back"
            }
            (DcbxOwner::NothingToLeave, _) => {
                "nic-dcbx = \"leave\", but the NIC's DCBX is host-managed (no firmware agent to \
                 leave it to): pfcd runs DCBX as with take-over"
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pfc_dcb::kernel::{DCB_CAP_DCBX_HOST, DCB_CAP_DCBX_LLD_MANAGED, DCB_CAP_DCBX_VER_IEEE};

    const FIRMWARE: DcbxMode = DcbxMode(DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_IEEE);
    const HOST: DcbxMode = DcbxMode(DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);

    #[test]
    fn leave_leaves_dcbx_only_to_a_firmware_that_runs_it() {
        let left = DcbxOwner::decide(NicDcbx::Leave, Some(FIRMWARE));
        assert_eq!(left, DcbxOwner::LeftToFirmware);
        assert!(!left.pfcd_runs_dcbx());
        assert_eq!(left.agent(), "nic-firmware");
        for found in [Some(HOST), None] {
            let kept = DcbxOwner::decide(NicDcbx::Leave, found);
            assert_eq!(kept, DcbxOwner::NothingToLeave, "{found:?}");
            assert!(kept.pfcd_runs_dcbx());
            assert!(kept.describe(false).contains("no firmware agent to leave it to"));
        }
    }

    #[test]
    fn take_over_takes_dcbx_whoever_ran_it() {
        for found in [Some(FIRMWARE), Some(HOST), None] {
            let owner = DcbxOwner::decide(NicDcbx::TakeOver, found);
            assert_eq!((owner, owner.agent()), (DcbxOwner::TakenOver, "pfcd"), "{found:?}");
        }
        assert!(DcbxOwner::TakenOver.describe(true).starts_with("the NIC's firmware ran DCBX"));
    }
}
