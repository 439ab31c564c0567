//! The `<hello>` exchange and capability negotiation (RFC 6241 §8.1, RFC 6242 §4.1).
//!
//! ```text
//! <hello xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">
//!   <capabilities>
//!     <capability>urn:ietf:params:netconf:base:1.1</capability>
//!     ...
//!   </capabilities>
//!   <session-id>4</session-id>          <- server only; a client's hello must not have it
//! </hello>
//! ```

use std::fmt::Write as _;

use thiserror::Error;

use crate::framing::Framing;
use crate::xml::{self, escape_text, XmlError, NETCONF_BASE_NS};

/// The base:1.0 capability (end-of-message framing).
pub const BASE_1_0: &str = "urn:ietf:params:netconf:base:1.0";
/// The base:1.1 capability (chunked framing).
pub const BASE_1_1: &str = "urn:ietf:params:netconf:base:1.1";

/// Whose hello is being parsed: the rules differ on `<session-id>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sender {
    /// A client's hello: must not carry a session-id.
    Client,
    /// A server's hello: must carry a session-id.
    Server,
}

/// A parsed hello.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hello {
    /// The capability URIs, trimmed, in the order sent.
    pub capabilities: Vec<String>,
    /// The session-id (server hellos only).
    pub session_id: Option<u32>,
}

/// Why a hello is refused. Every one of these ends the session (RFC 6241 §8.1).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HelloError {
    /// The hello is not well-formed XML.
    #[error("the hello is not well-formed XML: {0}")]
    Xml(#[from] XmlError),
    /// The root element is not `<hello>` in the NETCONF base namespace.
    #[error("expected a <hello> in namespace {NETCONF_BASE_NS}, found <{0}>")]
    NotHello(String),
    /// No `<capabilities>` element.
    #[error("the hello has no <capabilities> element")]
    MissingCapabilities,
    /// `<capabilities>` with no `<capability>` in it.
    #[error("the hello lists no capability")]
    NoCapability,
    /// A `<capability>` with an empty value.
    #[error("the hello has an empty <capability>")]
    EmptyCapability,
    /// A client hello carrying a `<session-id>`.
    #[error("a client's hello must not contain a <session-id>")]
    UnexpectedSessionId,
    /// A server hello without a `<session-id>`.
    #[error("the server's hello has no <session-id>")]
    MissingSessionId,
    /// A session-id that is not a number in 1..=4294967295.
    #[error("invalid session-id '{0}'")]
    BadSessionId(String),
    /// An element the hello may not contain (in the base namespace), or a repeated one.
    #[error("unexpected element <{0}> in the hello")]
    UnexpectedElement(String),
    /// Neither base:1.0 nor base:1.1 in common.
    #[error("no common base protocol version: the peer advertises neither {BASE_1_0} nor {BASE_1_1} in common with us")]
    NoCommonBase,
}

/// Parses a hello sent by `sender`.
pub fn parse_hello(bytes: &[u8], sender: Sender) -> Result<Hello, HelloError> {
    parse_hello_limited(bytes, sender, xml::ParseLimits::TRUSTED, &mut |_| true)
}

/// Parses a hello sent by `sender` within `limits`, charging `charge` for the tree it
/// builds (`xml::parse_limited`).
pub fn parse_hello_limited(
    bytes: &[u8],
    sender: Sender,
    limits: xml::ParseLimits,
    charge: &mut dyn FnMut(usize) -> bool,
) -> Result<Hello, HelloError> {
    let root = xml::parse_limited(bytes, limits, charge)?;
    if !root.is(NETCONF_BASE_NS, "hello") {
        return Err(HelloError::NotHello(root.qualified_name()));
    }
    let mut capabilities = None;
    let mut session_id = None;
    for child in root.elements() {
        if child.namespace.as_deref() != Some(NETCONF_BASE_NS) {
            // Elements of other namespaces are extensions we do not understand: ignored.
            continue;
        }
        match child.name.as_str() {
            "capabilities" if capabilities.is_none() => {
                let mut caps = Vec::new();
                for cap in child.elements() {
                    if !cap.is(NETCONF_BASE_NS, "capability") {
                        return Err(HelloError::UnexpectedElement(cap.qualified_name()));
                    }
                    let uri = cap.text().trim().to_string();
                    if uri.is_empty() {
                        return Err(HelloError::EmptyCapability);
                    }
                    caps.push(uri);
                }
                if caps.is_empty() {
                    return Err(HelloError::NoCapability);
                }
                capabilities = Some(caps);
            }
            "session-id" if sender == Sender::Client => {
                return Err(HelloError::UnexpectedSessionId)
            }
            "session-id" if session_id.is_none() => {
                let text = child.text();
                let id = text
                    .trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|&id| id != 0)
                    .ok_or_else(|| HelloError::BadSessionId(text.trim().to_string()))?;
                session_id = Some(id);
            }
            _ => return Err(HelloError::UnexpectedElement(child.qualified_name())),
        }
    }
    let capabilities = capabilities.ok_or(HelloError::MissingCapabilities)?;
    if sender == Sender::Server && session_id.is_none() {
        return Err(HelloError::MissingSessionId);
    }
    Ok(Hello { capabilities, session_id })
}

/// Chooses the framing from both capability lists: chunked if both advertise base:1.1,
/// end-of-message if both advertise base:1.0, otherwise the session cannot continue.
pub fn negotiate(ours: &[String], theirs: &[String]) -> Result<Framing, HelloError> {
    let both = |cap: &str| ours.iter().any(|c| c == cap) && theirs.iter().any(|c| c == cap);
    if both(BASE_1_1) {
        Ok(Framing::Chunked)
    } else if both(BASE_1_0) {
        Ok(Framing::EndOfMessage)
    } else {
        Err(HelloError::NoCommonBase)
    }
}

