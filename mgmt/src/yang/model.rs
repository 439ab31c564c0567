//! A pure-Rust index of the compiled schema: for every data node its module, kind, list keys,
//! config/state, ordering and choice/case membership. Built once from the libyang context,
//! then shared by every session without touching libyang (the edit engine, the subtree
//! filter, the diff and NACM all walk data trees with it).

// foldhash, not SipHash: DECISIONS.md "Hash maps keyed by what a request names".
use foldhash::{HashMap, HashMapExt};
use std::sync::Arc;

use yang2::context::Context;
use yang2::schema::{DataValueType, SchemaLeafType, SchemaNode, SchemaNodeKind};

/// What kind of data node a schema node describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A container (presence or not).
    Container,
    /// A list.
    List,
    /// A leaf.
    Leaf,
    /// A leaf-list.
    LeafList,
    /// anydata or anyxml: opaque content.
    AnyData,
}

/// NACM's default access extensions (RFC 8341 §3.4.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NacmDefault {
    /// No extension.
    #[default]
    None,
    /// `nacm:default-deny-write`.
    DenyWrite,
    /// `nacm:default-deny-all`.
    DenyAll,
}

/// One module of the context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    /// Module name.
    pub name: String,
    /// Its prefix.
    pub prefix: String,
    /// XML namespace.
    pub namespace: String,
    /// Revision, if any.
    pub revision: Option<String>,
    /// Implemented (rather than only imported).
    pub implemented: bool,
}

/// A data node of the schema.
#[derive(Debug)]
pub struct SNode {
    /// Local name.
    pub name: String,
    /// Namespace (of the module defining the node, which for an augment is the augmenting
    /// module).
    pub namespace: String,
    /// The defining module's name.
    pub module: String,
    /// The defining module's prefix.
    pub prefix: String,
    /// Kind.
    pub kind: Kind,
    /// Configuration (true) or state (false).
    pub config: bool,
    /// A presence container.
    pub presence: bool,
    /// List keys, in order.
    pub keys: Vec<String>,
    /// Whether this leaf is a list key.
    pub is_key: bool,
    /// A leaf or leaf-list of type identityref: its values are qualified names, the same
    /// identity whatever prefix names its module (`edit::edit_key`).
    pub identityref: bool,
    /// How a leaf's or leaf-list's value is written in RFC 7951 JSON (`None` for other nodes).
    pub json: JsonValue,
    /// ordered-by user.
    pub user_ordered: bool,
    /// A list's or leaf-list's `min-elements` (0: none): to find the entry a too-few-elements
    /// refusal is about (`yang_errors`).
    pub min_elements: u32,
    /// The (choice, case) pairs the node sits in, outermost first, numbered uniquely.
    pub cases: Vec<(u32, u32)>,
    /// NACM default access.
    pub nacm: NacmDefault,
    /// Child data nodes by local name (several only when namespaces differ).
    children: HashMap<String, Vec<Arc<SNode>>>,
    /// The actions defined on a container or list (RFC 7950 §7.15).
    actions: Vec<Action>,
    /// The notifications defined on a container or list (RFC 7950 §7.16).
    notifications: Vec<Operation>,
    /// Some child data node sits in a choice (`Model::choices_among`).
    choices: bool,
}

/// How a value of a leaf's type is written in RFC 7951 JSON (§6), as far as the XML text of
/// the value alone tells (`datastore/json.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonValue {
    /// Not a leaf or leaf-list.
    None,
    /// A JSON number: int8 to int32, uint8 to uint32.
    Number,
    /// `true` or `false`.
    Boolean,
    /// `[null]`.
    Empty,
    /// A string holding `module:identity`.
    Identity,
    /// A string holding the value as it is (string, enumeration, bits, binary, decimal64,
    /// int64, uint64, and unions of those).
    Text,
    /// Only XML says it exactly: a union with a member that is not `Text` (which member a
    /// value is depends on how it is written), an instance-identifier (prefixes in the value),
    /// anything else.
    XmlOnly,
}

