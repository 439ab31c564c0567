//! A parsed `<rpc-reply>` (RFC 6241 §4.2–4.4) and its `<rpc-error>`s, as `parse.rs` reads them:
//! the reply's own level, with the content of `<data>` and `<error-info>` kept as raw text.

use std::ops::Range;

use quick_xml::events::Event;
use quick_xml::NsReader;

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
    pub(crate) raw: String,
    pub(crate) message_id: Option<String>,
    pub(crate) ok: bool,
    pub(crate) errors: Vec<RpcError>,
    pub(crate) data: Option<Range<usize>>,
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
}

/// A general entity reference (`&amp;`, `&#38;`) as text, if it is a predefined or character one.
pub(crate) fn resolve_ref(r: &quick_xml::events::BytesRef<'_>) -> Option<String> {
    if r.is_char_ref() {
        r.resolve_char_ref().ok().flatten().map(String::from)
    } else {
        quick_xml::escape::resolve_predefined_entity(&r.xml10_content()).map(str::to_string)
    }
}
