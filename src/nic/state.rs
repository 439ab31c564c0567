//! What a NIC port reports of the NIC beyond the PFC model's objects (served as pfcd-nic): the
//! driver, the DCBX mode found, what was programmed last (the `delay` given and how the driver
//! reads it) and what the driver refused. Written by the port's thread, read by the northbound
//! side without waiting for it.

use std::sync::{Arc, PoisonError, RwLock};
use std::time::SystemTime;

use pfc_dcb::{DcbApp, DcbBuffer, DcbxMode, IeeeEts, IeeePfc};

use super::apply::Applied;
use super::dcbx_owner::DcbxOwner;
use super::plan::Plan;
use crate::settings::NicDcbx;

/// One NIC port's state.
#[derive(Debug, Clone, Default)]
pub struct NicState {
    pub driver: Option<String>,
    /// The DCBX mode the NIC reported at start, before pfcd set its own (firmware agents show
    /// as LLD_MANAGED).
    pub dcbx_mode_found: Option<DcbxMode>,
    /// The `nic-dcbx` setting, what became of it on this NIC, and that in words.
    pub nic_dcbx: NicDcbx,
    pub dcbx_owner: Option<DcbxOwner>,
    pub dcbx_decision: String,
    /// The last plan sent, what became of it, and when.
    pub programmed: Option<Programmed>,
    /// The NIC's PFC as last read back, and the read's error if the last one failed.
    pub read_back: Option<IeeePfc>,
    /// The NIC's receive buffers as last read back, where its driver has buffer operations.
    pub read_back_buffer: Option<DcbBuffer>,
    /// The NIC's ETS and APP table as last read back.
    pub read_back_ets: Option<IeeeEts>,
    pub read_back_apps: Vec<DcbApp>,
    pub read_error: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Programmed {
    pub plan: Plan,
    pub outcome: Applied,
    pub at: SystemTime,
}

/// Shared between a port's thread and the northbound side.
#[derive(Debug, Clone, Default)]
pub struct SharedNicState(Arc<RwLock<NicState>>);

impl SharedNicState {
    pub fn read(&self) -> NicState {
        self.0.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    pub fn update(&self, f: impl FnOnce(&mut NicState)) {
        f(&mut self.0.write().unwrap_or_else(PoisonError::into_inner));
    }
}
