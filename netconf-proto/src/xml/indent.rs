//! Indented replies (mgmt's `Config::indent_replies`): the same XML with each element on a line
//! of its own, so that a line diff of two configurations (`ansible-playbook --diff`, `diff`)
//! shows the nodes that changed rather than one changed line. Text is never touched: a leaf's
//! value, spaces included, stays between its tags, and the replies mgmt writes carry no
//! whitespace between elements to begin with.

use quick_xml::events::Event;
use quick_xml::{Reader, Writer};

/// `text` indented by two spaces per level; `text` itself if it is not well-formed.
pub fn indent(text: &str) -> String {
    let mut reader = Reader::from_str(text);
    let mut writer = Writer::new_with_indent(Vec::with_capacity(text.len() * 2), b' ', 2);
    loop {
        match reader.read_event() {
            Ok(Event::Eof) => break,
            Ok(event) => {
                if writer.write_event(event).is_err() {
                    return text.to_string();
                }
            }
            Err(_) => return text.to_string(),
        }
    }
    String::from_utf8(writer.into_inner()).unwrap_or_else(|_| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::indent;

    #[test]
    fn elements_go_on_lines_of_their_own_and_values_stay_as_they_are() {
        let compact = "<rpc-reply xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\" message-id=\"1\"><data><a xmlns=\"urn:x\"><b>one</b><c> two  </c><d/></a></data></rpc-reply>";
        let out = indent(compact);
        assert_eq!(
            out,
            "<rpc-reply xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\" message-id=\"1\">\n  <data>\n    <a xmlns=\"urn:x\">\n      <b>one</b>\n      <c> two  </c>\n      <d/>\n    </a>\n  </data>\n</rpc-reply>"
        );
        // The same document: parsing both gives the same elements and values.
        let a = crate::xml::parse(compact.as_bytes()).expect("parses");
        let mut b = crate::xml::parse(out.as_bytes()).expect("parses");
        b.strip_blank_text();
        assert_eq!(a.to_xml(), b.to_xml());
    }

    #[test]
    fn text_that_is_not_xml_is_left_alone() {
        assert_eq!(indent("<a><b></a>"), "<a><b></a>");
    }
}
