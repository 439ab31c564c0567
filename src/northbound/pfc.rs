//! ieee802-dot1q-pfc-bridge: each Bridge Port's `pfc` container. `prepare` reads the whole of
//! running-to-be into one [`PortIntent`] per port and refuses what cannot work; `apply` hands
//! the intents to the ports; `state` writes the ports' snapshots as the module's state.

use std::sync::{Arc, Mutex, PoisonError};

use dataplane::headroom::allowance::{AllowanceSource, Clamp, Method};
use dataplane::headroom::{Breakdown, BufferConfig, BufferPlan, Item};
use mgmt::backend::{Backend, BackendError, Origin, StateRequest, Transaction};
use mgmt::notify::Notifier;
use netconf_proto::xml::Element;
use tracing::{info, warn};

use super::interfaces::{bridge_ports, bridge_state, check_port_exists};
use super::xml::{
    child_text, child_u64, identity_name, leaf, pfc_enable_bits, pfc_enable_mask,
    pfc_identity_leaf, pfc_path,
};
use super::{lldp, pipeline, traffic_class, DOT1Q_NS, IF_NS, PFC_BRIDGE_NS, PFC_NS};
use crate::ports::set::PortSet;
use crate::ports::{HeadroomMethod, PortHandle, PortIntent, PortSnapshot, PRIORITIES};
use dataplane::pipeline::PipelineConfig;

/// The largest frame the allocation rule allows for (Annex N's envelope frame, FCS included).
const MAX_FRAME_OCTETS: u64 = 2000;

/// The backend of the PFC model (with ietf-interfaces and the bridge, whose entries hold it).
pub struct PfcBackend {
    ports: Arc<dyn PortSet>,
    /// What `prepare` accepted, for `apply`: one intent per port, in the lab's port order, and
    /// the pipeline's configuration.
    prepared: Mutex<Option<(Vec<PortIntent>, PipelineConfig)>>,
    /// The interfaces with a Bridge Port in running, as last applied.
    bridge_ports: Mutex<Vec<String>>,
}

impl PfcBackend {
    pub fn new(ports: Arc<dyn PortSet>) -> Self {
        PfcBackend { ports, prepared: Mutex::new(None), bridge_ports: Mutex::new(Vec::new()) }
    }

    fn port_names(&self) -> Vec<&str> {
        self.ports.ports().iter().map(|p| p.name.as_str()).collect()
    }

    /// measure-headroom: refused where the measurement is not in force (the port would not use
    /// its result); otherwise the port measures again and the new allowance follows.
    fn measure(&self, port: &PortHandle, path: &str) -> Result<(), BackendError> {
        let method = port.snapshot().method_in_force;
        if !matches!(method, HeadroomMethod::Measured | HeadroomMethod::CalculatedAndMeasured) {
            return Err(BackendError::new(format!(
                "The headroom measurement is not in force on {} (its method is {}): set \
                 headroom/method to measured or calculated-and-measured first.",
                port.name,
                method.as_str()
            ))
            .at(path));
        }
        port.measure();
        Ok(())
    }

    /// Configuration pfcd cannot run: a Bridge Port or LLDP entry for a port it does not have,
    /// an LLDP destination it does not support, a traffic class table other than the identity
    /// on ports that map priority n to class n (the lab's).
    fn unrunnable(&self, root: &Element) -> Vec<BackendError> {
        let names = self.port_names();
        let configured = bridge_ports(root);
        let classes_fixed = !self.ports.applies_traffic_classes();
        let tables = configured
            .iter()
            .filter(|(name, _)| classes_fixed && names.contains(&name.as_str()))
            .filter_map(|(name, port)| {
                traffic_class::lab_refusal(name, traffic_class::table(port))
            });
        configured
            .iter()
            .filter_map(|(name, _)| check_port_exists(name, &names, self.ports.described()).err())
            .chain(lldp::check_entries(root, &names))
            .chain(tables)
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
            let classes = traffic_class::classes(name, bridge_port.and_then(traffic_class::table))?;
            // Ports that cannot run another table keep the identity (a stored one is unused).
            if self.ports.applies_traffic_classes() {
                intent.traffic_class = classes;
            }
            lldp::fill_intent(root, name, &mut intent)?;
            let now = port.snapshot();
            let method = intent.method.in_force(now.lldp.agreed_headroom());
            check(name, &intent, method, port.receive_buffer_size, now.allowance.bits)?;
            intents.push(intent);
        }
        Ok(intents)
    }
}