impl JsonValue {
    fn of(t: &SchemaLeafType<'_>) -> JsonValue {
        match t.base_type() {
            DataValueType::LeafRef => {
                t.leafref_real_type().map_or(JsonValue::XmlOnly, |r| JsonValue::of(&r))
            }
            DataValueType::Int8
            | DataValueType::Int16
            | DataValueType::Int32
            | DataValueType::Uint8
            | DataValueType::Uint16
            | DataValueType::Uint32 => JsonValue::Number,
            DataValueType::Bool => JsonValue::Boolean,
            DataValueType::Empty => JsonValue::Empty,
            DataValueType::IdentityRef => JsonValue::Identity,
            DataValueType::String
            | DataValueType::Enum
            | DataValueType::Bits
            | DataValueType::Binary
            | DataValueType::Dec64
            | DataValueType::Int64
            | DataValueType::Uint64 => JsonValue::Text,
            // A union whose members all take a JSON string as they take the XML text: libyang
            // tries them in the same order either way (a number, boolean, empty or identity
            // member would be chosen differently).
            DataValueType::Union => {
                let members = t.union_types();
                let text = |m: &SchemaLeafType<'_>| JsonValue::of(m) == JsonValue::Text;
                if !members.is_empty() && members.iter().all(text) {
                    JsonValue::Text
                } else {
                    JsonValue::XmlOnly
                }
            }
            _ => JsonValue::XmlOnly,
        }
    }
}

impl SNode {
    /// The child data node `name` in namespace `ns`.
    pub fn child(&self, ns: &str, name: &str) -> Option<&Arc<SNode>> {
        self.children.get(name)?.iter().find(|c| c.namespace == ns)
    }

    /// A child data node `name` in any namespace (the first found).
    pub fn child_any_ns(&self, name: &str) -> Option<&Arc<SNode>> {
        self.children.get(name)?.first()
    }

    /// Every child data node.
    pub fn children(&self) -> impl Iterator<Item = &Arc<SNode>> {
        self.children.values().flatten()
    }

    /// Whether this is a list or leaf-list (several instances).
    pub fn is_multi(&self) -> bool {
        matches!(self.kind, Kind::List | Kind::LeafList)
    }

    /// The action `name` in `ns` defined on this node.
    pub fn action(&self, ns: &str, name: &str) -> Option<&Action> {
        self.actions.iter().find(|a| a.name == name && a.namespace == ns)
    }

    /// The notification `name` in `ns` defined on this node (RFC 7950 §7.16.2).
    pub fn notification(&self, ns: &str, name: &str) -> Option<&Operation> {
        self.notifications.iter().find(|n| n.name == name && n.namespace == ns)
    }

    /// Whether the node holds a value rather than children.
    pub fn is_term(&self) -> bool {
        matches!(self.kind, Kind::Leaf | Kind::LeafList)
    }
}

/// An RPC or action, or a notification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    /// Module name (the augmenting module's, for a node an augment adds).
    pub module: String,
    /// Its namespace.
    pub namespace: String,
    /// Local name.
    pub name: String,
    /// NACM default access.
    pub nacm: NacmDefault,
    /// The mandatory input nodes (leaves, leaf-lists, lists, containers) by name.
    pub mandatory_input: Vec<String>,
}

impl Operation {
    /// A notification's entry, top-level or defined on a data node.
    fn notification(node: &SchemaNode<'_>) -> Operation {
        let module = node.module();
        Operation {
            module: module.name().to_string(),
            namespace: module.namespace().to_string(),
            name: node.name().to_string(),
            nacm: NacmDefault::None,
            mandatory_input: Vec::new(),
        }
    }
}

/// A YANG 1.1 action: an operation defined on a container or list (RFC 7950 §7.15).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    /// The defining module's name (the augmenting module's, for an augment).
    pub module: String,
    /// Its namespace.
    pub namespace: String,
    /// Local name.
    pub name: String,
    /// The mandatory input nodes by name (libyang's operation parser does not check them).
    pub mandatory_input: Vec<String>,
    /// The mandatory output nodes by name.
    pub mandatory_output: Vec<String>,
}

