//! Data trees as the server keeps them: [`Element`] trees in canonical form (libyang's
//! printing: no whitespace between elements, prefixes declared on the leaves that use them),
//! walked with the schema [`Model`]. Instance identity among siblings, paths (for error-path,
//! backends and notifications), the difference between two trees, and merging.

// foldhash, not SipHash: DECISIONS.md "Hash maps keyed by what a request names".
use compact_str::CompactString;
use foldhash::{HashMap, HashMapExt};
use std::fmt::Write as _;
use std::sync::Arc;

use crate::yang::model::{Kind, Model, SNode};
use crate::yang::path_text;
use netconf_proto::xml::{self, Element, Node, NETCONF_BASE_NS};

/// The identity of a data node among its siblings: namespace, name, and the key values of a
/// list entry or the value of a leaf-list entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key {
    /// Namespace, empty for none (shared with the element's).
    pub ns: Arc<str>,
    /// Local name.
    pub name: CompactString,
    /// List key values in key order, or the leaf-list value; empty otherwise (inline when
    /// short, as element text is: a key is made for every list entry an edit names).
    pub values: Vec<CompactString>,
}

/// The identity of `e` (described by `s`, if known).
pub fn key_of(e: &Element, s: Option<&SNode>) -> Key {
    let values = match s.map(|s| s.kind) {
        Some(Kind::List) => s
            .map(|s| {
                s.keys
                    .iter()
                    .map(|k| {
                        e.elements()
                            .find(|c| c.name == *k && c.namespace.as_deref() == Some(&s.namespace))
                            .map(Element::text_compact)
                            .unwrap_or_default()
                    })
                    .collect()
            })
            .unwrap_or_default(),
        Some(Kind::LeafList) => vec![e.text_compact()],
        _ => Vec::new(),
    };
    let ns = e.namespace.clone().unwrap_or_else(|| Arc::from(""));
    Key { ns, name: e.name.clone(), values }
}

/// The schema node of child element `e` under `parent` (top level when `None`).
pub fn snode_of<'m>(
    model: &'m Model,
    parent: Option<&'m SNode>,
    e: &Element,
) -> Option<&'m Arc<SNode>> {
    model.child_of(parent, e.namespace.as_deref().unwrap_or_default(), &e.name)
}

/// One step of a data path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Module name.
    pub module: String,
    /// Module prefix.
    pub prefix: String,
    /// Namespace.
    pub ns: String,
    /// Local name.
    pub name: String,
    /// Key predicates of a list entry: (key name, value).
    pub keys: Vec<(String, String)>,
    /// The value of a leaf-list entry.
    pub value: Option<String>,
}

impl Step {
    /// The step for element `e` described by `s` (keys and value filled in).
    pub fn of(e: &Element, s: &SNode) -> Step {
        let mut step = Step::named(s);
        match s.kind {
            Kind::List => {
                let key = key_of(e, Some(s));
                step.keys =
                    s.keys.iter().cloned().zip(key.values.into_iter().map(String::from)).collect();
            }
            Kind::LeafList => step.value = Some(e.text()),
            _ => {}
        }
        step
    }

    /// The step for schema node `s`, without predicates.
    pub fn named(s: &SNode) -> Step {
        Step {
            module: s.module.clone(),
            prefix: s.prefix.clone(),
            ns: s.namespace.clone(),
            name: s.name.clone(),
            keys: Vec::new(),
            value: None,
        }
    }
}

/// An absolute data path.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DataPath(pub Vec<Step>);

fn quote(v: &str) -> String {
    if v.contains('\'') {
        format!("\"{v}\"")
    } else {
        format!("'{v}'")
    }
}

impl DataPath {
    /// As an XPath with XML prefixes (`/if:interfaces/if:interface[if:name='eth0']`) and the
    /// prefix bindings it uses: the form of `error-path` and of instance-identifiers on the
    /// wire.
    pub fn to_xpath(&self) -> (String, Vec<(String, String)>) {
        let mut out = String::new();
        let mut ns: Vec<(String, String)> = Vec::new();
        for s in &self.0 {
            if !ns.iter().any(|(p, _)| *p == s.prefix) {
                ns.push((s.prefix.clone(), s.ns.clone()));
            }
            let _ = write!(out, "/{}:{}", s.prefix, s.name);
            for (k, v) in &s.keys {
                let _ = write!(out, "[{}:{k}={}]", s.prefix, quote(v));
            }
            if let Some(v) = &s.value {
                let _ = write!(out, "[.={}]", quote(v));
            }
        }
        if out.is_empty() {
            out.push('/');
        }
        (out, ns)
    }

