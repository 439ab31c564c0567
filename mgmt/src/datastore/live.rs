//! A datastore's validated libyang tree, kept from one edit to the next, so that an edit of a
//! few nodes costs libyang work for those nodes (plus one validation pass) instead of a parse
//! and a print of the whole configuration.
//!
//! An edit hands over the tree of the snapshot it started from ([`LiveSlot::take`]): the
//! difference between the two element trees is applied to it (deleted nodes freed, new and
//! changed ones parsed from their text and merged), libyang validates the whole tree, and the
//! written nodes are printed back in canonical form and put in place in the edited element
//! tree. Anything this cannot do exactly as a fresh parse of the whole text would (see
//! [`Model::edits_in_place`], ordered-by user lists, nodes the model does not know, values
//! whose canonical text needs prefixes, an edit as large as the configuration) is left to that
//! fresh parse, which also gives every error its usual form. Debug builds check each result
//! against the fresh parse.

// foldhash, not SipHash: DECISIONS.md "Hash maps keyed by what a request names".
use foldhash::{HashMap, HashMapExt};
use std::sync::{Arc, Mutex};

use self_cell::self_cell;
use yang2::data::{Data, DataFormat, DataNodeRef, DataPrinterFlags, DataTree, DataValidationFlags};
use yang2::schema::{DataValueType, SchemaLeafType, SchemaNodeKind};

use super::explicit::{self, prints_as_canonical};
use crate::yang::data::{self, key_of, snode_of, DataPath, Key, Step};
use crate::yang::model::{Kind, Model, SNode};
use crate::yang::schema::{Schema, SchemaError};
use netconf_proto::xml::{Element, Node};

type Tree<'a> = DataTree<'a>;

self_cell!(
    struct Cell {
        owner: Arc<Schema>,
        #[covariant]
        dependent: Tree,
    }
);

/// A validated libyang tree with the schema it was built from.
pub struct LiveTree(Cell);

impl LiveTree {
    /// Parses and validates a complete configuration.
    pub fn parse(schema: &Arc<Schema>, text: &str) -> Result<LiveTree, SchemaError> {
        Cell::try_new(schema.clone(), |s| s.parse_config(text)).map(LiveTree)
    }

    /// Parses and validates a complete configuration given as RFC 7951 JSON.
    pub fn parse_json(schema: &Arc<Schema>, json: &str) -> Result<LiveTree, SchemaError> {
        Cell::try_new(schema.clone(), |s| s.parse_config_json(json)).map(LiveTree)
    }

    /// The canonical text: libyang's printing of the explicit nodes.
    pub fn print(&self) -> Result<String, SchemaError> {
        self.0.borrow_owner().print_config(self.0.borrow_dependent())
    }

    /// The element tree a parse of [`LiveTree::print`]'s text gives, read from the tree when
    /// that is known to give the same ([`explicit`]).
    pub fn explicit_elements(&self) -> Option<Element> {
        explicit::explicit_elements(self.0.borrow_owner().context(), self.0.borrow_dependent())
    }
}

/// The live tree of a snapshot, until an edit takes it. Not part of the snapshot's content: a
/// copy of the snapshot starts without one, and equality ignores it.
#[derive(Default)]
pub struct LiveSlot(Mutex<Option<LiveTree>>);

impl LiveSlot {
    /// A slot holding `tree`.
    pub fn new(tree: Option<LiveTree>) -> LiveSlot {
        LiveSlot(Mutex::new(tree))
    }

    /// Takes the tree out (an edit is about to change it).
    pub fn take(&self) -> Option<LiveTree> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take()
    }
}

impl Clone for LiveSlot {
    fn clone(&self) -> LiveSlot {
        LiveSlot::default()
    }
}

impl PartialEq for LiveSlot {
    fn eq(&self, _: &LiveSlot) -> bool {
        true
    }
}

impl Eq for LiveSlot {}

impl std::fmt::Debug for LiveSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let held = self.0.try_lock().map(|t| t.is_some()).unwrap_or(false);
        f.write_str(if held { "LiveSlot(tree)" } else { "LiveSlot(-)" })
    }
}