impl Action {
    fn of(node: &SchemaNode<'_>) -> Action {
        let module = node.module();
        Action {
            module: module.name().to_string(),
            namespace: module.namespace().to_string(),
            name: node.name().to_string(),
            mandatory_input: node.input().map(|(c, _)| mandatory(c)).unwrap_or_default(),
            mandatory_output: node.output().map(|(c, _)| mandatory(c)).unwrap_or_default(),
        }
    }
}

/// The names of the mandatory nodes among `nodes`.
fn mandatory<'a>(nodes: impl Iterator<Item = SchemaNode<'a>>) -> Vec<String> {
    nodes.filter(|n| n.is_mandatory()).map(|n| n.name().to_string()).collect()
}

/// The index.
#[derive(Debug, Default)]
pub struct Model {
    modules: Vec<Module>,
    by_namespace: HashMap<String, usize>,
    by_name: HashMap<String, Vec<usize>>,
    top: HashMap<String, Vec<Arc<SNode>>>,
    rpcs: HashMap<(String, String), Operation>,
    notifications: HashMap<(String, String), Operation>,
    /// See [`Model::edits_in_place`].
    edits_in_place: bool,
    /// Some top-level data node sits in a choice (`Model::choices_among`).
    top_choices: bool,
    /// Implemented modules whose configuration can depend on data outside its own subtree
    /// (`cross_refs`); see [`Model::validation_scope`].
    looking_outside: Vec<String>,
}

/// RFC 8341 and the ietf-netconf-acm module: operations and data denied unless a rule
/// permits them. The vendored ietf-netconf module is the unmodified RFC 6241 text, which
/// predates the extension, so the two operations RFC 8341 names are listed here.
const DENY_ALL_RPCS: &[(&str, &str)] =
    &[("ietf-netconf", "kill-session"), ("ietf-netconf", "delete-config")];
const DENY_ALL_DATA: &[(&str, &str)] = &[("ietf-netconf-acm", "nacm")];

impl Model {
    /// Builds the index from a context.
    pub fn build(ctx: &Context) -> Model {
        let mut m = Model { edits_in_place: true, ..Model::default() };
        let mut counter = 0u32;
        for module in ctx.modules(false) {
            let info = Module {
                name: module.name().to_string(),
                prefix: module.prefix().to_string(),
                namespace: module.namespace().to_string(),
                revision: module.revision().map(str::to_string),
                implemented: module.is_implemented(),
            };
            let idx = m.modules.len();
            // The implemented revision owns the namespace.
            if info.implemented || !m.by_namespace.contains_key(&info.namespace) {
                m.by_namespace.insert(info.namespace.clone(), idx);
            }
            m.by_name.entry(info.name.clone()).or_default().push(idx);
            m.modules.push(info);
            if !module.is_implemented() {
                continue;
            }
            let mut top = Vec::new();
            let mut whens = false;
            let walked = guarded(|| {
                for node in module.data() {
                    collect(&node, &[], &mut counter, &mut top, &mut whens);
                }
            });
            if whens || walked.is_none() {
                m.edits_in_place = false;
            }
            if crate::yang::cross_refs::config_looks_outside(&module) {
                m.looking_outside.push(module.name().to_string());
            }
            if walked.is_none() {
                tracing::error!(
                    module = module.name(),
                    "part of this module's data cannot be indexed (the YANG bindings failed on it)"
                );
            }
            for n in top {
                m.top_choices |= !n.cases.is_empty();
                m.top.entry(n.name.clone()).or_default().push(n);
            }
            for rpc in module.rpcs() {
                let name = rpc.name().to_string();
                let nacm = if DENY_ALL_RPCS.contains(&(module.name(), name.as_str())) {
                    NacmDefault::DenyAll
                } else {
                    NacmDefault::None
                };
                // The server's own operations are checked by the dispatcher; for the others
                // ask libyang's XPath for the input nodes (guarded, as the walk above).
                let xpath = format!("/{}:{}/*", module.name(), rpc.name());
                let mandatory_input =
                    if NATIVE_MODULES.contains(&module.name()) || xpath.contains('\0') {
                        Vec::new()
                    } else {
                        guarded(|| {
                            ctx.find_xpath(&xpath)
                                .map(|set| {
                                    set.filter(|n| n.is_mandatory())
                                        .map(|n| n.name().to_string())
                                        .collect()
                                })
                                .unwrap_or_default()
                        })
                        .unwrap_or_default()
                    };
                m.rpcs.insert(
                    (module.namespace().to_string(), name.clone()),
                    Operation {
                        module: module.name().to_string(),
                        namespace: module.namespace().to_string(),
                        name,
                        nacm,
                        mandatory_input,
                    },
                );
            }
            for notif in module.notifications() {
                let name = notif.name().to_string();
                m.notifications.insert(
                    (module.namespace().to_string(), name.clone()),
                    Operation::notification(&notif),
                );
            }
        }
        m
    }

