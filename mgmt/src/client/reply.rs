//! `<rpc-reply>` parsing (RFC 6241 §4.2–4.4) with quick-xml's namespace-aware reader.
//!
//! Only the reply's own level is parsed: `<ok/>`, each `<rpc-error>`'s fields, and where
//! `<data>` starts and ends. The content of `<data>` and `<error-info>` is skipped with
//! quick-xml's `read_to_end` and kept as raw text slices of the reply, so reading a 1 MiB
//! get-config reply costs one scan and no tree: a load generator must not be slower than the
//! server it measures, and callers that want a tree can parse `data()` themselves.

use std::ops::Range;

use quick_xml::events::{BytesStart, Event};
use quick_xml::name::ResolveResult;
use quick_xml::NsReader;

use super::error::{Error, Result};
use crate::xml::NETCONF_BASE_NS;

/// The namespace of RFC 5277 `<notification>` messages.
pub const NOTIFICATION_NS: &str = "urn:ietf:params:xml:ns:netconf:notification:1.0";

/// One `<rpc-error>` (RFC 6241 §4.3). Text fields are unescaped and trimmed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RpcError {
    /// `transport`, `rpc`, `protocol` or `application`.
    pub error_type: String,
    /// The error tag, e.g. `lock-denied`, `unknown-element`.
    pub error_tag: String,
    /// `error` or `warning`.
    pub error_severity: String,
    /// The optional application tag.
    pub error_app_tag: Option<String>,
    /// The optional XPath of the offending node (prefixes as the server wrote them).
    pub error_path: Option<String>,
    /// The optional human-readable message.
    pub error_message: Option<String>,
    /// The raw XML inside `<error-info>`, as sent (prefixes may refer to declarations on
    /// enclosing elements).
    pub error_info: Option<String>,
}

impl RpcError {
    /// Whether this error makes the request fail (severity `error`; RFC 6241 says an absent
    /// severity cannot happen, and treating it as an error is the safe reading).
    pub fn is_error(&self) -> bool {
        self.error_severity != "warning"
    }

    /// The text of the first element with local name `name` inside `<error-info>`, e.g.
    /// `session-id` (lock-denied, in-use) or `bad-element` (unknown-element). Namespaces are
    /// ignored: error-info children are in the base namespace or the server's own.
    pub fn info(&self, name: &str) -> Option<String> {
        let info = self.error_info.as_deref()?;
        let mut reader = NsReader::from_str(info);
        let mut depth_of_match = None;
        let mut text = String::new();
        let mut depth = 0usize;
        loop {
            match reader.read_event().ok()? {
                Event::Start(s) => {
                    depth += 1;
                    if depth_of_match.is_none() && s.local_name().as_ref() == name {
                        depth_of_match = Some(depth);
                    }
                }
                Event::Empty(s) if depth_of_match.is_none() && s.local_name().as_ref() == name => {
                    return Some(String::new());
                }
                Event::End(_) => {
                    if depth_of_match == Some(depth) {
                        return Some(text.trim().to_string());
                    }
                    depth = depth.saturating_sub(1);
                }
                Event::Text(t) if depth_of_match.is_some() => text.push_str(&t.xml10_content()),
                Event::GeneralRef(r) if depth_of_match.is_some() => {
                    text.push_str(&resolve_ref(&r)?)
                }
                Event::Eof => return None,
                _ => {}
            }
        }
    }
}

/// A parsed `<rpc-reply>`.
#[derive(Debug, Clone)]
pub struct Reply {
    raw: String,
    message_id: Option<String>,
    ok: bool,
    errors: Vec<RpcError>,
    data: Option<Range<usize>>,
}

impl Reply {
    /// The reply exactly as received (without framing).
    pub fn raw(&self) -> &str {
        &self.raw
    }

    /// The echoed message-id; `None` for a reply the server could not tie to a request (a
    /// `malformed-message` reply, RFC 6241 §3.1).
    pub fn message_id(&self) -> Option<&str> {
        self.message_id.as_deref()
    }

    /// `<ok/>` with no rpc-error of severity `error`.
    pub fn is_ok(&self) -> bool {
        self.ok && !self.has_errors()
    }

