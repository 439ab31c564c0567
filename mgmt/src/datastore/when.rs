//! `when` after an edit (RFC 7950 §8.2, §8.3.2): a node the request creates or changes while
//! its `when` is false is refused (unknown-element, `yang_errors`); a node the request does
//! not touch whose `when` the change made false is deleted by the server.
//!
//! libyang validates a fresh parse of the edited configuration and reports the first node
//! whose `when` is false. If the edit touched neither that node, nor a node above or below
//! it, the node is deleted from the edited tree and the tree checked again, until it passes
//! or fails for another reason. Each deletion needs one more validation; a change rarely
//! switches off more than a few nodes.

use crate::datastore::{Datastores, Snapshot};
use crate::yang::data::{self, DataPath, Step};
use crate::yang::model::{Kind, Model};
use crate::yang::schema::SchemaError;
use crate::yang::yang_errors::is_when_false;
use netconf_proto::xml::{Element, Node};

/// An edited configuration after the server's deletions.
pub(crate) struct Resolved {
    /// The edited tree without the nodes deleted.
    pub root: Element,
    /// The nodes the server deleted, in the order it deleted them.
    pub deleted: Vec<DataPath>,
    /// The check of `root`: the snapshot, or the refusal that was not the server's to fix.
    pub checked: Result<Snapshot, SchemaError>,
}

/// Deletes from `root` (an edit of `base`, refused with `refusal` when checked with `full`)
/// the nodes whose `when` the edit made false without touching them, and checks it again.
pub(crate) fn delete_switched_off(
    ds: &Datastores,
    base: &Element,
    mut root: Element,
    full: bool,
    refusal: SchemaError,
) -> Resolved {
    let model = ds.schema().model();
    let mut deleted = Vec::new();
    let mut refusal = refusal;
    // What the request changed, computed only once a `when` is found false.
    let mut touched: Option<Vec<DataPath>> = None;
    while let Some(path) = when_false_at(model, &refusal) {
        let touched = touched.get_or_insert_with(|| {
            data::diff(model, base, &root).into_iter().map(|c| c.path).collect()
        });
        if touched.iter().any(|t| on_one_branch(t, &path)) || !remove(model, &mut root, &path) {
            break;
        }
        deleted.push(path);
        match ds.check_tree(root.clone(), full) {
            Ok(snapshot) => return Resolved { root, deleted, checked: Ok(snapshot) },
            Err(e) => refusal = e,
        }
    }
    Resolved { root, deleted, checked: Err(refusal) }
}

/// Whether `e` is a refusal [`delete_switched_off`] may resolve: a node whose `when` is
/// false.
pub(crate) fn may_delete(e: &SchemaError) -> bool {
    matches!(e, SchemaError::Invalid { message, path: Some(_), .. } if is_when_false(message))
}

/// `base` without the nodes at `deleted` (itself when there are none).
pub(crate) fn without<'a>(
    model: &Model,
    base: &'a Element,
    deleted: &[DataPath],
) -> std::borrow::Cow<'a, Element> {
    if deleted.is_empty() {
        return std::borrow::Cow::Borrowed(base);
    }
    let mut root = base.clone();
    for path in deleted {
        remove(model, &mut root, path);
    }
    std::borrow::Cow::Owned(root)
}

/// The node of a refusal for a false `when`.
fn when_false_at(model: &Model, e: &SchemaError) -> Option<DataPath> {
    let SchemaError::Invalid { message, path: Some(path), .. } = e else { return None };
    if !is_when_false(message) {
        return None;
    }
    DataPath::parse_json(model, path).filter(|p| !p.0.is_empty())
}

/// Whether the same data node is named by both steps.
fn same(a: &Step, b: &Step) -> bool {
    a.ns == b.ns && a.name == b.name && a.keys == b.keys && a.value == b.value
}

/// Whether one path is the other or lies below it.
fn on_one_branch(a: &DataPath, b: &DataPath) -> bool {
    a.0.iter().zip(&b.0).all(|(x, y)| same(x, y))
}

/// Removes the node at `path` from `root`; false if there is none.
fn remove(model: &Model, root: &mut Element, path: &DataPath) -> bool {
    let Some((last, parents)) = path.0.split_last() else { return false };
    let mut at = root;
    let mut sparent = None;
    for step in parents {
        let Some(s) = model.child_of(sparent, &step.ns, &step.name) else { return false };
        let Some(next) = at.elements_mut().find(|e| names(e, s, step)) else { return false };
        at = next;
        sparent = Some(s.as_ref());
    }
    let Some(s) = model.child_of(sparent, &last.ns, &last.name) else { return false };
    let before = at.children.len();
    at.children.retain(|n| !matches!(n, Node::Element(e) if names(e, s, last)));
    at.children.len() != before
}

/// Whether element `e` (of schema node `s`) is the instance `step` names.
fn names(e: &Element, s: &crate::yang::model::SNode, step: &Step) -> bool {
    if !e.is(&step.ns, &step.name) {
        return false;
    }
    match s.kind {
        Kind::List => {
            let key = data::key_of(e, Some(s));
            key.values.len() == step.keys.len()
                && key.values.iter().zip(&step.keys).all(|(v, (_, w))| v.as_str() == w)
        }
        Kind::LeafList => step.value.as_deref() == Some(e.text().as_str()),
        _ => true,
    }
}