/// What happened to one child of a visited element.
enum Change {
    /// Created (an element of the new tree at this index); its path.
    Created(usize, String),
    /// A leaf or anydata whose value changed; its path.
    Modified(usize, String),
    /// Changed somewhere inside.
    Inside(usize, Visit),
}

/// The changes under one element of the new tree.
#[derive(Default)]
struct Visit {
    changes: Vec<Change>,
}

/// Applies the difference from `old` (the content `live` was validated with, canonical) to
/// `new` (an edited copy of it, normalized) to `live`, validates it, and puts `new` in the
/// canonical form a fresh parse of its text would give. `None` when this is not the way for
/// this edit or the edit does not validate: the caller then checks the whole text, and `live`
/// is spoilt.
pub fn edit_in_place(
    model: &Model,
    old: &Element,
    old_len: usize,
    new: &mut Element,
    live: &mut LiveTree,
) -> Option<()> {
    let mut deletes = Vec::new();
    let (visit, pieces) = walk(model, None, old, new, &DataPath::default(), &mut deletes)?;
    let mut piece_root = data::root();
    piece_root.children = pieces.into_iter().map(Node::Element).collect();
    let piece_text = data::data_text(&piece_root);
    // As much to parse as the whole configuration: the fresh parse costs no more.
    if piece_text.len() * 2 > old_len {
        return None;
    }
    let scope = validation_scope(model, &piece_root, &deletes);
    live.0.with_dependent_mut(|schema, tree| {
        for path in &deletes {
            tree.remove(path).ok()?;
        }
        if !piece_text.is_empty() {
            let piece = schema.parse_unvalidated(&piece_text).ok()?;
            tree.merge(&piece).ok()?;
        }
        match scope.and_then(|m| schema.context().get_module_implemented(m)) {
            Some(module) => tree.validate_module(&module, DataValidationFlags::NO_STATE),
            None => tree.validate(DataValidationFlags::NO_STATE),
        }
        .ok()?;
        // The root is never removed: whether it is left empty does not matter.
        splice(model, None, new, &visit, tree).map(|_| ())
    })
}

/// The one module whose data needs validating after merging `pieces` (top-level elements)
/// and removing `deletes` (JSON paths, `/module:node/...`), or `None` for all
/// ([`Model::validation_scope`]). Only the top-level nodes count: whatever is below one is
/// validated with its module's data.
fn validation_scope<'m>(model: &'m Model, pieces: &Element, deletes: &[String]) -> Option<&'m str> {
    let mut changed: Vec<&str> = Vec::with_capacity(pieces.children.len() + deletes.len());
    for piece in pieces.elements() {
        changed.push(&model.module_by_namespace(piece.namespace.as_deref()?)?.name);
    }
    for path in deletes {
        let name = path.strip_prefix('/')?.split(':').next()?;
        changed.push(&model.module_by_name(name)?.name);
    }
    model.validation_scope(&changed)
}

