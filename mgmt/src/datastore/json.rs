//! An edited configuration written as RFC 7951 JSON for libyang to parse and validate, when
//! its XML text would give exactly the same tree.
//!
//! Why: libyang parses the same configuration from JSON with about a third fewer
//! instructions than from XML (no namespace lookup for each element, a simpler lexer), and a
//! large edit's whole configuration goes through that parse (BENCHMARKS.md, NETCONF server).
//! The XML text stays the configuration's text; JSON is only what libyang is fed.
//!
//! What the XML text alone says exactly is written; anything else gives `None`, and the
//! caller parses the XML: a node the model does not know, attributes, mixed content, anydata,
//! a leaf given twice, and values whose JSON form needs more than their text: unions (which
//! member a value is depends on how it is written), instance-identifiers, numbers not in JSON's
//! number syntax, strings holding a colon (an XPath or instance-identifier in a string type
//! names modules by XML prefix, in JSON by module name), identityrefs whose prefix is not
//! declared. A configuration libyang refuses is parsed again from XML, so that errors read as
//! they always did; debug builds check that both parses give the same tree.

use crate::yang::model::{JsonValue, Kind, Model, SNode};
use netconf_proto::xml::{Element, Node};

/// The JSON text of a normalized configuration tree (its root holding the top-level nodes),
/// or `None` when only its XML text says exactly what it is.
pub fn json_text(model: &Model, root: &Element) -> Option<String> {
    let mut out = String::with_capacity(4096);
    let mut scope: Vec<&[(Option<String>, String)]> = vec![root.namespaces()];
    write_members(model, None, root, &mut scope, &mut out)?;
    Some(out)
}

/// `{...}` with the children of `e` (schema node `s`, `None` at the top) as members: each
/// node once, a list's or leaf-list's instances in one array in document order.
fn write_members<'a>(
    model: &Model,
    s: Option<&SNode>,
    e: &'a Element,
    scope: &mut Vec<&'a [(Option<String>, String)]>,
    out: &mut String,
) -> Option<()> {
    // (Schema node, its instances), in order of first appearance.
    let mut members: Vec<(&SNode, Vec<&'a Element>)> = Vec::new();
    for child in &e.children {
        let Node::Element(c) = child else { return None };
        let cs = model.child_of(s, c.namespace.as_deref()?, &c.name)?;
        match members.iter_mut().find(|(m, _)| std::ptr::eq(*m, cs.as_ref())) {
            Some((_, instances)) if cs.is_multi() => instances.push(c),
            // The same node twice: for the XML parse to report.
            Some(_) => return None,
            None => members.push((cs, vec![c])),
        }
    }
    out.push('{');
    for (i, (cs, instances)) in members.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('"');
        if s.is_none_or(|p| p.module != cs.module) {
            out.push_str(&cs.module);
            out.push(':');
        }
        out.push_str(&cs.name);
        out.push_str("\":");
        if cs.is_multi() {
            out.push('[');
        }
        for (j, c) in instances.into_iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            if !c.attributes().is_empty() {
                return None;
            }
            scope.push(c.namespaces());
            let written = match cs.kind {
                Kind::Container | Kind::List => write_members(model, Some(cs), c, scope, out),
                Kind::Leaf | Kind::LeafList => write_value(model, cs, c, scope, out),
                Kind::AnyData => None,
            };
            scope.pop();
            written?;
        }
        if cs.is_multi() {
            out.push(']');
        }
    }
    out.push('}');
    Some(())
}

/// The value of leaf (or leaf-list entry) `e`, described by `s`.
fn write_value(
    model: &Model,
    s: &SNode,
    e: &Element,
    scope: &[&[(Option<String>, String)]],
    out: &mut String,
) -> Option<()> {
    let value = match e.children.as_slice() {
        [] => "",
        [Node::Text(t)] => t.as_str(),
        _ => return None,
    };
    match s.json {
        JsonValue::Number if is_json_integer(value) => out.push_str(value),
        JsonValue::Boolean if value == "true" || value == "false" => out.push_str(value),
        JsonValue::Empty if value.is_empty() => out.push_str("[null]"),
        JsonValue::Identity => {
            let (module, name) = match value.split_once(':') {
                Some((prefix, name)) => {
                    let ns = scope
                        .iter()
                        .rev()
                        .flat_map(|decls| decls.iter().rev())
                        .find(|(p, _)| p.as_deref() == Some(prefix))
                        .map(|(_, uri)| uri.as_str())?;
                    (Some(model.module_by_namespace(ns)?.name.as_str()), name)
                }
                None => (None, value),
            };
            if !is_identifier(name) {
                return None;
            }
            out.push('"');
            if let Some(m) = module {
                out.push_str(m);
                out.push(':');
            }
            out.push_str(name);
            out.push('"');
        }
        JsonValue::Text if !value.contains(':') => write_string(value, out),
        _ => return None,
    }
    Some(())
}

