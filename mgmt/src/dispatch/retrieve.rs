//! What every retrieval shares: the filter parameter (subtree or XPath), and data filtered,
//! rendered in a with-defaults mode and cut to what the user may read.

use super::params::{param, WITH_DEFAULTS_NS};
use super::{one, OpResult};
use crate::access::nacm::UserAcl;
use crate::dispatch::filter_cost;
use crate::engine::{schema_error, Engine, Mode};
use crate::protocol::error::{ErrorInfo, ErrorTag, ErrorType, RpcError};
use crate::protocol::rpc::ReplyBody;
use crate::yang::data::{self, data_text};
use crate::yang::filter::{self, xpath_to_modules};
use crate::yang::schema::{WithDefaults, WD_ATTR_NS};
use netconf_proto::xml::{Element, Scope, NETCONF_BASE_NS};

/// A retrieval filter.
pub(super) enum Filter {
    None,
    Subtree(Element),
    XPath(String),
}

pub(super) fn parse_filter(engine: &Engine, op: &Element, ns: &str) -> Result<Filter, RpcError> {
    let f = if ns == NETCONF_BASE_NS { param(op, "filter") } else { op.child(ns, "filter") };
    let Some(f) = f else { return Ok(Filter::None) };
    let kind = f.attribute("type").unwrap_or("subtree");
    match kind {
        "subtree" => Ok(Filter::Subtree(f.clone())),
        "xpath" => {
            let Some(select) = f.attribute("select") else {
                return Err(RpcError::missing_attribute("select", "filter"));
            };
            let mut scope = Scope::new();
            scope.enter(op);
            scope.enter(f);
            let expr = xpath_to_modules(select, &scope, engine.schema.model()).map_err(|e| {
                RpcError::new(ErrorTag::InvalidValue, ErrorType::Protocol)
                    .with_message(format!("The XPath filter cannot be used: {e}."))
                    .with_info(ErrorInfo::BadAttribute("select".into()))
                    .with_info(ErrorInfo::BadElement("filter".into()))
            })?;
            Ok(Filter::XPath(expr))
        }
        other => Err(RpcError::new(ErrorTag::BadAttribute, ErrorType::Protocol)
            .with_message(format!("'{other}' is not a filter type; use subtree or xpath."))
            .with_info(ErrorInfo::BadAttribute("type".into()))
            .with_info(ErrorInfo::BadElement("filter".into()))),
    }
}

/// Moves libyang's `default` attribute (in the ietf-netconf-with-defaults module namespace)
/// to the namespace RFC 6243 §6 defines for it.
pub(super) fn fix_default_attr(e: &mut Element) {
    // (Only elements that have attributes: asking for them mutably makes room for them.)
    if !e.attributes().is_empty() {
        for a in e.attributes_mut() {
            if a.name == "default" && a.namespace.as_deref() == Some(WITH_DEFAULTS_NS) {
                a.namespace = Some(WD_ATTR_NS.to_string());
                a.prefix = Some("wd".to_string());
            }
        }
    }
    e.retain_namespaces(|(_, u)| u != WITH_DEFAULTS_NS);
    for c in e.elements_mut() {
        fix_default_attr(c);
    }
}

pub(super) fn data_reply(inner: &str) -> ReplyBody {
    ReplyBody::Raw(format!("<data>{inner}</data>"))
}

pub(super) fn render_error(engine: &Engine, e: &crate::yang::schema::SchemaError) -> RpcError {
    let mut err = schema_error(&engine.schema, e);
    err.tag = ErrorTag::OperationFailed;
    err.path = None;
    err
}

/// Filters, applies with-defaults and access control to data (a root tree with its text).
/// `selected` receives the data paths of the nodes an XPath filter selected; `run_mode` says
/// where the request runs (a costly filter on a session's own task runs again on the pool).
#[allow(clippy::too_many_arguments)]
pub(super) fn retrieve(
    engine: &Engine,
    acl: &UserAcl,
    root: &Element,
    text: Option<&str>,
    mode: WithDefaults,
    filter: &Filter,
    state: bool,
    selected: Option<&mut Vec<String>>,
    run_mode: Mode<'_>,
) -> OpResult {
    let model = engine.schema.model();
    // The tree's text only where it is needed (an XPath filter, defaults to render, the whole
    // tree as is): a subtree filter of `<get>` works on the tree itself, and writing 1 MB of
    // state only to drop it was a third of a filtered `<get>`'s time.
    let owned_text = std::cell::OnceCell::new();
    let text = || text.unwrap_or_else(|| owned_text.get_or_init(|| data_text(root)));
    let mut tree = match filter {
        Filter::XPath(expr) => {
            let (out, paths) = engine
                .schema
                .select_xpath(text(), expr, mode, state, filter_cost::limit(engine, run_mode))
                .map_err(|e| one(filter_cost::xpath_error(engine, &e, run_mode)))?;
            if let Some(selected) = selected {
                *selected = paths;
            }
            data::parse_data(&out).map_err(|e| one(render_error(engine, &xml_to_schema(e))))?
        }
        Filter::None if mode == WithDefaults::Explicit && acl.reads_everything() => {
            return Ok(data_reply(text()));
        }
        _ => {
            let rendered;
            let base = if mode == WithDefaults::Explicit {
                root
            } else {
                let out = engine
                    .schema
                    .render(text(), mode, state)
                    .map_err(|e| one(render_error(engine, &e)))?;
                rendered = data::parse_data(&out)
                    .map_err(|e| one(render_error(engine, &xml_to_schema(e))))?;
                &rendered
            };
            match filter {
                Filter::Subtree(f) => {
                    filter::subtree_limited(model, base, f, filter_cost::limit(engine, run_mode))
                        .map_err(|e| one(filter_cost::subtree_error(engine, e, run_mode)))?
                }
                _ => base.clone(),
            }
        }
    };
    acl.filter_read(model, &mut tree);
    if mode == WithDefaults::ReportAllTagged {
        fix_default_attr(&mut tree);
    }
    Ok(data_reply(&data_text(&tree)))
}

pub(super) fn xml_to_schema(e: netconf_proto::xml::XmlError) -> crate::yang::schema::SchemaError {
    crate::yang::schema::SchemaError::Invalid {
        message: e.to_string(),
        path: None,
        app_tag: None,
        schema_path: None,
    }
}
