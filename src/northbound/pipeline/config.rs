//! pfcd-pipeline's configuration: `/pipeline` (absent: the YANG defaults) into the engine's.

use dataplane::pipeline::{PauseMode, PipelineConfig};
use dataplane::time::Picos;
use mgmt::backend::BackendError;
use netconf_proto::xml::Element;

use crate::northbound::namespaces::PIPE_NS;
use crate::northbound::xml::{child_text, child_u64};
use crate::ports::set::PortSet;

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
