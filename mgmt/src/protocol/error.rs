//! The `<rpc-error>` model (RFC 6241 §4.3 and Appendix A) and its XML form.

use std::fmt::Write as _;

use netconf_proto::xml::{escape_attr, escape_text, NETCONF_BASE_NS};

/// The conceptual layer where an error occurred (`error-type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorType {
    /// Secure transport layer.
    Transport,
    /// Messages layer.
    Rpc,
    /// Operations layer.
    Protocol,
    /// Content layer.
    Application,
}

impl ErrorType {
    /// The name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorType::Transport => "transport",
            ErrorType::Rpc => "rpc",
            ErrorType::Protocol => "protocol",
            ErrorType::Application => "application",
        }
    }
}

/// `error-severity`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// An error.
    Error,
    /// A warning (no standard error-tag uses it yet).
    Warning,
}

impl Severity {
    /// The name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// `error-tag`: the error conditions of RFC 6241 Appendix A.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorTag {
    /// The request requires a resource that is already in use.
    InUse,
    /// The request specifies an unacceptable value.
    InvalidValue,
    /// The request or response is too large for the implementation.
    TooBig,
    /// An expected attribute is missing.
    MissingAttribute,
    /// An attribute value is not correct.
    BadAttribute,
    /// An unexpected attribute is present.
    UnknownAttribute,
    /// An expected element is missing.
    MissingElement,
    /// An element value is not correct.
    BadElement,
    /// An unexpected element is present.
    UnknownElement,
    /// An unexpected namespace is present.
    UnknownNamespace,
    /// Access to the requested protocol operation or data model is denied.
    AccessDenied,
    /// Access to the requested lock is denied because the lock is held by another entity.
    LockDenied,
    /// Request could not be completed because of insufficient resources.
    ResourceDenied,
    /// Request to roll back some configuration change was not completed.
    RollbackFailed,
    /// Request could not be completed because the relevant data model content already exists.
    DataExists,
    /// Request could not be completed because the relevant data model content does not exist.
    DataMissing,
    /// Request could not be completed because the requested operation is not supported.
    OperationNotSupported,
    /// Request could not be completed because of an error not covered by another tag.
    OperationFailed,
    /// The message could not be parsed (base:1.1 only).
    MalformedMessage,
}

impl ErrorTag {
    /// The name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorTag::InUse => "in-use",
            ErrorTag::InvalidValue => "invalid-value",
            ErrorTag::TooBig => "too-big",
            ErrorTag::MissingAttribute => "missing-attribute",
            ErrorTag::BadAttribute => "bad-attribute",
            ErrorTag::UnknownAttribute => "unknown-attribute",
            ErrorTag::MissingElement => "missing-element",
            ErrorTag::BadElement => "bad-element",
            ErrorTag::UnknownElement => "unknown-element",
            ErrorTag::UnknownNamespace => "unknown-namespace",
            ErrorTag::AccessDenied => "access-denied",
            ErrorTag::LockDenied => "lock-denied",
            ErrorTag::ResourceDenied => "resource-denied",
            ErrorTag::RollbackFailed => "rollback-failed",
            ErrorTag::DataExists => "data-exists",
            ErrorTag::DataMissing => "data-missing",
            ErrorTag::OperationNotSupported => "operation-not-supported",
            ErrorTag::OperationFailed => "operation-failed",
            ErrorTag::MalformedMessage => "malformed-message",
        }
    }

    /// The error-types RFC 6241 Appendix A allows with this tag.
    pub fn allowed_types(self) -> &'static [ErrorType] {
        use ErrorType::*;
        match self {
            ErrorTag::InUse
            | ErrorTag::InvalidValue
            | ErrorTag::AccessDenied
            | ErrorTag::RollbackFailed
            | ErrorTag::OperationNotSupported => &[Protocol, Application],
            ErrorTag::TooBig | ErrorTag::ResourceDenied | ErrorTag::OperationFailed => {
                &[Transport, Rpc, Protocol, Application]
            }
            ErrorTag::MissingAttribute
            | ErrorTag::BadAttribute
            | ErrorTag::UnknownAttribute
            | ErrorTag::UnknownElement
            | ErrorTag::UnknownNamespace => &[Rpc, Protocol, Application],
            ErrorTag::MissingElement | ErrorTag::BadElement => &[Protocol, Application],
            ErrorTag::LockDenied => &[Protocol],
            ErrorTag::DataExists | ErrorTag::DataMissing => &[Application],
            ErrorTag::MalformedMessage => &[Rpc],
        }
    }
}

