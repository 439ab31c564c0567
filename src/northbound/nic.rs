//! pfcd-nic: what pfcd put on each NIC (`data-plane = "nic"`): the driver, the objects set and
//! refused, `ieee_pfc.delay` and how the driver reads it, ETS and the APP table as DCBX left
//! them, and the NIC's PFC and receive buffers as read back.
//! State only; the NIC ports' PFC model objects are the ports backend's, as for every port.

use std::sync::Arc;

use mgmt::backend::{Backend, BackendError, StateRequest, Transaction};
use netconf_proto::xml::Element;
use pfc_dcb::{DcbApp, DcbBuffer, IeeeEts};

use super::lldp::ets_app::{selector_identity, tsa_identity};
use super::xml::{leaf, pfc_enable_bits};
use crate::nic::buffers::BuffersGiven;
use crate::nic::ets_app::{AppsGiven, EtsGiven};
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
        if let Some(given) = &plan.ets {
            programmed.push(ets_entry(given));
        }
        if let Some(given) = &plan.apps {
            programmed.push(apps_entry(given));
        }
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
    if let Some(ets) = &state.read_back_ets {
        read.push(ets_tables(Element::new(ns, "ets"), ets));
    }
    for a in &state.read_back_apps {
        read.push(app_entry("app", a));
    }
    if let Some(buffer) = &state.read_back_buffer {
        read.push(buffer_table(Element::new(ns, "buffers"), buffer, |_| None));
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
    let buffers = Element::new(ns, "buffers")
        .with(leaf(ns, "total-size", given.buffer.total_size))
        .with(leaf(ns, "clamped", given.clamped))
        .with(leaf(ns, "meaning", given.describe()));
    let wanted = |n: usize| Some(given.wanted[n]).filter(|w| *w != 0);
    buffer_table(buffers, &given.buffer, wanted)
}

/// `buffers` with an entry per buffer that priorities map to (its priorities, size, and what
/// it wanted where `wanted` says), and the total where it was not there yet.
fn buffer_table(
    mut buffers: Element,
    b: &DcbBuffer,
    wanted: impl Fn(usize) -> Option<u64>,
) -> Element {
    let ns = NIC_NS;
    if buffers.child(ns, "total-size").is_none() {
        buffers.push(leaf(ns, "total-size", b.total_size));
    }
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
        if let Some(w) = wanted(n) {
            buffer.push(leaf(ns, "wanted", w));
        }
        buffers.push(buffer);
    }
    buffers
}

/// `ieee_ets` as given: the tables in force, where they came from, our recommendation.
fn ets_entry(given: &EtsGiven) -> Element {
    let ns = NIC_NS;
    let e = &given.ets;
    let ets = Element::new(ns, "ets")
        .with(leaf(ns, "source", given.source.as_str()))
        .with(leaf(ns, "reason", given.reason.as_str()))
        .with(leaf(ns, "willing", e.willing != 0))
        .with(leaf(ns, "ets-cap", e.ets_cap));
    ets_tables(ets, e)
}

/// `ets` with ieee_ets's tables: each priority's traffic class, each class's bandwidth and TSA.
fn ets_tables(mut ets: Element, e: &IeeeEts) -> Element {
    let ns = NIC_NS;
    for p in 0..e.prio_tc.len() {
        ets.push(Element::new(ns, "priority").with(leaf(ns, "priority", p)).with(leaf(
            ns,
            "traffic-class",
            e.prio_tc[p],
        )));
    }
    for tc in 0..e.tc_tx_bw.len() {
        ets.push(
            Element::new(ns, "traffic-class")
                .with(leaf(ns, "traffic-class", tc))
                .with(leaf(ns, "bandwidth", e.tc_tx_bw[tc]))
                .with(leaf(ns, "tsa", tsa_name(e.tc_tsa[tc]))),
        );
    }
    ets
}

/// A TSA as the state names it: its ieee802-dot1q-types identity, else its number.
fn tsa_name(tsa: u8) -> String {
    tsa_identity(lldp::wire::Tsa(tsa)).map_or_else(|| tsa.to_string(), str::to_string)
}

/// The APP table in force and what was deleted from and added to the NIC's.
fn apps_entry(given: &AppsGiven) -> Element {
    let ns = NIC_NS;
    let mut apps = Element::new(ns, "app").with(leaf(ns, "source", given.source.as_str()));
    let lists = [("entry", &given.table), ("deleted", &given.delete), ("added", &given.add)];
    for (list, entries) in lists {
        for a in entries {
            apps.push(app_entry(list, a));
        }
    }
    apps
}

/// One APP entry as the list `list` holds it.
fn app_entry(list: &str, a: &DcbApp) -> Element {
    let ns = NIC_NS;
    let selector = selector_identity(lldp::wire::AppSelector(a.selector))
        .map_or_else(|| a.selector.to_string(), str::to_string);
    Element::new(ns, list)
        .with(leaf(ns, "selector", selector))
        .with(leaf(ns, "protocol", a.protocol))
        .with(leaf(ns, "priority", a.priority))
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
