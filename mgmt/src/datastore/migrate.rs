//! Carrying a stored configuration over a schema change that moved data nodes to another
//! module (the same place in the tree, a new namespace), gave a module a new namespace, renamed
//! an identity, or took nodes out of the configuration. A configuration saved before the change
//! names what the new schema refuses; [`Moved`] entries rewrite it on open, so the first start
//! after an upgrade keeps every value instead of refusing to start.

use netconf_proto::xml::{self, Element, Node, Scope};

/// One change between a schema and the next that a stored configuration must follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Moved {
    /// A data node that moved without changing place: an element `name` in namespace `from`,
    /// whose parent is element `parent` in namespace `parent_ns`, is now in namespace `to`; or,
    /// with `to` `None`, is no longer configuration (its value is said elsewhere, which the
    /// move's author answers for) and is dropped.
    Node {
        parent_ns: &'static str,
        parent: &'static str,
        name: &'static str,
        from: &'static str,
        to: Option<&'static str>,
    },
    /// A module's namespace changed from `from` to `to`: every element in `from`, wherever it
    /// is, takes `to`, and every prefix bound to `from` is bound to `to` (an identityref's
    /// value names its module through one).
    Namespace { from: &'static str, to: &'static str },
    /// Identity `from` of the module whose namespace is `module` is now called `to`: a value
    /// `p:from`, `p` bound to `module`, becomes `p:to`, whatever leaf holds it.
    Identity { module: &'static str, from: &'static str, to: &'static str },
}

impl Moved {
    /// What the log says was carried: the node's name, the old namespace of a whole module, or
    /// the identity's old name.
    fn said(&self) -> &'static str {
        match self {
            Moved::Node { name, .. } => name,
            Moved::Namespace { from, .. } => from,
            Moved::Identity { from, .. } => from,
        }
    }

    /// Whether `child`, under an element `parent_name` in `parent_ns`, is this move's node; its
    /// new namespace (`None`: dropped).
    fn moves(
        &self,
        parent_ns: Option<&str>,
        parent_name: &str,
        child: &Element,
    ) -> Option<Option<&'static str>> {
        match *self {
            Moved::Node { parent_ns: pns, parent, name, from, to } => (child.namespace.as_deref()
                == Some(from)
                && parent_ns == Some(pns)
                && parent_name == parent
                && child.name == name)
                .then_some(to),
            Moved::Namespace { from, to } => {
                (child.namespace.as_deref() == Some(from)).then_some(Some(to))
            }
            Moved::Identity { .. } => None,
        }
    }
}

/// What a migration changed: each moved node's name (a moved namespace's old URI, a renamed
/// identity's old name), once per element, namespace declaration or value rewritten.
pub type Rewritten = Vec<&'static str>;

/// `text` (top-level data nodes as XML, as stored) with every node of `moves` in its new
/// namespace; `None` when nothing had to change (the text is then used as it is).
pub fn apply(text: &str, moves: &[Moved]) -> Result<Option<(String, Rewritten)>, String> {
    if moves.is_empty() || text.trim().is_empty() || !moves.iter().any(|m| text.contains(m.said()))
    {
        return Ok(None);
    }
    // Stored text is a sequence of top-level elements: parse it under one wrapper.
    let wrapped = format!("<migrate>{text}</migrate>");
    let mut root = xml::parse(wrapped.as_bytes()).map_err(|e| e.to_string())?;
    let mut rewritten = Vec::new();
    rewrite(&mut root, moves, &mut Scope::new(), &mut rewritten);
    if rewritten.is_empty() {
        return Ok(None);
    }
    let mut out = String::new();
    xml::write_children(&root, &mut out, None);
    Ok(Some((out, rewritten)))
}

/// [`apply`] for text read from storage: the new text, the nodes rewritten added to
/// `migrated`. Text that does not parse is left as it is (validating it says why).
pub fn carry_over(text: String, moves: &[Moved], migrated: &mut Rewritten) -> String {
    match apply(&text, moves) {
        Ok(Some((new, rewritten))) => {
            migrated.extend(rewritten);
            new
        }
        Ok(None) | Err(_) => text,
    }
}

