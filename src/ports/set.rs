//! What the northbound side needs of pfcd's ports, whatever they are: the embedded lab's
//! simulated ports (`crate::lab::Lab`) or a bridge on real interfaces
//! (`crate::real::RealPorts`).

use std::sync::Arc;

use dataplane::pipeline::PipelineConfig;
use dataplane::time::LinkSpeed;

use super::event_channel::EventReceiver;
use super::handle::PortHandle;
use dataplane::pipeline::PipelineSnapshot;

pub trait PortSet: Send + Sync {
    /// The ports, in order.
    fn ports(&self) -> &[PortHandle];
    /// Port `i`'s link speed.
    fn speed(&self, i: usize) -> LinkSpeed;
    /// What the ports are, for messages ("the lab's ports", "the interfaces in the settings").
    fn described(&self) -> &'static str;
    /// Whether the ports run a priority to traffic class table other than the identity
    /// (`PortIntent::traffic_class`): the bridge on real interfaces does, the lab's simulated
    /// pipeline does not.
    fn applies_traffic_classes(&self) -> bool;
    /// Whether the ports run the PFC watchdog (`PortIntent::watchdog`): the bridge on real
    /// interfaces and the lab's simulated ports both do.
    fn runs_watchdog(&self) -> bool;
    /// Whether the ports forward frames between each other (the bridge on real interfaces),
    /// so that static filtering entries act on them; the lab's simulated ports do not.
    fn forwards_frames(&self) -> bool {
        false
    }
    /// Puts these static filtering entries in force in place of those before (ports that
    /// forward no frames have none).
    fn apply_static_entries(&self, _entries: Vec<pfc_bridge::static_entries::StaticEntry>) {}
    /// The transmit pipeline as last published.
    fn pipeline(&self) -> Arc<PipelineSnapshot>;
    /// The pipeline these ports run for pfcd-pipeline's settings `base`.
    fn pipeline_config(&self, base: &PipelineConfig) -> PipelineConfig;
    /// Runs the pipeline with `config` from now on.
    fn reconfigure_pipeline(&self, config: PipelineConfig);
    /// Seconds since the ports started (the bridge's up-time).
    fn up_time_secs(&self) -> u64;
    /// The ports' events (once: there is one reader).
    fn take_events(&self) -> Option<EventReceiver>;
    /// Stops every port.
    fn stop(&self);
    /// Why the ports no longer work, if they do not (pfcd then exits, for a supervisor to
    /// restart it, rather than serve stale state): a port's thread died. Kinds of port with
    /// threads beyond the ports' own (the bridge's forwarding loop) add theirs.
    fn failure(&self) -> Option<String> {
        port_failure(self.ports())
    }
}

/// The first of `ports` whose thread died, and why.
pub fn port_failure(ports: &[PortHandle]) -> Option<String> {
    ports.iter().find_map(PortHandle::failure)
}