/// One item of `<error-info>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorInfo {
    /// `<bad-attribute>`: the attribute's name.
    BadAttribute(String),
    /// `<bad-element>`: the element's name.
    BadElement(String),
    /// `<bad-namespace>`: the namespace.
    BadNamespace(String),
    /// `<session-id>`: the session holding a lock (0 for a non-NETCONF holder).
    SessionId(u32),
    /// `<non-unique>` (RFC 7950 §15.1, YANG namespace): an instance-identifier of a leaf that
    /// breaks a `unique` statement, with the prefixes it uses.
    NonUnique(ErrorPath),
    /// `<missing-choice>` (RFC 7950 §15.6, YANG namespace): the name of the mandatory choice
    /// no case of which exists.
    MissingChoice(String),
}

/// The YANG namespace, of RFC 7950's error-info elements (`non-unique`, `missing-choice`).
pub const YANG_ERROR_INFO_NS: &str = "urn:ietf:params:xml:ns:yang:1";

/// One `<rpc-error>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcError {
    /// `error-type`.
    pub error_type: ErrorType,
    /// `error-tag`.
    pub tag: ErrorTag,
    /// `error-severity`.
    pub severity: Severity,
    /// `error-app-tag`.
    pub app_tag: Option<String>,
    /// `error-path`: an absolute XPath to the offending node, with the prefix bindings the
    /// path uses (declared on the `<error-path>` element).
    pub path: Option<Box<ErrorPath>>,
    /// `error-message`, in English: a sentence saying what was wrong and what to do.
    pub message: Option<String>,
    /// `error-info` items.
    pub info: Vec<ErrorInfo>,
}

/// An `error-path` value and the namespace prefixes it uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorPath {
    /// The XPath expression, e.g. `/nc:rpc/nc:edit-config/nc:target`.
    pub xpath: String,
    /// (prefix, namespace) bindings for the prefixes in `xpath`.
    pub namespaces: Vec<(String, String)>,
}

// ===== impl RpcError =====

impl RpcError {
    /// An error with the given tag and type, severity error, nothing else set.
    pub fn new(tag: ErrorTag, error_type: ErrorType) -> Self {
        debug_assert!(
            tag.allowed_types().contains(&error_type),
            "{} is not allowed with error-type {}",
            tag.as_str(),
            error_type.as_str()
        );
        RpcError {
            error_type,
            tag,
            severity: Severity::Error,
            app_tag: None,
            path: None,
            message: None,
            info: Vec::new(),
        }
    }