    /// As a JSON-style path with module names where the module changes
    /// (`/ietf-interfaces:interfaces/interface[name='eth0']`): libyang's and RESTCONF's form,
    /// handed to backends.
    pub fn to_json_path(&self) -> String {
        let mut out = String::new();
        let mut module = "";
        for s in &self.0 {
            if s.module == module {
                let _ = write!(out, "/{}", s.name);
            } else {
                let _ = write!(out, "/{}:{}", s.module, s.name);
                module = &s.module;
            }
            for (k, v) in &s.keys {
                let _ = write!(out, "[{k}={}]", quote(v));
            }
            if let Some(v) = &s.value {
                let _ = write!(out, "[.={}]", quote(v));
            }
        }
        if out.is_empty() {
            out.push('/');
        }
        out
    }

    /// Parses a JSON-style data path as libyang reports it
    /// (`/ietf-interfaces:interfaces/interface[name='eth0']/type`). `None` if a module is
    /// unknown or the text is not a path.
    pub fn parse_json(model: &Model, text: &str) -> Option<DataPath> {
        let mut steps = Vec::new();
        let mut module: Option<&crate::yang::model::Module> = None;
        for raw in path_text::split(text)? {
            if let Some(m) = &raw.qualifier {
                module = Some(model.module_by_name(m)?);
            }
            let m = module?;
            let mut step = Step {
                module: m.name.clone(),
                prefix: m.prefix.clone(),
                ns: m.namespace.clone(),
                name: raw.name,
                keys: Vec::new(),
                value: None,
            };
            for (k, v) in raw.predicates {
                if k == "." {
                    step.value = Some(v);
                } else {
                    step.keys.push((k, v));
                }
            }
            steps.push(step);
        }
        Some(DataPath(steps))
    }

    /// The path with one more step.
    pub fn child(&self, step: Step) -> DataPath {
        let mut v = self.0.clone();
        v.push(step);
        DataPath(v)
    }
}

/// What happened to a node between two configurations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeOp {
    /// The node (with its subtree) was created.
    Create,
    /// The node (with its subtree) was deleted.
    Delete,
    /// A leaf's value (or anydata content) changed.
    Modify,
}

/// One difference between two configurations, borrowing its subtrees from the two trees
/// compared (a large edit's created subtrees were copied, then freed, for every diff).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change<'a> {
    /// What happened.
    pub op: ChangeOp,
    /// Where.
    pub path: DataPath,
    /// The node before (delete, modify).
    pub old: Option<&'a Element>,
    /// The node after (create, modify).
    pub new: Option<&'a Element>,
}

impl Change<'_> {
    /// Every namespace the change touches: the path's and its subtrees'.
    pub fn namespaces(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.path.0.iter().map(|s| s.ns.as_str()).collect();
        for e in self.old.into_iter().chain(self.new) {
            collect_ns(e, &mut v);
        }
        v.sort_unstable();
        v.dedup();
        v
    }
}

fn collect_ns<'a>(e: &'a Element, out: &mut Vec<&'a str>) {
    if let Some(ns) = e.namespace.as_deref() {
        out.push(ns);
    }
    for c in e.elements() {
        collect_ns(c, out);
    }
}

/// The differences between two data trees (roots holding top-level nodes).
pub fn diff<'a>(model: &Model, old: &'a Element, new: &'a Element) -> Vec<Change<'a>> {
    let mut out = Vec::new();
    diff_children(model, None, old, new, &DataPath::default(), &mut out);
    out
}