    /// Whether an edit may be validated on the libyang tree kept from the last validation
    /// (`datastore::live`) instead of a fresh parse of the whole configuration. Not when a
    /// configuration node has a `when`: on a tree it validated before, libyang deletes a node
    /// whose `when` turned false, where a fresh parse reports the error the server must
    /// return. Nor when part of a module's data could not be indexed.
    pub fn edits_in_place(&self) -> bool {
        self.edits_in_place
    }

    /// For an edit that changed the top-level data nodes of the modules `changed` (names,
    /// repeats allowed): the one module whose data libyang needs to validate, or `None` when
    /// the whole configuration must be validated. One module suffices when the edit changed
    /// only that module and no other module's configuration can depend on data outside its
    /// own subtree (`cross_refs`).
    pub fn validation_scope<'a>(&self, changed: &[&'a str]) -> Option<&'a str> {
        let (&first, rest) = changed.split_first()?;
        let one = rest.iter().all(|&m| m == first);
        (one && self.looking_outside.iter().all(|m| m == first)).then_some(first)
    }

    /// Every module, implemented or imported.
    pub fn modules(&self) -> &[Module] {
        &self.modules
    }

    /// The module owning namespace `ns`.
    pub fn module_by_namespace(&self, ns: &str) -> Option<&Module> {
        self.by_namespace.get(ns).and_then(|&i| self.modules.get(i))
    }

    /// The module called `name` (the implemented revision if there are several).
    pub fn module_by_name(&self, name: &str) -> Option<&Module> {
        let v = self.by_name.get(name)?;
        v.iter()
            .filter_map(|&i| self.modules.get(i))
            .find(|m| m.implemented)
            .or_else(|| v.first().and_then(|&i| self.modules.get(i)))
    }

    /// The top-level data node `name` in namespace `ns`.
    pub fn top(&self, ns: &str, name: &str) -> Option<&Arc<SNode>> {
        self.top.get(name)?.iter().find(|c| c.namespace == ns)
    }

    /// Whether some child data node of `parent` (top level when `None`) sits in a choice:
    /// if not, creating one of them never removes another (`edit.rs`).
    pub fn choices_among(&self, parent: Option<&SNode>) -> bool {
        match parent {
            Some(p) => p.choices,
            None => self.top_choices,
        }
    }

    /// Every top-level data node.
    pub fn tops(&self) -> impl Iterator<Item = &Arc<SNode>> {
        self.top.values().flatten()
    }

    /// The child `name` in `ns` of `parent` (top level when `parent` is `None`).
    pub fn child_of<'a>(
        &'a self,
        parent: Option<&'a SNode>,
        ns: &str,
        name: &str,
    ) -> Option<&'a Arc<SNode>> {
        match parent {
            Some(p) => p.child(ns, name),
            None => self.top(ns, name),
        }
    }

    /// The RPC `name` of the module with namespace `ns`.
    pub fn rpc(&self, ns: &str, name: &str) -> Option<&Operation> {
        self.rpcs.get(&(ns.to_string(), name.to_string()))
    }

    /// The notification `name` of the module with namespace `ns`.
    pub fn notification(&self, ns: &str, name: &str) -> Option<&Operation> {
        self.notifications.get(&(ns.to_string(), name.to_string()))
    }
}

