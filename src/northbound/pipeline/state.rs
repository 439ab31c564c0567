//! pfcd-pipeline's state: `/pipeline` (external memory in use, statistics) and each Bridge
//! Port's `pipeline` container (each priority's traffic class, Pause FSM, FIFO depths; the pause
//! reaction).

use dataplane::pipeline::{FsmState, PipelineSnapshot};
use netconf_proto::xml::Element;

use crate::northbound::namespaces::PIPE_NS;
use crate::northbound::xml::leaf;
use crate::ports::snapshot::FrameDiscards;

/// `/pipeline`'s state: external memory in use and the statistics.
pub fn state(s: &PipelineSnapshot) -> Element {
    let ns = PIPE_NS;
    let st = &s.stats;
    let external = Element::new(ns, "external-memory")
        .with(leaf(ns, "used", s.external_used))
        .with(leaf(ns, "peak-used", st.external_used_peak as u64));
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

/// The frames a port discarded for what they are, within its `pipeline` container.
pub fn frame_discards(d: &FrameDiscards) -> Element {
    let ns = PIPE_NS;
    Element::new(ns, "frame-discards")
        .with(leaf(ns, "oversize", d.oversize))
        .with(leaf(ns, "reserved-vid", d.reserved_vid))
        .with(leaf(ns, "lossy-share", d.lossy_share))
        .with(leaf(ns, "transit-delay", d.transit_delay))
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