fn rewrite(parent: &mut Element, moves: &[Moved], scope: &mut Scope, rewritten: &mut Rewritten) {
    let parent_ns = parent.namespace.clone();
    let parent_name = parent.name.clone();
    let applies = |child: &Element| {
        moves
            .iter()
            .find_map(|m| m.moves(parent_ns.as_deref(), &parent_name, child).map(|to| (m, to)))
    };
    parent.children.retain(|node| match node {
        Node::Element(child) => match applies(child) {
            Some((m, None)) => {
                rewritten.push(m.said());
                false
            }
            _ => true,
        },
        _ => true,
    });
    for child in parent.elements_mut() {
        if let Some((m, Some(to))) = applies(child) {
            child.namespace = Some(to.into());
            // A default namespace declared on the element itself would keep the old one.
            child.retain_namespaces(|(prefix, _)| prefix.is_some());
            rewritten.push(m.said());
        }
        rebind_prefixes(child, moves, rewritten);
        scope.enter(child);
        rename_identity(child, moves, scope, rewritten);
        rewrite(child, moves, scope, rewritten);
        scope.leave();
    }
}

/// Binds each prefix `child` declares for a moved namespace to the new one.
fn rebind_prefixes(child: &mut Element, moves: &[Moved], rewritten: &mut Rewritten) {
    if child.namespaces().is_empty() {
        return;
    }
    for (_, uri) in child.namespaces_mut().iter_mut() {
        let renamed = moves.iter().find_map(|m| match *m {
            Moved::Namespace { from, to } if uri == from => Some((m, to)),
            _ => None,
        });
        if let Some((m, to)) = renamed {
            *uri = to.to_string();
            rewritten.push(m.said());
        }
    }
}