/// The modules whose operations the server implements itself.
const NATIVE_MODULES: &[&str] = &[
    "ietf-netconf",
    "ietf-netconf-monitoring",
    "ietf-netconf-nmda",
    "notifications",
    "nc-notifications",
    "ietf-yang-library",
];

/// Runs `f`, turning a panic inside the YANG bindings (yang2 panics on what it cannot
/// represent; the vendored copy no longer does on anyxml nodes) into `None`.
fn guarded<T>(f: impl FnOnce() -> T) -> Option<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok()
}

fn collect(
    node: &SchemaNode<'_>,
    cases: &[(u32, u32)],
    counter: &mut u32,
    out: &mut Vec<Arc<SNode>>,
    config_whens: &mut bool,
) {
    if node.is_config() && node.whens().next().is_some() {
        *config_whens = true;
    }
    let kind = match node.kind() {
        SchemaNodeKind::Container => Kind::Container,
        SchemaNodeKind::List => Kind::List,
        SchemaNodeKind::Leaf => Kind::Leaf,
        SchemaNodeKind::LeafList => Kind::LeafList,
        SchemaNodeKind::AnyData => Kind::AnyData,
        SchemaNodeKind::Choice => {
            *counter += 1;
            let choice = *counter;
            for case in node.children() {
                *counter += 1;
                let mut inner = cases.to_vec();
                inner.push((choice, *counter));
                if case.kind() == SchemaNodeKind::Case {
                    if case.is_config() && case.whens().next().is_some() {
                        *config_whens = true;
                    }
                    for child in case.children() {
                        collect(&child, &inner, counter, out, config_whens);
                    }
                } else {
                    // A shorthand case: the node itself.
                    collect(&case, &inner, counter, out, config_whens);
                }
            }
            return;
        }
        // Cases are handled with their choice; operations and notifications are not data.
        _ => return,
    };
    let module = node.module();
    let mut children = Vec::new();
    if matches!(kind, Kind::Container | Kind::List) {
        // Step through the children one at a time so that a child the bindings cannot
        // represent loses only itself and the siblings after it, not the container.
        if let Some(mut it) = guarded(|| node.children()) {
            while let Some(Some(child)) = guarded(|| it.next()) {
                collect(&child, &[], counter, &mut children, config_whens);
            }
        }
    }
    let actions = if matches!(kind, Kind::Container | Kind::List) {
        guarded(|| node.actions().map(|a| Action::of(&a)).collect()).unwrap_or_default()
    } else {
        Vec::new()
    };
    let notifications = if matches!(kind, Kind::Container | Kind::List) {
        guarded(|| node.notifications().map(|n| Operation::notification(&n)).collect())
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    let choices = children.iter().any(|c| !c.cases.is_empty());
    let mut map: HashMap<String, Vec<Arc<SNode>>> = HashMap::new();
    for c in children {
        map.entry(c.name.clone()).or_default().push(c);
    }
    let name = node.name().to_string();
    let nacm = if DENY_ALL_DATA.contains(&(module.name(), name.as_str())) {
        NacmDefault::DenyAll
    } else {
        NacmDefault::None
    };
    out.push(Arc::new(SNode {
        keys: if kind == Kind::List {
            node.list_keys().map(|k| k.name().to_string()).collect()
        } else {
            Vec::new()
        },
        is_key: node.is_list_key(),
        identityref: matches!(kind, Kind::Leaf | Kind::LeafList)
            && node.leaf_type().is_some_and(|t| t.base_type() == DataValueType::IdentityRef),
        json: match kind {
            Kind::Leaf | Kind::LeafList => {
                node.leaf_type().map_or(JsonValue::XmlOnly, |t| JsonValue::of(&t))
            }
            _ => JsonValue::None,
        },
        presence: kind == Kind::Container && !node.is_np_container(),
        user_ordered: node.is_user_ordered(),
        min_elements: node.min_elements().unwrap_or(0),
        config: node.is_config(),
        namespace: module.namespace().to_string(),
        module: module.name().to_string(),
        prefix: module.prefix().to_string(),
        cases: cases.to_vec(),
        nacm,
        children: map,
        actions,
        notifications,
        choices,
        kind,
        name,
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yang::schema::{ModuleSpec, Schema};

    const IF: &str = "urn:ietf:params:xml:ns:yang:ietf-interfaces";

    #[test]
    fn interfaces_are_indexed() {
        let s = Schema::new(
            &[],
            &[ModuleSpec::new("ietf-interfaces", &[]), ModuleSpec::new("iana-if-type", &[])],
        )
        .expect("schema");
        let m = s.model();
        let ifs = m.top(IF, "interfaces").expect("interfaces");
        assert_eq!(ifs.kind, Kind::Container);
        assert!(ifs.config && !ifs.presence);
        let list = ifs.child(IF, "interface").expect("interface");
        assert_eq!(list.kind, Kind::List);
        assert_eq!(list.keys, ["name"]);
        assert!(list.child(IF, "name").expect("name").is_key);
        let state = m.top(IF, "interfaces-state").expect("interfaces-state");
        assert!(!state.config);
        assert_eq!(m.module_by_namespace(IF).map(|m| m.prefix.as_str()), Some("if"));
        let nacm =
            m.top("urn:ietf:params:xml:ns:yang:ietf-netconf-acm", "nacm").expect("nacm container");
        assert_eq!(nacm.nacm, NacmDefault::DenyAll);
        let kill =
            m.rpc(netconf_proto::xml::NETCONF_BASE_NS, "kill-session").expect("kill-session");
        assert_eq!(kill.nacm, NacmDefault::DenyAll);
        assert!(m.rpc(netconf_proto::xml::NETCONF_BASE_NS, "get").is_some());
    }
}

#[cfg(test)]
mod anyxml_tests {
    use std::sync::Arc;

    use super::Kind;
    use crate::datastore::{DatastoreName, Datastores};
    use crate::yang::edit::{self, ErrorOption, Op};
    use crate::yang::schema::Schema;
    use netconf_proto::xml::{self, Scope};

    /// anyxml nodes are indexed as opaque content (the vendored yang2 maps them to anydata;
    /// as published it panicked on them and the index lost the node and its later siblings),
    /// and a configuration holding one validates and keeps its content.
    #[test]
    fn anyxml_nodes_are_indexed_and_keep_their_content() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            dir.path().join("with-anyxml.yang"),
            "module with-anyxml { yang-version 1.1; namespace \"urn:x\"; prefix x;\n\
             container ok { leaf a { type string; } }\n\
             container c { anyxml blob; leaf b { type string; } } }",
        )
        .expect("write");
        let s = Arc::new(Schema::new(&[dir.path().to_path_buf()], &[]).expect("schema"));
        assert!(s.model().top("urn:x", "ok").is_some());
        let c = s.model().top("urn:x", "c").expect("the container holding the anyxml");
        assert_eq!(c.child("urn:x", "blob").expect("the anyxml node").kind, Kind::AnyData);
        assert!(c.child("urn:x", "b").is_some(), "the leaf after the anyxml is indexed");
        assert!(s.model().edits_in_place(), "nothing of the module was lost");

        let store = tempfile::tempdir().expect("tempdir");
        let ds = Datastores::open(store.path(), s).expect("open");
        let nc = "urn:ietf:params:xml:ns:netconf:base:1.0";
        let config = format!(
            "<config xmlns=\"{nc}\"><c xmlns=\"urn:x\"><blob><thing xmlns=\"urn:y\">\
             <part>1</part></thing></blob><b>t</b></c></config>"
        );
        let config = xml::parse(config.as_bytes()).expect("config parses");
        let mut root = ds.snapshot(DatastoreName::Candidate).root.clone();
        let mut scope = Scope::new();
        scope.enter(&config);
        let model = ds.schema().model();
        let errors =
            edit::apply(model, &mut root, &config, &scope, Op::Merge, ErrorOption::StopOnError);
        assert!(errors.is_empty(), "{errors:?}");
        let stored = ds.check_tree(root, true).expect("a configuration with anyxml validates");
        assert!(stored.xml.contains("<part>1</part>"), "{}", stored.xml);
        assert!(stored.xml.contains("<b>t</b>"), "{}", stored.xml);
    }
}