fn diff_children<'a>(
    model: &Model,
    sparent: Option<&SNode>,
    old: &'a Element,
    new: &'a Element,
    path: &DataPath,
    out: &mut Vec<Change<'a>>,
) {
    let olds: Vec<&'a Element> = old.elements().collect();
    let mut index: HashMap<Key, usize> = HashMap::with_capacity(olds.len());
    for (i, o) in olds.iter().enumerate() {
        let s = snode_of(model, sparent, o).map(Arc::as_ref);
        index.insert(key_of(o, s), i);
    }
    let mut matched = vec![false; olds.len()];
    // Steps (and the path copies they go into) are built only for what changed: most of a
    // large configuration is the same on both sides.
    let step_of = |e: &Element, s: Option<&Arc<SNode>>| match s {
        Some(s) => Step::of(e, s),
        None => Step {
            module: String::new(),
            prefix: "x".into(),
            ns: e.namespace.as_deref().unwrap_or_default().to_string(),
            name: e.name.to_string(),
            keys: Vec::new(),
            value: None,
        },
    };
    for n in new.elements() {
        let s = snode_of(model, sparent, n);
        let key = key_of(n, s.map(Arc::as_ref));
        let Some(i) = index.remove(&key) else {
            out.push(Change {
                op: ChangeOp::Create,
                path: path.child(step_of(n, s)),
                old: None,
                new: Some(n),
            });
            continue;
        };
        matched[i] = true;
        let o = olds[i];
        if o == n {
            continue;
        }
        match s.map(|s| s.kind) {
            Some(Kind::Container | Kind::List) => {
                diff_children(model, s.map(Arc::as_ref), o, n, &path.child(step_of(n, s)), out)
            }
            Some(Kind::LeafList) => {}
            _ => {
                let differs = o.text() != n.text()
                    || (o.has_elements() || n.has_elements()) && o.to_xml() != n.to_xml();
                if differs {
                    out.push(Change {
                        op: ChangeOp::Modify,
                        path: path.child(step_of(n, s)),
                        old: Some(o),
                        new: Some(n),
                    });
                }
            }
        }
    }
    // What is left of the old children was deleted (in document order).
    for (o, _) in olds.iter().zip(&matched).filter(|(_, m)| !**m) {
        let s = snode_of(model, sparent, o);
        out.push(Change {
            op: ChangeOp::Delete,
            path: path.child(step_of(o, s)),
            old: Some(*o),
            new: None,
        });
    }
}

/// Merges `src`'s children into `dst`'s (matching instances by identity; leaves replaced,
/// containers and list entries merged recursively, new nodes appended).
pub fn merge(model: &Model, sparent: Option<&SNode>, dst: &mut Element, src: Element) {
    let mut index: HashMap<Key, usize> = HashMap::new();
    for (i, n) in dst.children.iter().enumerate() {
        if let Node::Element(e) = n {
            let s = snode_of(model, sparent, e).map(Arc::as_ref);
            index.insert(key_of(e, s), i);
        }
    }
    for child in src.children {
        let Node::Element(c) = child else { continue };
        let s = snode_of(model, sparent, &c);
        let key = key_of(&c, s.map(Arc::as_ref));
        match index.get(&key).copied() {
            Some(i) => {
                if let Some(Node::Element(d)) = dst.children.get_mut(i) {
                    match s.map(|s| s.kind) {
                        Some(Kind::Container | Kind::List) => {
                            merge(model, s.map(Arc::as_ref), d, c)
                        }
                        Some(Kind::LeafList) => {}
                        _ => *d = c,
                    }
                }
            }
            None => {
                index.insert(key, dst.children.len());
                dst.children.push(Node::Element(c));
            }
        }
    }
}

/// A synthetic root holding top-level data nodes.
pub fn root() -> Element {
    Element::new(NETCONF_BASE_NS, "data")
}

/// Puts an edited tree in the form [`parse_data`] gives its text: no prefixes, a default
/// namespace declaration exactly where the namespace changes from the parent's (that is where
/// [`data_text`] writes one), prefixed declarations kept in order.
pub fn normalize(root: &mut Element) {
    // The root stands for `<data xmlns="...">` as `parse_data` wraps the text; its children
    // are written each with its own declaration.
    root.set_prefix(None);
    root.retain_namespaces(|(p, _)| p.is_some());
    if let Some(ns) = root.namespace.as_deref() {
        let ns = ns.to_string();
        root.namespaces_mut().insert(0, (None, ns));
    }
    for c in root.elements_mut() {
        normalize_under(c, None);
    }
}

