//! Which notification an event element is: a top-level one (RFC 7950 §7.16), or one defined
//! on a container or list (§7.16.2), sent inside the data nodes above it as an action is
//! invoked ([`super::nested`]).

use netconf_proto::xml::Element;

use super::data::DataPath;
use super::model::{Model, Operation};
use super::nested::walk;

/// A notification found in an event element.
#[derive(Debug)]
pub struct Located<'m> {
    /// Its definition.
    pub notification: &'m Operation,
    /// The data node instance it is sent for; empty for a top-level notification.
    pub node: DataPath,
}

/// The notification `event` carries, if the schema defines one there.
pub fn locate<'m>(model: &'m Model, event: &Element) -> Option<Located<'m>> {
    let ns = event.namespace.as_deref().unwrap_or_default();
    if let Some(notification) = model.notification(ns, &event.name) {
        return Some(Located { notification, node: DataPath::default() });
    }
    let found = walk(model, event, |parent, ns, name| parent.notification(ns, name)).ok()?;
    Some(Located { notification: found.operation, node: found.node })
}
