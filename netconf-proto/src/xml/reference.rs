//! The parser as it was built on quick-xml's namespace-aware reader (`NsReader`), kept for
//! tests: `parse.rs` must give the same tree for every document, and refuse the same ones
//! (a property test compares them).

use compact_str::CompactString;
use std::sync::Arc;

use quick_xml::events::{BytesStart, Event};
use quick_xml::name::{QName, ResolveResult};
use quick_xml::NsReader;

use super::parse::{attach, finish, other_event, unmatched_end, XmlError, MAX_DEPTH};
use super::tree::{Attribute, Element};

/// Parses one XML document into its root element.
pub(super) fn parse(bytes: &[u8]) -> Result<Element, XmlError> {
    let text = std::str::from_utf8(bytes).map_err(|_| XmlError::NotUtf8)?;
    let mut reader = NsReader::from_str(text);
    reader.config_mut().check_end_names = true;

    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    // The namespaces seen so far: a message uses a handful, and its elements share them.
    let mut namespaces: Vec<Arc<str>> = Vec::new();
    loop {
        let position = reader.buffer_position();
        let syntax = |e: quick_xml::Error| XmlError::Syntax { position, reason: e.to_string() };
        let (resolved, event) = reader.read_resolved_event().map_err(syntax)?;
        let unbound = matches!(resolved, ResolveResult::Unknown(_));
        // Only elements keep their namespace: none for end tags and text.
        let namespace = match event {
            Event::Start(_) | Event::Empty(_) => interned_namespace(&mut namespaces, &resolved),
            _ => None,
        };
        match event {
            Event::Start(start) | Event::Empty(start) if root.is_some() => {
                let _ = start;
                return Err(XmlError::TrailingContent);
            }
            Event::Start(start) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(XmlError::TooDeep { limit: MAX_DEPTH });
                }
                let element = element_from(&reader, &start, namespace, unbound)?;
                stack.push(element);
            }
            Event::Empty(start) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(XmlError::TooDeep { limit: MAX_DEPTH });
                }
                let element = element_from(&reader, &start, namespace, unbound)?;
                attach(&mut stack, &mut root, element);
            }
            Event::End(_) => match stack.pop() {
                Some(element) => attach(&mut stack, &mut root, element),
                None => return Err(unmatched_end(position)),
            },
            other => {
                if other_event(other, &mut stack, position)? {
                    break;
                }
            }
        }
    }
    finish(&stack, root, reader.buffer_position())
}

/// The namespace URI an element or attribute is in, if any.
fn bound_uri<'r>(resolved: &'r ResolveResult<'_>) -> Option<&'r str> {
    match resolved {
        // `xmlns=""` undeclares the default namespace: the element is in none.
        ResolveResult::Bound(ns) if ns.as_ref().is_empty() => None,
        ResolveResult::Bound(ns) => Some(ns.as_ref()),
        ResolveResult::Unbound | ResolveResult::Unknown(_) => None,
    }
}

fn namespace_of(resolved: &ResolveResult<'_>) -> Option<String> {
    bound_uri(resolved).map(str::to_string)
}

/// An element's namespace as one of `seen`, added to it if new.
fn interned_namespace(seen: &mut Vec<Arc<str>>, resolved: &ResolveResult<'_>) -> Option<Arc<str>> {
    let uri = bound_uri(resolved)?;
    if let Some(known) = seen.iter().find(|s| ***s == *uri) {
        return Some(known.clone());
    }
    let new: Arc<str> = uri.into();
    seen.push(new.clone());
    Some(new)
}

fn split_qname(qname: QName<'_>) -> (Option<String>, CompactString) {
    let (local, prefix) = qname.decompose();
    (prefix.map(|p| p.as_ref().to_string()), local.as_ref().into())
}

