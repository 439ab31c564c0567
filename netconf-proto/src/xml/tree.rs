//! The tree: elements with their resolved namespaces, the namespace declarations in scope
//! while walking one, and how a tree is written back as text.

use std::borrow::Cow;

use compact_str::CompactString;
use std::sync::Arc;

/// An attribute (namespace declarations are kept apart, in [`Element::namespaces`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribute {
    /// The resolved namespace; unprefixed attributes have none.
    pub namespace: Option<String>,
    /// The prefix as written.
    pub prefix: Option<String>,
    /// The local name.
    pub name: CompactString,
    /// The value, unescaped.
    pub value: String,
}

/// A node of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// A child element.
    Element(Element),
    /// Character data (text and CDATA), unescaped.
    Text(CompactString),
}

/// An element with its resolved namespace.
#[derive(Debug, Clone, Default)]
pub struct Element {
    /// The resolved namespace, if any (shared: a tree has few distinct namespaces, and an
    /// element's own copy cost an allocation per element in every parse and clone).
    pub namespace: Option<Arc<str>>,
    /// The local name.
    pub name: CompactString,
    /// The prefix as written, namespace declarations and attributes, which few elements have:
    /// kept apart so that an element is small (a large configuration's tree is mostly leaves
    /// without any of them, and it is built, copied and moved whole on every edit).
    extra: Option<Box<Extra>>,
    /// Children in document order.
    pub children: Vec<Node>,
}

/// The rarely present parts of an [`Element`].
#[derive(Debug, Clone, Default)]
struct Extra {
    prefix: Option<String>,
    namespaces: Vec<(Option<String>, String)>,
    attributes: Vec<Attribute>,
}

impl PartialEq for Element {
    fn eq(&self, other: &Element) -> bool {
        // (An element whose extra parts were emptied equals one that never had any.)
        self.namespace == other.namespace
            && self.name == other.name
            && self.prefix() == other.prefix()
            && self.namespaces() == other.namespaces()
            && self.attributes() == other.attributes()
            && self.children == other.children
    }
}

impl Eq for Element {}

impl Element {
    /// The prefix as written.
    pub fn prefix(&self) -> Option<&str> {
        self.extra.as_ref()?.prefix.as_deref()
    }

    /// Sets the prefix as written (`None` takes no room).
    pub fn set_prefix(&mut self, prefix: Option<String>) {
        if prefix.is_some() || self.extra.is_some() {
            self.extra_mut().prefix = prefix;
        }
    }

    /// Namespace declarations made on this element: (prefix, URI); `None` is the default
    /// namespace.
    pub fn namespaces(&self) -> &[(Option<String>, String)] {
        self.extra.as_ref().map_or(&[], |x| &x.namespaces)
    }

    /// The namespace declarations, to change (makes room for them).
    pub fn namespaces_mut(&mut self) -> &mut Vec<(Option<String>, String)> {
        &mut self.extra_mut().namespaces
    }

    /// Keeps the namespace declarations for which `keep` holds.
    pub fn retain_namespaces(&mut self, keep: impl FnMut(&(Option<String>, String)) -> bool) {
        if let Some(x) = &mut self.extra {
            x.namespaces.retain(keep);
        }
    }

    /// Attributes other than namespace declarations.
    pub fn attributes(&self) -> &[Attribute] {
        self.extra.as_ref().map_or(&[], |x| &x.attributes)
    }

    /// The attributes, to change (makes room for them).
    pub fn attributes_mut(&mut self) -> &mut Vec<Attribute> {
        &mut self.extra_mut().attributes
    }

    /// Keeps the attributes for which `keep` holds.
    pub fn retain_attributes(&mut self, keep: impl FnMut(&Attribute) -> bool) {
        if let Some(x) = &mut self.extra {
            x.attributes.retain(keep);
        }
    }

    fn extra_mut(&mut self) -> &mut Extra {
        self.extra.get_or_insert_with(Box::default)
    }

