//! The hub: the one [`Backend`] over pfcd's ports, serving ietf-interfaces,
//! ieee802-dot1q-bridge, ieee802-dot1q-pfc-bridge, the LLDP modules, pfcd-pipeline and
//! pfcd-watchdog. It holds no model of its own: `prepare` gathers each port's [`PortIntent`]
//! from the families' `config.rs` and the pipeline's configuration, and refuses there; `apply`
//! hands them to the ports; `state` asks each family's `state.rs`; `rpc` goes to the PFC model's
//! `rpc.rs`; the ports' events go to [`events`](super::events), which routes them to each
//! family's `notification.rs`.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use dataplane::pipeline::PipelineConfig;
use mgmt::backend::{ActionRequest, Backend, BackendError, StateRequest, Transaction};
use mgmt::notify::Notifier;
use netconf_proto::xml::Element;
use tracing::{info, warn};

use super::events;
use super::fdb::config::{read as read_static_entries, Read as StaticEntries};
use super::interfaces::config::{
    bridge_ports, check_port_exists, classes, lab_refusal, ports_component, table,
};
use super::interfaces::state::{bridge_state, interfaces};
use super::lldp::config::{check_entries, fill_intent};
use super::lldp::MODULES as LLDP_MODULES;
use super::namespaces::{PFC_BRIDGE_NS, WD_NS};
use super::pfc::config::{check, intent_from};
use super::pipeline::config::config_from;
use super::watchdog::config::{lab_refusal as watchdog_refusal, setup_from};
use crate::ports::set::PortSet;
use crate::ports::PortIntent;
use pfc_bridge::static_entries::StaticEntry;

/// The backend of pfcd's ports: the PFC model with ietf-interfaces and the bridge, whose
/// entries hold it, LLDP and DCBX, and the pipeline.
pub struct PortsBackend {
    ports: Arc<dyn PortSet>,
    /// What `prepare` accepted, for `apply`: one intent per port, in the port order, the
    /// pipeline's configuration and the static filtering entries.
    prepared: Mutex<Option<Prepared>>,
    /// The interfaces with a Bridge Port in running, as last applied.
    bridge_ports: Mutex<Vec<String>>,
    /// When the pipeline was last built, its statistics starting again: at start, and at each
    /// new configuration handed to it.
    pipeline_built: Mutex<SystemTime>,
}

type Prepared = (Vec<PortIntent>, PipelineConfig, Vec<StaticEntry>);

impl PortsBackend {
    pub fn new(ports: Arc<dyn PortSet>) -> Self {
        PortsBackend {
            ports,
            prepared: Mutex::new(None),
            bridge_ports: Mutex::new(Vec::new()),
            pipeline_built: Mutex::new(SystemTime::now()),
        }
    }

    fn port_names(&self) -> Vec<&str> {
        self.ports.ports().iter().map(|p| p.name.as_str()).collect()
    }

    /// The static filtering entries of `root`, and the refusals of those pfcd cannot run.
    fn static_entries(&self, root: &Element) -> StaticEntries {
        let names = self.port_names();
        let component = ports_component(root, &names);
        read_static_entries(root, &names, component.as_ref(), self.ports.forwards_frames())
    }

    /// Configuration pfcd cannot run: a Bridge Port or LLDP entry for a port it does not have,
    /// an LLDP destination it does not support, a traffic class table other than the identity
    /// on ports that map priority n to class n (the lab's), a PFC watchdog on ports that run
    /// none (the lab's), a static filtering entry it does not support or on ports that
    /// forward no frames (the lab's).
    fn unrunnable(&self, root: &Element) -> Vec<BackendError> {
        let names = self.port_names();
        let configured = bridge_ports(root);
        let classes_fixed = !self.ports.applies_traffic_classes();
        let tables = configured
            .iter()
            .filter(|(name, _)| classes_fixed && names.contains(&name.as_str()))
            .filter_map(|(name, port)| lab_refusal(name, table(port)));
        let no_watchdog = !self.ports.runs_watchdog();
        let watchdogs = configured
            .iter()
            .filter(|(name, _)| no_watchdog && names.contains(&name.as_str()))
            .filter_map(|(name, port)| watchdog_refusal(name, port.child(WD_NS, "pfc-watchdog")));
        configured
            .iter()
            .filter_map(|(name, _)| check_port_exists(name, &names, self.ports.described()).err())
            .chain(check_entries(root, &names))
            .chain(tables)
            .chain(watchdogs)
            .chain(self.static_entries(root).refused)
            .collect()
    }

