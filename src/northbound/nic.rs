//! pfcd-nic: what pfcd put on each NIC (`data-plane = "nic"`): the driver, the objects set and
//! refused, `ieee_pfc.delay` and how the driver reads it, and the NIC's PFC as read back.
//! State only; the NIC ports' PFC model objects are the ports backend's, as for every port.

use std::sync::Arc;

use mgmt::backend::{Backend, BackendError, StateRequest, Transaction};
use netconf_proto::xml::Element;

use super::xml::{leaf, pfc_enable_bits};
use crate::nic::buffers::BuffersGiven;
use crate::nic::state::NicState;
use crate::nic::NicPorts;

/// pfcd-nic's namespace.
pub const NIC_NS: &str = pfc_yang_names::pfcd_nic::NAMESPACE;

/// The backend of pfcd-nic.
pub struct NicBackend {
    nic: Arc<NicPorts>,
}

impl NicBackend {
    pub fn new(nic: Arc<NicPorts>) -> Self {
        NicBackend { nic }
    }
}

/// The DCBX mode's bits by their pfcd-nic names.
fn dcbx_bits(mode: u8) -> String {
    ["host", "lld-managed", "cee", "ieee", "static"]
        .iter()
        .enumerate()
        .filter(|(n, _)| mode & (1 << n) != 0)
        .map(|(_, name)| *name)
        .collect::<Vec<_>>()
        .join(" ")
}

/// One port's entry.
pub fn port_entry(name: &str, state: &NicState) -> Element {
    let ns = NIC_NS;
    let mut port = Element::new(ns, "port").with(leaf(ns, "name", name));
    if let Some(driver) = &state.driver {
        port.push(leaf(ns, "driver", driver));
    }
    if let Some(mode) = state.dcbx_mode_found {
        port.push(leaf(ns, "dcbx-mode-found", dcbx_bits(mode.0)));
    }
    port.push(leaf(ns, "nic-dcbx", state.nic_dcbx.as_str()));
    if let Some(owner) = state.dcbx_owner {
        port.push(leaf(ns, "dcbx-agent", owner.agent()));
        port.push(leaf(ns, "dcbx-decision", &state.dcbx_decision));
    }
    if let Some(p) = &state.programmed {
        let (plan, delay) = (&p.plan, &p.plan.delay);
        let mut programmed = Element::new(ns, "programmed")
            .with(leaf(ns, "time", mgmt::notify::format_time(p.at)))
            .with(leaf(ns, "dcbx-mode", dcbx_bits(plan.dcbx.0)))
            .with(leaf(ns, "pfc-enable", pfc_enable_bits(plan.pfc.pfc_en)))
            .with(leaf(ns, "mbc", plan.pfc.mbc != 0))
            .with(leaf(ns, "delay", delay.value))
            .with(leaf(ns, "delay-unit", delay.unit.as_str()))
            .with(leaf(ns, "delay-wanted", delay.wanted))
            .with(leaf(ns, "delay-clamped", delay.clamped()))
            .with(leaf(ns, "delay-meaning", delay.describe()));
        if let Some(given) = &plan.buffers {
            programmed.push(buffers_entry(given));
        }
        for object in &p.outcome.applied {
            programmed.push(leaf(ns, "applied", object.as_str()));
        }
        for r in &p.outcome.refused {
            programmed.push(
                Element::new(ns, "refused")
                    .with(leaf(ns, "object", r.object.as_str()))
                    .with(leaf(ns, "error", &r.error)),
            );
        }
        port.push(programmed);
    }
    let mut read = Element::new(ns, "read-back");
    if let Some(pfc) = &state.read_back {
        read.push(leaf(ns, "pfc-enable", pfc_enable_bits(pfc.pfc_en)));
        read.push(leaf(ns, "pfc-cap", pfc.pfc_cap));
        read.push(leaf(ns, "delay", pfc.delay));
    }
    if let Some(error) = &state.read_error {
        read.push(leaf(ns, "error", error));
    }
    port.push(read);
    port
}

/// The receive buffers asked for: each buffer in use with its priorities and size.
fn buffers_entry(given: &BuffersGiven) -> Element {
    let ns = NIC_NS;
    let b = &given.buffer;
    let mut buffers = Element::new(ns, "buffers")
        .with(leaf(ns, "total-size", b.total_size))
        .with(leaf(ns, "clamped", given.clamped))
        .with(leaf(ns, "meaning", given.describe()));
    for n in 0..b.buffer_size.len() {
        let priorities =
            (0..8).filter(|p| usize::from(b.prio2buffer[*p]) == n).fold(0u8, |a, p| a | 1 << p);
        if priorities == 0 {
            continue;
        }
        let mut buffer = Element::new(ns, "buffer")
            .with(leaf(ns, "index", n))
            .with(leaf(ns, "priorities", pfc_enable_bits(priorities)))
            .with(leaf(ns, "size", b.buffer_size[n]));
        if given.wanted[n] != 0 {
            buffer.push(leaf(ns, "wanted", given.wanted[n]));
        }
        buffers.push(buffer);
    }
    buffers
}

impl Backend for NicBackend {
    fn name(&self) -> &str {
        "nic"
    }

    fn modules(&self) -> Vec<String> {
        vec!["pfcd-nic".to_string()]
    }

    fn apply(&self, _tx: &Transaction<'_>) {}

    fn state(&self, _request: &StateRequest<'_>) -> Result<Vec<Element>, BackendError> {
        let mut nic = Element::new(NIC_NS, "nic");
        for (name, state) in self.nic.states() {
            nic.push(port_entry(&name, &state));
        }
        Ok(vec![nic])
    }
}
