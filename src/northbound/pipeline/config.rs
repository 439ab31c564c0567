//! pfcd-pipeline's configuration: `/pipeline` (absent: the YANG defaults) into the engine's.

use dataplane::pipeline::{PauseMode, PipelineConfig};
use dataplane::time::Picos;
use mgmt::backend::BackendError;
use netconf_proto::xml::Element;
use pfc_yang_names::pfcd_pipeline as pipe;

use crate::northbound::namespaces::PIPE_NS;
use crate::northbound::xml::{child_text, child_u64};
use crate::ports::set::PortSet;

const PATH: &str = "/pfcd-pipeline:pipeline";

/// The engine's configuration for the ports of `set` from running's `/pipeline` (absent: the
/// YANG defaults), or what is wrong with it.
pub fn config_from(root: &Element, set: &dyn PortSet) -> Result<PipelineConfig, BackendError> {
    let written = written(root)?;
    let config = set.pipeline_config(&written);
    config.validate().map_err(|e| {
        BackendError::new(format!("the pipeline cannot run so: {e}")).at(PATH.to_string())
    })?;
    if let Some(p) = root.child(PIPE_NS, pipe::PIPELINE) {
        refuse_what_is_not_taken(p, &written, &config)?;
    }
    Ok(config)
}

/// A numeric leaf's figure in a configuration.
type Figure = fn(&PipelineConfig) -> u64;

/// Each numeric leaf of `/pipeline`: its path, and its figure in a configuration.
const FIGURES: [(&str, Figure); 6] = [
    (pipe::PORT_CREDIT, |c| c.port_credit as u64),
    (pipe::PAUSE_DETECT_LATENCY, |c| c.pause_detect_latency.0),
    ("external-memory/capacity", |c| c.external.capacity_fds as u64),
    ("external-memory/write-latency", |c| c.external.write_latency),
    ("external-memory/read-latency", |c| c.external.read_latency),
    ("external-memory/ops-per-cycle", |c| c.external.ops_per_cycle as u64),
];

/// A leaf written in `p` that the ports run at another figure than `written` (real interfaces
/// run their bridge's own pipeline, only `mode` configurable) is refused rather than ignored.
fn refuse_what_is_not_taken(
    p: &Element,
    written: &PipelineConfig,
    taken: &PipelineConfig,
) -> Result<(), BackendError> {
    for (path, figure) in FIGURES {
        let present = match path.split_once('/') {
            Some((parent, leaf)) => p.child(PIPE_NS, parent).and_then(|x| x.child(PIPE_NS, leaf)),
            None => p.child(PIPE_NS, path),
        };
        if present.is_some() && figure(written) != figure(taken) {
            return Err(BackendError::new(format!(
                "these ports run their pipeline with {path} {}, which cannot be configured \
                 here: remove {path} (only mode can be changed).",
                figure(taken)
            ))
            .at(format!("{PATH}/{path}")));
        }
    }
    Ok(())
}

/// What `/pipeline` writes over the engine's defaults, before the ports' own figures.
fn written(root: &Element) -> Result<PipelineConfig, BackendError> {
    let mut base = PipelineConfig::default();
    if let Some(p) = root.child(PIPE_NS, pipe::PIPELINE) {
        let number = |e: &Element, name: &str, path: &str| {
            child_u64(e, PIPE_NS, name).map_err(|t| {
                BackendError::new(format!("'{t}' is not a number.")).at(format!("{PATH}/{path}"))
            })
        };
        if let Some(mode) = child_text(p, PIPE_NS, pipe::MODE) {
            base.mode = mode
                .parse::<PauseMode>()
                .map_err(|e| BackendError::new(e).at(format!("{PATH}/mode")))?;
        }
        if let Some(v) = number(p, pipe::PORT_CREDIT, pipe::PORT_CREDIT)? {
            base.port_credit = usize::try_from(v).unwrap_or(usize::MAX);
        }
        if let Some(v) = number(p, pipe::PAUSE_DETECT_LATENCY, pipe::PAUSE_DETECT_LATENCY)? {
            base.pause_detect_latency = Picos(v);
        }
        if let Some(x) = p.child(PIPE_NS, pipe::EXTERNAL_MEMORY) {
            let path = |leaf: &str| format!("external-memory/{leaf}");
            if let Some(v) = number(x, pipe::CAPACITY, &path(pipe::CAPACITY))? {
                base.external.capacity_fds = usize::try_from(v).unwrap_or(usize::MAX);
            }
            if let Some(v) = number(x, pipe::WRITE_LATENCY, &path(pipe::WRITE_LATENCY))? {
                base.external.write_latency = v;
            }
            if let Some(v) = number(x, pipe::READ_LATENCY, &path(pipe::READ_LATENCY))? {
                base.external.read_latency = v;
            }
            if let Some(v) = number(x, pipe::OPS_PER_CYCLE, &path(pipe::OPS_PER_CYCLE))? {
                base.external.ops_per_cycle = usize::try_from(v).unwrap_or(usize::MAX);
            }
        }
    }
    Ok(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pipeline_leaf_reaches_the_engines_configuration() {
        let xml = format!(
            "<data><pipeline xmlns=\"{PIPE_NS}\"><mode>fifo</mode><port-credit>64</port-credit>\
             <pause-detect-latency>2000</pause-detect-latency><external-memory>\
             <capacity>1000</capacity><write-latency>3</write-latency>\
             <read-latency>4</read-latency><ops-per-cycle>5</ops-per-cycle>\
             </external-memory></pipeline></data>"
        );
        let root = netconf_proto::xml::parse(xml.as_bytes()).expect("XML");
        let c = written(&root).expect("taken");
        assert_eq!(c.mode, PauseMode::Fifo);
        assert_eq!(c.port_credit, 64);
        assert_eq!(c.pause_detect_latency, Picos(2_000));
        assert_eq!(c.external.capacity_fds, 1_000);
        assert_eq!(c.external.write_latency, 3);
        assert_eq!(c.external.read_latency, 4);
        assert_eq!(c.external.ops_per_cycle, 5);
        // Each differs from the default, so each was taken from the configuration.
        let d = PipelineConfig::default();
        assert_ne!(
            (d.mode, d.port_credit, d.pause_detect_latency, d.external.capacity_fds),
            (c.mode, c.port_credit, c.pause_detect_latency, c.external.capacity_fds)
        );
        assert_ne!(
            (d.external.write_latency, d.external.read_latency, d.external.ops_per_cycle),
            (3, 4, 5)
        );
    }

    #[test]
    fn a_leaf_the_ports_run_otherwise_is_refused_by_name() {
        let xml = format!(
            "<pipeline xmlns=\"{PIPE_NS}\"><mode>stall</mode><port-credit>64</port-credit>\
             </pipeline>"
        );
        let p = netconf_proto::xml::parse(xml.as_bytes()).expect("XML");
        let written = PipelineConfig { port_credit: 64, ..PipelineConfig::default() };
        // Ports that take it (the lab's).
        assert_eq!(refuse_what_is_not_taken(&p, &written, &written), Ok(()));
        // Ports that run their own credit (a real interface's bridge).
        let taken = PipelineConfig { port_credit: 128, ..written.clone() };
        let e = refuse_what_is_not_taken(&p, &written, &taken).expect_err("refused");
        assert!(e.message.contains("port-credit 128"), "{}", e.message);
        assert_eq!(e.path.as_deref(), Some("/pfcd-pipeline:pipeline/port-credit"));
    }
}