/// [`normalize`] for a subtree whose parent's namespace is `parent_ns` (`None` at the top).
pub fn normalize_under(e: &mut Element, parent_ns: Option<&str>) {
    e.set_prefix(None);
    e.retain_namespaces(|(p, _)| p.is_some());
    if let Some(ns) = e.namespace.as_deref() {
        if parent_ns != Some(ns) {
            let ns = ns.to_string();
            e.namespaces_mut().insert(0, (None, ns));
        }
    }
    let ns = e.namespace.clone();
    for c in e.elements_mut() {
        normalize_under(c, ns.as_deref());
    }
}

/// Whether a normalized tree holds nothing that its text could give back differently:
/// attributes (prefixes are chosen when written), an element without a namespace (written
/// with `xmlns=""`), text next to child elements, or empty or split text.
pub fn is_plain(root: &Element) -> bool {
    fn plain(e: &Element) -> bool {
        if !e.attributes().is_empty() || e.namespace.is_none() {
            return false;
        }
        if e.has_elements() {
            e.children.iter().all(|n| matches!(n, Node::Element(c) if plain(c)))
        } else {
            match e.children.as_slice() {
                [] => true,
                [Node::Text(t)] => !t.is_empty(),
                _ => false,
            }
        }
    }
    root.elements().all(plain) && root.children.iter().all(|n| matches!(n, Node::Element(_)))
}

/// Parses canonical data text (any number of top-level elements) into a root.
pub fn parse_data(text: &str) -> Result<Element, xml::XmlError> {
    let wrapped = format!("<data xmlns=\"{NETCONF_BASE_NS}\">{text}</data>");
    let mut root = xml::parse(wrapped.as_bytes())?;
    root.strip_blank_text();
    Ok(root)
}

/// The top-level nodes of a root as XML text.
pub fn data_text(root: &Element) -> String {
    let mut out = String::new();
    xml::write_children(root, &mut out, None);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yang::schema::test_support::{interfaces_schema as schema, IF};

    fn ifs(entries: &[(&str, Option<&str>)]) -> Element {
        let mut text = format!("<interfaces xmlns=\"{IF}\">");
        for (name, descr) in entries {
            text.push_str(&format!(
                "<interface><name>{name}</name>{}<type xmlns:ianaift=\"urn:ietf:params:xml:ns:yang:iana-if-type\">ianaift:ethernetCsmacd</type></interface>",
                descr.map(|d| format!("<description>{d}</description>")).unwrap_or_default()
            ));
        }
        text.push_str("</interfaces>");
        parse_data(&text).expect("parses")
    }

    #[test]
    fn diff_finds_creates_deletes_and_modifies() {
        let s = schema();
        let old = ifs(&[("eth0", Some("a")), ("eth1", None)]);
        let new = ifs(&[("eth0", Some("b")), ("eth2", None)]);
        let changes = diff(s.model(), &old, &new);
        let summary: Vec<(ChangeOp, String)> =
            changes.iter().map(|c| (c.op, c.path.to_json_path())).collect();
        assert_eq!(
            summary,
            vec![
                (
                    ChangeOp::Modify,
                    "/ietf-interfaces:interfaces/interface[name='eth0']/description".to_string()
                ),
                (ChangeOp::Create, "/ietf-interfaces:interfaces/interface[name='eth2']".into()),
                (ChangeOp::Delete, "/ietf-interfaces:interfaces/interface[name='eth1']".into()),
            ]
        );
        let (xpath, ns) = changes[1].path.to_xpath();
        let json = changes[0].path.to_json_path();
        assert_eq!(DataPath::parse_json(s.model(), &json).as_ref(), Some(&changes[0].path));
        assert_eq!(xpath, "/if:interfaces/if:interface[if:name='eth2']");
        assert_eq!(ns, vec![("if".to_string(), IF.to_string())]);
        assert!(diff(s.model(), &old, &old).is_empty());
    }

    #[test]
    fn merge_joins_list_entries() {
        let s = schema();
        let mut a = ifs(&[("eth0", None)]);
        let b = ifs(&[("eth0", Some("x")), ("eth1", None)]);
        merge(s.model(), None, &mut a, b);
        let text = data_text(&a);
        assert_eq!(text.matches("<interface>").count(), 2, "{text}");
        assert!(text.contains("<description>x</description>"), "{text}");
    }
}
