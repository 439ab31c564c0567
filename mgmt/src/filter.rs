//! Retrieval filters: RFC 6241 §6 subtree filtering on data trees (namespace selection,
//! containment, selection and content match nodes), and the translation of an XPath filter's
//! XML prefixes into the module names libyang evaluates (the `:xpath` capability, §8.9).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::model::{Kind, Model, SNode};
use crate::xml::{Element, Node, Scope};

fn is_content_match(f: &Element) -> bool {
    !f.has_elements() && f.has_text()
}

/// Namespace selection, name, and attribute match expressions (RFC 6241 §6.2.2-6.2.4).
fn matches_name(f: &Element, d: &Element) -> bool {
    f.name == d.name
        && (f.namespace.is_none() || f.namespace == d.namespace)
        && f.attributes().iter().all(|a| {
            d.attributes()
                .iter()
                .any(|b| b.name == a.name && b.namespace == a.namespace && b.value == a.value)
        })
}

/// Applies the subtree filter whose top-level nodes are `filter`'s children to the data
/// root `root`; returns a root holding the selected data. An empty filter selects nothing.
pub fn subtree(model: &Model, root: &Element, filter: &Element) -> Element {
    let mut out = root.clone_shallow();
    if !filter.has_elements() {
        return out;
    }
    if let Some(children) = select_children(model, None, root, filter, true) {
        out.children = children;
    }
    out
}

/// The children of `data` the filter sibling set (`filter`'s children) selects, in data
/// order; `None` if a content match failed or nothing was selected.
fn select_children(
    model: &Model,
    sdata: Option<&SNode>,
    data: &Element,
    filter: &Element,
    top: bool,
) -> Option<Vec<Node>> {
    let fchildren: Vec<&Element> = filter.elements().collect();
    let content: Vec<&Element> =
        fchildren.iter().copied().filter(|f| is_content_match(f)).collect();
    // Every content match node must match some child.
    for cm in &content {
        let want = cm.text();
        let want = want.trim();
        if !data.elements().any(|d| matches_name(cm, d) && d.text().trim() == want) {
            return None;
        }
    }
    let others: Vec<&Element> =
        fchildren.iter().copied().filter(|f| !is_content_match(f)).collect();
    if others.is_empty() && !top {
        // Only content match nodes, all true: the whole node. At the top there is no node
        // whose content they test, only the datastore: they select the top-level nodes they
        // match and nothing else (RFC 6241 §6.2.5), never every module's data.
        return Some(data.children.clone());
    }
    // (index in data, filtered copy)
    let mut picked: BTreeMap<usize, Element> = BTreeMap::new();
    let mut selected_any = false;
    for (i, d) in data.elements().enumerate() {
        for cm in &content {
            if matches_name(cm, d) && d.text().trim() == cm.text().trim() {
                picked.insert(i, d.clone());
            }
        }
    }
    for f in &others {
        for (i, d) in data.elements().enumerate() {
            if !matches_name(f, d) {
                continue;
            }
            if !f.has_elements() {
                // Selection node: the whole subtree.
                picked.insert(i, d.clone());
                selected_any = true;
                continue;
            }
            let sd = model.child_of(sdata, d.namespace.as_deref().unwrap_or_default(), &d.name);
            if let Some(children) = select_children(model, sd.map(Arc::as_ref), d, f, false) {
                let mut copy = d.clone_shallow();
                copy.children = children;
                if let Some(s) = sd {
                    add_keys(s, d, &mut copy);
                }
                // Several containment nodes may select parts of the same instance.
                match picked.get_mut(&i) {
                    Some(prev) => merge_selected(prev, copy),
                    None => {
                        picked.insert(i, copy);
                    }
                }
                selected_any = true;
            }
        }
    }
    if !selected_any && content.is_empty() {
        return None;
    }
    Some(picked.into_values().map(Node::Element).collect())
}

/// Puts the list keys of `original` first in `copy` if they are missing.
fn add_keys(s: &SNode, original: &Element, copy: &mut Element) {
    if s.kind != Kind::List {
        return;
    }
    let mut keys = Vec::new();
    for k in &s.keys {
        let present =
            copy.elements().any(|e| e.name == *k && e.namespace.as_deref() == Some(&s.namespace));
        if !present {
            if let Some(kv) = original
                .elements()
                .find(|e| e.name == *k && e.namespace.as_deref() == Some(&s.namespace))
            {
                keys.push(Node::Element(kv.clone()));
            }
        }
    }
    if !keys.is_empty() {
        keys.append(&mut copy.children);
        copy.children = keys;
    }
}

fn merge_selected(into: &mut Element, from: Element) {
    for n in from.children {
        if let Node::Element(e) = &n {
            if into.elements().any(|x| x == e) {
                continue;
            }
        }
        into.children.push(n);
    }
}

/// Why an XPath expression cannot be translated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum XPathError {
    /// A prefix with no namespace declaration in scope.
    UnboundPrefix(String),
    /// A namespace that no module of the schema has.
    UnknownNamespace(String),
}

impl std::fmt::Display for XPathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            XPathError::UnboundPrefix(p) => write!(f, "the prefix '{p}' is not declared"),
            XPathError::UnknownNamespace(ns) => {
                write!(f, "the namespace '{ns}' belongs to no module of this server")
            }
        }
    }
}

