//! A small owned XML tree, parsed with quick-xml's reader and namespaces resolved here
//! (`xml/parse.rs`), with the well-formedness checks a NETCONF server needs and quick-xml
//! leaves to the caller: one root
//! element, no text outside it, every prefix bound, no DTD, only the predefined and character
//! entity references, and a bounded depth.
//!
//! Files: `tree.rs` (the tree, its namespace scope, writing and escaping), `parse.rs` (the
//! parser, its limits and errors), `indent.rs` (pretty-printing), `reference.rs` (tests only:
//! quick-xml's namespace-aware reader, to compare the parser with).

/// The NETCONF base namespace (RFC 6241 §3.1).
pub const NETCONF_BASE_NS: &str = "urn:ietf:params:xml:ns:netconf:base:1.0";

mod indent;
mod parse;
#[cfg(test)]
mod reference;
mod tree;

pub use indent::indent;
pub use parse::{parse, parse_limited, parse_root_tag, ParseLimits, XmlError, MAX_DEPTH};
pub use tree::{
    escape_attr, escape_text, is_xml_char, write_children, Attribute, Element, Node, Scope,
};

#[cfg(test)]
mod tests {
    use super::*;

    /// Equality is by content: an element whose prefix, declarations and attributes were
    /// all taken away equals one that never had any (the datastore compares edited trees,
    /// whose leaves lose their operation attributes, with freshly parsed ones), and any one
    /// of those parts still there makes them differ.
    #[test]
    fn an_emptied_element_equals_one_that_never_had_extras() {
        let plain = Element::new("urn:ex", "leaf");
        let mut emptied = Element::new("urn:ex", "leaf");
        emptied.set_prefix(Some("ex".into()));
        emptied.namespaces_mut().push((Some("ex".into()), "urn:ex".into()));
        emptied.attributes_mut().push(Attribute {
            namespace: Some(NETCONF_BASE_NS.into()),
            prefix: None,
            name: "operation".into(),
            value: "merge".into(),
        });
        assert_ne!(emptied, plain);
        let mut no_prefix = emptied.clone();
        no_prefix.set_prefix(None);
        assert_ne!(no_prefix, plain, "declarations and attributes are still there");
        no_prefix.retain_namespaces(|_| false);
        assert_ne!(no_prefix, plain, "the attribute is still there");
        no_prefix.retain_attributes(|_| false);
        assert_eq!(no_prefix, plain);
        assert_eq!(plain, no_prefix);
        let mut other = no_prefix.clone();
        other.set_prefix(Some("x".into()));
        assert_ne!(other, plain);
    }

    #[test]
    fn prefixed_and_default_namespaces_resolve() {
        let doc = br#"<?xml version="1.0" encoding="UTF-8"?>
<nc:rpc xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0" message-id="7" xmlns:ex="urn:ex" ex:user="fred">
  <nc:get-config><nc:source><nc:running/></nc:source></nc:get-config>
  <x xmlns="urn:other">a &amp; b &#x41;<![CDATA[<raw>]]></x>
</nc:rpc>"#;
        let root = parse(doc).expect("well-formed");
        assert!(root.is(NETCONF_BASE_NS, "rpc"));
        assert_eq!(root.attribute("message-id"), Some("7"));
        assert_eq!(root.attributes()[1].namespace.as_deref(), Some("urn:ex"));
        assert_eq!(root.namespaces().len(), 2);
        let gc = root.child(NETCONF_BASE_NS, "get-config").expect("child");
        assert!(gc.child(NETCONF_BASE_NS, "source").is_some());
        let x = root.child("urn:other", "x").expect("x");
        assert_eq!(x.text(), "a & b A<raw>");
    }

    #[test]
    fn rejects_what_a_server_must_not_accept() {
        let cases: &[(&[u8], &str)] = &[
            (b"", "no root"),
            (b"  \n ", "no root"),
            (b"<a/><b/>", "two roots"),
            (b"<a/>text", "trailing text"),
            (b"<a><b></a>", "mismatched end"),
            (b"<a>", "unclosed"),
            (b"<p:a/>", "unbound element prefix"),
            (b"<a p:x='1'/>", "unbound attribute prefix"),
            (b"<!DOCTYPE a [<!ENTITY e 'x'>]><a>&e;</a>", "doctype"),
            (b"<a>&e;</a>", "unknown entity"),
            (b"<a>\xff</a>", "not utf-8"),
            (b"<a x='1' x='2'/>", "duplicate attribute"),
        ];
        for (doc, why) in cases {
            assert!(parse(doc).is_err(), "{why}: {:?}", String::from_utf8_lossy(doc));
        }
    }