    /// About how many heap bytes this element's prefix, declarations and attributes take
    /// (not its children): what a parse charges its memory budget beyond the element itself.
    pub(crate) fn extra_size(&self) -> usize {
        let Some(x) = &self.extra else { return 0 };
        let string = |s: &Option<String>| s.as_ref().map_or(0, String::capacity);
        let declarations: usize = x.namespaces.iter().map(|(p, u)| string(p) + u.capacity()).sum();
        let attributes: usize = x
            .attributes
            .iter()
            .map(|a| string(&a.namespace) + string(&a.prefix) + a.name.len() + a.value.capacity())
            .sum();
        std::mem::size_of::<Extra>()
            + string(&x.prefix)
            + x.namespaces.capacity() * std::mem::size_of::<(Option<String>, String)>()
            + x.attributes.capacity() * std::mem::size_of::<Attribute>()
            + declarations
            + attributes
    }
}

// ===== impl Element =====

impl Element {
    /// Whether this element is `name` in namespace `ns`.
    pub fn is(&self, ns: &str, name: &str) -> bool {
        self.name == name && self.namespace.as_deref() == Some(ns)
    }

    /// Child elements in document order.
    pub fn elements(&self) -> impl Iterator<Item = &Element> {
        self.children.iter().filter_map(|n| match n {
            Node::Element(e) => Some(e),
            Node::Text(_) => None,
        })
    }

    /// This element and all the elements under it.
    pub fn element_count(&self) -> usize {
        1 + self.elements().map(Element::element_count).sum::<usize>()
    }

    /// The first child element `name` in namespace `ns`.
    pub fn child(&self, ns: &str, name: &str) -> Option<&Element> {
        self.elements().find(|e| e.is(ns, name))
    }

    /// The concatenated text content of this element's direct text children.
    pub fn text(&self) -> String {
        match self.children.as_slice() {
            // (The common case, copied at its size: collecting grew the string from empty.)
            [Node::Text(t)] => t.to_string(),
            children => children
                .iter()
                .filter_map(|n| match n {
                    Node::Text(t) => Some(t.as_str()),
                    Node::Element(_) => None,
                })
                .collect(),
        }
    }

    /// [`Element::text`] as an inline string when short (a single text child is copied as
    /// it is).
    pub fn text_compact(&self) -> CompactString {
        match self.children.as_slice() {
            [Node::Text(t)] => t.clone(),
            _ => self.text().into(),
        }
    }

    /// Whether any direct text child holds more than whitespace.
    pub fn has_text(&self) -> bool {
        self.children.iter().any(|n| matches!(n, Node::Text(t) if !t.trim().is_empty()))
    }

    /// The value of the unqualified attribute `name`.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes()
            .iter()
            .find(|a| a.namespace.is_none() && a.name == name)
            .map(|a| a.value.as_str())
    }

    /// The name as written (`prefix:name` or `name`).
    pub fn qualified_name(&self) -> String {
        match self.prefix() {
            Some(p) => format!("{p}:{}", self.name),
            None => self.name.to_string(),
        }
    }
}

impl Element {
    /// An element `name` in namespace `ns`, without children.
    pub fn new(ns: &str, name: &str) -> Element {
        Element::named(Some(ns.into()), name.into())
    }

    /// An element `name` in `namespace` (a shared one), without children.
    pub fn named(namespace: Option<Arc<str>>, name: CompactString) -> Element {
        Element { namespace, name, extra: None, children: Vec::new() }
    }

    /// An element holding only `text`.
    pub fn leaf(ns: &str, name: &str, text: impl Into<CompactString>) -> Element {
        let mut e = Element::new(ns, name);
        e.children.push(Node::Text(text.into()));
        e
    }

    /// A copy without children.
    pub fn clone_shallow(&self) -> Element {
        Element {
            namespace: self.namespace.clone(),
            name: self.name.clone(),
            extra: self.extra.clone(),
            children: Vec::new(),
        }
    }

