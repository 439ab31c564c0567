//! The parameters of an operation: which it may have, datastores, enumerations,
//! with-defaults, and the rpc-errors for what is wrong with them.

use crate::datastore::DatastoreName;
use crate::protocol::error::{ErrorInfo, ErrorTag, ErrorType, RpcError};
use crate::yang::schema::WithDefaults;
use netconf_proto::xml::{Element, NETCONF_BASE_NS};

/// The ietf-netconf-with-defaults namespace (the `with-defaults` parameter).
pub const WITH_DEFAULTS_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-netconf-with-defaults";

pub(super) fn unknown_param(e: &Element) -> RpcError {
    RpcError::new(ErrorTag::UnknownElement, ErrorType::Protocol)
        .with_message(format!("<{}> is not a parameter of this operation.", e.name))
        .with_info(ErrorInfo::BadElement(e.name.to_string()))
}

pub(super) fn missing_param(name: &str) -> RpcError {
    RpcError::new(ErrorTag::MissingElement, ErrorType::Protocol)
        .with_message(format!("The operation needs a <{name}> parameter."))
        .with_info(ErrorInfo::BadElement(name.to_string()))
}

pub(super) fn bad_param(name: &str, why: impl Into<String>) -> RpcError {
    RpcError::new(ErrorTag::BadElement, ErrorType::Protocol)
        .with_message(why)
        .with_info(ErrorInfo::BadElement(name.to_string()))
}

pub(super) fn invalid_param(name: &str, why: impl Into<String>) -> RpcError {
    RpcError::new(ErrorTag::InvalidValue, ErrorType::Protocol)
        .with_message(why)
        .with_info(ErrorInfo::BadElement(name.to_string()))
}

/// Reads an enumerated parameter: absent means the first choice (the RFC's default); any other
/// text is invalid-value naming the choices.
pub(super) fn enum_param<T: Copy>(
    op: &Element,
    name: &str,
    what: &str,
    choices: &[(&str, T)],
) -> Result<T, RpcError> {
    let Some(text) = param(op, name).map(|e| e.text().trim().to_string()) else {
        return Ok(choices[0].1);
    };
    match choices.iter().find(|(word, _)| *word == text) {
        Some((_, value)) => Ok(*value),
        None => {
            let words: Vec<&str> = choices.iter().map(|(word, _)| *word).collect();
            let list = match words.split_last() {
                Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
                _ => words.join(""),
            };
            Err(invalid_param(name, format!("'{text}' is not {what}; use {list}.")))
        }
    }
}

/// Checks that `op` has only the parameters `allowed` (namespace, name), each at most once.
pub(super) fn check_params(op: &Element, allowed: &[(&str, &str)]) -> Result<(), RpcError> {
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for c in op.elements() {
        let ns = c.namespace.as_deref().unwrap_or(NETCONF_BASE_NS);
        let Some(&a) = allowed.iter().find(|(ans, an)| *ans == ns && *an == c.name) else {
            return Err(unknown_param(c));
        };
        if seen.contains(&a) {
            return Err(bad_param(&c.name, format!("<{}> is given more than once.", c.name)));
        }
        seen.push(a);
    }
    if op.has_text() {
        return Err(bad_param(
            &op.name,
            format!("<{}> holds text; it takes only elements.", op.name),
        ));
    }
    Ok(())
}

/// Whether `e` is in the NETCONF base namespace, or in no namespace at all. RFC 6241's
/// schema qualifies every parameter, but ncclient sends the `<config>` its users write without
/// a namespace (`edit_config(config="<config>...")`) and netconfd accepts it; a parameter of a
/// base operation has no other sensible meaning, so it is read as the base one.
pub(super) fn in_base_ns(e: &Element) -> bool {
    matches!(e.namespace.as_deref(), None | Some(NETCONF_BASE_NS))
}

pub(super) fn param<'a>(op: &'a Element, name: &str) -> Option<&'a Element> {
    op.elements().find(|e| e.name == name && in_base_ns(e))
}

/// A source or target: a datastore or inline configuration.
pub(super) enum DsParam<'a> {
    Datastore(DatastoreName),
    Config(&'a Element),
}

pub(super) fn ds_param<'a>(
    op: &'a Element,
    name: &str,
    allowed: &[DatastoreName],
    inline: bool,
) -> Result<DsParam<'a>, RpcError> {
    let p = param(op, name).ok_or_else(|| missing_param(name))?;
    let mut children = p.elements();
    let (Some(c), None) = (children.next(), children.next()) else {
        return Err(bad_param(
            name,
            format!("<{name}> must hold exactly one datastore or a <config>."),
        ));
    };
    if !in_base_ns(c) {
        return Err(unknown_param(c));
    }
    if c.name == "config" && inline {
        return Ok(DsParam::Config(c));
    }
    if c.name == "url" {
        return Err(RpcError::new(ErrorTag::OperationNotSupported, ErrorType::Protocol)
            .with_message("This server does not support the :url capability; name a datastore."));
    }
    match DatastoreName::from_name(&c.name) {
        Some(ds) if allowed.contains(&ds) => Ok(DsParam::Datastore(ds)),
        Some(ds) => Err(bad_param(
            name,
            format!("The {} datastore cannot be the {name} of <{}>.", ds.as_str(), op.name),
        )),
        None => Err(unknown_param(c)),
    }
}

pub(super) fn datastore(
    op: &Element,
    name: &str,
    allowed: &[DatastoreName],
) -> Result<DatastoreName, RpcError> {
    match ds_param(op, name, allowed, false)? {
        DsParam::Datastore(ds) => Ok(ds),
        DsParam::Config(_) => Err(bad_param(name, "a datastore is needed here")),
    }
}

pub(super) fn with_defaults(op: &Element) -> Result<WithDefaults, RpcError> {
    match op.child(WITH_DEFAULTS_NS, "with-defaults") {
        None => Ok(WithDefaults::Explicit),
        Some(e) => WithDefaults::from_name(e.text().trim()).ok_or_else(|| {
            invalid_param(
                "with-defaults",
                format!(
                    "'{}' is not a with-defaults mode; use explicit, report-all, report-all-tagged or trim.",
                    e.text().trim()
                ),
            )
        }),
    }
}
