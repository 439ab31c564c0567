//! The NMDA operations (RFC 8526): `<get-data>` of any datastore, operational included,
//! with its config filter and max-depth, and `<edit-data>`.

use std::sync::Arc;

use super::editing::{apply_edit, Test};
use super::get::operational;
use super::params::{check_params, invalid_param, missing_param, with_defaults, WITH_DEFAULTS_NS};
use super::retrieve::{render_error, retrieve, xml_to_schema, Filter};
use super::{one, OpResult};
use crate::datastore::DatastoreName;
use crate::engine::monitoring;
use crate::engine::{Engine, Mode, SessionCtx};
use crate::protocol::error::{ErrorTag, ErrorType, RpcError};
use crate::protocol::rpc::ReplyBody;
use crate::yang::data::{self, data_text, DataPath};
use crate::yang::edit::{ErrorOption, Op};
use crate::yang::filter::xpath_to_modules;
use crate::yang::max_depth::{self, Selection};
use crate::yang::schema::WithDefaults;
use netconf_proto::xml::{Element, Node, Scope};

/// The ietf-netconf-nmda namespace.
pub const NMDA_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-netconf-nmda";

/// An NMDA datastore: the conventional ones, or operational (intended is running here).
pub(super) enum Nmds {
    Conventional(DatastoreName),
    Operational,
}

pub(super) fn nmda_datastore(op: &Element) -> Result<Nmds, RpcError> {
    let e = op.child(NMDA_NS, "datastore").ok_or_else(|| missing_param("datastore"))?;
    let text = e.text();
    let value = text.trim();
    let (prefix, name) = match value.split_once(':') {
        Some((p, n)) => (Some(p), n),
        None => (None, value),
    };
    let mut scope = Scope::new();
    scope.enter(op);
    scope.enter(e);
    let ns = scope.resolve(prefix);
    if prefix.is_some() && ns != Some(monitoring::DATASTORES_NS) {
        return Err(invalid_param(
            "datastore",
            format!("'{value}' is not a datastore identity of ietf-datastores."),
        ));
    }
    match name {
        "running" | "intended" => Ok(Nmds::Conventional(DatastoreName::Running)),
        "candidate" => Ok(Nmds::Conventional(DatastoreName::Candidate)),
        "startup" => Ok(Nmds::Conventional(DatastoreName::Startup)),
        "operational" => Ok(Nmds::Operational),
        _ => Err(invalid_param("datastore", format!("This server has no datastore '{value}'."))),
    }
}

/// Keeps only configuration (`want_config`) or only state nodes, with the ancestors and list
/// keys state nodes need.
pub(super) fn config_filter(
    model: &crate::yang::model::Model,
    sparent: Option<&crate::yang::model::SNode>,
    e: &mut Element,
    want_config: bool,
) -> bool {
    let mut kept_any = false;
    let children = std::mem::take(&mut e.children);
    let mut keys = Vec::new();
    for n in children {
        let Node::Element(mut c) = n else { continue };
        let Some(s) = model.child_of(sparent, c.namespace.as_deref().unwrap_or_default(), &c.name)
        else {
            continue;
        };
        if s.is_key && sparent.is_some_and(|p| p.kind == crate::yang::model::Kind::List) {
            keys.push(Node::Element(c));
            continue;
        }
        let keep = if !s.config {
            !want_config
        } else if matches!(
            s.kind,
            crate::yang::model::Kind::Container | crate::yang::model::Kind::List
        ) {
            config_filter(model, Some(s), &mut c, want_config)
        } else {
            want_config
        };
        if keep {
            kept_any = true;
            e.children.push(Node::Element(c));
        }
    }
    if kept_any || want_config {
        keys.append(&mut e.children);
        e.children = keys;
    }
    kept_any || (want_config && !e.children.is_empty())
}