fn hello_xml(capabilities: &[String], session_id: Option<u32>) -> String {
    let mut out = String::new();
    let _ = write!(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?><hello xmlns=\"{NETCONF_BASE_NS}\"><capabilities>");
    for cap in capabilities {
        let _ = write!(out, "<capability>{}</capability>", escape_text(cap));
    }
    out.push_str("</capabilities>");
    if let Some(id) = session_id {
        let _ = write!(out, "<session-id>{id}</session-id>");
    }
    out.push_str("</hello>");
    out
}

/// A server's hello.
pub fn server_hello(capabilities: &[String], session_id: u32) -> String {
    hello_xml(capabilities, Some(session_id))
}

/// A client's hello.
pub fn client_hello(capabilities: &[String]) -> String {
    hello_xml(capabilities, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_ncclient_style_prefixed_hello() {
        let hello = br#"<?xml version="1.0" encoding="UTF-8"?><nc:hello xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0"><nc:capabilities><nc:capability>urn:ietf:params:netconf:base:1.0</nc:capability><nc:capability>
    urn:ietf:params:netconf:base:1.1
  </nc:capability><nc:capability>urn:ietf:params:netconf:capability:writable-running:1.0</nc:capability></nc:capabilities></nc:hello>"#;
        let h = parse_hello(hello, Sender::Client).expect("valid");
        assert_eq!(
            h.capabilities,
            caps(&[BASE_1_0, BASE_1_1, "urn:ietf:params:netconf:capability:writable-running:1.0"])
        );
        assert_eq!(h.session_id, None);
    }

    #[test]
    fn server_hello_roundtrips() {
        let text = server_hello(&caps(&[BASE_1_0, BASE_1_1]), 42);
        let h = parse_hello(text.as_bytes(), Sender::Server).expect("valid");
        assert_eq!(h.session_id, Some(42));
        assert_eq!(h.capabilities, caps(&[BASE_1_0, BASE_1_1]));
        let c = client_hello(&caps(&[BASE_1_1]));
        assert_eq!(
            parse_hello(c.as_bytes(), Sender::Client).map(|h| h.capabilities),
            Ok(caps(&[BASE_1_1]))
        );
    }

    #[test]
    fn rejects_bad_hellos() {
        let ns = NETCONF_BASE_NS;
        let cases: Vec<(String, Sender, HelloError)> = vec![
            (
                format!("<hello xmlns='{ns}'><capabilities><capability>{BASE_1_0}</capability></capabilities><session-id>1</session-id></hello>"),
                Sender::Client,
                HelloError::UnexpectedSessionId,
            ),
            (format!("<hello xmlns='{ns}'/>"), Sender::Client, HelloError::MissingCapabilities),
            (format!("<hello xmlns='{ns}'><capabilities/></hello>"), Sender::Client, HelloError::NoCapability),
            (
                format!("<hello xmlns='{ns}'><capabilities><capability> </capability></capabilities></hello>"),
                Sender::Client,
                HelloError::EmptyCapability,
            ),
            (
                format!("<hello><capabilities><capability>{BASE_1_0}</capability></capabilities></hello>"),
                Sender::Client,
                HelloError::NotHello("hello".into()),
            ),
            (format!("<rpc xmlns='{ns}'/>"), Sender::Client, HelloError::NotHello("rpc".into())),
            (
                format!("<hello xmlns='{ns}'><capabilities><capability>{BASE_1_0}</capability></capabilities></hello>"),
                Sender::Server,
                HelloError::MissingSessionId,
            ),
            (
                format!("<hello xmlns='{ns}'><capabilities><capability>{BASE_1_0}</capability></capabilities><session-id>0</session-id></hello>"),
                Sender::Server,
                HelloError::BadSessionId("0".into()),
            ),
            (
                format!("<hello xmlns='{ns}'><capabilities><capability>{BASE_1_0}</capability><x/></capabilities></hello>"),
                Sender::Client,
                HelloError::UnexpectedElement("x".into()),
            ),
            (
                format!("<hello xmlns='{ns}'><capabilities><capability>{BASE_1_0}</capability></capabilities><capabilities/></hello>"),
                Sender::Client,
                HelloError::UnexpectedElement("capabilities".into()),
            ),
        ];
        for (text, sender, expected) in cases {
            assert_eq!(parse_hello(text.as_bytes(), sender), Err(expected), "{text}");
        }
        assert!(matches!(parse_hello(b"<hello", Sender::Client), Err(HelloError::Xml(_))));
    }

    #[test]
    fn foreign_namespace_extensions_are_ignored() {
        let text = format!(
            "<hello xmlns='{NETCONF_BASE_NS}'><capabilities><capability>{BASE_1_1}</capability></capabilities><x xmlns='urn:vendor'/></hello>"
        );
        assert!(parse_hello(text.as_bytes(), Sender::Client).is_ok());
    }

    #[test]
    fn negotiation_prefers_1_1() {
        let both = caps(&[BASE_1_0, BASE_1_1]);
        assert_eq!(negotiate(&both, &both), Ok(Framing::Chunked));
        assert_eq!(negotiate(&both, &caps(&[BASE_1_0])), Ok(Framing::EndOfMessage));
        assert_eq!(negotiate(&caps(&[BASE_1_0]), &both), Ok(Framing::EndOfMessage));
        assert_eq!(negotiate(&both, &caps(&[BASE_1_1])), Ok(Framing::Chunked));
        assert_eq!(
            negotiate(&caps(&[BASE_1_0]), &caps(&[BASE_1_1])),
            Err(HelloError::NoCommonBase)
        );
        assert_eq!(negotiate(&both, &caps(&["urn:x"])), Err(HelloError::NoCommonBase));
    }
}