    /// Appends a child element (builder style).
    pub fn with(mut self, child: Element) -> Element {
        self.children.push(Node::Element(child));
        self
    }

    /// Appends a child element.
    pub fn push(&mut self, child: Element) {
        self.children.push(Node::Element(child));
    }

    /// Child elements in document order, mutable.
    pub fn elements_mut(&mut self) -> impl Iterator<Item = &mut Element> {
        self.children.iter_mut().filter_map(|n| match n {
            Node::Element(e) => Some(e),
            Node::Text(_) => None,
        })
    }

    /// Whether the element has child elements.
    pub fn has_elements(&self) -> bool {
        self.children.iter().any(|n| matches!(n, Node::Element(_)))
    }

    /// The attribute `name` in namespace `ns`.
    pub fn attribute_ns(&self, ns: &str, name: &str) -> Option<&str> {
        self.attributes()
            .iter()
            .find(|a| a.namespace.as_deref() == Some(ns) && a.name == name)
            .map(|a| a.value.as_str())
    }

    /// Removes whitespace-only text between child elements, recursively (text of elements
    /// without child elements is kept as it is).
    pub fn strip_blank_text(&mut self) {
        if self.has_elements() {
            self.children.retain(|n| !matches!(n, Node::Text(t) if t.trim().is_empty()));
            for c in self.elements_mut() {
                c.strip_blank_text();
            }
        }
    }

    /// The element as a standalone XML document fragment (its namespace declared on it).
    pub fn to_xml(&self) -> String {
        let mut out = String::new();
        self.write_xml(&mut out, None);
        out
    }

    /// Appends the element's XML to `out`; `parent_ns` is the default namespace in force
    /// where it is written. Elements are written unprefixed (a default namespace declaration
    /// wherever the namespace changes); prefixed declarations made on the element are kept (a
    /// value such as an identityref may use them), and prefixes used by namespaced
    /// attributes are declared as needed.
    pub fn write_xml(&self, out: &mut String, parent_ns: Option<&str>) {
        use std::fmt::Write as _;
        out.push('<');
        out.push_str(&self.name);
        match (self.namespace.as_deref(), parent_ns) {
            (Some(ns), p) if p != Some(ns) => {
                let _ = write!(out, " xmlns=\"{}\"", escape_attr(ns));
            }
            (None, Some(_)) => out.push_str(" xmlns=\"\""),
            _ => {}
        }
        for (prefix, uri) in self.namespaces() {
            if let Some(p) = prefix {
                let _ = write!(out, " xmlns:{p}=\"{}\"", escape_attr(uri));
            }
        }
        let mut extra: Vec<(String, &str)> = Vec::new();
        for (i, a) in self.attributes().iter().enumerate() {
            match a.namespace.as_deref() {
                None => {
                    let _ = write!(out, " {}=\"{}\"", a.name, escape_attr(&a.value));
                }
                Some(ns) => {
                    let declared = |p: &str| {
                        self.namespaces().iter().any(|(q, u)| q.as_deref() == Some(p) && u == ns)
                            || extra.iter().any(|(q, u)| q == p && *u == ns)
                    };
                    let clash = |p: &str| {
                        self.namespaces().iter().any(|(q, u)| q.as_deref() == Some(p) && u != ns)
                            || extra.iter().any(|(q, u)| q == p && *u != ns)
                    };
                    let prefix = match a.prefix.as_deref() {
                        Some(p) if p != "xml" && p != "xmlns" && !clash(p) => p.to_string(),
                        Some("xml") => "xml".to_string(),
                        _ => format!("a{i}"),
                    };
                    if prefix != "xml" && !declared(&prefix) {
                        let _ = write!(out, " xmlns:{prefix}=\"{}\"", escape_attr(ns));
                        extra.push((prefix.clone(), ns));
                    }
                    let _ = write!(out, " {prefix}:{}=\"{}\"", a.name, escape_attr(&a.value));
                }
            }
        }
        if self.children.is_empty() {
            out.push_str("/>");
            return;
        }
        out.push('>');
        for child in &self.children {
            match child {
                Node::Text(t) => out.push_str(&escape_text(t)),
                Node::Element(e) => e.write_xml(out, self.namespace.as_deref()),
            }
        }
        out.push_str("</");
        out.push_str(&self.name);
        out.push('>');
    }
}

