//! pfcd-pipeline's state: `/pipeline` (external memory in use, statistics) and each Bridge
//! Port's `pipeline` container (each priority's traffic class, Pause FSM, FIFO depths; the pause
//! reaction).

use std::time::SystemTime;

use dataplane::pipeline::{FsmState, PipelineSnapshot};
use netconf_proto::xml::Element;
use pfc_yang_names::pfcd_pipeline as pipe;

use crate::northbound::namespaces::PIPE_NS;
use crate::northbound::xml::leaf;
use crate::ports::snapshot::{FrameDiscards, IoPath};

/// `/pipeline`'s state: external memory in use and the statistics, which started again at
/// `built` (the pipeline was last built then).
pub fn state(s: &PipelineSnapshot, built: SystemTime) -> Element {
    let ns = PIPE_NS;
    let st = &s.stats;
    let external = Element::new(ns, pipe::EXTERNAL_MEMORY)
        .with(leaf(ns, pipe::USED, s.external_used))
        .with(leaf(ns, pipe::PEAK_USED, st.external_used_peak as u64));
    let mut statistics = Element::new(ns, pipe::STATISTICS).with(leaf(
        ns,
        pipe::DISCONTINUITY_TIME,
        mgmt::notify::format_time(built),
    ));
    for (name, value) in [
        (pipe::CYCLES, st.cycles),
        (pipe::ENQUEUED, st.enqueued),
        (pipe::DEPARTED, st.departed),
        (pipe::DEPARTED_OCTETS, st.departed_octets),
        (pipe::ORDER_VIOLATIONS, st.order_violations),
        (pipe::LATE_FRAMES, st.late_frames),
        (pipe::FRAMES_WITHIN_BOUND, st.frames_within_bound),
        (pipe::RECYCLED_BY_NTI, st.recycled_by_nti),
        (pipe::RETURNED_BY_MAC, st.returned_by_mac),
        (pipe::FLUSHED, st.flushed),
        (pipe::EXTERNAL_FIFO_PEAK, st.external_fifo_peak as u64),
        (pipe::EXTERNAL_FULL_CYCLES, st.external_full_cycles),
        (pipe::RECYCLE_STAGING_PEAK, st.recycle_staging_peak as u64),
        (pipe::ONCHIP_PAUSED_OCTETS_PEAK, st.onchip_paused_octets_peak),
        (pipe::STALLED_CYCLES, st.stalled_cycles),
        (pipe::PAUSE_INDICATIONS, st.pause_indications),
    ] {
        statistics.push(leaf(ns, name, value));
    }
    Element::new(ns, pipe::PIPELINE).with(external).with(statistics)
}

/// The frames a port discarded for what they are, within its `pipeline` container.
pub fn frame_discards(d: &FrameDiscards) -> Element {
    let ns = PIPE_NS;
    Element::new(ns, pipe::FRAME_DISCARDS)
        .with(leaf(ns, pipe::OVERSIZE, d.oversize))
        .with(leaf(ns, pipe::RESERVED_VID, d.reserved_vid))
        .with(leaf(ns, pipe::LOSSY_SHARE, d.lossy_share))
        .with(leaf(ns, pipe::TRANSIT_DELAY, d.transit_delay))
}

/// `io-path`: how a real interface's frames reach and leave the bridge, and what the kernel
/// lost on the way.
pub fn io_path(io: &IoPath) -> Element {
    let ns = PIPE_NS;
    let path = |ring: bool| if ring { "ring" } else { "socket" };
    let mut e = Element::new(ns, pipe::IO_PATH).with(leaf(
        ns,
        pipe::RECEIVE_PATH,
        path(io.receive_ring_slots > 0),
    ));
    if io.receive_ring_slots > 0 {
        e.push(leaf(ns, pipe::RECEIVE_RING_SLOTS, io.receive_ring_slots));
    }
    e.with(leaf(ns, pipe::TRANSMIT_PATH, path(io.transmit_ring)))
        .with(leaf(ns, pipe::RECEIVE_KERNEL_DROPS, io.receive_kernel_drops))
        .with(leaf(ns, pipe::TRANSMIT_KERNEL_DROPS, io.transmit_kernel_drops))
        .with(leaf(ns, pipe::KEEPER_PAUSES, io.keeper_pauses))
}

/// The `pipeline` container of port `port`'s Bridge Port.
pub fn port_state(s: &PipelineSnapshot, port: usize) -> Option<Element> {
    let ns = PIPE_NS;
    let row = s.classes.get(port)?;
    let mut e = Element::new(ns, pipe::PIPELINE);
    for (n, c) in row.iter().enumerate() {
        let class = s.traffic_classes.get(port).map_or(n, |t| usize::from(t[n]));
        let mut p = Element::new(ns, pipe::PRIORITY).with(leaf(ns, pipe::PRIORITY, n)).with(leaf(
            ns,
            pipe::TRAFFIC_CLASS,
            class,
        ));
        if let Some(c) = c {
            p.push(leaf(ns, pipe::FSM_STATE, fsm_name(c.fsm)));
            p.push(leaf(ns, pipe::PAUSE, c.pause));
            p.push(leaf(ns, pipe::EXTERNAL_FIFO_DEPTH, c.external_depth));
            p.push(leaf(ns, pipe::ONCHIP_FIFO_DEPTH, c.onchip_depth));
            p.push(leaf(ns, pipe::INFLIGHT, c.inflight));
            p.push(leaf(ns, pipe::DEPARTED, c.departed));
        }
        e.push(p);
    }
    if let Some(r) = s.reactions.get(port) {
        let mut reaction = Element::new(ns, pipe::PAUSE_REACTION);
        for (name, value) in [
            (pipe::PAUSES, r.pauses),
            (pipe::LATE_AFTER_INDICATION, r.late_after_indication),
            (pipe::INDICATION_MAX, r.indication_max_ns),
            (pipe::LATE_AFTER_ARRIVAL, r.late_after_arrival),
            (pipe::ARRIVAL_P50, r.arrival_p50_ns),
            (pipe::ARRIVAL_P99, r.arrival_p99_ns),
            (pipe::ARRIVAL_MAX, r.arrival_max_ns),
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
