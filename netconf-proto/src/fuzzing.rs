//! The bodies of the framing and XML fuzz targets (`fuzz/fuzz_targets/nc_framing.rs`,
//! `nc_xml.rs`), here so that the same checks run for a bounded number of inputs in every test
//! run (mgmt's `tests/fuzz_bounded.rs`) and for as long as one likes under libFuzzer. Each
//! panics on a broken promise: a parser that panics, a decoded message that re-encodes
//! differently, a document that does not survive printing.

use crate::framing::{self, Decoder, Framing};
use crate::xml;

/// NETCONF framing: `data` split in two chunks fed to a decoder of each framing; every
/// message it yields re-encodes and decodes to itself, and no input makes it panic. Returns
/// whether a message was decoded.
pub fn framing(data: &[u8]) -> bool {
    let mut decoded = false;
    let cut = data.first().map_or(0, |&b| usize::from(b)).min(data.len());
    for framing in [Framing::EndOfMessage, Framing::Chunked] {
        let mut d = Decoder::new(framing, 1 << 16);
        d.feed(&data[..cut]);
        d.feed(&data[cut..]);
        for _ in 0..64 {
            match d.next_message() {
                Ok(Some(message)) => {
                    decoded = true;
                    let encoded =
                        framing::encode(framing, &message).expect("a decoded message encodes");
                    let mut again = Decoder::new(framing, 1 << 16);
                    again.feed(&encoded);
                    assert_eq!(
                        again.next_message().expect("re-decodes"),
                        Some(message),
                        "a message re-encoded decodes to itself"
                    );
                }
                Ok(None) | Err(_) => break,
            }
        }
        let _ = d.finish();
    }
    decoded
}

/// The XML parser: whatever parses prints to text that parses to the same document (same
/// names, namespaces, attributes and text; prefixes and the order of attributes may differ; a
/// character XML 1.0 does not allow is printed as U+FFFD).
/// Returns whether `data` parsed.
pub fn xml(data: &[u8]) -> bool {
    let Ok(doc) = xml::parse(data) else { return false };
    let printed = doc.to_xml();
    let again = xml::parse(printed.as_bytes()).expect("printed XML parses");
    assert!(
        same_document(&doc, &again),
        "a parsed document prints to one that parses the same: {printed}"
    );
    true
}

/// Whether two elements say the same: namespace, name, attributes (by namespace, name and
/// value, in any order, prefixes aside), and children with adjacent text joined.
fn same_document(a: &xml::Element, b: &xml::Element) -> bool {
    /// Text as the writer prints it: XML-invalid characters as U+FFFD.
    fn printable(s: &str) -> String {
        s.chars().map(|c| if xml::is_xml_char(c) { c } else { '\u{fffd}' }).collect()
    }
    fn attributes(e: &xml::Element) -> Vec<(Option<String>, String, String)> {
        let mut v: Vec<_> = e
            .attributes()
            .iter()
            .map(|a| {
                (a.namespace.as_deref().map(printable), a.name.to_string(), printable(&a.value))
            })
            .collect();
        v.sort();
        v
    }
    enum Part<'a> {
        Element(&'a xml::Element),
        Text(String),
    }
    fn parts(e: &xml::Element) -> Vec<Part<'_>> {
        let mut out: Vec<Part<'_>> = Vec::new();
        for n in &e.children {
            match n {
                xml::Node::Element(c) => out.push(Part::Element(c)),
                xml::Node::Text(t) => match out.last_mut() {
                    Some(Part::Text(prev)) => prev.push_str(t),
                    _ => out.push(Part::Text(t.to_string())),
                },
            }
        }
        out.retain(|p| !matches!(p, Part::Text(t) if t.is_empty()));
        out
    }
    let (pa, pb) = (parts(a), parts(b));
    a.namespace.as_deref().map(printable).as_deref() == b.namespace.as_deref()
        && a.name == b.name
        && attributes(a) == attributes(b)
        && pa.len() == pb.len()
        && pa.iter().zip(&pb).all(|(x, y)| match (x, y) {
            (Part::Element(x), Part::Element(y)) => same_document(x, y),
            (Part::Text(x), Part::Text(y)) => printable(x) == printable(y),
            _ => false,
        })
}