    /// Whether any rpc-error has severity `error`.
    pub fn has_errors(&self) -> bool {
        self.errors.iter().any(RpcError::is_error)
    }

    /// Every `<rpc-error>`, warnings included, in order.
    pub fn errors(&self) -> &[RpcError] {
        &self.errors
    }

    /// The raw XML inside `<data>` (empty for `<data/>`), or `None` without `<data>`.
    /// Prefixes in it may refer to declarations on `<rpc-reply>`.
    pub fn data(&self) -> Option<&str> {
        self.data.clone().map(|r| &self.raw[r])
    }

    /// `Ok(self)` unless the reply carries an rpc-error of severity `error`.
    pub fn into_result(self) -> Result<Reply> {
        if self.has_errors() {
            Err(Error::Rpc(Box::new(self)))
        } else {
            Ok(self)
        }
    }
}

/// A message from the server after the hello.
#[derive(Debug)]
pub enum Incoming {
    /// An `<rpc-reply>`.
    Reply(Reply),
    /// A `<notification>` (RFC 5277), raw; the client does not subscribe, but a session that
    /// did must not have its replies confused with events.
    Notification(String),
}

/// Classifies and parses one message.
pub fn parse_message(raw: String) -> Result<Incoming> {
    let bad = |what: String| Error::Protocol(what);
    let mut reply =
        Reply { raw: String::new(), message_id: None, ok: false, errors: Vec::new(), data: None };
    {
        let mut reader = NsReader::from_str(&raw);
        reader.config_mut().check_end_names = true;
        let syntax = |e: quick_xml::Error| bad(format!("reply is not well-formed XML: {e}"));
        // The root element.
        let root_is_empty = loop {
            let (ns, event) = reader.read_resolved_event().map_err(syntax)?;
            let (s, empty) = match event {
                Event::Start(s) => (s, false),
                Event::Empty(s) => (s, true),
                Event::Decl(_) | Event::Comment(_) | Event::PI(_) | Event::Text(_) => continue,
                Event::Eof => return Err(bad("empty message".into())),
                other => return Err(bad(format!("unexpected {other:?} before <rpc-reply>"))),
            };
            let ns = bound(&ns);
            if ns.as_deref() == Some(NOTIFICATION_NS) && s.local_name().as_ref() == "notification" {
                return Ok(Incoming::Notification(raw));
            }
            if ns.as_deref() != Some(NETCONF_BASE_NS) || s.local_name().as_ref() != "rpc-reply" {
                return Err(bad(format!(
                    "expected <rpc-reply> in {NETCONF_BASE_NS}, found <{}>",
                    s.name().as_ref()
                )));
            }
            reply.message_id = attribute(&s, "message-id")?;
            break empty;
        };
        if !root_is_empty {
            parse_reply_children(&mut reader, &raw, &mut reply)?;
        }
    }
    reply.raw = raw;
    Ok(Incoming::Reply(reply))
}

fn bound(ns: &ResolveResult<'_>) -> Option<String> {
    match ns {
        ResolveResult::Bound(ns) => Some(ns.as_ref().to_string()),
        _ => None,
    }
}

fn attribute(start: &BytesStart<'_>, name: &str) -> Result<Option<String>> {
    for attr in start.attributes() {
        let attr = attr.map_err(|e| Error::Protocol(format!("bad attribute in reply: {e}")))?;
        if attr.key.as_ref() == name {
            let v = attr
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map_err(|e| Error::Protocol(format!("bad attribute value in reply: {e}")))?;
            return Ok(Some(v.into_owned()));
        }
    }
    Ok(None)
}

fn resolve_ref(r: &quick_xml::events::BytesRef<'_>) -> Option<String> {
    if r.is_char_ref() {
        r.resolve_char_ref().ok().flatten().map(String::from)
    } else {
        quick_xml::escape::resolve_predefined_entity(&r.xml10_content()).map(str::to_string)
    }
}

fn span(raw: &str, s: quick_xml::reader::Span) -> Range<usize> {
    let start = usize::try_from(s.start).unwrap_or(raw.len()).min(raw.len());
    let end = usize::try_from(s.end).unwrap_or(raw.len()).min(raw.len());
    start..end
}