    #[test]
    fn depth_is_bounded() {
        let deep = "<a>".repeat(MAX_DEPTH + 1) + &"</a>".repeat(MAX_DEPTH + 1);
        assert_eq!(parse(deep.as_bytes()), Err(XmlError::TooDeep { limit: MAX_DEPTH }));
        let ok = "<a>".repeat(MAX_DEPTH) + &"</a>".repeat(MAX_DEPTH);
        assert!(parse(ok.as_bytes()).is_ok());
        // An empty element counts as a level too.
        let deep = "<a>".repeat(MAX_DEPTH) + "<b/>" + &"</a>".repeat(MAX_DEPTH);
        assert_eq!(parse(deep.as_bytes()), Err(XmlError::TooDeep { limit: MAX_DEPTH }));
    }

    #[test]
    fn a_parse_stays_within_its_limits_and_budget() {
        let doc = format!("<r>{}</r>", "<a>x</a>".repeat(1000));
        let few = ParseLimits { max_elements: 1000, max_depth: 4 };
        assert_eq!(
            parse_limited(doc.as_bytes(), few, &mut |_| true),
            Err(XmlError::TooManyElements { limit: 1000 })
        );
        let enough = ParseLimits { max_elements: 1001, max_depth: 2 };
        let mut charged = 0;
        let tree = parse_limited(doc.as_bytes(), enough, &mut |n| {
            charged += n;
            true
        })
        .expect("within the limits");
        // Every element and text node is charged at least its node's size.
        assert!(charged >= 2001 * std::mem::size_of::<Node>(), "{charged}");
        assert_eq!(tree.element_count(), 1001);
        // A budget that says no ends the parse.
        let big = format!("<r>{}</r>", "<a>x</a>".repeat(10_000));
        assert_eq!(
            parse_limited(big.as_bytes(), ParseLimits::TRUSTED, &mut |_| false),
            Err(XmlError::OverBudget)
        );
        // A namespace declared afresh on every element costs no search through the others.
        let many: String = (0..100_000).map(|i| format!("<a xmlns='urn:{i}'/>")).collect();
        let started = std::time::Instant::now();
        parse(format!("<r>{many}</r>").as_bytes()).expect("parses");
        assert!(started.elapsed() < std::time::Duration::from_secs(2), "{:?}", started.elapsed());
    }

    #[test]
    fn whitespace_before_the_declaration_is_tolerated() {
        // Some clients put a line feed after "]]>]]>", which then starts the next message.
        let root = parse(b"\n  <?xml version=\"1.0\" encoding=\"UTF-8\"?><a/>").expect("tolerated");
        assert_eq!(root.name, "a");
    }

    #[test]
    fn escaping() {
        assert_eq!(escape_text("a<b&c>"), "a&lt;b&amp;c&gt;");
        assert_eq!(escape_attr("\"'<"), "&quot;&apos;&lt;");
    }

    #[test]
    fn the_writer_never_emits_a_character_xml_does_not_allow() {
        let text = "sw\u{1b}[31m\u{7}\u{0}\u{fffe}\u{ffff} é\t\n";
        let mut e = Element::leaf("urn:x", "name", text);
        e.attributes_mut().push(Attribute {
            namespace: None,
            prefix: None,
            name: "note".into(),
            value: text.into(),
        });
        let written = e.to_xml();
        assert!(written.chars().all(tree::is_xml_char), "{written:?}");
        let back = parse(written.as_bytes()).expect("parses");
        let replaced = "sw\u{fffd}[31m\u{fffd}\u{fffd}\u{fffd}\u{fffd} é\t\n";
        assert_eq!(back.text(), replaced);
        // An attribute's tab and line feed come back as spaces (XML 1.0 3.3.3).
        let normalised = replaced.replace(['\t', '\n'], " ");
        assert_eq!(back.attribute("note"), Some(normalised.as_str()));
        assert_eq!(escape_text("a\u{1}b"), "a\u{fffd}b");
        assert_eq!(escape_attr("a\u{1}\"b"), "a\u{fffd}&quot;b");
    }

    #[test]
    fn a_character_xml_does_not_allow_is_not_well_formed_raw_or_by_reference() {
        for doc in [
            "<a>x\u{e}y</a>",
            "<a>x&#x1;y</a>",
            "<a>x&#14;y</a>",
            "<a><![CDATA[\u{1b}]]></a>",
            "<a b=\"\u{7}\"/>",
            "<a xmlns=\"urn:\u{1}\"/>",
            "<a>\u{fffe}</a>",
        ] {
            match parse(doc.as_bytes()) {
                Err(XmlError::InvalidChar { .. }) => {}
                other => panic!("{doc:?}: {other:?}"),
            }
        }
        assert!(parse("<a>tab\there\u{e9}&#x9;&#10;</a>".as_bytes()).is_ok());
    }

    proptest::proptest! {
        #[test]
        fn garbage_never_panics(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200)) {
            let _ = parse(&bytes);
        }

        #[test]
        fn xmlish_garbage_never_panics(s in "[<>/a-c:=\"' &;#x!\\[\\]-]{0,80}") {
            let _ = parse(s.as_bytes());
        }
    }
}
