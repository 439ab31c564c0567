//! The XML parser: quick-xml's reader for the syntax, namespaces resolved here.
//!
//! Why not quick-xml's namespace-aware reader: it parses every start tag's attributes twice
//! (once for its declarations, once more for ours) and copies each declaration into a buffer
//! of its own, which cost about a fifth of parsing a large edit. Here each tag's attributes are
//! read once and the declarations in scope are a stack of (prefix, URI) pairs whose URIs are
//! shared with the elements. The rules are quick-xml's (`reference.rs` keeps its reader as a test
//! reference, and a property test compares the two): `xml` is bound to the XML namespace and
//! may only be declared as that, `xmlns` may not be declared, no other prefix may be bound to
//! either namespace, `xmlns:p=""` unbinds `p`, `xmlns=""` leaves elements in no namespace,
//! unprefixed attributes are in none, and at most 128 declarations are in scope. One
//! difference: a declaration's URI is its value after entity references are replaced, as the
//! Namespaces recommendation says (quick-xml keeps the raw text, so `a&amp;b` named another
//! namespace than `a&b`).

use compact_str::CompactString;
use std::sync::Arc;

use quick_xml::events::{BytesStart, Event};
use quick_xml::name::{NamespaceError, PrefixDeclaration, QName};
use quick_xml::Reader;

use thiserror::Error;

use super::tree::{Attribute, Element, Node};

/// The namespace the prefix `xml` is bound to in every document.
const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";
/// The namespace of the prefix `xmlns` (declarations themselves).
const XMLNS_NS: &str = "http://www.w3.org/2000/xmlns/";
/// Declarations in scope at once (quick-xml's default limit).
const MAX_BINDINGS: usize = 128;
/// Distinct namespace URIs whose one copy the elements share. A message uses a handful; the
/// search is linear, so a message declaring a new URI on every element must not make it
/// quadratic (beyond these, each declaration keeps its own copy, which its text paid for).
const MAX_SHARED_URIS: usize = 32;

/// How deep elements may nest before a document is refused (keeps recursion bounded): the
/// most any parse allows, and [`ParseLimits`] may allow less.
pub const MAX_DEPTH: usize = 512;

/// What parsing one client message may build (DECISIONS.md, "A memory budget for requests").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseLimits {
    /// Most elements.
    pub max_elements: usize,
    /// Deepest nesting, at most [`MAX_DEPTH`].
    pub max_depth: usize,
}

impl ParseLimits {
    /// No limit but [`MAX_DEPTH`]: for text the server wrote itself.
    pub const TRUSTED: ParseLimits = ParseLimits { max_elements: usize::MAX, max_depth: MAX_DEPTH };
}

/// Why a message is not acceptable XML.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum XmlError {
    /// The message is not valid UTF-8.
    #[error("the message is not valid UTF-8")]
    NotUtf8,
    /// The parser rejected the document (the text says where and why).
    #[error("not well-formed XML at byte {position}: {reason}")]
    Syntax {
        /// Byte offset in the message.
        position: u64,
        /// The parser's explanation.
        reason: String,
    },
    /// No root element.
    #[error("the message holds no XML element")]
    NoRoot,
    /// A second top-level element or non-blank text outside the root element.
    #[error("content after the root element")]
    TrailingContent,
    /// A prefix with no namespace declaration in scope.
    #[error("the prefix of '{0}' is not bound to a namespace")]
    UnboundPrefix(String),
    /// A document type declaration (refused: no DTDs, no entity expansion).
    #[error("document type declarations are not allowed")]
    DocType,
    /// A character XML 1.0 does not allow (a C0 control other than tab, LF and CR, U+FFFE,
    /// U+FFFF), raw or by reference, in text or an attribute value: the document is not
    /// well-formed (XML 1.0 §2.2), and no writer could give it back.
    #[error(
        "not well-formed XML at byte {position}: character U+{code:04X} is not allowed in XML 1.0"
    )]
    InvalidChar {
        /// Byte offset in the message (of the text or tag that holds it).
        position: u64,
        /// The character's code point.
        code: u32,
    },
    /// An entity reference other than the five predefined ones or a character reference.
    #[error("unknown entity reference '&{0};'")]
    UnknownEntity(String),
    /// Elements nested deeper than the limit.
    #[error("elements nested more than {limit} deep")]
    TooDeep {
        /// The deepest nesting allowed.
        limit: usize,
    },
    /// More elements than the limit.
    #[error("more than {limit} elements")]
    TooManyElements {
        /// The most elements allowed.
        limit: usize,
    },
    /// The memory budget refused what the parse would build.
    #[error("the server's memory budget for requests cannot hold the parsed message")]
    OverBudget,
}

