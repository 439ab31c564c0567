//! `<rpc>` requests and `<rpc-reply>` messages (RFC 6241 §4.1, §4.2).
//!
//! ```text
//! <rpc message-id="101" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"
//!      xmlns:ex="http://example.net/content/1.0" ex:user-id="fred">
//!   <get/>                                      <- exactly one operation element
//! </rpc>
//!
//! <rpc-reply message-id="101" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"
//!      xmlns:ex="http://example.net/content/1.0" ex:user-id="fred">
//!   <ok/> | <data>...</data> | <rpc-error>...</rpc-error>...
//! </rpc-reply>
//! ```
//!
//! The reply carries every attribute of the request unmodified (§4.2), so the request's
//! attributes and prefixed namespace declarations are kept in [`ReplyAttrs`].

use crate::error::{ErrorInfo, ErrorTag, ErrorType, RpcError};
use crate::xml::{self, escape_attr, Element, Node, NETCONF_BASE_NS};

/// The attributes to put on an `<rpc-reply>`, rendered (each with a leading space).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplyAttrs(String);

impl ReplyAttrs {
    /// No attributes (a reply to a message whose attributes could not be read).
    pub fn none() -> Self {
        ReplyAttrs(String::new())
    }

    /// The attributes and prefixed namespace declarations of `rpc`, as sent. The request's
    /// default namespace declaration is left out: the reply declares its own.
    pub fn from_request(rpc: &Element) -> Self {
        // (Pieces pushed, not `write!`: formatting cost more than parsing a small request.)
        let mut out = String::with_capacity(32);
        let mut attribute = |prefix: Option<&str>, name: &str, value: &str| {
            out.push(' ');
            if let Some(p) = prefix {
                out.push_str(p);
                out.push(':');
            }
            out.push_str(name);
            out.push_str("=\"");
            out.push_str(&escape_attr(value));
            out.push('"');
        };
        for (prefix, uri) in rpc.namespaces() {
            if let Some(p) = prefix {
                attribute(Some("xmlns"), p, uri);
            }
        }
        for a in rpc.attributes() {
            attribute(a.prefix.as_deref(), &a.name, &a.value);
        }
        ReplyAttrs(out)
    }
}

/// A parsed request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The message-id attribute.
    pub message_id: String,
    /// The attributes the reply must echo.
    pub reply_attrs: ReplyAttrs,
    /// The operation element (the only child element of `<rpc>`).
    pub operation: Element,
}

/// A message that is not a usable request, with the reply it deserves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// Attributes for the reply (none if the message could not be parsed).
    pub reply_attrs: ReplyAttrs,
    /// The error to report (boxed: it is large and rare).
    pub error: Box<RpcError>,
}

/// Parses one message as an `<rpc>`.
pub fn parse_request(bytes: &[u8]) -> Result<Request, Rejected> {
    let root = xml::parse(bytes).map_err(|e| Rejected {
        reply_attrs: ReplyAttrs::none(),
        error: Box::new(RpcError::malformed_message(e)),
    })?;
    if !root.is(NETCONF_BASE_NS, "rpc") {
        let what = match &root.namespace {
            Some(ns) => format!("<{}> in namespace {ns}", root.name),
            None => format!("<{}> in no namespace", root.name),
        };
        return Err(Rejected {
            reply_attrs: ReplyAttrs::none(),
            error: Box::new(RpcError::malformed_message(format!(
                "expected an <rpc> in namespace {NETCONF_BASE_NS}, found {what}"
            ))),
        });
    }
    let reply_attrs = ReplyAttrs::from_request(&root);
    let Some(message_id) = root.attribute("message-id").map(str::to_string) else {
        return Err(Rejected {
            reply_attrs,
            error: Box::new(RpcError::missing_attribute("message-id", "rpc")),
        });
    };
    // The operation is moved out of the parsed message, not copied (an edit's whole
    // configuration is in it).
    let rpc_namespaces = root.namespaces().to_vec();
    let Element { children, .. } = root;
    let mut operations = children.into_iter().filter_map(|n| match n {
        Node::Element(e) => Some(e),
        Node::Text(_) => None,
    });
    let Some(mut operation) = operations.next() else {
        return Err(Rejected {
            reply_attrs,
            error: Box::new(
                RpcError::new(ErrorTag::MissingElement, ErrorType::Protocol).with_message(
                    "The <rpc> holds no operation element; put exactly one operation in it.",
                ),
            ),
        });
    };
    if let Some(extra) = operations.next() {
        return Err(Rejected {
            reply_attrs,
            error: Box::new(
                RpcError::new(ErrorTag::UnknownElement, ErrorType::Rpc)
                    .with_message(format!(
                        "The <rpc> holds more than one operation (<{}> after <{}>); send one operation per <rpc>.",
                        extra.name, operation.name
                    ))
                    .with_info(ErrorInfo::BadElement(extra.name.to_string())),
            ),
        });
    }
    // Declarations made on <rpc> stay in scope for the operation (prefixes in values, XPath).
    if !rpc_namespaces.is_empty() {
        let mut namespaces = rpc_namespaces;
        namespaces.extend_from_slice(operation.namespaces());
        *operation.namespaces_mut() = namespaces;
    }
    operation.strip_blank_text();
    Ok(Request { message_id, reply_attrs, operation })
}