/// Rewrites the QName prefixes of an XPath expression written against XML namespace
/// declarations (`/if:interfaces/if:interface`) into module names
/// (`/ietf-interfaces:interfaces/ietf-interfaces:interface`), which is what libyang's JSON
/// form expects. String literals, axes (`child::`) and unprefixed names are left alone.
pub fn xpath_to_modules(expr: &str, scope: &Scope, model: &Model) -> Result<String, XPathError> {
    let chars: Vec<char> = expr.chars().collect();
    let mut out = String::with_capacity(expr.len() + 32);
    let mut i = 0;
    let is_start = |c: char| c.is_alphabetic() || c == '_';
    let is_name = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
    while let Some(&c) = chars.get(i) {
        if c == '\'' || c == '"' {
            let end = chars[i + 1..].iter().position(|&x| x == c).map(|p| i + 1 + p);
            let end = end.unwrap_or(chars.len() - 1);
            out.extend(&chars[i..=end]);
            i = end + 1;
            continue;
        }
        if c == '$' {
            // A variable reference: copy the name as it is.
            out.push(c);
            i += 1;
            while let Some(&x) = chars.get(i) {
                if !(is_name(x) || x == ':') {
                    break;
                }
                out.push(x);
                i += 1;
            }
            continue;
        }
        if is_start(c) && (i == 0 || !chars.get(i - 1).is_some_and(|&p| is_name(p))) {
            let start = i;
            while chars.get(i).is_some_and(|&x| is_name(x)) {
                i += 1;
            }
            let name: String = chars[start..i].iter().collect();
            let colon = chars.get(i) == Some(&':');
            let next = chars.get(i + 1).copied();
            if colon && next != Some(':') && next.is_some_and(|n| is_start(n) || n == '*') {
                let ns = scope
                    .resolve(Some(&name))
                    .ok_or_else(|| XPathError::UnboundPrefix(name.clone()))?;
                let module = model
                    .module_by_namespace(ns)
                    .ok_or_else(|| XPathError::UnknownNamespace(ns.to_string()))?;
                out.push_str(&module.name);
                out.push(':');
                i += 1;
            } else {
                out.push_str(&name);
            }
            continue;
        }
        out.push(c);
        i += 1;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{data_text, parse_data};
    use crate::schema::{ModuleSpec, Schema};
    use crate::xml;

    const IF: &str = "urn:ietf:params:xml:ns:yang:ietf-interfaces";

    fn schema() -> Schema {
        Schema::new(
            &[],
            &[ModuleSpec::new("ietf-interfaces", &[]), ModuleSpec::new("iana-if-type", &[])],
        )
        .expect("schema")
    }

    fn data() -> Element {
        let mut text = format!("<interfaces xmlns=\"{IF}\">");
        for (n, d) in [("eth0", "uplink"), ("eth1", "server")] {
            text.push_str(&format!(
                "<interface><name>{n}</name><description>{d}</description><type xmlns:ianaift=\"urn:ietf:params:xml:ns:yang:iana-if-type\">ianaift:ethernetCsmacd</type><enabled>true</enabled></interface>"
            ));
        }
        text.push_str("</interfaces>");
        parse_data(&text).expect("data")
    }

    fn filter(body: &str) -> Element {
        let mut e = xml::parse(format!("<filter>{body}</filter>").as_bytes()).expect("filter");
        e.strip_blank_text();
        e
    }

    fn run(body: &str) -> String {
        let s = schema();
        data_text(&subtree(s.model(), &data(), &filter(body)))
    }

    #[test]
    fn selection_containment_and_content_match() {
        // Selection node: the whole subtree.
        let all = run(&format!("<interfaces xmlns='{IF}'/>"));
        assert_eq!(all.matches("<interface>").count(), 2, "{all}");
        // Content match only: the whole entry.
        let one = run(&format!(
            "<interfaces xmlns='{IF}'><interface><name>eth1</name></interface></interfaces>"
        ));
        assert!(one.contains("server") && !one.contains("uplink"), "{one}");
        assert!(one.contains("<enabled>"), "{one}");
        // Content match plus selection: only the selected leaves (and the key).
        let some = run(&format!(
            "<interfaces xmlns='{IF}'><interface><name>eth0</name><description/></interface></interfaces>"
        ));
        assert!(some.contains("uplink") && !some.contains("<enabled>"), "{some}");
        // Selection without content match: keys are kept.
        let descr = run(&format!(
            "<interfaces xmlns='{IF}'><interface><description/></interface></interfaces>"
        ));
        assert_eq!(descr.matches("<name>").count(), 2, "{descr}");
        assert!(!descr.contains("<enabled>"), "{descr}");
        // No match, wrong namespace, empty filter: nothing.
        assert_eq!(
            run(&format!(
                "<interfaces xmlns='{IF}'><interface><name>eth9</name></interface></interfaces>"
            )),
            ""
        );
        assert_eq!(run("<interfaces xmlns='urn:other'/>"), "");
        assert_eq!(run(""), "");
        // No namespace: matches any.
        assert!(run("<interfaces xmlns=''/>").contains("eth0"));
    }

    #[test]
    fn xpath_prefixes_become_module_names() {
        let s = schema();
        let mut scope = Scope::new();
        let decl = xml::parse(format!("<f xmlns:i='{IF}'/>").as_bytes()).expect("xml");
        scope.enter(&decl);
        assert_eq!(
            xpath_to_modules("/i:interfaces/i:interface[i:name='a:b']/child::i:type", &scope, s.model()),
            Ok("/ietf-interfaces:interfaces/ietf-interfaces:interface[ietf-interfaces:name='a:b']/child::ietf-interfaces:type".to_string())
        );
        assert_eq!(
            xpath_to_modules("/x:y", &scope, s.model()),
            Err(XPathError::UnboundPrefix("x".into()))
        );
        assert_eq!(
            xpath_to_modules("count(/i:*) > 1", &scope, s.model()).as_deref(),
            Ok("count(/ietf-interfaces:*) > 1")
        );
    }
}