/// The children of `<rpc-reply>`: `<ok/>`, `<data>`, `<rpc-error>`; anything else (another
/// namespace's reply content, e.g. an RPC's output) is skipped.
fn parse_reply_children(reader: &mut NsReader<&[u8]>, raw: &str, reply: &mut Reply) -> Result<()> {
    let syntax =
        |e: quick_xml::Error| Error::Protocol(format!("reply is not well-formed XML: {e}"));
    loop {
        let (ns, event) = reader.read_resolved_event().map_err(syntax)?;
        let base = bound(&ns).as_deref() == Some(NETCONF_BASE_NS);
        match event {
            Event::Start(s) => match (base, s.local_name().as_ref()) {
                (true, "ok") => {
                    reader.read_to_end(s.name()).map_err(syntax)?;
                    reply.ok = true;
                }
                (true, "data") => {
                    let inner = reader.read_to_end(s.name()).map_err(syntax)?;
                    reply.data = Some(span(raw, inner));
                }
                (true, "rpc-error") => reply.errors.push(parse_rpc_error(reader, raw)?),
                _ => {
                    reader.read_to_end(s.name()).map_err(syntax)?;
                }
            },
            Event::Empty(s) => match (base, s.local_name().as_ref()) {
                (true, "ok") => reply.ok = true,
                (true, "data") => reply.data = Some(0..0),
                (true, "rpc-error") => reply.errors.push(RpcError::default()),
                _ => {}
            },
            Event::End(_) => return Ok(()),
            Event::Eof => return Err(Error::Protocol("reply ends before </rpc-reply>".into())),
            _ => {}
        }
    }
}

/// The fields of one `<rpc-error>`, the reader standing just after its start tag.
fn parse_rpc_error(reader: &mut NsReader<&[u8]>, raw: &str) -> Result<RpcError> {
    let syntax =
        |e: quick_xml::Error| Error::Protocol(format!("reply is not well-formed XML: {e}"));
    let mut error = RpcError::default();
    loop {
        let (ns, event) = reader.read_resolved_event().map_err(syntax)?;
        let base = bound(&ns).as_deref() == Some(NETCONF_BASE_NS);
        match event {
            Event::Start(s) => {
                let local = s.local_name().as_ref().to_string();
                if base && local == "error-info" {
                    let inner = reader.read_to_end(s.name()).map_err(syntax)?;
                    error.error_info = Some(raw[span(raw, inner)].to_string());
                    continue;
                }
                let text = element_text(reader)?;
                let text = text.trim().to_string();
                match (base, local.as_str()) {
                    (true, "error-type") => error.error_type = text,
                    (true, "error-tag") => error.error_tag = text,
                    (true, "error-severity") => error.error_severity = text,
                    (true, "error-app-tag") => error.error_app_tag = Some(text),
                    (true, "error-path") => error.error_path = Some(text),
                    (true, "error-message") => error.error_message = Some(text),
                    _ => {}
                }
            }
            Event::Empty(s) if base && s.local_name().as_ref() == "error-info" => {
                error.error_info = Some(String::new());
            }
            Event::End(_) => return Ok(error),
            Event::Eof => return Err(Error::Protocol("reply ends inside <rpc-error>".into())),
            _ => {}
        }
    }
}