/// A leaf's value `p:name` whose identity was renamed, with the new name.
fn rename_identity(child: &mut Element, moves: &[Moved], scope: &Scope, rewritten: &mut Rewritten) {
    let [Node::Text(text)] = child.children.as_slice() else { return };
    let Some((prefix, name)) = text.trim().split_once(':') else { return };
    let module = scope.resolve(Some(prefix));
    let renamed = moves.iter().find_map(|m| match *m {
        Moved::Identity { module: ns, from, to } if from == name && module == Some(ns) => {
            Some((m, to))
        }
        _ => None,
    });
    if let Some((m, to)) = renamed {
        let value = format!("{prefix}:{to}");
        child.children = vec![Node::Text(value.into())];
        rewritten.push(m.said());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "urn:a";
    const B: &str = "urn:b";
    const MOVE: Moved =
        Moved::Node { parent_ns: A, parent: "item", name: "size", from: A, to: Some(B) };
    const DROP: Moved =
        Moved::Node { parent_ns: A, parent: "item", name: "echo", from: A, to: None };

    #[test]
    fn a_moved_leaf_takes_its_new_namespace_and_everything_else_stays() {
        let old = r#"<top xmlns="urn:a"><item><key>1</key><size>40</size></item><item><key>2</key></item></top><other xmlns="urn:c"><size>7</size></other>"#;
        let (new, rewritten) = apply(old, &[MOVE]).expect("parses").expect("changed");
        assert_eq!(rewritten, vec!["size"]);
        let root = xml::parse(format!("<w>{new}</w>").as_bytes()).expect("parses back");
        let top = root.child(A, "top").expect("top");
        let items: Vec<&Element> = top.elements().filter(|e| e.is(A, "item")).collect();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].child(B, "size").map(|s| s.text()).as_deref(), Some("40"));
        assert!(items[0].child(A, "size").is_none());
        assert_eq!(items[0].child(A, "key").map(|s| s.text()).as_deref(), Some("1"));
        // The same name elsewhere, in another namespace or under another parent, is not moved.
        let other = root.child("urn:c", "other").expect("other");
        assert!(other.child("urn:c", "size").is_some());
    }

    #[test]
    fn a_node_no_longer_configuration_is_dropped_and_said() {
        let old =
            r#"<top xmlns="urn:a"><item><key>1</key><echo>3</echo><size>40</size></item></top>"#;
        let (new, rewritten) = apply(old, &[MOVE, DROP]).expect("parses").expect("changed");
        assert_eq!(rewritten, vec!["echo", "size"]);
        assert!(!new.contains("echo"), "{new}");
        assert!(new.contains("<key>1</key>"), "{new}");
    }

    #[test]
    fn a_module_whose_namespace_changed_takes_the_new_one_everywhere_with_its_prefixes() {
        const RENAMED: Moved = Moved::Namespace { from: "urn:old", to: "urn:new" };
        let old = r#"<top xmlns="urn:a"><item><key>1</key><size xmlns="urn:old">40</size></item></top><mode xmlns="urn:old" xmlns:o="urn:old">o:fifo</mode><kind xmlns="urn:a" xmlns:o="urn:old">o:x</kind>"#;
        let (new, rewritten) = apply(old, &[RENAMED]).expect("parses").expect("changed");
        assert_eq!(rewritten, vec!["urn:old"; 4], "{new}");
        assert!(!new.contains("urn:old"), "{new}");
        let root = xml::parse(format!("<w>{new}</w>").as_bytes()).expect("parses back");
        let item = root.child(A, "top").and_then(|t| t.child(A, "item")).expect("item");
        assert_eq!(item.child("urn:new", "size").map(|s| s.text()).as_deref(), Some("40"));
        let mode = root.child("urn:new", "mode").expect("mode in the new namespace");
        assert_eq!(mode.text(), "o:fifo");
        assert!(mode.namespaces().iter().any(|(p, u)| p.as_deref() == Some("o") && u == "urn:new"));
        let kind = root.child(A, "kind").expect("kind stays in its own namespace");
        assert!(kind.namespaces().iter().any(|(p, u)| p.as_deref() == Some("o") && u == "urn:new"));
        assert_eq!(apply(&new, &[RENAMED]), Ok(None), "carried once");
    }

    #[test]
    fn a_renamed_identity_is_carried_wherever_its_module_is_bound() {
        const RENAMED: Moved =
            Moved::Identity { module: "urn:ids", from: "measured", to: "measurement" };
        let old = r#"<top xmlns="urn:a" xmlns:i="urn:ids"><method>i:measured</method><other>i:manual</other><same xmlns:x="urn:elsewhere">x:measured</same><name>measured</name></top><method xmlns="urn:b" xmlns:j="urn:ids">j:measured</method>"#;
        let (new, rewritten) = apply(old, &[RENAMED]).expect("parses").expect("changed");
        assert_eq!(rewritten, vec!["measured"; 2], "{new}");
        let root = xml::parse(format!("<w>{new}</w>").as_bytes()).expect("parses back");
        let top = root.child(A, "top").expect("top");
        assert_eq!(top.child(A, "method").map(|e| e.text()).as_deref(), Some("i:measurement"));
        assert_eq!(top.child(A, "other").map(|e| e.text()).as_deref(), Some("i:manual"));
        // Another module's identity of the same name, and a string, are not it.
        assert_eq!(top.child(A, "same").map(|e| e.text()).as_deref(), Some("x:measured"));
        assert_eq!(top.child(A, "name").map(|e| e.text()).as_deref(), Some("measured"));
        assert_eq!(root.child(B, "method").map(|e| e.text()).as_deref(), Some("j:measurement"));
        assert_eq!(apply(&new, &[RENAMED]), Ok(None), "carried once");
    }

    #[test]
    fn text_already_in_the_new_namespace_or_without_the_node_is_left_alone() {
        let current =
            r#"<top xmlns="urn:a"><item><key>1</key><size xmlns="urn:b">40</size></item></top>"#;
        assert_eq!(apply(current, &[MOVE]), Ok(None));
        assert_eq!(
            apply(r#"<top xmlns="urn:a"><item><key>1</key></item></top>"#, &[MOVE]),
            Ok(None)
        );
        assert_eq!(apply("", &[MOVE]), Ok(None));
    }
}