/// Parses one XML document into its root element.
pub fn parse(bytes: &[u8]) -> Result<Element, XmlError> {
    parse_limited(bytes, ParseLimits::TRUSTED, &mut |_| true)
}

/// Parses one XML document within `limits`, telling `charge` as it goes how many more bytes
/// the tree built so far holds (an estimate; in steps of at most 64 KiB); a `false` from it
/// ends the parse with [`XmlError::OverBudget`].
pub fn parse_limited(
    bytes: &[u8],
    limits: ParseLimits,
    charge: &mut dyn FnMut(usize) -> bool,
) -> Result<Element, XmlError> {
    let text = std::str::from_utf8(bytes).map_err(|_| XmlError::NotUtf8)?;
    let mut reader = Reader::from_str(text);
    reader.config_mut().check_end_names = true;

    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    let mut scope = Scope::default();
    let mut meter = Meter { limits, elements: 0, pending: 0, charge };
    loop {
        let position = reader.buffer_position();
        let syntax = |e: quick_xml::Error| XmlError::Syntax { position, reason: e.to_string() };
        match reader.read_event().map_err(syntax)? {
            Event::Start(_) | Event::Empty(_) if root.is_some() => {
                return Err(XmlError::TrailingContent);
            }
            Event::Start(_) | Event::Empty(_) if stack.len() >= limits.max_depth => {
                return Err(XmlError::TooDeep { limit: limits.max_depth });
            }
            Event::Start(start) => {
                let element = scope.open(&start, position)?;
                meter.element(&element)?;
                stack.push(element);
            }
            Event::Empty(start) => {
                let element = scope.open(&start, position)?;
                meter.element(&element)?;
                scope.close();
                attach(&mut stack, &mut root, element);
            }
            Event::End(_) => match stack.pop() {
                Some(element) => {
                    scope.close();
                    attach(&mut stack, &mut root, element);
                }
                None => return Err(unmatched_end(position)),
            },
            other => {
                meter.text(&other)?;
                if other_event(other, &mut stack, position)? {
                    break;
                }
            }
        }
    }
    meter.flush()?;
    finish(&stack, root, reader.buffer_position())
}

/// The root element's start tag alone (name, namespace, attributes; no children), if
/// `bytes` begin with a well-formed one: what a reply to a message that cannot be parsed
/// whole echoes.
pub fn parse_root_tag(bytes: &[u8]) -> Option<Element> {
    // The tag may be followed by anything, even a cut-off character.
    let valid = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).ok()?,
    };
    let mut reader = Reader::from_str(valid);
    let mut scope = Scope::default();
    loop {
        let position = reader.buffer_position();
        match reader.read_event().ok()? {
            Event::Start(start) | Event::Empty(start) => return scope.open(&start, position).ok(),
            Event::Decl(_) | Event::Comment(_) | Event::PI(_) => {}
            Event::Text(t) if t.as_ref().trim().is_empty() => {}
            _ => return None,
        }
    }
}

/// Counts what a parse builds against its limits and budget.
struct Meter<'a> {
    limits: ParseLimits,
    elements: usize,
    /// Bytes built but not yet charged.
    pending: usize,
    charge: &'a mut dyn FnMut(usize) -> bool,
}

impl Meter<'_> {
    /// Charged at once, not byte by byte: the budget is shared between threads.
    const STEP: usize = 64 * 1024;
    /// An element's place in its parent's children (a vector that may have doubled).
    const ELEMENT: usize = 2 * std::mem::size_of::<Node>();

    fn element(&mut self, e: &Element) -> Result<(), XmlError> {
        self.elements += 1;
        if self.elements > self.limits.max_elements {
            return Err(XmlError::TooManyElements { limit: self.limits.max_elements });
        }
        self.add(Self::ELEMENT + e.extra_size())
    }

    /// Text becomes a node of its own or grows the one before it.
    fn text(&mut self, event: &Event<'_>) -> Result<(), XmlError> {
        let len = match event {
            Event::Text(t) => t.len(),
            Event::CData(c) => c.len(),
            Event::GeneralRef(r) => r.len(),
            _ => return Ok(()),
        };
        self.add(std::mem::size_of::<Node>() + len)
    }

    fn add(&mut self, bytes: usize) -> Result<(), XmlError> {
        self.pending += bytes;
        if self.pending >= Self::STEP {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), XmlError> {
        let bytes = std::mem::take(&mut self.pending);
        if bytes > 0 && !(self.charge)(bytes) {
            return Err(XmlError::OverBudget);
        }
        Ok(())
    }
}

