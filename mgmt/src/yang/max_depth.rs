//! `<get-data>`'s `max-depth` (RFC 8526 §3.1.1): "for each node selected by the filters", how
//! many levels of it the reply holds, the node itself being level 1. Levels are counted from
//! the nodes a filter selects, not from the datastore's root: with an XPath filter the nodes
//! of its result, with a subtree filter the nodes its selection nodes (or containment nodes
//! holding only content matches) match, without a filter the top-level nodes. What lies
//! above them stays as the filter returned it; a list entry cut off keeps its keys, which
//! identify it.

use std::sync::Arc;

use crate::yang::data::{DataPath, Step};
use crate::yang::model::{Kind, Model, SNode};
use netconf_proto::xml::{Element, Node};

/// Which nodes the filter selected.
pub(crate) enum Selection<'a> {
    /// No filter: the top-level nodes.
    Top,
    /// An XPath filter: the nodes of its result.
    Paths(Vec<DataPath>),
    /// A subtree filter (the `<filter>` element).
    Subtree(&'a Element),
}

/// Cuts `root` (a reply's data) to `depth` levels below each selected node.
pub(crate) fn prune(model: &Model, root: &mut Element, depth: u32, selection: &Selection<'_>) {
    let filters: Vec<&Element> = match selection {
        Selection::Subtree(f) => f.elements().collect(),
        _ => Vec::new(),
    };
    let walk = Walk { model, depth, selection };
    walk.children(None, root, &mut Vec::new(), None, &filters);
}

struct Walk<'a> {
    model: &'a Model,
    depth: u32,
    selection: &'a Selection<'a>,
}

impl Walk<'_> {
    /// Walks the children of `e` (described by `sparent`, at `path`), each of which may hold
    /// `levels` levels (itself included; `None`: no selected node above); `filters` are the
    /// subtree filter's elements for them.
    fn children(
        &self,
        sparent: Option<&SNode>,
        e: &mut Element,
        path: &mut Vec<Step>,
        levels: Option<u32>,
        filters: &[&Element],
    ) {
        for c in e.elements_mut() {
            let ns = c.namespace.as_deref().unwrap_or_default();
            let Some(s) = self.model.child_of(sparent, ns, &c.name).map(Arc::clone) else {
                continue;
            };
            path.push(Step::of(c, &s));
            let (selected, below) = self.selected(c, path, filters);
            let levels = if selected { Some(levels.unwrap_or(0).max(self.depth)) } else { levels };
            match levels {
                Some(n) if n <= 1 => cut(c, &s),
                _ => self.children(Some(&s), c, path, levels.map(|n| n - 1), &below),
            }
            path.pop();
        }
    }

    /// Whether `c` (at `path`) is selected, and the subtree filter's elements for its
    /// children.
    fn selected<'f>(
        &self,
        c: &Element,
        path: &[Step],
        filters: &[&'f Element],
    ) -> (bool, Vec<&'f Element>) {
        match self.selection {
            Selection::Top => (path.len() == 1, Vec::new()),
            Selection::Paths(paths) => (paths.iter().any(|p| same_path(&p.0, path)), Vec::new()),
            Selection::Subtree(_) => {
                let mut selected = false;
                let mut below = Vec::new();
                for f in filters.iter().filter(|f| matches(f, c)) {
                    let inner: Vec<&Element> =
                        f.elements().filter(|x| !is_content_match(x)).collect();
                    selected |= inner.is_empty();
                    below.extend(inner);
                }
                (selected, below)
            }
        }
    }
}

/// Keeps only what identifies `c`: a list entry's keys, a leaf's value.
fn cut(c: &mut Element, s: &SNode) {
    match s.kind {
        Kind::List => c
            .children
            .retain(|n| matches!(n, Node::Element(k) if s.keys.iter().any(|key| *key == k.name))),
        Kind::Leaf | Kind::LeafList => {}
        _ => c.children.clear(),
    }
}

fn same_path(a: &[Step], b: &[Step]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.ns == y.ns && x.name == y.name && x.keys == y.keys && x.value == y.value
        })
}

/// A subtree filter's content match node: text and no child elements (RFC 6241 §6.2.5).
fn is_content_match(f: &Element) -> bool {
    !f.has_elements() && !f.text().trim().is_empty()
}

/// Whether filter element `f` matches data node `c`: the same name and namespace (an
/// unqualified filter element matches any), and every content match below `f` equal.
fn matches(f: &Element, c: &Element) -> bool {
    if f.name != c.name
        || f.namespace.as_deref().is_some_and(|ns| Some(ns) != c.namespace.as_deref())
    {
        return false;
    }
    f.elements().filter(|x| is_content_match(x)).all(|x| {
        let want = x.text();
        c.elements().any(|d| d.name == x.name && d.text().trim() == want.trim())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yang::data;
    use crate::yang::schema::test_support::{interfaces_schema, IANA, IF};

    fn config() -> Element {
        let entry = |n: &str| {
            format!(
                "<interface><name>{n}</name><description>d{n}</description>\
                 <type xmlns:ianaift=\"{IANA}\">ianaift:ethernetCsmacd</type></interface>"
            )
        };
        data::parse_data(&format!(
            "<interfaces xmlns=\"{IF}\">{}{}</interfaces>",
            entry("a"),
            entry("b")
        ))
        .expect("xml")
    }

    #[test]
    fn without_a_filter_the_top_level_nodes_are_level_one() {
        let s = interfaces_schema();
        let mut root = config();
        prune(s.model(), &mut root, 2, &Selection::Top);
        let text = data::data_text(&root);
        assert!(text.contains("<name>a</name>") && !text.contains("description"), "{text}");
    }

    #[test]
    fn levels_count_from_each_selected_node() {
        let s = interfaces_schema();
        let mut root = config();
        let path =
            DataPath::parse_json(s.model(), "/ietf-interfaces:interfaces/interface[name='a']")
                .expect("path");
        prune(s.model(), &mut root, 2, &Selection::Paths(vec![path]));
        let text = data::data_text(&root);
        assert!(text.contains("<description>da</description>"), "{text}");
        // Entry b was not selected (an XPath result holds only what it selected).
        assert!(text.contains("<description>db</description>"), "{text}");
        let mut root = config();
        let filter = data::parse_data(&format!(
            "<filter><interfaces xmlns=\"{IF}\"><interface><name>a</name></interface></interfaces></filter>"
        ))
        .expect("xml");
        let filter = filter.elements().next().expect("filter").clone();
        prune(s.model(), &mut root, 1, &Selection::Subtree(&filter));
        let text = data::data_text(&root);
        assert!(text.contains("<name>a</name>") && !text.contains("da<"), "{text}");
        assert!(text.contains("<description>db</description>"), "not selected: {text}");
    }
}