/// Compares the children of `o` and `n` (same node; `sparent` its schema node): records in
/// `deletes` the paths of deleted nodes and returns the changes and the pieces to merge (the
/// new and changed nodes inside their ancestors, each ancestor with its keys only).
fn walk<'m>(
    model: &'m Model,
    sparent: Option<&'m SNode>,
    o: &Element,
    n: &Element,
    path: &DataPath,
    deletes: &mut Vec<String>,
) -> Option<(Visit, Vec<Element>)> {
    let olds: Vec<&Element> = o.elements().collect();
    let mut index: HashMap<Key, usize> = HashMap::with_capacity(olds.len());
    let mut ordered_old = Vec::new();
    for (i, c) in olds.iter().enumerate() {
        let s = snode_of(model, sparent, c)?;
        let key = key_of(c, Some(s));
        if s.user_ordered {
            ordered_old.push(key.clone());
        }
        index.insert(key, i);
    }
    let mut matched = vec![false; olds.len()];
    let mut visit = Visit::default();
    let mut pieces = Vec::new();
    let mut ordered_new = Vec::new();
    let mut cases: Vec<(u32, u32)> = Vec::new();
    for (i, child) in n.children.iter().enumerate() {
        // Text among data nodes is not canonical data: the fresh parse says what it is.
        let Node::Element(c) = child else { return None };
        let s = snode_of(model, sparent, c)?;
        cases.extend_from_slice(&s.cases);
        let key = key_of(c, Some(s));
        if s.user_ordered {
            ordered_new.push(key.clone());
        }
        let Some(j) = index.remove(&key) else {
            let at = path.child(Step::of(c, s)).to_json_path();
            visit.changes.push(Change::Created(i, at));
            pieces.push(c.clone());
            continue;
        };
        matched[j] = true;
        let oc = olds[j];
        if oc == c {
            continue;
        }
        match s.kind {
            Kind::Container | Kind::List => {
                let inner = path.child(Step::of(c, s));
                let (v, sub) = walk(model, Some(s), oc, c, &inner, deletes)?;
                if !sub.is_empty() {
                    pieces.push(with_keys(c, s, sub));
                }
                visit.changes.push(Change::Inside(i, v));
            }
            Kind::Leaf | Kind::AnyData => {
                let at = path.child(Step::of(c, s)).to_json_path();
                visit.changes.push(Change::Modified(i, at));
                pieces.push(c.clone());
            }
            // Same value, other differences (attributes): for the fresh parse to judge.
            Kind::LeafList => return None,
        }
    }
    for (oc, _) in olds.iter().zip(&matched).filter(|(_, m)| !**m) {
        // yang2's `DataTree::remove` frees a top-level node without moving the tree's pointer
        // to its first node off it: a top-level node is never removed here.
        let parent = sparent?;
        let s = snode_of(model, Some(parent), oc)?;
        deletes.push(path.child(Step::of(oc, s)).to_json_path());
    }
    // Ordered-by user: the kept tree would need the entries moved too.
    if ordered_old != ordered_new {
        return None;
    }
    // Nodes of two cases of one choice: a fresh parse refuses them, where libyang deletes
    // the older case from a tree it validated before.
    cases.sort_unstable();
    cases.dedup();
    if cases.windows(2).any(|w| w[0].0 == w[1].0) {
        return None;
    }
    Some((visit, pieces))
}

/// `e` with only its list keys, and `children` after them.
fn with_keys(e: &Element, s: &SNode, children: Vec<Element>) -> Element {
    let mut out = Element::named(e.namespace.clone(), e.name.clone());
    if !e.namespaces().is_empty() {
        *out.namespaces_mut() = e.namespaces().to_vec();
    }
    if s.kind == Kind::List {
        out.children.extend(
            e.elements()
                .filter(|c| {
                    s.keys.iter().any(|k| *k == c.name)
                        && c.namespace.as_deref() == Some(&s.namespace)
                })
                .map(|c| Node::Element(c.clone())),
        );
    }
    out.children.extend(children.into_iter().map(Node::Element));
    out
}

/// Puts the canonical form of the changed nodes under `e` (schema node `s`) in place and the
/// new ones where libyang put them. Returns whether `e` is left an empty non-presence
/// container, which a fresh parse would not print. On `None` the content of `e` is still the
/// edit's: what was done by then only replaced nodes by their canonical form, and the new
/// nodes are taken out and put back in one step that cannot fail.
fn splice<'m>(
    model: &'m Model,
    s: Option<&'m SNode>,
    e: &mut Element,
    visit: &Visit,
    tree: &DataTree<'_>,
) -> Option<bool> {
    let ns = e.namespace.clone();
    let mut remove = Vec::new();
    let mut created = Vec::new();
    for change in &visit.changes {
        match change {
            Change::Inside(i, v) => {
                let Some(Node::Element(c)) = e.children.get_mut(*i) else { return None };
                let cs = snode_of(model, s, c)?;
                if splice(model, Some(cs), c, v, tree)? {
                    remove.push(*i);
                }
            }
            Change::Modified(i, path) => match canonical(tree, path, ns.as_deref())? {
                Some(c) => e.children[*i] = Node::Element(c),
                None => remove.push(*i),
            },
            Change::Created(i, path) => {
                remove.push(*i);
                if let Some(c) = canonical(tree, path, ns.as_deref())? {
                    created.push((path, c));
                }
            }
        }
    }
    remove.sort_unstable();
    // Where each new node goes: its following siblings in libyang's tree, up to the first
    // one `e` keeps (all of libyang's values read before anything is moved).
    let mut placed = Vec::with_capacity(created.len());
    for (path, c) in created {
        let node = tree.find_path(path).ok()?;
        let mut before = Vec::new();
        for sibling in node.siblings() {
            let id = Ident::of(&sibling)?;
            let kept = e
                .children
                .iter()
                .enumerate()
                .any(|(i, n)| remove.binary_search(&i).is_err() && id.is(n));
            before.push(id);
            if kept {
                break;
            }
        }
        placed.push((c, before));
    }
    for i in remove.into_iter().rev() {
        e.children.remove(i);
    }
    // Placed one after the other, each before the first of its siblings already there: in
    // libyang's order whatever the order here.
    for (c, before) in placed {
        let at = before
            .iter()
            .find_map(|id| e.children.iter().position(|n| id.is(n)))
            .unwrap_or(e.children.len());
        e.children.insert(at, Node::Element(c));
    }
    let np_container = s.is_some_and(|s| s.kind == Kind::Container && !s.presence);
    Some(np_container && !e.has_elements())
}