    /// Sets the message.
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }

    /// Sets the error path.
    pub fn with_path(
        mut self,
        xpath: impl Into<String>,
        namespaces: Vec<(String, String)>,
    ) -> Self {
        self.path = Some(Box::new(ErrorPath { xpath: xpath.into(), namespaces }));
        self
    }

    /// Adds an error-info item.
    pub fn with_info(mut self, info: ErrorInfo) -> Self {
        self.info.push(info);
        self
    }

    /// malformed-message (rpc): the message could not be parsed. Only for base:1.1 sessions.
    pub fn malformed_message(reason: impl std::fmt::Display) -> Self {
        RpcError::new(ErrorTag::MalformedMessage, ErrorType::Rpc).with_message(format!(
            "The message is not well-formed XML ({reason}); fix the message and send it again."
        ))
    }

    /// operation-not-supported (protocol) for the operation element `name`.
    pub fn operation_not_supported(name: &str) -> Self {
        RpcError::new(ErrorTag::OperationNotSupported, ErrorType::Protocol).with_message(format!(
            "The operation '{name}' is not supported by this server; see its capabilities in the hello message."
        ))
    }

    /// missing-attribute (rpc) for `attribute` on `element`.
    pub fn missing_attribute(attribute: &str, element: &str) -> Self {
        RpcError::new(ErrorTag::MissingAttribute, ErrorType::Rpc)
            .with_message(format!(
                "The <{element}> element has no '{attribute}' attribute; add one."
            ))
            .with_info(ErrorInfo::BadAttribute(attribute.to_string()))
            .with_info(ErrorInfo::BadElement(element.to_string()))
    }

    /// too-big (rpc): the request exceeded the maximum message size.
    pub fn too_big(limit: usize) -> Self {
        RpcError::new(ErrorTag::TooBig, ErrorType::Rpc).with_message(format!(
            "The message is larger than this server's maximum message size of {limit} bytes; split the request."
        ))
    }

    /// too-big (rpc): the request exceeded one of the server's limits other than the message
    /// size; `reason` says which and what to do, as a sentence.
    pub fn too_big_because(reason: impl Into<String>) -> Self {
        RpcError::new(ErrorTag::TooBig, ErrorType::Rpc).with_message(reason)
    }

    /// Appends the `<rpc-error>` element to `out`, in the NETCONF base namespace declared by
    /// an ancestor as the default namespace.
    pub fn write_xml(&self, out: &mut String) {
        out.push_str("<rpc-error>");
        let _ = write!(out, "<error-type>{}</error-type>", self.error_type.as_str());
        let _ = write!(out, "<error-tag>{}</error-tag>", self.tag.as_str());
        let _ = write!(out, "<error-severity>{}</error-severity>", self.severity.as_str());
        if let Some(app_tag) = &self.app_tag {
            let _ = write!(out, "<error-app-tag>{}</error-app-tag>", escape_text(app_tag));
        }
        if let Some(path) = &self.path {
            out.push_str("<error-path");
            for (prefix, ns) in &path.namespaces {
                let _ = write!(out, " xmlns:{prefix}=\"{}\"", escape_attr(ns));
            }
            let _ = write!(out, ">{}</error-path>", escape_text(&path.xpath));
        }
        if let Some(message) = &self.message {
            let _ = write!(
                out,
                "<error-message xml:lang=\"en\">{}</error-message>",
                escape_text(message)
            );
        }
        if !self.info.is_empty() {
            out.push_str("<error-info>");
            for info in &self.info {
                match info {
                    ErrorInfo::BadAttribute(a) => {
                        let _ = write!(out, "<bad-attribute>{}</bad-attribute>", escape_text(a));
                    }
                    ErrorInfo::BadElement(e) => {
                        let _ = write!(out, "<bad-element>{}</bad-element>", escape_text(e));
                    }
                    ErrorInfo::BadNamespace(n) => {
                        let _ = write!(out, "<bad-namespace>{}</bad-namespace>", escape_text(n));
                    }
                    ErrorInfo::SessionId(id) => {
                        let _ = write!(out, "<session-id>{id}</session-id>");
                    }
                    ErrorInfo::NonUnique(path) => {
                        let _ = write!(out, "<non-unique xmlns=\"{YANG_ERROR_INFO_NS}\"");
                        for (prefix, ns) in &path.namespaces {
                            let _ = write!(out, " xmlns:{prefix}=\"{}\"", escape_attr(ns));
                        }
                        let _ = write!(out, ">{}</non-unique>", escape_text(&path.xpath));
                    }
                    ErrorInfo::MissingChoice(name) => {
                        let _ = write!(
                            out,
                            "<missing-choice xmlns=\"{YANG_ERROR_INFO_NS}\">{}</missing-choice>",
                            escape_text(name)
                        );
                    }
                }
            }
            out.push_str("</error-info>");
        }
        out.push_str("</rpc-error>");
    }

    /// The `<rpc-error>` alone, with the base namespace declared on it.
    pub fn to_xml(&self) -> String {
        let mut inner = String::new();
        self.write_xml(&mut inner);
        inner.replacen("<rpc-error>", &format!("<rpc-error xmlns=\"{NETCONF_BASE_NS}\">"), 1)
    }
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.tag.as_str(), self.error_type.as_str())?;
        if let Some(m) = &self.message {
            write!(f, ": {m}")?;
        }
        Ok(())
    }
}

