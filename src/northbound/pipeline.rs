//! pfcd-pipeline: the lab bridge's transmit pipeline. Its settings (`/pipeline`: pause mode,
//! port credit, pause detection, external memory) become the engine's configuration; its state
//! (statistics, external memory in use, each port's and priority's Pause FSM and FIFO depth)
//! comes from the pipeline thread's latest snapshot.

use dataplane::pipeline::{FsmState, PauseMode, PipelineConfig};
use dataplane::time::Picos;
use mgmt::backend::BackendError;
use netconf_proto::xml::Element;

use super::xml::{child_text, child_u64, leaf};
use crate::ports::set::PortSet;
use dataplane::pipeline::PipelineSnapshot;

pub const PIPE_NS: &str = "urn:pfcd:yang:pfcd-pipeline";

const PATH: &str = "/pfcd-pipeline:pipeline";

/// The engine's configuration for the ports of `set` from running's `/pipeline` (absent: the
/// YANG defaults), or what is wrong with it.
pub fn config_from(root: &Element, set: &dyn PortSet) -> Result<PipelineConfig, BackendError> {
    let mut base = PipelineConfig::default();
    if let Some(p) = root.child(PIPE_NS, "pipeline") {
        let number = |e: &Element, name: &str, path: &str| {
            child_u64(e, PIPE_NS, name).map_err(|t| {
                BackendError::new(format!("'{t}' is not a number.")).at(format!("{PATH}/{path}"))
            })
        };
        if let Some(mode) = child_text(p, PIPE_NS, "mode") {
            base.mode = mode
                .parse::<PauseMode>()
                .map_err(|e| BackendError::new(e).at(format!("{PATH}/mode")))?;
        }
        if let Some(v) = number(p, "port-credit", "port-credit")? {
            base.port_credit = usize::try_from(v).unwrap_or(usize::MAX);
        }
        if let Some(v) = number(p, "pause-detect-latency", "pause-detect-latency")? {
            base.pause_detect_latency = Picos(v);
        }
        if let Some(x) = p.child(PIPE_NS, "external-memory") {
            let path = |leaf: &str| format!("external-memory/{leaf}");
            if let Some(v) = number(x, "capacity", &path("capacity"))? {
                base.external.capacity_fds = usize::try_from(v).unwrap_or(usize::MAX);
            }
            if let Some(v) = number(x, "write-latency", &path("write-latency"))? {
                base.external.write_latency = v;
            }
            if let Some(v) = number(x, "read-latency", &path("read-latency"))? {
                base.external.read_latency = v;
            }
            if let Some(v) = number(x, "ops-per-cycle", &path("ops-per-cycle"))? {
                base.external.ops_per_cycle = usize::try_from(v).unwrap_or(usize::MAX);
            }
        }
    }
    let config = set.pipeline_config(&base);
    config.validate().map_err(|e| {
        BackendError::new(format!("the pipeline cannot run so: {e}")).at(PATH.to_string())
    })?;
    Ok(config)
}

/// `/pipeline`'s state: external memory in use and the statistics.
pub fn state(s: &PipelineSnapshot) -> Element {
    let ns = PIPE_NS;
    let st = &s.stats;
    // peak-used is not kept: the engine keeps each FIFO's peak (external-fifo-peak), not the
    // memory's.
    let external = Element::new(ns, "external-memory").with(leaf(ns, "used", s.external_used));
    let mut statistics = Element::new(ns, "statistics");
    for (name, value) in [
        ("cycles", st.cycles),
        ("enqueued", st.enqueued),
        ("departed", st.departed),
        ("departed-octets", st.departed_octets),
        ("order-violations", st.order_violations),
        ("late-frames", st.late_frames),
        ("frames-within-bound", st.frames_within_bound),
        ("recycled-by-nti", st.recycled_by_nti),
        ("returned-by-mac", st.returned_by_mac),
        ("flushed", st.flushed),
        ("external-fifo-peak", st.external_fifo_peak as u64),
        ("external-full-cycles", st.external_full_cycles),
        ("recycle-staging-peak", st.recycle_staging_peak as u64),
        ("onchip-paused-octets-peak", st.onchip_paused_octets_peak),
        ("stalled-cycles", st.stalled_cycles),
        ("pause-indications", st.pause_indications),
    ] {
        statistics.push(leaf(ns, name, value));
    }
    Element::new(ns, "pipeline").with(external).with(statistics)
}

/// The `pipeline` container of port `port`'s Bridge Port.
pub fn port_state(s: &PipelineSnapshot, port: usize) -> Option<Element> {
    let ns = PIPE_NS;
    let row = s.classes.get(port)?;
    let mut e = Element::new(ns, "pipeline");
    for (n, c) in row.iter().enumerate() {
        let class = s.traffic_classes.get(port).map_or(n, |t| usize::from(t[n]));
        let mut p = Element::new(ns, "priority").with(leaf(ns, "priority", n)).with(leaf(
            ns,
            "traffic-class",
            class,
        ));
        if let Some(c) = c {
            p.push(leaf(ns, "fsm-state", fsm_name(c.fsm)));
            p.push(leaf(ns, "pause", c.pause));
            p.push(leaf(ns, "external-fifo-depth", c.external_depth));
            p.push(leaf(ns, "onchip-fifo-depth", c.onchip_depth));
            p.push(leaf(ns, "inflight", c.inflight));
            p.push(leaf(ns, "departed", c.departed));
        }
        e.push(p);
    }
    if let Some(r) = s.reactions.get(port) {
        let mut reaction = Element::new(ns, "pause-reaction");
        for (name, value) in [
            ("pauses", r.pauses),
            ("late-after-indication", r.late_after_indication),
            ("indication-max", r.indication_max_ns),
            ("late-after-arrival", r.late_after_arrival),
            ("arrival-p50", r.arrival_p50_ns),
            ("arrival-p99", r.arrival_p99_ns),
            ("arrival-max", r.arrival_max_ns),
        ] {
            reaction.push(leaf(ns, name, value));
        }
        e.push(reaction);
    }
    Some(e)
}

fn fsm_name(s: FsmState) -> &'static str {
    match s {
        FsmState::Idle => "idle",
        FsmState::WaitHaltAck => "wait-halt-ack",
        FsmState::PipeClean => "pipe-clean",
        FsmState::Flushing => "flushing",
    }
}
