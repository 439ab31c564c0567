//! A validated libyang tree's explicit nodes read from the tree itself, as the element tree
//! that parsing libyang's printing of them gives. For a large edit, printing the whole
//! configuration and parsing the text back cost nearly as much as libyang's parse and
//! validation of it (BENCHMARKS.md, NETCONF server).
//!
//! Only what is known to read the same as it prints is read: containers, lists, and leaves
//! and leaf-lists whose canonical value has no colon ([`prints_as_canonical`]), or an
//! identityref (printed with its module's prefix, declared on the element, unless that
//! module is the element's own). Anything else (metadata, anydata, any other value with a
//! colon, such as an instance-identifier, an XPath, an IPv6 address or a time of day) returns
//! `None`, and the caller prints and parses as before. Debug builds check every result
//! against that.

use std::sync::Arc;

use compact_str::CompactString;
use yang2::context::Context;
use yang2::data::{DataNodeRef, DataTree};
use yang2::schema::{DataValueType, SchemaNodeKind};

use crate::yang::data;
use netconf_proto::xml::{Element, Node, NETCONF_BASE_NS};

/// The element tree `data::parse_data` gives for libyang's printing of `tree` (explicit
/// nodes, `Schema::print_config`), or `None` (see the module comment).
pub fn explicit_elements(ctx: &Context, tree: &DataTree<'_>) -> Option<Element> {
    let mut root = data::root();
    root.namespaces_mut().push((None, NETCONF_BASE_NS.to_string()));
    let mut reader = Reader { ctx, namespaces: Vec::new(), modules: Vec::new() };
    if let Some(first) = tree.reference() {
        for node in first.inclusive_siblings() {
            if let Some(e) = reader.element(&node, None)? {
                root.children.push(Node::Element(e));
            }
        }
    }
    Some(root)
}

/// Reads elements, sharing one namespace string per URI as the XML parser does.
struct Reader<'c> {
    ctx: &'c Context,
    namespaces: Vec<Arc<str>>,
    /// Modules named by identityref values so far: (name, prefix, namespace). A large
    /// configuration names the same few modules thousands of times, and the context looks a
    /// module up by comparing names one module at a time.
    modules: Vec<(String, String, String)>,
}

impl Reader<'_> {
    fn namespace(&mut self, uri: &str) -> Arc<str> {
        if let Some(ns) = self.namespaces.iter().find(|ns| ***ns == *uri) {
            return ns.clone();
        }
        let ns: Arc<str> = Arc::from(uri);
        self.namespaces.push(ns.clone());
        ns
    }

    /// The prefix and namespace of the latest revision of module `name`.
    fn module(&mut self, name: &str) -> Option<(&str, &str)> {
        let i = match self.modules.iter().position(|(n, ..)| n == name) {
            Some(i) => i,
            None => {
                let of = self.ctx.get_module_latest(name)?;
                let entry = (name.to_string(), of.prefix().to_string(), of.namespace().to_string());
                self.modules.push(entry);
                self.modules.len() - 1
            }
        };
        self.modules.get(i).map(|(_, prefix, ns)| (prefix.as_str(), ns.as_str()))
    }

    /// `node` under a parent in namespace `parent_ns`: `Some(None)` when libyang does not
    /// print it (a default it added).
    fn element(
        &mut self,
        node: &DataNodeRef<'_, '_>,
        parent_ns: Option<&str>,
    ) -> Option<Option<Element>> {
        if node.is_implicit() {
            return Some(None);
        }
        // (libyang keeps its sorted lists' search tree as metadata of the first entry,
        // `yang:lyds_tree`, which it never prints.)
        if node.meta().any(|m| m.name() != "lyds_tree") {
            return None;
        }
        let schema = node.schema();
        let module = schema.module();
        let uri = module.namespace();
        let mut e = Element::named(Some(self.namespace(uri)), schema.name().into());
        // (A default namespace declaration exactly where the namespace changes.)
        if parent_ns != Some(uri) {
            e.namespaces_mut().push((None, uri.to_string()));
        }
        match schema.kind() {
            SchemaNodeKind::Container | SchemaNodeKind::List => {
                for child in node.children() {
                    if let Some(c) = self.element(&child, Some(uri))? {
                        e.children.push(Node::Element(c));
                    }
                }
            }
            SchemaNodeKind::Leaf | SchemaNodeKind::LeafList => {
                let text: CompactString = match schema.leaf_type()?.base_type() {
                    DataValueType::Empty => CompactString::default(),
                    DataValueType::IdentityRef => {
                        // Canonically `module:identity`; printed `prefix:identity` with the
                        // module's prefix declared on the element, or without a prefix when
                        // the module is the element's own (its default namespace).
                        let value = node.value_canonical()?;
                        let (name, identity) = value.split_once(':')?;
                        let (prefix, ns) = self.module(name)?;
                        if ns == uri {
                            identity.into()
                        } else {
                            e.namespaces_mut().push((Some(prefix.to_string()), ns.to_string()));
                            let mut text = CompactString::with_capacity(value.len());
                            text.push_str(prefix);
                            text.push(':');
                            text.push_str(identity);
                            text
                        }
                    }
                    _ => node.value_canonical().filter(|v| prints_as_canonical(v))?.into(),
                };
                if !text.is_empty() {
                    e.children = vec![Node::Text(text)];
                }
            }
            _ => return None,
        }
        Some(Some(e))
    }
}

/// Whether a value whose canonical text is `value` prints in XML as that text: when it has no
/// colon, so no prefix, whatever its type. One with a colon may not: libyang prints an
/// xpath1.0 string (a NACM rule's path, say) with XML prefixes although its type reads
/// "string", and an identityref or instance-identifier likewise.
pub fn prints_as_canonical(value: &str) -> bool {
    !value.contains(':')
}
