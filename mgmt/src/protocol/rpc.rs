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

use crate::protocol::error::{ErrorInfo, ErrorTag, ErrorType, RpcError};
use netconf_proto::framing::{Refusal, Refused};
use netconf_proto::xml::{
    self, escape_attr, Element, Node, ParseLimits, XmlError, NETCONF_BASE_NS,
};

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
    parse_request_limited(bytes, ParseLimits::TRUSTED, &mut |_| true)
}

/// Parses one client message as an `<rpc>` within `limits`, charging `charge` for the tree
/// it builds (`xml::parse_limited`). A message over a limit is too-big, and its reply
/// echoes the `<rpc>` start tag's attributes if the message begins with one.
pub fn parse_request_limited(
    bytes: &[u8],
    limits: ParseLimits,
    charge: &mut dyn FnMut(usize) -> bool,
) -> Result<Request, Rejected> {
    let root = xml::parse_limited(bytes, limits, charge).map_err(|e| {
        let too_big = match e {
            XmlError::TooDeep { limit } => format!(
                "The message nests XML elements more than {limit} deep, the most this server accepts; flatten or split the request."
            ),
            XmlError::TooManyElements { limit } => format!(
                "The message holds more than {limit} XML elements, the most this server parses in one message; split the request."
            ),
            XmlError::OverBudget => BUSY.to_string(),
            e => {
                return Rejected {
                    reply_attrs: ReplyAttrs::none(),
                    error: Box::new(RpcError::malformed_message(e)),
                }
            }
        };
        Rejected {
            reply_attrs: head_attrs(bytes),
            error: Box::new(RpcError::too_big_because(too_big)),
        }
    })?;
    request_from(root)
}

/// Why a message was refused for the shared memory budget.
const BUSY: &str = "The server's memory for requests in progress, shared by all sessions, is taken by other requests, so this message was refused; send it again later, or in smaller requests.";

/// The reply to a message the framing refused while it arrived (its attributes, if its
/// head holds the `<rpc>` start tag, and the error).
pub fn refused(message: &Refused) -> (ReplyAttrs, RpcError) {
    let error = match message.cause {
        Refusal::TooLarge { limit } => RpcError::too_big(limit),
        Refusal::Refused => RpcError::too_big_because(BUSY),
    };
    (head_attrs(&message.head), error)
}

/// The reply attributes of the `<rpc>` start tag at the start of `bytes`, if there is one.
fn head_attrs(bytes: &[u8]) -> ReplyAttrs {
    let head = &bytes[..bytes.len().min(netconf_proto::framing::REFUSED_HEAD)];
    xml::parse_root_tag(head)
        .filter(|root| root.is(NETCONF_BASE_NS, "rpc"))
        .map_or_else(ReplyAttrs::none, |root| ReplyAttrs::from_request(&root))
}

/// The request a parsed message holds, or why it holds none.
fn request_from(root: Element) -> Result<Request, Rejected> {
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
    fn a_message_over_a_limit_is_too_big_with_its_message_id() {
        let rpc = |body: &str| {
            format!("<rpc message-id=\"7\" xmlns=\"{NETCONF_BASE_NS}\"><get>{body}</get></rpc>")
        };
        let limits = ParseLimits { max_elements: 10, max_depth: 5 };
        for (body, says) in [
            ("<a/>".repeat(10), "more than 10 XML elements"),
            ("<a><a><a><a/></a></a></a>".to_string(), "more than 5 deep"),
        ] {
            let e = parse_request_limited(rpc(&body).as_bytes(), limits, &mut |_| true)
                .expect_err("over a limit");
            assert_eq!((e.error.tag, e.error.error_type), (ErrorTag::TooBig, ErrorType::Rpc));
            assert!(e.error.message.as_deref().is_some_and(|m| m.contains(says)), "{:?}", e.error);
            let text = reply(&e.reply_attrs, &ReplyBody::Errors(vec![*e.error]));
            assert!(text.contains("message-id=\"7\""), "{text}");
        }
        // Within them, and the budget refusing.
        let small = rpc(&"<a/>".repeat(8));
        assert!(parse_request_limited(small.as_bytes(), limits, &mut |_| true).is_ok());
        let limits = ParseLimits { max_elements: usize::MAX, max_depth: 512 };
        let big = rpc(&"<a/>".repeat(10_000));
        let e = parse_request_limited(big.as_bytes(), limits, &mut |_| false).expect_err("budget");
        assert_eq!(e.error.tag, ErrorTag::TooBig);
        assert!(e.error.message.as_deref().is_some_and(|m| m.contains("shared by all sessions")));
        // A refused message's head gives its message-id, even cut off mid-character.
        let mut head = rpc("").into_bytes();
        head.extend_from_slice("é".as_bytes());
        head.pop();
        let refused_message =
            Refused { head, length: 1 << 30, cause: Refusal::TooLarge { limit: 1 << 26 } };
        let (attrs, error) = refused(&refused_message);
        assert_eq!(attrs, ReplyAttrs(" message-id=\"7\"".into()));
        assert_eq!(error.tag, ErrorTag::TooBig);
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
