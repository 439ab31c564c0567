//! Retrieval filters: RFC 6241 §6 subtree filtering on data trees (namespace selection,
//! containment, selection and content match nodes), and the translation of an XPath filter's
//! XML prefixes into the module names libyang evaluates (the `:xpath` capability, §8.9).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::yang::model::{Kind, Model, SNode};
use netconf_proto::xml::{Element, Node, Scope};

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
    subtree_limited(model, root, filter, u64::MAX).unwrap_or_else(|_| root.clone_shallow())
}

/// A filter whose evaluation would take more steps than allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooCostly {
    /// The most steps allowed.
    pub limit: u64,
}

/// [`subtree`], giving up after `max_steps` steps: a step is one filter node compared with
/// one data node, or 64 bytes of text compared. A filter costs its nodes times the data
/// nodes it is matched against at each level, so a large filter on large data can take
/// far longer than either's size suggests (DECISIONS.md, "The cost of a filter").
pub fn subtree_limited(
    model: &Model,
    root: &Element,
    filter: &Element,
    max_steps: u64,
) -> Result<Element, TooCostly> {
    let mut out = root.clone_shallow();
    if !filter.has_elements() {
        return Ok(out);
    }
    let mut steps = Steps { left: max_steps, limit: max_steps };
    if let Some(children) = select_children(model, None, root, filter, true, &mut steps)? {
        out.children = children;
    }
    Ok(out)
}

/// The steps a filter's evaluation may still take.
struct Steps {
    left: u64,
    limit: u64,
}

impl Steps {
    /// Takes one step, and one per 64 bytes of `text` compared.
    fn take(&mut self, text: usize) -> Result<(), TooCostly> {
        let cost = 1 + text as u64 / 64;
        self.left = self.left.checked_sub(cost).ok_or(TooCostly { limit: self.limit })?;
        Ok(())
    }
}

/// Whether data node `d` matches content match node `cm` whose text is `want`.
fn content_matches(
    cm: &Element,
    want: &str,
    d: &Element,
    steps: &mut Steps,
) -> Result<bool, TooCostly> {
    steps.take(0)?;
    if !matches_name(cm, d) {
        return Ok(false);
    }
    let text = d.text();
    steps.take(text.len() + want.len())?;
    Ok(text.trim() == want)
}

/// The children of `data` the filter sibling set (`filter`'s children) selects, in data
/// order; `None` if a content match failed or nothing was selected.
fn select_children(
    model: &Model,
    sdata: Option<&SNode>,
    data: &Element,
    filter: &Element,
    top: bool,
    steps: &mut Steps,
) -> Result<Option<Vec<Node>>, TooCostly> {
    let fchildren: Vec<&Element> = filter.elements().collect();
    let content: Vec<&Element> =
        fchildren.iter().copied().filter(|f| is_content_match(f)).collect();
    let wanted: Vec<String> = content.iter().map(|cm| cm.text().trim().to_string()).collect();
    // Every content match node must match some child.
    for (cm, want) in content.iter().zip(&wanted) {
        let mut found = false;
        for d in data.elements() {
            if content_matches(cm, want, d, steps)? {
                found = true;
                break;
            }
        }
        if !found {
            return Ok(None);
        }
    }
    let others: Vec<&Element> =
        fchildren.iter().copied().filter(|f| !is_content_match(f)).collect();
    if others.is_empty() && !top {
        // Only content match nodes, all true: the whole node. At the top there is no node
        // whose content they test, only the datastore: they select the top-level nodes they
        // match and nothing else (RFC 6241 §6.2.5), never every module's data.
        return Ok(Some(data.children.clone()));
    }
    // (index in data, filtered copy)
    let mut picked: BTreeMap<usize, Element> = BTreeMap::new();
    // Those picked whole: copied once, however many filter nodes select them.
    let mut whole: BTreeSet<usize> = BTreeSet::new();
    let mut selected_any = false;
    for (i, d) in data.elements().enumerate() {
        for (cm, want) in content.iter().zip(&wanted) {
            if content_matches(cm, want, d, steps)? && whole.insert(i) {
                picked.insert(i, d.clone());
            }
        }
    }
    for f in &others {
        for (i, d) in data.elements().enumerate() {
            steps.take(0)?;
            if !matches_name(f, d) {
                continue;
            }
            if !f.has_elements() {
                // Selection node: the whole subtree.
                if whole.insert(i) {
                    picked.insert(i, d.clone());
                }
                selected_any = true;
                continue;
            }
            let sd = model.child_of(sdata, d.namespace.as_deref().unwrap_or_default(), &d.name);
            if let Some(children) = select_children(model, sd.map(Arc::as_ref), d, f, false, steps)?
            {
                let mut copy = d.clone_shallow();
                copy.children = children;
                if let Some(s) = sd {
                    add_keys(s, d, &mut copy);
                }
                // Several containment nodes may select parts of the same instance.
                match picked.get_mut(&i) {
                    Some(_) if whole.contains(&i) => {}
                    Some(prev) => merge_selected(prev, copy, steps)?,
                    None => {
                        picked.insert(i, copy);
                    }
                }
                selected_any = true;
            }
        }
    }
    if !selected_any && content.is_empty() {
        return Ok(None);
    }
    Ok(Some(picked.into_values().map(Node::Element).collect()))
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

fn merge_selected(into: &mut Element, from: Element, steps: &mut Steps) -> Result<(), TooCostly> {
    for n in from.children {
        if let Node::Element(e) = &n {
            steps.take(0)?;
            let mut seen = false;
            for x in into.elements() {
                steps.take(0)?;
                if x == e {
                    seen = true;
                    break;
                }
            }
            if seen {
                continue;
            }
        }
        into.children.push(n);
    }
    Ok(())
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
    use crate::yang::data::{data_text, parse_data};
    use crate::yang::schema::{ModuleSpec, Schema};
    use netconf_proto::xml;

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