/// The node at `path` as libyang prints it (explicit nodes only), normalized under a parent in
/// namespace `parent_ns`; `Some(None)` when it prints as nothing (a non-presence container
/// holding only defaults).
fn canonical(tree: &DataTree<'_>, path: &str, parent_ns: Option<&str>) -> Option<Option<Element>> {
    let node = tree.find_path(path).ok()?;
    if let Some(mut leaf) = plain_leaf(&node) {
        data::normalize_under(&mut leaf, parent_ns);
        return Some(Some(leaf));
    }
    let text = node
        .print_string(DataFormat::XML, DataPrinterFlags::SHRINK | DataPrinterFlags::WD_EXPLICIT)
        .ok()?;
    let Some(text) = text.filter(|t| !t.is_empty()) else { return Some(None) };
    let mut root = data::parse_data(&text).ok()?;
    let mut c = match root.children.pop() {
        Some(Node::Element(c)) if root.children.is_empty() => c,
        _ => return None,
    };
    data::normalize_under(&mut c, parent_ns);
    Some(Some(c))
}

/// An explicit leaf whose printed text is its canonical value (no prefixes, no metadata, not
/// empty), built directly instead of printed and parsed back: the common case of an edit
/// changing a description, a number or a flag.
fn plain_leaf(node: &DataNodeRef<'_, '_>) -> Option<Element> {
    let schema = node.schema();
    if schema.kind() != SchemaNodeKind::Leaf || node.is_default() || node.meta().next().is_some() {
        return None;
    }
    let leaf_type = schema.leaf_type()?;
    if !comparable(&leaf_type) || leaf_type.base_type() == DataValueType::Empty {
        return None;
    }
    let value = node.value_canonical().filter(|v| !v.is_empty() && prints_as_canonical(v))?;
    Some(Element::leaf(schema.module().namespace(), schema.name(), value))
}

/// A libyang node's identity among its siblings, in the element tree's terms: name,
/// namespace, and list keys (name, canonical text) or a leaf-list entry's value.
struct Ident {
    name: String,
    ns: String,
    values: Vec<(String, String)>,
}

impl Ident {
    /// `None` when a value's canonical text may differ from its XML printing.
    fn of(node: &DataNodeRef<'_, '_>) -> Option<Ident> {
        let schema = node.schema();
        let mut values = Vec::new();
        match schema.kind() {
            SchemaNodeKind::List => {
                for k in node.list_keys() {
                    if !comparable(&k.schema().leaf_type()?) {
                        return None;
                    }
                    let value = k.value_canonical().filter(|v| prints_as_canonical(v))?;
                    values.push((k.schema().name().to_string(), value));
                }
            }
            SchemaNodeKind::LeafList => {
                if !comparable(&schema.leaf_type()?) {
                    return None;
                }
                let value = node.value_canonical().filter(|v| prints_as_canonical(v))?;
                values.push((String::new(), value));
            }
            _ => {}
        }
        Some(Ident {
            name: schema.name().to_string(),
            ns: schema.module().namespace().to_string(),
            values,
        })
    }