impl std::error::Error for RpcError {}

#[cfg(test)]
mod tests {
    use super::*;
    use netconf_proto::xml;

    #[test]
    fn constructors_use_types_allowed_by_appendix_a() {
        for e in [
            RpcError::malformed_message("x"),
            RpcError::operation_not_supported("get"),
            RpcError::missing_attribute("message-id", "rpc"),
            RpcError::too_big(10),
        ] {
            assert!(e.tag.allowed_types().contains(&e.error_type), "{e}");
        }
    }

    #[test]
    fn serialises_every_field_and_parses_back() {
        let e = RpcError::new(ErrorTag::InvalidValue, ErrorType::Application)
            .with_message("a < b & c")
            .with_path(
                "/if:interfaces/if:interface[if:name='eth0']",
                vec![("if".into(), "urn:ietf:params:xml:ns:yang:ietf-interfaces".into())],
            )
            .with_info(ErrorInfo::BadElement("mtu".into()))
            .with_info(ErrorInfo::SessionId(4));
        let text = e.to_xml();
        let root = xml::parse(text.as_bytes()).expect("well-formed");
        assert!(root.is(NETCONF_BASE_NS, "rpc-error"));
        let field = |n: &str| root.child(NETCONF_BASE_NS, n).map(xml::Element::text);
        assert_eq!(field("error-type").as_deref(), Some("application"));
        assert_eq!(field("error-tag").as_deref(), Some("invalid-value"));
        assert_eq!(field("error-severity").as_deref(), Some("error"));
        assert_eq!(field("error-message").as_deref(), Some("a < b & c"));
        assert_eq!(
            field("error-path").as_deref(),
            Some("/if:interfaces/if:interface[if:name='eth0']")
        );
        let info = root.child(NETCONF_BASE_NS, "error-info").expect("info");
        assert_eq!(
            info.child(NETCONF_BASE_NS, "bad-element").map(xml::Element::text).as_deref(),
            Some("mtu")
        );
        assert_eq!(
            info.child(NETCONF_BASE_NS, "session-id").map(xml::Element::text).as_deref(),
            Some("4")
        );
    }

    #[test]
    fn rfc7950_error_info_is_in_the_yang_namespace_with_its_prefixes() {
        let e = RpcError::new(ErrorTag::OperationFailed, ErrorType::Application)
            .with_info(ErrorInfo::NonUnique(ErrorPath {
                xpath: "/t:server[t:name='a']/t:port".into(),
                namespaces: vec![("t".into(), "urn:t".into())],
            }))
            .with_info(ErrorInfo::MissingChoice("protocol".into()));
        let root = xml::parse(e.to_xml().as_bytes()).expect("well-formed");
        let info = root.child(NETCONF_BASE_NS, "error-info").expect("info");
        let non_unique = info.child(YANG_ERROR_INFO_NS, "non-unique").expect("non-unique");
        assert_eq!(non_unique.text(), "/t:server[t:name='a']/t:port");
        assert!(non_unique
            .namespaces()
            .iter()
            .any(|(p, u)| p.as_deref() == Some("t") && u == "urn:t"));
        let choice = info.child(YANG_ERROR_INFO_NS, "missing-choice").map(xml::Element::text);
        assert_eq!(choice.as_deref(), Some("protocol"));
    }

    #[test]
    fn missing_message_id_literal() {
        // RFC 6241 §4.1's example of a missing message-id.
        let mut out = String::new();
        let mut e = RpcError::missing_attribute("message-id", "rpc");
        e.message = None;
        e.write_xml(&mut out);
        assert_eq!(
            out,
            "<rpc-error><error-type>rpc</error-type><error-tag>missing-attribute</error-tag>\
<error-severity>error</error-severity><error-info><bad-attribute>message-id</bad-attribute>\
<bad-element>rpc</bad-element></error-info></rpc-error>"
        );
    }
}
