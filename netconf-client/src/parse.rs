//! `<rpc-reply>` parsing (RFC 6241 §4.2–4.4) with quick-xml's namespace-aware reader.
//!
//! Only the reply's own level is parsed: `<ok/>`, each `<rpc-error>`'s fields, and where
//! `<data>` starts and ends. The content of `<data>` and `<error-info>` is skipped with
//! quick-xml's `read_to_end` and kept as raw text slices of the reply, so reading a 1 MiB
//! get-config reply costs one scan and no tree: a load generator must not be slower than the
//! server it measures, and callers that want a tree can parse `data()` themselves.

use std::ops::Range;

use netconf_proto::xml::NETCONF_BASE_NS;
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::ResolveResult;
use quick_xml::NsReader;

use crate::error::{Error, Result};
use crate::reply::{resolve_ref, Reply, RpcError, NOTIFICATION_NS};

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