pub(super) fn get_data(
    engine: &Engine,
    ctx: &SessionCtx,
    run_mode: Mode<'_>,
    op: &Element,
) -> OpResult {
    let n = NMDA_NS;
    check_params(
        op,
        &[
            (n, "datastore"),
            (n, "subtree-filter"),
            (n, "xpath-filter"),
            (n, "config-filter"),
            (n, "max-depth"),
            (n, "with-defaults"),
            (WITH_DEFAULTS_NS, "with-defaults"),
            (n, "origin-filter"),
            (n, "negated-origin-filter"),
            (n, "with-origin"),
        ],
    )
    .map_err(one)?;
    for unsupported in ["origin-filter", "negated-origin-filter", "with-origin"] {
        if op.child(n, unsupported).is_some() {
            return Err(one(RpcError::new(ErrorTag::OperationNotSupported, ErrorType::Protocol)
                .with_message(format!(
                    "<{unsupported}> needs the origin feature, which this server does not offer."
                ))));
        }
    }
    let ds = nmda_datastore(op).map_err(one)?;
    let mode = match op.child(n, "with-defaults") {
        Some(e) => WithDefaults::from_name(e.text().trim()).ok_or_else(|| {
            one(invalid_param(
                "with-defaults",
                format!("'{}' is not a with-defaults mode.", e.text().trim()),
            ))
        })?,
        None => with_defaults(op).map_err(one)?,
    };
    let filter = if let Some(f) = op.child(n, "subtree-filter") {
        Filter::Subtree(f.clone())
    } else if let Some(x) = op.child(n, "xpath-filter") {
        let mut scope = Scope::new();
        scope.enter(op);
        scope.enter(x);
        let expr =
            xpath_to_modules(x.text().trim(), &scope, engine.schema.model()).map_err(|e| {
                one(invalid_param("xpath-filter", format!("The XPath filter cannot be used: {e}.")))
            })?;
        Filter::XPath(expr)
    } else {
        Filter::None
    };
    let config = match op.child(n, "config-filter").map(|e| e.text().trim().to_string()).as_deref()
    {
        None => None,
        Some("true") => Some(true),
        Some("false") => Some(false),
        Some(v) => {
            return Err(one(invalid_param("config-filter", format!("'{v}' is not a boolean."))))
        }
    };
    let depth = match op.child(n, "max-depth").map(|e| e.text().trim().to_string()).as_deref() {
        None | Some("unbounded") => None,
        Some(v) => match v.parse::<u16>() {
            Ok(d) if d > 0 => Some(u32::from(d)),
            _ => {
                return Err(one(invalid_param(
                    "max-depth",
                    format!("'{v}' is not a depth (1 to 65535, or unbounded))."),
                )))
            }
        },
    };
    let acl = engine.acl(&ctx.user);
    let mut selected = Vec::new();
    let body = match ds {
        Nmds::Conventional(d) => {
            let snap = engine.ds.snapshot(d);
            let text = Some(snap.xml.as_str());
            let selected = Some(&mut selected);
            retrieve(engine, &acl, &snap.root, text, mode, &filter, false, selected, run_mode)?
        }
        Nmds::Operational => {
            let root = operational(engine, ctx, &filter)?;
            let selected = Some(&mut selected);
            retrieve(engine, &acl, &root, None, mode, &filter, true, selected, run_mode)?
        }
    };
    let ReplyBody::Raw(text) = body else { return Ok(body) };
    let inner =
        text.strip_prefix("<data>").and_then(|t| t.strip_suffix("</data>")).unwrap_or(&text);
    let inner = if config.is_some() || depth.is_some() {
        let mut tree =
            data::parse_data(inner).map_err(|e| one(render_error(engine, &xml_to_schema(e))))?;
        let model = engine.schema.model();
        if let Some(want) = config {
            config_filter(model, None, &mut tree, want);
        }
        if let Some(d) = depth {
            let selection = match &filter {
                Filter::None => Selection::Top,
                Filter::Subtree(f) => Selection::Subtree(f),
                Filter::XPath(_) => Selection::Paths(
                    selected.iter().filter_map(|p| DataPath::parse_json(model, p)).collect(),
                ),
            };
            max_depth::prune(model, &mut tree, d, &selection);
        }
        data_text(&tree)
    } else {
        inner.to_string()
    };
    Ok(ReplyBody::Raw(format!("<data xmlns=\"{NMDA_NS}\">{inner}</data>")))
}

pub(super) fn edit_data(
    engine: &Arc<Engine>,
    ctx: &SessionCtx,
    mode: Mode<'_>,
    op: &Element,
) -> OpResult {
    let n = NMDA_NS;
    check_params(op, &[(n, "datastore"), (n, "default-operation"), (n, "config"), (n, "url")])
        .map_err(one)?;
    let target = match nmda_datastore(op).map_err(one)? {
        Nmds::Conventional(d) if d != DatastoreName::Startup => d,
        _ => {
            return Err(one(invalid_param(
                "datastore",
                "edit-data can change the running and candidate datastores only.",
            )))
        }
    };
    let default_op =
        match op.child(n, "default-operation").map(|e| e.text().trim().to_string()).as_deref() {
            None | Some("merge") => Op::Merge,
            Some("replace") => Op::Replace,
            Some("none") => Op::None,
            Some(v) => {
                return Err(one(invalid_param(
                    "default-operation",
                    format!("'{v}' is not a default operation; use merge, replace or none."),
                )))
            }
        };
    if op.child(n, "url").is_some() {
        return Err(one(RpcError::new(ErrorTag::OperationNotSupported, ErrorType::Protocol)
            .with_message("This server does not support the :url capability; send a <config>.")));
    }
    let config = op.child(n, "config").ok_or_else(|| one(missing_param("config")))?;
    let test = Test::ThenSet;
    apply_edit(engine, ctx, mode, op, target, default_op, test, ErrorOption::StopOnError, config)
}