/// JSON's integer syntax: an optional minus, then 0 or digits not starting with 0.
fn is_json_integer(v: &str) -> bool {
    let digits = v.strip_prefix('-').unwrap_or(v);
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
}

/// A YANG identifier (RFC 7950 §6.2).
fn is_identifier(v: &str) -> bool {
    let mut bytes = v.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// `v` as a JSON string.
fn write_string(v: &str, out: &mut String) {
    use std::fmt::Write as _;
    out.push('"');
    for ch in v.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yang::data::{normalize, parse_data};
    use crate::yang::schema::test_support::{interfaces_schema as schema, IANA, IF};

    fn json_of(xml: &str) -> Option<String> {
        let s = schema();
        let mut root = parse_data(xml).expect("parses");
        normalize(&mut root);
        json_text(s.model(), &root)
    }

    #[test]
    fn interfaces_are_written_as_rfc7951_json() {
        let xml = format!(
            "<interfaces xmlns=\"{IF}\"><interface><name>a\"b</name><description>x\\y</description>\
             <type xmlns:t=\"{IANA}\">t:ethernetCsmacd</type><enabled>false</enabled></interface>\
             <interface><name>c</name></interface></interfaces>"
        );
        assert_eq!(
            json_of(&xml).as_deref(),
            Some(
                "{\"ietf-interfaces:interfaces\":{\"interface\":[{\"name\":\"a\\\"b\",\
                 \"description\":\"x\\\\y\",\"type\":\"iana-if-type:ethernetCsmacd\",\
                 \"enabled\":false},{\"name\":\"c\"}]}}"
            )
        );
    }

    #[test]
    fn what_json_cannot_say_exactly_is_left_to_xml() {
        let cases = [
            // An undeclared identity prefix, a string with a colon, a number JSON cannot
            // write, a leaf given twice, a node the model does not know.
            format!("<interfaces xmlns=\"{IF}\"><interface><name>a</name><type>x:y</type></interface></interfaces>"),
            format!("<interfaces xmlns=\"{IF}\"><interface><name>a:b</name></interface></interfaces>"),
            format!("<interfaces xmlns=\"{IF}\"><interface><name>a</name><enabled>yes</enabled></interface></interfaces>"),
            format!("<interfaces xmlns=\"{IF}\"><interface><name>a</name><name>b</name></interface></interfaces>"),
            format!("<interfaces xmlns=\"{IF}\"><bogus/></interfaces>"),
        ];
        for xml in cases {
            assert_eq!(json_of(&xml), None, "{xml}");
        }
    }

    /// Wherever JSON is written, libyang makes of it the tree it makes of the XML: NACM's
    /// unions and XPath strings, escapes, booleans, identities, and a mix of modules.
    #[test]
    fn the_json_parses_to_the_tree_the_xml_parses_to() {
        use crate::access::nacm::NACM_NS;
        use crate::datastore::live::LiveTree;
        use std::sync::Arc;
        let s = Arc::new(schema());
        let nacm = |rule: &str| {
            format!(
                "<nacm xmlns=\"{NACM_NS}\"><rule-list><name>r</name><group>g</group>\
                 <rule><name>x</name>{rule}<action>permit</action></rule></rule-list></nacm>"
            )
        };
        let ifs = format!(
            "<interfaces xmlns=\"{IF}\"><interface><name>e\u{e9}\"\\&lt;\n\t</name>\
             <type xmlns:ianaift=\"{IANA}\">ianaift:softwareLoopback</type>\
             <enabled>false</enabled></interface></interfaces>"
        );
        let cases = [
            nacm("<module-name>*</module-name><access-operations>*</access-operations>"),
            nacm("<access-operations>create update</access-operations>"),
            nacm("<path>/</path>"),
            // (Refused: a node-instance-identifier names its first node's module.)
            nacm("<path>/interfaces/interface</path>"),
            nacm("<rpc-name>get-config</rpc-name>"),
            ifs.clone(),
            format!("{ifs}{}", nacm("<path>*</path>")),
        ];
        let mut written = 0;
        for xml in cases {
            let mut root = parse_data(&xml).expect("parses");
            normalize(&mut root);
            let from_xml = LiveTree::parse(&s, &xml).and_then(|t| t.print()).ok();
            let Some(json) = json_text(s.model(), &root) else { continue };
            written += 1;
            // What the XML refuses, the JSON refuses too (the XML's error is then reported).
            let from_json = LiveTree::parse_json(&s, &json).and_then(|t| t.print()).ok();
            assert_eq!(from_json, from_xml, "{json}");
        }
        assert_eq!(written, 7, "every case is one JSON can say");
    }

    #[test]
    fn integers_in_json_syntax_only() {
        for (v, ok) in [("0", true), ("42", true), ("-7", true), ("007", false), ("+1", false)] {
            assert_eq!(is_json_integer(v), ok, "{v}");
            assert!(!is_json_integer(&format!(" {v}")));
        }
    }
}