/// The text content of a leaf element (children's text included), reader after its start
/// tag; consumes through its end tag.
fn element_text(reader: &mut NsReader<&[u8]>) -> Result<String> {
    let syntax =
        |e: quick_xml::Error| Error::Protocol(format!("reply is not well-formed XML: {e}"));
    let mut text = String::new();
    let mut depth = 0usize;
    loop {
        match reader.read_event().map_err(syntax)? {
            Event::Start(_) => depth += 1,
            Event::End(_) if depth == 0 => return Ok(text),
            Event::End(_) => depth -= 1,
            Event::Text(t) => text.push_str(&t.xml10_content()),
            Event::CData(c) => text.push_str(&c.xml10_content()),
            Event::GeneralRef(r) => match resolve_ref(&r) {
                Some(s) => text.push_str(&s),
                None => {
                    return Err(Error::Protocol(format!(
                        "unknown entity &{}; in reply",
                        r.xml10_content()
                    )))
                }
            },
            Event::Eof => return Err(Error::Protocol("reply ends inside an element".into())),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(xml: &str) -> Reply {
        match parse_message(xml.to_string()).expect("parses") {
            Incoming::Reply(r) => r,
            Incoming::Notification(n) => panic!("not a reply: {n}"),
        }
    }

    #[test]
    fn ok_reply() {
        let r = reply(
            r#"<rpc-reply message-id="7" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><ok/></rpc-reply>"#,
        );
        assert!(r.is_ok());
        assert_eq!(r.message_id(), Some("7"));
        assert!(r.errors().is_empty());
        assert_eq!(r.data(), None);
    }

    #[test]
    fn prefixed_reply_with_data_keeps_inner_xml() {
        let r = reply(
            r#"<?xml version="1.0"?>
<nc:rpc-reply xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0" message-id="2"><nc:data><a xmlns="urn:x"><b>1 &amp; 2</b></a><c xmlns="urn:y"/></nc:data></nc:rpc-reply>"#,
        );
        assert!(!r.is_ok(), "data is not <ok/>");
        assert_eq!(r.data(), Some(r#"<a xmlns="urn:x"><b>1 &amp; 2</b></a><c xmlns="urn:y"/>"#));
        let empty = reply(
            r#"<rpc-reply message-id="3" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><data/></rpc-reply>"#,
        );
        assert_eq!(empty.data(), Some(""));
    }

    #[test]
    fn rpc_errors_are_parsed_with_info() {
        let r = reply(
            r#"<rpc-reply message-id="9" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">
  <rpc-error>
    <error-type>protocol</error-type>
    <error-tag>lock-denied</error-tag>
    <error-severity>error</error-severity>
    <error-message xml:lang="en">Lock failed, lock is already held &lt;here&gt;</error-message>
    <error-info><session-id>454</session-id></error-info>
  </rpc-error>
  <rpc-error>
    <error-type>application</error-type><error-tag>unknown-element</error-tag>
    <error-severity>warning</error-severity>
    <error-path xmlns:if="urn:if">/if:interfaces/if:bogus</error-path>
    <error-info><bad-element>bogus</bad-element></error-info>
  </rpc-error>
</rpc-reply>"#,
        );
        assert!(r.has_errors());
        assert!(!r.is_ok());
        let e = &r.errors()[0];
        assert_eq!((e.error_type.as_str(), e.error_tag.as_str()), ("protocol", "lock-denied"));
        assert_eq!(e.error_severity, "error");
        assert_eq!(e.error_message.as_deref(), Some("Lock failed, lock is already held <here>"));
        assert_eq!(e.error_info.as_deref(), Some("<session-id>454</session-id>"));
        assert_eq!(e.info("session-id").as_deref(), Some("454"));
        assert_eq!(e.info("bad-element"), None);
        let w = &r.errors()[1];
        assert!(!w.is_error());
        assert_eq!(w.error_path.as_deref(), Some("/if:interfaces/if:bogus"));
        assert_eq!(w.info("bad-element").as_deref(), Some("bogus"));
        assert!(matches!(r.into_result(), Err(Error::Rpc(_))));
    }

    #[test]
    fn warnings_alone_do_not_fail() {
        let r = reply(
            r#"<rpc-reply message-id="1" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><rpc-error><error-type>application</error-type><error-tag>operation-failed</error-tag><error-severity>warning</error-severity></rpc-error><ok/></rpc-reply>"#,
        );
        assert!(r.is_ok());
        assert!(r.into_result().is_ok());
    }

    #[test]
    fn notifications_and_junk_are_told_apart() {
        let n = parse_message(
            r#"<notification xmlns="urn:ietf:params:xml:ns:netconf:notification:1.0"><eventTime>2024-01-01T00:00:00Z</eventTime></notification>"#
                .into(),
        )
        .expect("parses");
        assert!(matches!(n, Incoming::Notification(_)));
        for junk in [
            "",
            "<rpc-reply message-id=\"1\"><ok/></rpc-reply>",
            "<rpc-reply xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\"><ok/>",
            "<rpc-reply xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\"><ok/></rpc>",
        ] {
            assert!(
                matches!(parse_message(junk.into()), Err(Error::Protocol(_))),
                "{junk:?} is refused"
            );
        }
    }
}