    /// Whether `n` is this node.
    fn is(&self, n: &Node) -> bool {
        let Node::Element(c) = n else { return false };
        let text_is =
            |c: &Element, v: &str| matches!(c.children.as_slice(), [Node::Text(t)] if t == v);
        c.name == self.name
            && c.namespace.as_deref() == Some(self.ns.as_str())
            && self.values.iter().all(|(k, v)| {
                if k.is_empty() {
                    text_is(c, v)
                } else {
                    c.elements().any(|kc| {
                        kc.name == *k
                            && kc.namespace.as_deref() == Some(self.ns.as_str())
                            && text_is(kc, v)
                    })
                }
            })
    }
}

/// Whether values of type `t` may be compared as canonical texts with the element tree's
/// (the value must also print as its canonical text, `prints_as_canonical`): not a type whose
/// values may hold prefixes, nor a union, which may hold such a value.
fn comparable(t: &SchemaLeafType<'_>) -> bool {
    match t.base_type() {
        DataValueType::LeafRef => t.leafref_real_type().is_some_and(|r| comparable(&r)),
        DataValueType::IdentityRef
        | DataValueType::InstanceId
        | DataValueType::Union
        | DataValueType::Unknown => false,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use crate::datastore::{DatastoreName, Datastores};
    use crate::yang::edit::{self, ErrorOption, Op};
    use crate::yang::schema::{ModuleSpec, Schema};
    use netconf_proto::xml::{self, Scope};

    const NC: &str = "urn:ietf:params:xml:ns:netconf:base:1.0";
    const IF: &str = "urn:ietf:params:xml:ns:yang:ietf-interfaces";
    const IANA: &str = "urn:ietf:params:xml:ns:yang:iana-if-type";
    const MT: &str = "urn:example:mgmt-test";

    fn schema() -> Arc<Schema> {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/yang");
        Arc::new(
            Schema::new(
                &[dir],
                &[
                    ModuleSpec::new("ietf-interfaces", &[]),
                    ModuleSpec::new("iana-if-type", &[]),
                    ModuleSpec::new("mgmt-test", &[]),
                ],
            )
            .expect("schema"),
        )
    }

    fn iface(name: &str, extra: &str) -> String {
        format!(
            "<interfaces xmlns=\"{IF}\"><interface><name>{name}</name>\
             <type xmlns:ianaift=\"{IANA}\">ianaift:ethernetCsmacd</type>{extra}</interface></interfaces>"
        )
    }

    fn settings(body: &str) -> String {
        format!("<settings xmlns=\"{MT}\">{body}</settings>")
    }

    /// Applies `config` (edit-config content, merge) to the candidate the way edit-config
    /// does, on the kept tree and by a fresh parse; both must agree. Returns whether it was
    /// accepted.
    fn edit(ds: &Datastores, config: &str) -> bool {
        let wrapped = format!("<config xmlns=\"{NC}\" xmlns:nc=\"{NC}\">{config}</config>");
        let config = xml::parse(wrapped.as_bytes()).expect("config parses");
        let base = ds.snapshot(DatastoreName::Candidate);
        let mut root = base.root.clone();
        let mut scope = Scope::new();
        scope.enter(&config);
        let errors = edit::apply(
            ds.schema().model(),
            &mut root,
            &config,
            &scope,
            Op::Merge,
            ErrorOption::StopOnError,
        );
        if !errors.is_empty() {
            // Refused by the edit itself (deleting what is not there...): nothing to check.
            return false;
        }
        let in_place = ds.check_edit(&base, root.clone(), true, 1);
        let fresh = ds.check_tree(root, true);
        match (in_place, fresh) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{config:?}");
                ds.store_snapshot(DatastoreName::Candidate, a, &[]).expect("stored");
                true
            }
            (Err(a), Err(b)) => {
                assert_eq!(a.to_string(), b.to_string());
                false
            }
            (a, b) => panic!("kept tree {a:?}, fresh parse {b:?}"),
        }
    }

    #[test]
    fn edits_on_the_kept_tree_give_what_a_fresh_parse_gives() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ds = Datastores::open(dir.path(), schema()).expect("open");
        assert!(ds.schema().model().edits_in_place());
        let drop_op = |name: &str, op: &str| {
            format!(
                "<interfaces xmlns=\"{IF}\"><interface nc:operation=\"{op}\"><name>{name}</name>\
                 </interface></interfaces>"
            )
        };
        // (edit, valid, done on the kept tree)
        let steps: Vec<(String, bool, bool)> = vec![
            // The first: more to parse than there is configuration.
            (["eth1", "eth3", "eth7", "eth8", "eth9"].map(|n| iface(n, "")).concat(), true, false),
            (iface("eth2", "<description>two</description>"), true, true),
            // Sorted in before the others.
            (iface("a0", "<enabled>false</enabled>"), true, true),
            (iface("eth1", "<description>&lt;&amp;'\"&gt;</description>"), true, true),
            (drop_op("eth3", "delete"), true, true),
            // A non-presence container created, then a leaf at its default value.
            (settings("<mtu>9000</mtu>"), true, true),
            (settings("<mtu>1500</mtu>"), true, true),
            // Its last explicit node removed: the container goes too.
            (settings("<mtu nc:operation=\"remove\"/>"), true, true),
            (settings("<timers><hello>5</hello></timers><label>x</label>"), true, true),
            // Choice: the other case replaces the first.
            (settings("<tcp-port>1</tcp-port>"), true, true),
            (settings("<udp-port>2</udp-port>"), true, true),
            (settings("<uplink>eth1</uplink>"), true, true),
            // A dangling leafref, and a value out of range: refused, nothing kept.
            (settings("<uplink>nope</uplink>"), false, false),
            (settings("<mtu>10</mtu>"), false, false),
            // After a refusal the next edit parses afresh, and the one after is in place.
            (iface("eth4", ""), true, false),
            (iface("eth5", ""), true, true),
            // The leafref's target cannot go.
            (drop_op("eth1", "delete"), false, false),
            (drop_op("eth2", "remove"), true, false),
            (iface("eth6", ""), true, true),
            // Ordered-by user: parsed afresh.
            (settings("<tag>b</tag><tag>a</tag>"), true, false),
            (settings("<label>y</label>"), true, true),
            // A whole top-level container removed: parsed afresh (see `walk`), which keeps
            // the new tree for the next edit.
            (format!("<settings xmlns=\"{MT}\" nc:operation=\"remove\"/>"), true, false),
            (iface("eth0", ""), true, true),
            (iface("eth10", ""), true, true),
        ];
        for (config, valid, in_place) in steps {
            let before = ds.edits_in_place();
            assert_eq!(edit(&ds, &config), valid, "{config}");
            assert_eq!(ds.edits_in_place() > before, in_place, "{config}");
        }
        let text = ds.get(DatastoreName::Candidate).expect("candidate");
        let names: Vec<&str> =
            text.split("<name>").skip(1).filter_map(|t| t.split("</name>").next()).collect();
        assert_eq!(
            names,
            ["a0", "eth0", "eth1", "eth10", "eth4", "eth5", "eth6", "eth7", "eth8", "eth9"],
            "{text}"
        );
        assert!(!text.contains("settings"), "{text}");
    }

    /// One random edit: interfaces created, described, disabled, deleted; settings leaves
    /// set, some out of range, some leafrefs dangling; the choice switched.
    fn random_edit(kind: u8, which: usize, value: u16) -> String {
        let name = format!("e{which}");
        let del = |op: &str| {
            format!(
                "<interfaces xmlns=\"{IF}\"><interface nc:operation=\"{op}\"><name>{name}</name>\
                 </interface></interfaces>"
            )
        };
        match kind {
            0 => iface(&name, ""),
            1 => iface(&name, &format!("<description>d{value}</description>")),
            2 => iface(&name, "<enabled>false</enabled>"),
            3 => del("remove"),
            4 => settings(&format!("<mtu>{}</mtu>", value % 10_000)),
            5 => settings(&format!("<uplink>{name}</uplink>")),
            6 => settings(&format!("<tcp-port>{value}</tcp-port>")),
            7 => settings(&format!("<udp-port>{value}</udp-port>")),
            8 => settings(&format!("<timers><hello>{value}</hello></timers>")),
            _ => settings("<mtu nc:operation=\"remove\"/><uplink nc:operation=\"remove\"/>"),
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        #[test]
        fn random_edit_sequences_give_what_a_fresh_parse_gives(
            steps in proptest::collection::vec((0u8..10, 0usize..8, 0u16..3000), 1..24),
        ) {
            let dir = tempfile::tempdir().expect("tempdir");
            let ds = Datastores::open(dir.path(), schema()).expect("open");
            // Enough configuration that small edits are done in place.
            edit(&ds, &(0..8).map(|i| iface(&format!("base{i}"), "")).collect::<String>());
            for (kind, which, value) in steps {
                edit(&ds, &random_edit(kind, which, value));
            }
        }
    }

    /// New entries of a list keyed by a union cannot be placed by comparing texts (a union may
    /// hold an identityref): the edit goes to the fresh parse, after libyang's tree was
    /// changed and validated, and loses nothing.
    #[test]
    fn entries_with_union_keys_are_left_to_the_fresh_parse() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            dir.path().join("union-test.yang"),
            "module union-test { yang-version 1.1; namespace \"urn:x:union\"; prefix u;\n\
             list thing { key id; leaf id { type union { type uint8; type string; } }\n\
             leaf note { type string; } } }",
        )
        .expect("module");
        let schema = Arc::new(
            Schema::new(&[dir.path().to_path_buf()], &[ModuleSpec::new("union-test", &[])])
                .expect("schema"),
        );
        let state = tempfile::tempdir().expect("tempdir");
        let ds = Datastores::open(state.path(), schema).expect("open");
        let thing = |id: &str, note: &str| {
            format!("<thing xmlns=\"urn:x:union\"><id>{id}</id><note>{note}</note></thing>")
        };
        let fill: String = (10..20).map(|i| thing(&i.to_string(), "filler")).collect();
        assert!(edit(&ds, &(thing("1", "first") + &thing("x", "third") + &fill)));
        let before = ds.edits_in_place();
        // A changed value needs no placing: in place.
        assert!(edit(&ds, &thing("1", "changed")));
        assert_eq!(ds.edits_in_place(), before + 1);
        // A new entry does: the fresh parse, with the entry kept.
        assert!(edit(&ds, &thing("2", "second")));
        assert_eq!(ds.edits_in_place(), before + 1);
        let text = ds.get(DatastoreName::Candidate).expect("candidate");
        for note in ["changed", "second", "third"] {
            assert!(text.contains(note), "{note} in {text}");
        }
    }

    /// A NACM rule's path is an XPath string, which libyang prints with XML prefixes: changed
    /// on the kept tree, it is stored as libyang prints it, not as its canonical (JSON-style)
    /// value, which would not parse back as the same path.
    #[test]
    fn an_xpath_leaf_changed_in_place_keeps_its_prefixes() {
        const NACM: &str = "urn:ietf:params:xml:ns:yang:ietf-netconf-acm";
        let dir = tempfile::tempdir().expect("tempdir");
        let ds = Datastores::open(dir.path(), schema()).expect("open");
        let rule = |path: &str| {
            format!(
                "<nacm xmlns=\"{NACM}\"><rule-list><name>ops</name><rule><name>r</name>\
                 <module-name>ietf-interfaces</module-name>\
                 <path xmlns:if=\"{IF}\">{path}</path><action>deny</action></rule></rule-list></nacm>"
            )
        };
        let fill: String = (0..20).map(|i| iface(&format!("eth{i}"), "")).collect();
        assert!(edit(&ds, &(rule("/if:interfaces") + &fill)));
        let before = ds.edits_in_place();
        assert!(edit(&ds, &rule("/if:interfaces/if:interface")));
        assert_eq!(ds.edits_in_place(), before + 1, "the change was made on the kept tree");
        let text = ds.get(DatastoreName::Candidate).expect("candidate");
        assert!(
            text.contains(&format!("<path xmlns:if=\"{IF}\">/if:interfaces/if:interface</path>")),
            "{text}"
        );
    }

    /// A new list entry whose identityref key uses a prefix declared on an ancestor keeps
    /// that declaration (the entry's skeleton once lost it and libyang refused the value).
    #[test]
    fn identityref_keys_keep_their_prefix() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            dir.path().join("ident-test.yang"),
            "module ident-test { yang-version 1.1; namespace \"urn:x:ident\"; prefix it;\n\
             identity kind; identity a { base kind; }\n\
             list thing { key kind; leaf kind { type identityref { base kind; } } } }",
        )
        .expect("module");
        let schema = Arc::new(
            Schema::new(&[dir.path().to_path_buf()], &[ModuleSpec::new("ident-test", &[])])
                .expect("schema"),
        );
        let state = tempfile::tempdir().expect("tempdir");
        let ds = Datastores::open(state.path(), schema).expect("open");
        assert!(edit(
            &ds,
            "<thing xmlns=\"urn:x:ident\" xmlns:x=\"urn:x:ident\"><kind>x:a</kind></thing>"
        ));
        let text = ds.get(DatastoreName::Candidate).expect("candidate");
        // libyang writes an identity of the element's own module without a prefix.
        assert!(text.contains("<kind>a</kind>"), "{text}");
    }

    /// An identityref key names the same entry whatever prefix the request gives its module:
    /// a merge finds the stored entry (libyang's form: no prefix for the node's own module,
    /// the module's prefix for another's), a create is refused as existing, a delete removes.
    #[test]
    fn identityref_keys_match_whatever_the_prefix() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            dir.path().join("ident-test.yang"),
            "module ident-test { yang-version 1.1; namespace \"urn:x:ident\"; prefix it;\n\
             identity kind; identity a { base kind; }\n\
             list thing { key kind; leaf kind { type identityref { base kind; } }\n\
             leaf v { type string; } } }",
        )
        .expect("module");
        std::fs::write(
            dir.path().join("ident-use.yang"),
            "module ident-use { yang-version 1.1; namespace \"urn:x:use\"; prefix iu;\n\
             import ident-test { prefix it; }\n\
             list use { key kind; leaf kind { type identityref { base it:kind; } }\n\
             leaf v { type string; } } }",
        )
        .expect("module");
        let specs = [ModuleSpec::new("ident-test", &[]), ModuleSpec::new("ident-use", &[])];
        let schema = Arc::new(Schema::new(&[dir.path().to_path_buf()], &specs).expect("schema"));
        let state = tempfile::tempdir().expect("tempdir");
        let ds = Datastores::open(state.path(), schema).expect("open");
        let thing = |prefix: &str, op: &str, v: &str| {
            format!(
                "<thing xmlns=\"urn:x:ident\" xmlns:{prefix}=\"urn:x:ident\"{op}>\
                 <kind>{prefix}:a</kind>{v}</thing>"
            )
        };
        let text = || ds.get(DatastoreName::Candidate).expect("candidate");
        assert!(edit(&ds, &thing("x", "", "<v>1</v>")));
        assert!(edit(&ds, &thing("y", "", "<v>2</v>")), "merge into the stored entry");
        assert_eq!(text().matches("<thing").count(), 1, "{}", text());
        assert!(text().contains("<v>2</v>"), "{}", text());
        assert!(!edit(&ds, &thing("z", " nc:operation=\"create\"", "")), "it exists");
        // Another module's identity: stored with that module's prefix.
        let used = |prefix: &str, v: &str| {
            format!(
                "<use xmlns=\"urn:x:use\" xmlns:{prefix}=\"urn:x:ident\">\
                 <kind>{prefix}:a</kind><v>{v}</v></use>"
            )
        };
        assert!(edit(&ds, &used("p", "1")));
        assert!(text().contains("it:a</kind>"), "{}", text());
        assert!(edit(&ds, &used("q", "2")), "merge into the stored entry");
        assert_eq!(text().matches("<use").count(), 1, "{}", text());
        assert!(edit(&ds, &thing("w", " nc:operation=\"delete\"", "")));
        assert!(!text().contains("<thing"), "{}", text());
    }
}
