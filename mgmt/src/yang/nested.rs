//! The walk down to an operation defined on a container or list (an action, RFC 7950 §7.15;
//! a notification, §7.16.2): the element names the data nodes above it, one a level with a
//! list entry's keys beside it, down to the operation's element. `<action>` reports each way
//! the walk can stop; a nested notification is just not one.

use netconf_proto::xml::Element;

use super::data::{DataPath, Step};
use super::model::{Kind, Model, SNode};

/// Where the walk ended: the operation's element, its definition, and the data node instance
/// it is on.
#[derive(Debug)]
pub struct Found<'m, 'a, T> {
    pub element: &'a Element,
    pub operation: &'m T,
    pub node: DataPath,
}

/// Why the walk stopped before an operation.
#[derive(Debug)]
pub enum Stop<'m, 'a> {
    /// The element's namespace is no module's.
    UnknownNamespace(&'a Element),
    /// No data node or operation of that name at this place (`None`: the top level).
    Unknown(&'a Element, Option<&'m SNode>),
    /// A data node that is neither a container nor a list, so defines no operation.
    NotContainer(&'a Element, &'m SNode, Option<&'m SNode>),
    /// A list entry without its key `key`.
    MissingKey(&'a Element, String),
    /// A container or list entry holding nothing below (besides its keys).
    Empty(&'a Element),
    /// A level holding a second node, `extra`.
    MoreThanOne(&'a Element, &'a Element),
}

/// Walks `top` down to the operation that `operation(parent, namespace, name)` finds defined
/// on a data node.
pub fn walk<'m, 'a, T>(
    model: &'m Model,
    top: &'a Element,
    operation: impl Fn(&'m SNode, &str, &str) -> Option<&'m T>,
) -> Result<Found<'m, 'a, T>, Stop<'m, 'a>> {
    let mut parent: Option<&'m SNode> = None;
    let mut node = DataPath::default();
    let mut e = top;
    loop {
        let ns = e.namespace.as_deref().unwrap_or_default();
        if model.module_by_namespace(ns).is_none() {
            return Err(Stop::UnknownNamespace(e));
        }
        if let Some(op) = parent.and_then(|p| operation(p, ns, &e.name)) {
            return Ok(Found { element: e, operation: op, node });
        }
        let Some(s) = model.child_of(parent, ns, &e.name) else {
            return Err(Stop::Unknown(e, parent));
        };
        let s: &'m SNode = s;
        if !matches!(s.kind, Kind::Container | Kind::List) {
            return Err(Stop::NotContainer(e, s, parent));
        }
        if let Some(k) = s.keys.iter().find(|k| e.child(&s.namespace, k).is_none()) {
            return Err(Stop::MissingKey(e, k.clone()));
        }
        node.0.push(Step::of(e, s));
        let is_key = |c: &Element| {
            s.kind == Kind::List
                && c.namespace.as_deref() == Some(s.namespace.as_str())
                && s.keys.iter().any(|k| *k == c.name)
        };
        let mut below = e.elements().filter(|c| !is_key(c));
        let Some(next) = below.next() else { return Err(Stop::Empty(e)) };
        if let Some(extra) = below.next() {
            return Err(Stop::MoreThanOne(e, extra));
        }
        parent = Some(s);
        e = next;
    }
}
