//! Carrying a stored configuration over a schema change that moved data nodes to another
//! module (the same place in the tree, a new namespace), gave a module a new namespace, or took
//! nodes out of the configuration. A configuration saved before the change names what the new
//! schema refuses; [`Moved`] entries rewrite it on open, so the first start after an upgrade
//! keeps every value instead of refusing to start.

use netconf_proto::xml::{self, Element, Node};

/// A data node that moved without changing place: an element `name` in namespace `from`,
/// whose parent is element `parent` in namespace `parent_ns`, is now in namespace `to`; or,
/// with `to` `None`, is no longer configuration (its value is said elsewhere, which the move's
/// author answers for) and is dropped. [`Moved::namespace`] moves every node of a namespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    pub parent_ns: &'static str,
    pub parent: &'static str,
    pub name: &'static str,
    pub from: &'static str,
    pub to: Option<&'static str>,
}

/// Any parent, any name: a move of a whole namespace ([`Moved::namespace`]).
const ANY: &str = "*";

impl Moved {
    /// A module's namespace changed from `from` to `to`: every element in `from`, wherever it
    /// is, takes `to`, and every prefix bound to `from` is bound to `to` (an identityref's value
    /// names its module through one).
    pub const fn namespace(from: &'static str, to: &'static str) -> Moved {
        Moved { parent_ns: ANY, parent: ANY, name: ANY, from, to: Some(to) }
    }

    fn is_namespace(&self) -> bool {
        self.name == ANY
    }

    /// What the log says was carried: the node's name, or the old namespace of a whole module.
    fn said(&self) -> &'static str {
        if self.is_namespace() {
            self.from
        } else {
            self.name
        }
    }
}

/// What a migration changed: each moved node's name (a moved namespace's old URI), once per
/// element or namespace declaration rewritten.
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
    rewrite(&mut root, moves, &mut rewritten);
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

fn rewrite(parent: &mut Element, moves: &[Moved], rewritten: &mut Rewritten) {
    let parent_ns = parent.namespace.clone();
    let parent_name = parent.name.clone();
    let applies = |child: &Element| {
        moves.iter().find(|m| {
            child.namespace.as_deref() == Some(m.from)
                && (m.is_namespace()
                    || (parent_ns.as_deref() == Some(m.parent_ns)
                        && parent_name == m.parent
                        && child.name == m.name))
        })
    };
    parent.children.retain(|node| match node {
        Node::Element(child) => match applies(child) {
            Some(m) if m.to.is_none() => {
                rewritten.push(m.said());
                false
            }
            _ => true,
        },
        _ => true,
    });
    for child in parent.elements_mut() {
        if let Some((m, to)) = applies(child).and_then(|m| m.to.map(|to| (m, to))) {
            child.namespace = Some(to.into());
            // A default namespace declared on the element itself would keep the old one.
            child.retain_namespaces(|(prefix, _)| prefix.is_some());
            rewritten.push(m.said());
        }
        rebind_prefixes(child, moves, rewritten);
        rewrite(child, moves, rewritten);
    }
}

/// Binds each prefix `child` declares for a moved namespace to the new one.
fn rebind_prefixes(child: &mut Element, moves: &[Moved], rewritten: &mut Rewritten) {
    if child.namespaces().is_empty() {
        return;
    }
    for (_, uri) in child.namespaces_mut().iter_mut() {
        let renamed = moves.iter().filter(|m| m.is_namespace()).find(|m| uri == m.from);
        if let Some((m, to)) = renamed.and_then(|m| m.to.map(|to| (m, to))) {
            *uri = to.to_string();
            rewritten.push(m.said());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "urn:a";
    const B: &str = "urn:b";
    const MOVE: Moved = Moved { parent_ns: A, parent: "item", name: "size", from: A, to: Some(B) };
    const DROP: Moved = Moved { parent_ns: A, parent: "item", name: "echo", from: A, to: None };

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
        const RENAMED: Moved = Moved::namespace("urn:old", "urn:new");
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