    /// One intent per port from a complete configuration, or the first refusal. What pfcd
    /// cannot run is refused when a change brings it; what was already stored (running as found
    /// at start, say after the lab was made smaller) is kept unused, with a warning, so that
    /// neither the start nor other changes fail on it. `old` is running before (`None`: at
    /// start).
    fn intents(
        &self,
        root: &Element,
        old: Option<&Element>,
    ) -> Result<Vec<PortIntent>, BackendError> {
        let names = self.port_names();
        let configured = bridge_ports(root);
        // The same refusal (path and message) as before: stored, not brought by this change.
        let refusal = |e: &BackendError| (e.path.clone(), e.message.clone());
        let stored: Vec<_> = match old {
            Some(old) => self.unrunnable(old).iter().map(refusal).collect(),
            None => Vec::new(),
        };
        for e in self.unrunnable(root) {
            if old.is_some() && !stored.contains(&refusal(&e)) {
                return Err(e);
            }
            warn!(error = %e, "stored configuration pfcd cannot run: kept, unused");
        }
        let mut intents = Vec::with_capacity(names.len());
        for (name, port) in names.iter().zip(self.ports.ports()) {
            let bridge_port = configured.iter().find(|(n, _)| n == name).map(|(_, p)| *p);
            let pfc = bridge_port.and_then(|p| p.child(PFC_BRIDGE_NS, "pfc"));
            let mut intent = intent_from(name, pfc)?;
            let classes = classes(name, bridge_port.and_then(table))?;
            // Ports that cannot run another table keep the identity (a stored one is unused).
            if self.ports.applies_traffic_classes() {
                intent.traffic_class = classes;
            }
            fill_intent(root, name, &mut intent)?;
            intent.watchdog =
                setup_from(name, bridge_port.and_then(|p| p.child(WD_NS, "pfc-watchdog")))?;
            let now = port.snapshot();
            let method = intent.method.in_force(now.lldp.agreed_headroom());
            check(name, &intent, method, port.receive_buffer)?;
            intents.push(intent);
        }
        Ok(intents)
    }
}

impl Backend for PortsBackend {
    /// "pfc": the name mgmt puts in this backend's rpc-errors ("… (pfc)", "… (state of pfc)").
    fn name(&self) -> &str {
        "pfc"
    }

    fn modules(&self) -> Vec<String> {
        ["ietf-interfaces", "ieee802-dot1q-bridge", "ieee802-dot1q-pfc-bridge"]
            .into_iter()
            .chain(LLDP_MODULES)
            .chain(["pfcd-pipeline", "pfcd-headroom", "pfcd-watchdog", "pfcd-pfc"])
            .map(str::to_string)
            .collect()
    }

    fn prepare(&self, tx: &Transaction<'_>) -> Result<(), BackendError> {
        let at_start = tx.origin.session_id.is_none() && tx.old.elements().next().is_none();
        let intents = self.intents(tx.new, (!at_start).then_some(tx.old))?;
        let pipeline = config_from(tx.new, self.ports.as_ref())?;
        let statics = self.static_entries(tx.new).entries;
        *self.prepared.lock().unwrap_or_else(PoisonError::into_inner) =
            Some((intents, pipeline, statics));
        Ok(())
    }

    fn apply(&self, tx: &Transaction<'_>) {
        let prepared = self.prepared.lock().unwrap_or_else(PoisonError::into_inner).take();
        // prepare always runs first; should it not have, running was validated by it before.
        let prepared = prepared.or_else(|| {
            let pipeline = config_from(tx.new, self.ports.as_ref()).ok()?;
            let statics = self.static_entries(tx.new).entries;
            Some((self.intents(tx.new, None).ok()?, pipeline, statics))
        });
        let Some((intents, pipeline, statics)) = prepared else { return };
        if self.ports.forwards_frames() {
            self.ports.apply_static_entries(statics);
        }
        if self.ports.pipeline().config != pipeline {
            info!(mode = %pipeline.mode, "pipeline configuration changed");
            self.ports.reconfigure_pipeline(pipeline);
            *self.pipeline_built.lock().unwrap_or_else(PoisonError::into_inner) = SystemTime::now();
        }
        let configured: Vec<String> =
            bridge_ports(tx.new).into_iter().map(|(name, _)| name).collect();
        *self.bridge_ports.lock().unwrap_or_else(PoisonError::into_inner) = configured;
        for (port, intent) in self.ports.ports().iter().zip(intents) {
            if port.snapshot().intent != intent {
                info!(port = %port.name, ?intent, "configuration changed");
            }
            port.apply(intent);
        }
    }

    fn action(&self, request: &ActionRequest<'_>) -> Option<Result<Vec<Element>, BackendError>> {
        super::pfc::action::run(self.ports.as_ref(), request)
    }

    /// Starts forwarding the ports' events as notifications.
    fn attach(&self, notifier: Notifier) {
        if let Some(events) = self.ports.take_events() {
            events::forward(events, notifier, self.ports.clone());
        }
    }

    fn abort(&self, _tx: &Transaction<'_>) {
        self.prepared.lock().unwrap_or_else(PoisonError::into_inner).take();
    }

    fn state(&self, _request: &StateRequest<'_>) -> Result<Vec<Element>, BackendError> {
        let snapshots: Vec<_> = self.ports.ports().iter().map(|p| p.snapshot()).collect();
        let pipe = self.ports.pipeline();
        let ports = self.bridge_ports.lock().unwrap_or_else(PoisonError::into_inner).clone();
        Ok(vec![
            interfaces(self.ports.as_ref(), &snapshots, &pipe),
            bridge_state(&ports, self.ports.up_time_secs()),
            super::lldp::state::state(&snapshots),
            super::pipeline::state::state(
                &pipe,
                *self.pipeline_built.lock().unwrap_or_else(PoisonError::into_inner),
            ),
        ])
    }
}