fn element_from(
    reader: &NsReader<&[u8]>,
    start: &BytesStart<'_>,
    namespace: Option<Arc<str>>,
    unbound: bool,
) -> Result<Element, XmlError> {
    let (prefix, name) = split_qname(start.name());
    if unbound {
        return Err(XmlError::UnboundPrefix(format!("{}:{name}", prefix.unwrap_or_default())));
    }
    let mut element = Element::named(namespace, name);
    element.set_prefix(prefix);
    for attr in start.attributes() {
        let position = reader.buffer_position();
        let attr = attr.map_err(|e| XmlError::Syntax { position, reason: e.to_string() })?;
        let value = attr
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|e| XmlError::Syntax { position, reason: e.to_string() })?
            .into_owned();
        let key = attr.key;
        if let Some(decl) = key.as_namespace_binding() {
            let prefix = match decl {
                quick_xml::name::PrefixDeclaration::Default => None,
                quick_xml::name::PrefixDeclaration::Named(p) => Some(p.to_string()),
            };
            element.namespaces_mut().push((prefix, value));
            continue;
        }
        let (resolved, _) = reader.resolver().resolve_attribute(key);
        let (prefix, name) = split_qname(key);
        if matches!(resolved, ResolveResult::Unknown(_)) {
            return Err(XmlError::UnboundPrefix(format!("{}:{name}", prefix.unwrap_or_default())));
        }
        element.attributes_mut().push(Attribute {
            namespace: namespace_of(&resolved),
            prefix,
            name,
            value,
        });
    }
    Ok(element)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    /// Documents mixing default and prefixed declarations, undeclarations, reserved
    /// prefixes, unbound prefixes, attributes with and without prefixes, text and nesting:
    /// what namespace resolution has to get right.
    fn document() -> impl Strategy<Value = String> {
        let prefix = prop_oneof![
            Just(None),
            Just(Some("a")),
            Just(Some("b")),
            Just(Some("xml")),
            Just(Some("xmlns"))
        ];
        let uri = prop_oneof![
            Just("urn:x"),
            Just("urn:y"),
            Just(""),
            Just("http://www.w3.org/XML/1998/namespace"),
            Just("http://www.w3.org/2000/xmlns/")
        ];
        let decl = (prefix.clone(), uri).prop_map(|(p, u)| match p {
            None => format!(" xmlns=\"{u}\""),
            Some(p) => format!(" xmlns:{p}=\"{u}\""),
        });
        let attr = (prefix.clone(), prop_oneof![Just("k"), Just("m")]).prop_map(|(p, n)| match p {
            None => format!(" {n}=\"v\""),
            Some(p) => format!(" {p}:{n}=\"v\""),
        });
        let tag = (
            prefix,
            prop_oneof![Just("e"), Just("f")],
            proptest::collection::vec(prop_oneof![decl, attr], 0..4),
        )
            .prop_map(|(p, n, attrs)| {
                let name = p.map_or(n.to_string(), |p| format!("{p}:{n}"));
                (name, attrs.concat())
            });
        let leaf = tag.clone().prop_map(|(name, attrs)| format!("<{name}{attrs}>t</{name}>"));
        leaf.prop_recursive(4, 24, 3, move |inner| {
            (tag.clone(), proptest::collection::vec(inner, 0..3)).prop_map(
                |((name, attrs), children)| {
                    format!("<{name}{attrs}>{}</{name}>", children.concat())
                },
            )
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// The parser gives what quick-xml's namespace-aware reader gave, tree for tree, and
        /// refuses the same documents.
        #[test]
        fn same_trees_as_the_namespace_reader(doc in document()) {
            let ours = super::super::parse::parse(doc.as_bytes());
            let reference = super::parse(doc.as_bytes());
            match (&ours, &reference) {
                (Ok(a), Ok(b)) => prop_assert_eq!(a, b, "{}", doc),
                (Err(_), Err(_)) => {}
                _ => prop_assert!(false, "{doc}: ours {ours:?}, reference {reference:?}"),
            }
        }
    }
}