/// The namespace declarations in scope.
#[derive(Default)]
struct Scope {
    /// Innermost last: (prefix, URI); no prefix declares the default namespace, and an empty
    /// URI undeclares (the default namespace, or a prefix).
    bindings: Vec<(Option<CompactString>, Arc<str>)>,
    /// For each open element, how many declarations were in scope before its own.
    marks: Vec<usize>,
    /// The URIs seen so far: a message uses a handful, and its elements share them.
    uris: Vec<Arc<str>>,
}

impl Scope {
    /// URI `uri`, shared with the elements already in it.
    fn uri(&mut self, uri: &str) -> Arc<str> {
        if let Some(known) = self.uris.iter().find(|u| ***u == *uri) {
            return known.clone();
        }
        let new: Arc<str> = uri.into();
        if self.uris.len() < MAX_SHARED_URIS {
            self.uris.push(new.clone());
        }
        new
    }

    /// The namespace `prefix` names here: `Ok(None)` for an element or attribute in no
    /// namespace, `Err(())` for a prefix bound to none.
    fn resolve(&self, prefix: Option<&str>) -> Result<Option<Arc<str>>, ()> {
        match prefix {
            Some("xml") => return Ok(Some(XML_NS.into())),
            Some("xmlns") => return Ok(Some(XMLNS_NS.into())),
            _ => {}
        }
        match self.bindings.iter().rev().find(|(p, _)| p.as_deref() == prefix) {
            Some((_, uri)) if !uri.is_empty() => Ok(Some(uri.clone())),
            // `xmlns=""`, or no default namespace declared: in none.
            _ if prefix.is_none() => Ok(None),
            // Not declared, or undeclared by `xmlns:p=""`.
            _ => Err(()),
        }
    }

