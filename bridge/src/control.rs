//! What pfcd asks of the running bridge: a port's configuration, a new measurement, counters
//! cleared, another pause mode, the static filtering entries. The loop takes them at the start
//! of each turn.

use dataplane::pipeline::{PauseMode, Pipeline};
use dataplane::time::LinkSpeed;
use tracing::{info, warn};

use super::forward::Forwarder;
use super::port::{BridgePort, PortControl, PortCounters};
use super::reaction::ReactionTracker;
use super::static_entries::StaticEntry;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Control {
    Port {
        index: usize,
        control: Box<PortControl>,
    },
    /// Measure port `index`'s headroom again from scratch.
    Remeasure(usize),
    /// Counters of one port, or of every port, back to zero.
    ClearCounters(Option<usize>),
    /// The pipeline's pause mode: taken once no frame is in the bridge (a new engine starts).
    Mode(PauseMode),
    /// The static filtering entries (802.1Q 8.8.1), in place of those before.
    StaticEntries(Vec<StaticEntry>),
}

/// Applies one control to the bridge.
pub fn apply<P>(c: Control, ports: &mut [BridgePort<P>], fwd: &mut Forwarder, speed: LinkSpeed) {
    match c {
        Control::Port { index, control } => {
            let Some(port) = ports.get_mut(index) else { return };
            if let Err(e) = port.reconfigure(*control, speed) {
                warn!(port = %port.setup.name, error = %e, "configuration not taken");
            }
        }
        Control::Remeasure(index) => {
            if let Some(port) = ports.get_mut(index) {
                if let Err(e) = port.remeasure(speed) {
                    warn!(port = %port.setup.name, error = %e, "cannot measure again");
                }
            }
        }
        Control::ClearCounters(which) => {
            for (i, port) in ports.iter_mut().enumerate() {
                if which.is_none_or(|w| w == i) {
                    port.counters = PortCounters::default();
                    port.receiver.counters = Default::default();
                    port.initiator.counters = Default::default();
                    port.reaction = ReactionTracker::default();
                    port.ingress.clear_counters();
                    port.watchdog.clear_counters();
                }
            }
        }
        Control::Mode(mode) => fwd.pending_mode = Some(mode),
        Control::StaticEntries(entries) => {
            fwd.fdb.set_static(&entries);
            info!(entries = entries.len(), "static filtering entries in force");
        }
    }
}

/// A pending change of pause mode, once the bridge holds no frame: the engine is built anew
/// with it (its statistics start from zero).
pub fn change_mode(fwd: &mut Forwarder) {
    let Some(mode) = fwd.pending_mode else { return };
    if fwd.store.in_use() > 0 {
        return;
    }
    fwd.pending_mode = None;
    if fwd.engine.config().mode == mode {
        return;
    }
    let config = dataplane::pipeline::PipelineConfig { mode, ..fwd.engine.config().clone() };
    match Pipeline::new(config) {
        Ok(mut engine) => {
            engine.record_departures();
            // The new engine's clock starts where the old one was.
            let cycles = fwd.engine.now().as_ps() / engine.config().cycle.as_ps().max(1);
            engine.run(cycles);
            fwd.engine = engine;
            info!(%mode, "pause mode changed");
        }
        Err(e) => warn!(error = %e, "pause mode not changed"),
    }
}

/// Pending priority to traffic class mappings, each once nothing waits for its port: no frame
/// for it at QMAN, in flight, in its FIFOs or before its socket. The pipeline's pauses are then
/// given again by class.
pub fn change_traffic_classes<P>(ports: &mut [BridgePort<P>], fwd: &mut Forwarder) {
    for (p, port) in ports.iter_mut().enumerate() {
        let Some(classes) = port.pending_traffic_class else { continue };
        let idle = port.tx_backlog.is_empty()
            && (0..dataplane::wire::PRIORITIES).all(|c| {
                fwd.engine.backlog(p, c) == 0
                    && fwd.engine.class_view(p, c).is_none_or(|v| {
                        v.inflight == 0 && v.external_depth == 0 && v.onchip_depth == 0
                    })
            });
        if !idle {
            continue;
        }
        port.setup.traffic_class = classes;
        port.pending_traffic_class = None;
        let now = fwd.engine.now();
        fwd.engine.schedule_pfc(now, p, 0xff, port.class_pauses(now, fwd.max_transit));
        info!(port = %port.setup.name, ?classes, "priority to traffic class mapping in force");
    }
}