/// The children of `parent` written one after the other (each declaring its namespace
/// relative to `parent_ns`).
pub fn write_children(parent: &Element, out: &mut String, parent_ns: Option<&str>) {
    for child in &parent.children {
        match child {
            Node::Text(t) => out.push_str(&escape_text(t)),
            Node::Element(e) => e.write_xml(out, parent_ns),
        }
    }
}

/// Namespace declarations in scope, innermost last (for resolving prefixes in values such as
/// identityrefs and XPath expressions).
#[derive(Debug, Clone, Default)]
pub struct Scope {
    decls: Vec<(Option<String>, String)>,
    marks: Vec<usize>,
}

impl Scope {
    /// An empty scope.
    pub fn new() -> Self {
        Scope::default()
    }

    /// Enters `element`: its declarations come into scope.
    pub fn enter(&mut self, element: &Element) {
        self.marks.push(self.decls.len());
        self.decls.extend(element.namespaces().iter().cloned());
    }

    /// Leaves the element last entered.
    pub fn leave(&mut self) {
        if let Some(m) = self.marks.pop() {
            self.decls.truncate(m);
        }
    }

    /// The namespace bound to `prefix` (`None`: the default namespace).
    pub fn resolve(&self, prefix: Option<&str>) -> Option<&str> {
        self.decls.iter().rev().find(|(p, _)| p.as_deref() == prefix).map(|(_, u)| u.as_str())
    }

    /// Every prefixed binding in scope, innermost first, each prefix once.
    pub fn prefixed(&self) -> Vec<(&str, &str)> {
        let mut seen: Vec<(&str, &str)> = Vec::new();
        for (p, u) in self.decls.iter().rev() {
            if let Some(p) = p.as_deref() {
                if !seen.iter().any(|(q, _)| *q == p) {
                    seen.push((p, u.as_str()));
                }
            }
        }
        seen
    }
}

// ===== writing =====

/// Escapes text content. A character XML 1.0 does not allow (2.2 `Char`: the C0 controls
/// other than tab, LF and CR, U+FFFE, U+FFFF) is written as U+FFFD: no character reference can
/// stand for it, and one in a reply makes every client's parser refuse the whole reply.
pub fn escape_text(s: &str) -> Cow<'_, str> {
    match xml_chars(s) {
        Cow::Borrowed(s) => quick_xml::escape::partial_escape(s),
        Cow::Owned(s) => Cow::Owned(quick_xml::escape::partial_escape(&s).into_owned()),
    }
}

/// Escapes an attribute value (double-quoted), XML-invalid characters as in [`escape_text`].
pub fn escape_attr(s: &str) -> Cow<'_, str> {
    match xml_chars(s) {
        Cow::Borrowed(s) => quick_xml::escape::escape(s),
        Cow::Owned(s) => Cow::Owned(quick_xml::escape::escape(&s).into_owned()),
    }
}

/// `s` with every character XML 1.0 does not allow replaced by U+FFFD.
fn xml_chars(s: &str) -> Cow<'_, str> {
    if s.chars().all(is_xml_char) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(s.chars().map(|c| if is_xml_char(c) { c } else { '\u{fffd}' }).collect())
}

/// XML 1.0's `Char` (a Rust `char` is never a surrogate).
pub fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{fffd}' | '\u{10000}'..='\u{10ffff}')
}
