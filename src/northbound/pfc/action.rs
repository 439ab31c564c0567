//! The actions of a Bridge Port's `pfc` container (ieee802-dot1q-pfc's grouping, used by
//! ieee802-dot1q-pfc-bridge): `measure-headroom` and `clear-pfc-counters` on the port the
//! action is invoked on. Both reply at once: the port does the work on its own thread.

use mgmt::backend::{ActionRequest, BackendError};
use netconf_proto::xml::Element;
use pfc_yang_names::ieee802_dot1q_pfc as ieee;

use crate::northbound::namespaces::PFC_BRIDGE_NS;
use crate::ports::set::PortSet;
use crate::ports::{HeadroomMethod, PortHandle};

/// The actions this family runs.
pub const ACTIONS: [&str; 2] = [ieee::MEASURE_HEADROOM, ieee::CLEAR_PFC_COUNTERS];

/// Runs `request` if it is one of [`ACTIONS`] (`None` otherwise).
pub fn run(
    ports: &dyn PortSet,
    request: &ActionRequest<'_>,
) -> Option<Result<Vec<Element>, BackendError>> {
    let action = request.input.name.as_str();
    if request.input.namespace.as_deref() != Some(PFC_BRIDGE_NS) || !ACTIONS.contains(&action) {
        return None;
    }
    let path = request.node.to_json_path();
    // The node is /ietf-interfaces:interfaces/interface[name='…']/…/pfc: its one list entry
    // is the interface, keyed by name.
    let name = request.node.0.iter().find_map(|s| s.keys.first()).map(|(_, v)| v.as_str());
    let Some(port) = name.and_then(|n| ports.ports().iter().find(|p| p.name == n)) else {
        let names: Vec<&str> = ports.ports().iter().map(|p| p.name.as_str()).collect();
        return Some(Err(BackendError::new(format!(
            "pfcd has no port '{}': use one of {}.",
            name.unwrap_or_default(),
            names.join(", ")
        ))
        .at(&path)));
    };
    Some(match action {
        ieee::CLEAR_PFC_COUNTERS => {
            port.clear_counters();
            Ok(Vec::new())
        }
        _ => measure(port, &path).map(|()| Vec::new()),
    })
}

/// measure-headroom: refused where the measurement is not in force (the port would not use
/// its result); otherwise the port measures again and the new allowance follows.
fn measure(port: &PortHandle, path: &str) -> Result<(), BackendError> {
    let method = port.snapshot().method_in_force;
    if !matches!(method, HeadroomMethod::Measured | HeadroomMethod::CalculatedAndMeasured) {
        return Err(BackendError::new(format!(
            "The headroom measurement is not in force on {} (its method is {}): set \
             headroom/method to measurement or link-delay-and-measurement first.",
            port.name,
            method.as_str()
        ))
        .at(path));
    }
    port.measure();
    Ok(())
}