impl Backend for PfcBackend {
    fn name(&self) -> &str {
        "pfc"
    }

    fn modules(&self) -> Vec<String> {
        ["ietf-interfaces", "ieee802-dot1q-bridge", "ieee802-dot1q-pfc-bridge"]
            .into_iter()
            .chain(lldp::MODULES)
            .chain(["pfcd-pipeline"])
            .map(str::to_string)
            .collect()
    }

    fn prepare(&self, tx: &Transaction<'_>) -> Result<(), BackendError> {
        let at_start = tx.origin.session_id.is_none() && tx.old.elements().next().is_none();
        let intents = self.intents(tx.new, (!at_start).then_some(tx.old))?;
        let pipeline = pipeline::config_from(tx.new, self.ports.as_ref())?;
        *self.prepared.lock().unwrap_or_else(PoisonError::into_inner) = Some((intents, pipeline));
        Ok(())
    }

    fn apply(&self, tx: &Transaction<'_>) {
        let prepared = self.prepared.lock().unwrap_or_else(PoisonError::into_inner).take();
        // prepare always runs first; should it not have, running was validated by it before.
        let prepared = prepared.or_else(|| {
            let pipeline = pipeline::config_from(tx.new, self.ports.as_ref()).ok()?;
            Some((self.intents(tx.new, None).ok()?, pipeline))
        });
        let Some((intents, pipeline)) = prepared else { return };
        if self.ports.pipeline().config != pipeline {
            info!(mode = %pipeline.mode, "pipeline configuration changed");
            self.ports.reconfigure_pipeline(pipeline);
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

    fn rpcs(&self) -> Vec<(String, String)> {
        ["measure-headroom", "clear-pfc-counters"]
            .map(|rpc| (PFC_BRIDGE_NS.to_string(), rpc.to_string()))
            .to_vec()
    }

    /// measure-headroom on one port; clear-pfc-counters on one port or, without `interface`,
    /// on every port. Both reply at once: the port does the work on its own thread.
    fn rpc(&self, _origin: &Origin, input: &Element) -> Result<Vec<Element>, BackendError> {
        let rpc = input.name.as_str();
        let name = child_text(input, PFC_BRIDGE_NS, "interface");
        let path = format!("/ieee802-dot1q-pfc-bridge:{rpc}/interface");
        let port = match name.as_deref() {
            None => None,
            Some(name) => {
                Some(self.ports.ports().iter().find(|p| p.name == name).ok_or_else(|| {
                    BackendError::new(format!(
                        "pfcd has no port '{name}': use one of {}.",
                        self.port_names().join(", ")
                    ))
                    .at(&path)
                })?)
            }
        };
        match (rpc, port) {
            ("clear-pfc-counters", Some(port)) => port.clear_counters(),
            ("clear-pfc-counters", None) => {
                self.ports.ports().iter().for_each(|p| p.clear_counters())
            }
            ("measure-headroom", Some(port)) => self.measure(port, &path)?,
            _ => return Err(BackendError::new(format!("pfcd does not run '{rpc}' so."))),
        }
        Ok(Vec::new())
    }

    /// Starts forwarding the ports' events as notifications.
    fn attach(&self, notifier: Notifier) {
        if let Some(events) = self.ports.take_events() {
            super::notifications::forward(events, notifier, self.ports.clone());
        }
    }

    fn abort(&self, _tx: &Transaction<'_>) {
        self.prepared.lock().unwrap_or_else(PoisonError::into_inner).take();
    }

    fn state(&self, _request: &StateRequest<'_>) -> Result<Vec<Element>, BackendError> {
        let mut interfaces = Element::new(IF_NS, "interfaces");
        let snapshots: Vec<_> = self.ports.ports().iter().map(|p| p.snapshot()).collect();
        let pipe = self.ports.pipeline();
        for (i, s) in snapshots.iter().enumerate() {
            let mut pfc = pfc_state(s);
            pfc.namespaces_mut().push((Some("pfc".into()), PFC_NS.into()));
            let mut bridge_port = Element::new(DOT1Q_NS, "bridge-port").with(pfc);
            if let Some(p) = pipeline::port_state(&pipe, i) {
                bridge_port.push(p);
            }
            interfaces.push(
                Element::new(IF_NS, "interface")
                    .with(leaf(IF_NS, "name", &s.name))
                    .with(leaf(IF_NS, "oper-status", "up"))
                    .with(leaf(IF_NS, "speed", self.ports.speed(i).bits_per_second()))
                    .with(bridge_port),
            );
        }
        let ports = self.bridge_ports.lock().unwrap_or_else(PoisonError::into_inner).clone();
        let up_time = self.ports.up_time_secs();
        Ok(vec![
            interfaces,
            bridge_state(&ports, up_time),
            lldp::state(&snapshots),
            pipeline::state(&pipe),
        ])
    }
}

/// A port's intent from its `pfc` container (absent: the YANG defaults).
fn intent_from(name: &str, pfc: Option<&Element>) -> Result<PortIntent, BackendError> {
    let mut intent = PortIntent::default();
    let Some(pfc) = pfc else { return Ok(intent) };
    let number = |e: &Element, leaf: &str, path: &str| {
        child_u64(e, PFC_BRIDGE_NS, leaf).map_err(|t| {
            BackendError::new(format!("'{t}' is not a number of bits or octets."))
                .at(pfc_path(name, path))
        })
    };
    if let Some(v) = number(pfc, "pfc-link-delay-allowance", "pfc-link-delay-allowance")? {
        intent.link_delay_allowance_bits = v;
    }
    intent.headroom_allowance_bits =
        number(pfc, "pfc-headroom-allowance", "pfc-headroom-allowance")?;
    if let Some(bits) = child_text(pfc, PFC_BRIDGE_NS, "pfc-enable") {
        intent.pfc_enable = pfc_enable_mask(&bits);
    }
    if let Some(h) = pfc.child(PFC_BRIDGE_NS, "headroom") {
        if let Some(m) = child_text(h, PFC_BRIDGE_NS, "method") {
            intent.method = HeadroomMethod::from_identity(identity_name(&m)).ok_or_else(|| {
                BackendError::new(format!("pfcd does not know the headroom method '{m}'."))
                    .at(pfc_path(name, "headroom/method"))
            })?;
        }
        intent.minimum_bits =
            number(h, "minimum-allowance", "headroom/minimum-allowance")?.unwrap_or(0);
        intent.maximum_bits = number(h, "maximum-allowance", "headroom/maximum-allowance")?;
        intent.initial_bits = number(h, "initial-allowance", "headroom/initial-allowance")?;
    }
    for p in pfc.elements().filter(|e| e.is(PFC_BRIDGE_NS, "priority")) {
        let n = child_u64(p, PFC_BRIDGE_NS, "priority").ok().flatten().unwrap_or(u64::MAX);
        let path = format!("priority[priority='{n}']/buffer-allocation");
        let allocation = number(p, "buffer-allocation", &path)?;
        if let Some(slot) =
            usize::try_from(n).ok().and_then(|n| intent.buffer_allocation_octets.get_mut(n))
        {
            *slot = allocation;
        }
    }
    Ok(intent)
}

/// What YANG cannot refuse: allowances and allocations that do not fit the port's receive
/// buffer. `in_force` is the port's allowance now, used for an automatic method whose next
/// result is not known yet.
fn check(
    name: &str,
    intent: &PortIntent,
    method: HeadroomMethod,
    buffer: u64,
    in_force: u64,
) -> Result<(), BackendError> {
    let fits = |leaf: &str, bits: Option<u64>| -> Result<(), BackendError> {
        let Some(bits) = bits else { return Ok(()) };
        let octets = bits.div_ceil(8);
        if octets <= buffer {
            return Ok(());
        }
        Err(BackendError::new(format!(
            "{leaf} is {bits} bits ({octets} octets), more than port {name}'s whole receive \
             buffer of {buffer} octets (receive-buffer-size): frames would be lost before PFC \
             could take effect. Use at most {} bits, or a shorter link.",
            buffer * 8
        ))
        .at(pfc_path(name, leaf)))
    };
    fits("pfc-link-delay-allowance", Some(intent.link_delay_allowance_bits))?;
    fits("pfc-headroom-allowance", intent.headroom_allowance_bits)?;
    fits("headroom/minimum-allowance", Some(intent.minimum_bits))?;
    fits("headroom/initial-allowance", intent.initial_bits)?;
    if let Some(max) = intent.maximum_bits.filter(|m| *m < intent.minimum_bits) {
        return Err(BackendError::new(format!(
            "maximum-allowance ({max} bits) is below minimum-allowance ({} bits): lower the \
             minimum or raise the maximum.",
            intent.minimum_bits
        ))
        .at(pfc_path(name, "headroom/maximum-allowance")));
    }
    // The allowance each enabled priority's buffer must hold: the one the configuration fixes,
    // else the one in force.
    let allowance = match (method, intent.headroom_allowance_bits) {
        (HeadroomMethod::Manual, _) => intent.link_delay_allowance_bits,
        (_, Some(bits)) => bits,
        _ => in_force,
    };
    let mut total = 0u64;
    for n in (0..PRIORITIES).filter(|n| intent.enabled(*n)) {
        let config = BufferConfig {
            max_frame_octets: MAX_FRAME_OCTETS,
            allocation_octets: intent.buffer_allocation_octets[n],
            xon_hysteresis_octets: None,
        };
        let plan = BufferPlan::new(allowance, &config).map_err(|e| {
            BackendError::new(format!(
                "priority {n}'s buffer-allocation does not hold the allowance of {allowance} \
                 bits: {e}. Raise buffer-allocation or remove it (twice the allowance is used)."
            ))
            .at(pfc_path(name, &format!("priority[priority='{n}']/buffer-allocation")))
        })?;
        total = total.saturating_add(plan.allocation_octets);
    }
    if total > buffer {
        return Err(BackendError::new(format!(
            "PFC on {} as configured needs {total} octets of receive buffer (buffer-allocation, \
             or twice the allowance of {allowance} bits, per priority), but port {name} has \
             {buffer} (receive-buffer-size): enable PFC on fewer priorities, lower the \
             allowance or the allocations.",
            pfc_enable_bits(intent.pfc_enable)
        ))
        .at(pfc_path(name, "pfc-enable")));
    }
    Ok(())
}

/// The `pfc` container's state for one port.
fn pfc_state(s: &PortSnapshot) -> Element {
    let ns = PFC_BRIDGE_NS;
    let a = &s.allowance;
    let (source, clamp) = source_identity(a.source);
    // The four Table 12-1 objects first. The two writable ones are reported as in force:
    // pfc-headroom-allowance, when not written, is pfc-link-delay-allowance (its YANG default).
    let intent = &s.intent;
    let mut pfc = Element::new(ns, "pfc")
        .with(leaf(ns, "pfc-link-delay-allowance", intent.link_delay_allowance_bits))
        .with(leaf(ns, "pfc-requests", s.pfc_requests))
        .with(leaf(ns, "pfc-indications", s.pfc_indications))
        .with(leaf(
            ns,
            "pfc-headroom-allowance",
            intent.headroom_allowance_bits.unwrap_or(intent.link_delay_allowance_bits),
        ))
        .with(leaf(ns, "allowance-in-force", a.bits))
        .with(pfc_identity_leaf(ns, "allowance-source", source));
    if let Some(clamp) = clamp {
        pfc.push(leaf(ns, "allowance-clamp", clamp_name(clamp)));
    }
    if let Some((method, bits)) = a.calculated {
        let method = match method {
            Method::LinkDelay => "calculated",
            Method::Measurement => "measured",
        };
        pfc.push(leaf(ns, "calculated-allowance", bits));
        pfc.push(pfc_identity_leaf(ns, "calculated-allowance-method", method));
    }
    pfc.push(leaf(ns, "oper-pfc-enable", pfc_enable_bits(s.oper_pfc_enable)));
    pfc.push(leaf(ns, "oper-link-pause", false));
    pfc.push(leaf(ns, "receive-buffer-size", s.receive_buffer_size));
    pfc.push(leaf(ns, "pause-frames-sent", s.pause_frames_sent));
    pfc.push(leaf(ns, "pause-frames-received", s.pause_frames_received));
    pfc.push(leaf(ns, "pause-frames-ignored", s.pause_frames_ignored));
    pfc.push(leaf(ns, "pfc-frames-ignored", s.pfc_frames_ignored));
    pfc.push(leaf(ns, "mac-control-discarded", s.mac_control_discarded));
    pfc.push(leaf(ns, "discontinuity-time", mgmt::notify::format_time(s.discontinuity_time)));
    let mut headroom = Element::new(ns, "headroom").with(pfc_identity_leaf(
        ns,
        "method-in-force",
        s.method_in_force.as_str(),
    ));
    let r = &s.results;
    if let Some(bits) = r.calculation_bits {
        let mut calculation = Element::new(ns, "calculation")
            .with(leaf(ns, "headroom", bits))
            .with(leaf(ns, "headroom-octets", bits.div_ceil(8)));
        push_lines(&mut calculation, r.calculation_lines.as_deref());
        headroom.push(calculation);
    }
    if let Some(quanta) = r.round_trip_quanta {
        let mut m = Element::new(ns, "measurement").with(leaf(ns, "round-trip", quanta));
        m.push(leaf(ns, "result-count", r.accepted.len()));
        if let (Some(min), Some(max), Some(last)) =
            (r.accepted.iter().min(), r.accepted.iter().max(), r.accepted.last())
        {
            m.push(leaf(ns, "round-trip-min", min));
            m.push(leaf(ns, "round-trip-max", max));
            m.push(leaf(ns, "round-trip-last", last));
        }
        if let Some(bits) = r.measurement_bits {
            m.push(leaf(ns, "headroom", bits));
        }
        let mut breakdown = Element::new(ns, "breakdown");
        push_lines(&mut breakdown, r.measurement_lines.as_deref());
        m.push(breakdown);
        push_history(&mut m, r);
        headroom.push(m);
    } else if !r.history.is_empty() {
        // Measured before, not now: the history and counters stay readable.
        let mut m = Element::new(ns, "measurement");
        push_history(&mut m, r);
        headroom.push(m);
    }
    pfc.push(headroom);
    for (n, p) in s.priorities.iter().enumerate() {
        pfc.push(
            Element::new(ns, "priority")
                .with(leaf(ns, "priority", n))
                .with(leaf(ns, "allocation", p.allocation))
                .with(leaf(ns, "xoff-threshold", p.xoff_threshold))
                .with(leaf(ns, "xon-threshold", p.xon_threshold))
                .with(leaf(ns, "occupancy", p.occupancy))
                .with(leaf(ns, "peak-occupancy", p.peak_occupancy))
                .with(leaf(ns, "xoff", p.xoff))
                .with(leaf(ns, "xoff-events", p.xoff_events))
                .with(leaf(ns, "frames-accepted", p.frames_accepted))
                .with(leaf(ns, "frames-dropped", p.frames_dropped))
                .with(leaf(ns, "octets-dropped", p.octets_dropped))
                .with(leaf(ns, "priority-paused", p.priority_paused))
                .with(leaf(ns, "pause-time-remaining", p.pause_time_remaining))
                .with(leaf(ns, "pfc-requests", p.pfc_requests))
                .with(leaf(ns, "xon-sent", p.xon_sent))
                .with(leaf(ns, "pfc-indications", p.pfc_indications)),
        );
    }
    pfc
}

/// The measurement's history and counters into `measurement`.
fn push_history(m: &mut Element, r: &crate::ports::headroom::Results) {
    let ns = PFC_BRIDGE_NS;
    for e in r.history.iter() {
        m.push(
            Element::new(ns, "history")
                .with(leaf(ns, "sequence", e.sequence))
                .with(leaf(ns, "time", mgmt::notify::format_time(e.time)))
                .with(leaf(ns, "raw-round-trip", e.raw_quanta))
                .with(leaf(ns, "round-trip", e.quanta))
                .with(leaf(ns, "clamp", clamp_name(e.clamp))),
        );
    }
    let c = &r.counters;
    let mut counters = Element::new(ns, "counters");
    for (name, value) in [
        ("hmpdus-sent", c.hmpdus_sent),
        ("requests-sent", c.requests_sent),
        ("requests-with-response", c.requests_with_response),
        ("requests-repeated", c.requests_repeated),
        ("requests-after-loss", c.requests_after_loss),
        ("responses-sent", c.responses_sent),
        ("response-adjustments-omitted", c.response_adjustments_omitted),
        ("adjustments-saturated", c.adjustments_saturated),
        ("hmpdus-received", c.hmpdus_received),
        ("hmpdus-processed", c.hmpdus_processed),
        ("hmpdus-delayed", c.hmpdus_delayed),
        ("requests-received", c.requests_received),
        ("responses-received", c.responses_received),
        ("responses-unmatched", c.responses_unmatched),
        ("responses-out-of-order", c.responses_out_of_order),
        ("results-clamped-to-minimum", c.results_clamped_to_minimum),
        ("results-discarded-above-maximum", c.results_discarded_above_maximum),
        ("results-discarded-outlier", c.results_discarded_outlier),
        ("malformed", c.malformed),
        ("not-hmpdu", c.not_hmpdu),
        ("other-version", c.other_version),
        ("discarded-not-operational", c.discarded_not_operational),
        ("discarded-wrong-interface", c.discarded_wrong_interface),
        ("discarded-wrong-path", c.discarded_wrong_path),
        ("discarded-buffer-full", c.discarded_buffer_full),
        ("discarded-wrong-destination", c.discarded_wrong_destination),
        ("discarded-empty", c.discarded_empty),
        ("extra-tuples-ignored", c.extra_tuples_ignored),
    ] {
        counters.push(leaf(ns, name, value));
    }
    m.push(counters);
}

/// A headroom's itemised lines (`line` list entries) into `parent`.
fn push_lines(parent: &mut Element, breakdown: Option<&Breakdown>) {
    let ns = PFC_BRIDGE_NS;
    let letter = |item: Item| item.label().trim_end_matches(')');
    for (i, line) in breakdown.map(|b| b.lines.as_slice()).unwrap_or_default().iter().enumerate() {
        parent.push(
            Element::new(ns, "line")
                .with(leaf(ns, "index", i + 1))
                .with(leaf(ns, "first-item", letter(line.items.first)))
                .with(leaf(ns, "last-item", letter(line.items.last)))
                .with(leaf(ns, "description", &line.description))
                .with(leaf(ns, "bits", line.bits)),
        );
    }
}

/// The `allowance-source` identity of `source` (without prefix), and its clamp if calculated.
pub fn source_identity(source: AllowanceSource) -> (&'static str, Option<Clamp>) {
    match source {
        AllowanceSource::LinkDelayAllowance => ("manual", None),
        AllowanceSource::Calculated { method: Method::LinkDelay, clamp } => {
            ("calculated", Some(clamp))
        }
        AllowanceSource::Calculated { method: Method::Measurement, clamp } => {
            ("measured", Some(clamp))
        }
        AllowanceSource::InitialValue => ("initial-value", None),
        AllowanceSource::AdministrativeOverride => ("administrative-override", None),
    }
}

pub fn clamp_name(clamp: Clamp) -> &'static str {
    match clamp {
        Clamp::None => "none",
        Clamp::RaisedToMinimum => "raised-to-minimum",
        Clamp::LoweredToMaximum => "lowered-to-maximum",
    }
}