    /// A start tag: its declarations come into scope (until `close`), then its element with
    /// its name and attributes resolved.
    fn open(&mut self, start: &BytesStart<'_>, position: u64) -> Result<Element, XmlError> {
        self.marks.push(self.bindings.len());
        let syntax = |reason: String| XmlError::Syntax { position, reason };
        let (local, prefix) = start.name().decompose();
        let mut element = Element::named(None, local.as_ref().into());
        // (Attributes other than declarations, resolved once all declarations are in.)
        let mut plain: Vec<(QName<'_>, String)> = Vec::new();
        for attr in start.attributes() {
            let attr = attr.map_err(|e| syntax(e.to_string()))?;
            let value = attr
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map_err(|e| syntax(e.to_string()))?
                .into_owned();
            xml_chars(&value, position)?;
            match attr.key.as_namespace_binding() {
                Some(decl) => {
                    let prefix = self.declare(decl, &value).map_err(|e| syntax(e.to_string()))?;
                    element.namespaces_mut().push((prefix, value));
                }
                None => plain.push((attr.key, value)),
            }
        }
        let prefix = prefix.map(|p| p.into_inner());
        let qualified = |name: &str, prefix: Option<&str>| {
            XmlError::UnboundPrefix(format!("{}:{name}", prefix.unwrap_or_default()))
        };
        element.namespace = self.resolve(prefix).map_err(|()| qualified(local.as_ref(), prefix))?;
        element.set_prefix(prefix.map(str::to_string));
        if !plain.is_empty() {
            let attributes = element.attributes_mut();
            for (key, value) in plain {
                let (name, prefix) = key.decompose();
                let namespace = match prefix {
                    // Unprefixed attributes are in no namespace.
                    None => None,
                    Some(p) => self
                        .resolve(Some(p.as_ref()))
                        .map_err(|()| qualified(name.as_ref(), Some(p.as_ref())))?,
                };
                attributes.push(Attribute {
                    namespace: namespace.map(|ns| ns.to_string()),
                    prefix: prefix.map(|p| p.as_ref().to_string()),
                    name: name.as_ref().into(),
                    value,
                });
            }
        }
        Ok(element)
    }

    /// Brings declaration `decl` of URI `uri` into scope, by quick-xml's rules (see the module
    /// comment); returns the prefix it declares.
    fn declare(
        &mut self,
        decl: PrefixDeclaration<'_>,
        uri: &str,
    ) -> Result<Option<String>, NamespaceError> {
        let prefix = match decl {
            PrefixDeclaration::Default => None,
            PrefixDeclaration::Named("xml") if uri == XML_NS => return Ok(Some("xml".into())),
            PrefixDeclaration::Named("xml") => {
                return Err(NamespaceError::InvalidXmlPrefixBind(uri.to_string()));
            }
            PrefixDeclaration::Named("xmlns") => {
                return Err(NamespaceError::InvalidXmlnsPrefixBind(uri.to_string()));
            }
            PrefixDeclaration::Named(p) if uri == XML_NS => {
                return Err(NamespaceError::InvalidPrefixForXml(p.to_string()));
            }
            PrefixDeclaration::Named(p) if uri == XMLNS_NS => {
                return Err(NamespaceError::InvalidPrefixForXmlns(p.to_string()));
            }
            PrefixDeclaration::Named(p) => Some(p),
        };
        if self.bindings.len() >= MAX_BINDINGS {
            return Err(NamespaceError::TooManyBindings(MAX_BINDINGS));
        }
        let shared = self.uri(uri);
        self.bindings.push((prefix.map(CompactString::from), shared));
        Ok(prefix.map(str::to_string))
    }

    /// An element ends: its declarations leave scope.
    fn close(&mut self) {
        if let Some(mark) = self.marks.pop() {
            self.bindings.truncate(mark);
        }
    }
}

/// An end tag with no element open.
pub(super) fn unmatched_end(position: u64) -> XmlError {
    XmlError::Syntax { position, reason: "end tag without start tag".into() }
}

/// The document's root once the input has ended at `position` (`stack`: the elements still
/// open).
pub(super) fn finish(
    stack: &[Element],
    root: Option<Element>,
    position: u64,
) -> Result<Element, XmlError> {
    if !stack.is_empty() {
        return Err(XmlError::Syntax {
            position,
            reason: "unclosed element at end of message".into(),
        });
    }
    root.ok_or(XmlError::NoRoot)
}

/// An event other than a start or end tag (in both parsers, this one and the test reference):
/// text, CDATA and references go to the open element, a document type declaration is refused,
/// declarations, processing instructions and comments are skipped. Returns whether the
/// document ended.
pub(super) fn other_event(
    event: Event<'_>,
    stack: &mut [Element],
    position: u64,
) -> Result<bool, XmlError> {
    let syntax = |e: quick_xml::Error| XmlError::Syntax { position, reason: e.to_string() };
    match event {
        Event::Text(t) => push_text(stack, xml_chars(&t.xml10_content(), position)?)?,
        Event::CData(c) => push_text(stack, xml_chars(&c.xml10_content(), position)?)?,
        Event::GeneralRef(r) => {
            let resolved = if r.is_char_ref() {
                r.resolve_char_ref()
                    .map_err(syntax)?
                    .map(String::from)
                    .ok_or_else(|| XmlError::UnknownEntity(r.xml10_content().into_owned()))?
            } else {
                let name = r.xml10_content();
                quick_xml::escape::resolve_predefined_entity(&name)
                    .map(str::to_string)
                    .ok_or_else(|| XmlError::UnknownEntity(name.into_owned()))?
            };
            push_text(stack, xml_chars(&resolved, position)?)?;
        }
        Event::DocType(_) => return Err(XmlError::DocType),
        Event::Eof => return Ok(true),
        // (Tags are the caller's.)
        Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
        Event::Start(_) | Event::Empty(_) | Event::End(_) => {}
    }
    Ok(false)
}

pub(super) fn attach(stack: &mut [Element], root: &mut Option<Element>, element: Element) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(Node::Element(element)),
        None => *root = Some(element),
    }
}

/// `text` if every character of it is one XML 1.0 allows.
fn xml_chars(text: &str, position: u64) -> Result<&str, XmlError> {
    match text.chars().find(|c| !super::tree::is_xml_char(*c)) {
        Some(c) => Err(XmlError::InvalidChar { position, code: u32::from(c) }),
        None => Ok(text),
    }
}

fn push_text(stack: &mut [Element], text: &str) -> Result<(), XmlError> {
    match stack.last_mut() {
        Some(parent) => {
            if let Some(Node::Text(prev)) = parent.children.last_mut() {
                prev.push_str(text);
            } else if parent.children.capacity() == 0 {
                // Most text is a leaf's value, its only child: no room for more.
                parent.children = vec![Node::Text(text.into())];
            } else {
                parent.children.push(Node::Text(text.into()));
            }
            Ok(())
        }
        // Outside the root element only whitespace may appear.
        None if text.trim().is_empty() => Ok(()),
        None => Err(XmlError::TrailingContent),
    }
}