/// The content of a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplyBody {
    /// `<ok/>`.
    Ok,
    /// Data, already serialised (inside the reply's element, e.g. `<data>...</data>`).
    Raw(String),
    /// One or more errors.
    Errors(Vec<RpcError>),
}

/// Renders an `<rpc-reply>`.
pub fn reply(attrs: &ReplyAttrs, body: &ReplyBody) -> String {
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><rpc-reply xmlns=\"{NETCONF_BASE_NS}\"{}>",
        attrs.0
    );
    match body {
        ReplyBody::Ok => out.push_str("<ok/>"),
        ReplyBody::Raw(s) => out.push_str(s),
        ReplyBody::Errors(errors) => {
            for e in errors {
                e.write_xml(&mut out);
            }
        }
    }
    out.push_str("</rpc-reply>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reply_echoes_all_request_attributes() {
        // RFC 6241 §4.2's example.
        let req = br#"<rpc message-id="101" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" xmlns:ex="http://example.net/content/1.0" ex:user-id="fred"><get/></rpc>"#;
        let r = parse_request(req).expect("valid");
        assert_eq!(r.message_id, "101");
        assert!(r.operation.is(NETCONF_BASE_NS, "get"));
        let text = reply(&r.reply_attrs, &ReplyBody::Ok);
        assert_eq!(
            text,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><rpc-reply xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\" \
xmlns:ex=\"http://example.net/content/1.0\" message-id=\"101\" ex:user-id=\"fred\"><ok/></rpc-reply>"
        );
        let parsed = xml::parse(text.as_bytes()).expect("well-formed");
        assert_eq!(parsed.attributes().len(), 2);
        assert_eq!(
            parsed.attributes()[1].namespace.as_deref(),
            Some("http://example.net/content/1.0")
        );
    }

    #[test]
    fn prefixed_rpc_reply_is_well_formed() {
        let req = br#"<nc:rpc xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0" message-id="a&amp;b"><nc:close-session/></nc:rpc>"#;
        let r = parse_request(req).expect("valid");
        assert_eq!(r.message_id, "a&b");
        let text = reply(&r.reply_attrs, &ReplyBody::Ok);
        let parsed = xml::parse(text.as_bytes()).expect("well-formed");
        assert!(parsed.is(NETCONF_BASE_NS, "rpc-reply"));
        assert_eq!(parsed.attribute("message-id"), Some("a&b"));
    }

    #[test]
    fn missing_message_id() {
        let req = br#"<rpc xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><get/></rpc>"#;
        let e = parse_request(req).expect_err("no message-id");
        assert_eq!(e.error.tag, ErrorTag::MissingAttribute);
        assert_eq!(e.error.error_type, ErrorType::Rpc);
        assert_eq!(
            e.error.info,
            vec![ErrorInfo::BadAttribute("message-id".into()), ErrorInfo::BadElement("rpc".into())]
        );
    }

    #[test]
    fn malformed_and_wrong_root() {
        for req in [
            &b"<rpc"[..],
            b"<rpc message-id='1'><get/></rpc>",
            b"<x xmlns='urn:ietf:params:xml:ns:netconf:base:1.0'/>",
        ] {
            let e = parse_request(req).expect_err("rejected");
            assert_eq!(e.error.tag, ErrorTag::MalformedMessage);
            assert_eq!(e.error.error_type, ErrorType::Rpc);
            assert_eq!(e.reply_attrs, ReplyAttrs::none());
        }
    }

    #[test]
    fn operation_count() {
        let none =
            br#"<rpc message-id="1" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"> </rpc>"#;
        assert_eq!(parse_request(none).expect_err("empty").error.tag, ErrorTag::MissingElement);
        let two = br#"<rpc message-id="1" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><get/><get/></rpc>"#;
        assert_eq!(parse_request(two).expect_err("two").error.tag, ErrorTag::UnknownElement);
    }
}
