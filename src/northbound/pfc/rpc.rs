//! ieee802-dot1q-pfc-bridge's RPCs: `measure-headroom` on one port, `clear-pfc-counters` on one
//! port or, without `interface`, on every port. Both reply at once: the port does the work on
//! its own thread.

use mgmt::backend::BackendError;
use netconf_proto::xml::Element;

use crate::northbound::namespaces::PFC_BRIDGE_NS;
use crate::northbound::xml::child_text;
use crate::ports::set::PortSet;
use crate::ports::{HeadroomMethod, PortHandle};

/// The RPCs this family runs.
pub const RPCS: [&str; 2] = ["measure-headroom", "clear-pfc-counters"];

/// Runs `input` (one of [`RPCS`]) on `ports`.
pub fn run(ports: &dyn PortSet, input: &Element) -> Result<Vec<Element>, BackendError> {
    let rpc = input.name.as_str();
    let name = child_text(input, PFC_BRIDGE_NS, "interface");
    let path = format!("/ieee802-dot1q-pfc-bridge:{rpc}/interface");
    let port = match name.as_deref() {
        None => None,
        Some(name) => Some(ports.ports().iter().find(|p| p.name == name).ok_or_else(|| {
            let names: Vec<&str> = ports.ports().iter().map(|p| p.name.as_str()).collect();
            BackendError::new(format!(
                "pfcd has no port '{name}': use one of {}.",
                names.join(", ")
            ))
            .at(&path)
        })?),
    };
    match (rpc, port) {
        ("clear-pfc-counters", Some(port)) => port.clear_counters(),
        ("clear-pfc-counters", None) => ports.ports().iter().for_each(|p| p.clear_counters()),
        ("measure-headroom", Some(port)) => measure(port, &path)?,
        _ => return Err(BackendError::new(format!("pfcd does not run '{rpc}' so."))),
    }
    Ok(Vec::new())
}

/// measure-headroom: refused where the measurement is not in force (the port would not use
/// its result); otherwise the port measures again and the new allowance follows.
fn measure(port: &PortHandle, path: &str) -> Result<(), BackendError> {
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
