//! Which notification an event element is: a top-level one (RFC 7950 §7.16), or one defined
//! on a container or list (§7.16.2), sent inside the data nodes above it, one a level with a
//! list entry's keys beside it, as an action is invoked.

use netconf_proto::xml::Element;

use super::data::{DataPath, Step};
use super::model::{Kind, Model, Operation, SNode};

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
    let mut parent: Option<&'m SNode> = None;
    let mut node = DataPath::default();
    let mut e = event;
    loop {
        let ns = e.namespace.as_deref().unwrap_or_default();
        if let Some(notification) = parent.and_then(|p| p.notification(ns, &e.name)) {
            return Some(Located { notification, node });
        }
        let s = model.child_of(parent, ns, &e.name)?;
        if !matches!(s.kind, Kind::Container | Kind::List) {
            return None;
        }
        if s.keys.iter().any(|k| e.child(&s.namespace, k).is_none()) {
            return None;
        }
        node.0.push(Step::of(e, s));
        let is_key = |c: &Element| {
            s.kind == Kind::List
                && c.namespace.as_deref() == Some(s.namespace.as_str())
                && s.keys.iter().any(|k| *k == c.name)
        };
        let mut below = e.elements().filter(|c| !is_key(c));
        let next = below.next()?;
        if below.next().is_some() {
            return None;
        }
        parent = Some(s);
        e = next;
    }
}
