//! Turns one operation into a reply: parameter checking, access control (exec), and the
//! operations of RFC 6241 (get, get-config, edit-config, copy-config, delete-config, lock,
//! unlock, close-session, kill-session, commit, discard-changes, cancel-commit, validate),
//! RFC 6022's get-schema, RFC 5277's create-subscription, and the RPCs backends run.
//!
//! Everything here is synchronous and may take a while (validation of large
//! configurations): sessions call it from a blocking thread, except for requests that
//! [`crate::inline`] judges light, which run on the session's own task.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::sync::broadcast;

use crate::backend::StateRequest;
use crate::data::{self, data_text};
use crate::datastore::DatastoreName;
use crate::edit::{self, ErrorOption, Op};
use crate::engine::{bump, schema_error, Engine, RunningWrite, SessionCtx};
use crate::error::{ErrorInfo, ErrorTag, ErrorType, RpcError};
use crate::filter::{self, xpath_to_modules};
use crate::filter_cost;
use crate::monitoring::{self, MONITORING_NS, YANG_LIBRARY_NS};
use crate::nacm::{UserAcl, NACM_NS};
use crate::notify::{self, Notification, NETMOD_NOTIFICATION_NS, NOTIFICATION_NS, STREAM};
use crate::rpc::ReplyBody;
use crate::schema::{WithDefaults, WD_ATTR_NS};
use crate::xml::{escape_text, Element, Node, Scope, NETCONF_BASE_NS};

/// The ietf-netconf-with-defaults namespace (the `with-defaults` parameter).
pub const WITH_DEFAULTS_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-netconf-with-defaults";

/// A notification filter of a subscription.
#[derive(Debug, Clone)]
pub enum EventFilter {
    /// A subtree filter: its top-level elements.
    Subtree(Element),
    /// An XPath expression (module-name prefixes).
    XPath(String),
}

/// A subscription created by create-subscription: what the session then sends.
#[derive(Debug)]
pub struct Subscription {
    /// Replayed events still to send.
    pub replay: VecDeque<Arc<Notification>>,
    /// Whether `replayComplete` is still to be sent after the replay.
    pub replay_complete: bool,
    /// Live events.
    pub live: broadcast::Receiver<Arc<Notification>>,
    /// The filter.
    pub filter: Option<EventFilter>,
    /// When the subscription ends (`notificationComplete`).
    pub stop: Option<SystemTime>,
}

/// What the session does after an operation.
#[derive(Debug)]
pub enum Outcome {
    /// Send the reply and go on.
    Reply(ReplyBody),
    /// Send the reply, then end the session (close-session).
    ReplyAndClose(ReplyBody),
    /// Send the reply, then start sending notifications.
    Subscribe(ReplyBody, Box<Subscription>),
}

impl Outcome {
    fn from(r: Result<ReplyBody, Vec<RpcError>>) -> Outcome {
        match r {
            Ok(b) => Outcome::Reply(b),
            Err(e) => Outcome::Reply(ReplyBody::Errors(e)),
        }
    }
}

type OpResult = Result<ReplyBody, Vec<RpcError>>;

fn one(e: RpcError) -> Vec<RpcError> {
    vec![e]
}

// ===== parameters =====

fn unknown_param(e: &Element) -> RpcError {
    RpcError::new(ErrorTag::UnknownElement, ErrorType::Protocol)
        .with_message(format!("<{}> is not a parameter of this operation.", e.name))
        .with_info(ErrorInfo::BadElement(e.name.to_string()))
}

fn missing_param(name: &str) -> RpcError {
    RpcError::new(ErrorTag::MissingElement, ErrorType::Protocol)
        .with_message(format!("The operation needs a <{name}> parameter."))
        .with_info(ErrorInfo::BadElement(name.to_string()))
}

fn bad_param(name: &str, why: impl Into<String>) -> RpcError {
    RpcError::new(ErrorTag::BadElement, ErrorType::Protocol)
        .with_message(why)
        .with_info(ErrorInfo::BadElement(name.to_string()))
}

fn invalid_param(name: &str, why: impl Into<String>) -> RpcError {
    RpcError::new(ErrorTag::InvalidValue, ErrorType::Protocol)
        .with_message(why)
        .with_info(ErrorInfo::BadElement(name.to_string()))
}

/// Reads an enumerated parameter: absent means the first choice (the RFC's default); any other
/// text is invalid-value naming the choices.
fn enum_param<T: Copy>(
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
fn check_params(op: &Element, allowed: &[(&str, &str)]) -> Result<(), RpcError> {
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
fn in_base_ns(e: &Element) -> bool {
    matches!(e.namespace.as_deref(), None | Some(NETCONF_BASE_NS))
}

fn param<'a>(op: &'a Element, name: &str) -> Option<&'a Element> {
    op.elements().find(|e| e.name == name && in_base_ns(e))
}

/// A source or target: a datastore or inline configuration.
enum DsParam<'a> {
    Datastore(DatastoreName),
    Config(&'a Element),
}

fn ds_param<'a>(
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

fn datastore(
    op: &Element,
    name: &str,
    allowed: &[DatastoreName],
) -> Result<DatastoreName, RpcError> {
    match ds_param(op, name, allowed, false)? {
        DsParam::Datastore(ds) => Ok(ds),
        DsParam::Config(_) => Err(bad_param(name, "a datastore is needed here")),
    }
}

fn with_defaults(op: &Element) -> Result<WithDefaults, RpcError> {
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

/// A retrieval filter.
enum Filter {
    None,
    Subtree(Element),
    XPath(String),
}

fn parse_filter(engine: &Engine, op: &Element, ns: &str) -> Result<Filter, RpcError> {
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

// ===== retrieval =====

/// Moves libyang's `default` attribute (in the ietf-netconf-with-defaults module namespace)
/// to the namespace RFC 6243 §6 defines for it.
fn fix_default_attr(e: &mut Element) {
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

fn data_reply(inner: &str) -> ReplyBody {
    ReplyBody::Raw(format!("<data>{inner}</data>"))
}

fn render_error(engine: &Engine, e: &crate::schema::SchemaError) -> RpcError {
    let mut err = schema_error(&engine.schema, e);
    err.tag = ErrorTag::OperationFailed;
    err.path = None;
    err
}

/// Filters, applies with-defaults and access control to data (a root tree with its text).
fn retrieve(
    engine: &Engine,
    acl: &UserAcl,
    root: &Element,
    text: Option<&str>,
    mode: WithDefaults,
    filter: &Filter,
    state: bool,
) -> OpResult {
    let model = engine.schema.model();
    let owned_text;
    let text = match text {
        Some(t) => t,
        None => {
            owned_text = data_text(root);
            &owned_text
        }
    };
    let mut tree = match filter {
        Filter::XPath(expr) => {
            let out = engine
                .schema
                .select_xpath(text, expr, mode, state, filter_cost::limit(engine))
                .map_err(|e| one(filter_cost::xpath_error(engine, &e)))?;
            data::parse_data(&out).map_err(|e| one(render_error(engine, &xml_to_schema(e))))?
        }
        Filter::None if mode == WithDefaults::Explicit && acl.reads_everything() => {
            return Ok(data_reply(text));
        }
        _ => {
            let base = if mode == WithDefaults::Explicit {
                root.clone()
            } else {
                let out = engine
                    .schema
                    .render(text, mode, state)
                    .map_err(|e| one(render_error(engine, &e)))?;
                data::parse_data(&out).map_err(|e| one(render_error(engine, &xml_to_schema(e))))?
            };
            match filter {
                Filter::Subtree(f) => {
                    filter::subtree_limited(model, &base, f, filter_cost::limit(engine))
                        .map_err(|e| one(filter_cost::subtree_error(engine, e)))?
                }
                _ => base,
            }
        }
    };
    acl.filter_read(model, &mut tree);
    if mode == WithDefaults::ReportAllTagged {
        fix_default_attr(&mut tree);
    }
    Ok(data_reply(&data_text(&tree)))
}

fn xml_to_schema(e: crate::xml::XmlError) -> crate::schema::SchemaError {
    crate::schema::SchemaError::Invalid { message: e.to_string(), path: None, app_tag: None }
}

fn get_config(engine: &Engine, ctx: &SessionCtx, op: &Element) -> OpResult {
    check_params(
        op,
        &[
            (NETCONF_BASE_NS, "source"),
            (NETCONF_BASE_NS, "filter"),
            (WITH_DEFAULTS_NS, "with-defaults"),
        ],
    )
    .map_err(one)?;
    let all = [DatastoreName::Running, DatastoreName::Candidate, DatastoreName::Startup];
    let ds = datastore(op, "source", &all).map_err(one)?;
    let mode = with_defaults(op).map_err(one)?;
    let filter = parse_filter(engine, op, NETCONF_BASE_NS).map_err(one)?;
    let snap = engine.ds.snapshot(ds);
    let acl = engine.acl(&ctx.user);
    retrieve(engine, &acl, &snap.root, Some(&snap.xml), mode, &filter, false)
}

/// Whether a subtree filter can select the top-level node `name` in `ns`.
fn wanted(filter: &Filter, ns: &str, name: &str) -> bool {
    match filter {
        Filter::Subtree(f) => {
            f.elements().any(|t| t.name == name && t.namespace.as_deref().is_none_or(|n| n == ns))
        }
        _ => true,
    }
}

fn add(engine: &Engine, root: &mut Element, e: Element) {
    let mut wrapper = data::root();
    wrapper.push(e);
    data::merge(engine.schema.model(), None, root, wrapper);
}

fn get(engine: &Engine, ctx: &SessionCtx, op: &Element) -> OpResult {
    check_params(op, &[(NETCONF_BASE_NS, "filter"), (WITH_DEFAULTS_NS, "with-defaults")])
        .map_err(one)?;
    let mode = with_defaults(op).map_err(one)?;
    let filter = parse_filter(engine, op, NETCONF_BASE_NS).map_err(one)?;
    if matches!(filter, Filter::Subtree(ref f) if !f.has_elements()) {
        return Ok(data_reply(""));
    }
    let root = operational(engine, ctx, &filter)?;
    let acl = engine.acl(&ctx.user);
    retrieve(engine, &acl, &root, None, mode, &filter, true)
}

/// Running with the server's and the backends' state merged in (what `<get>` and the
/// operational datastore show); only the top-level state a subtree filter can select is
/// built.
fn operational(
    engine: &Engine,
    ctx: &SessionCtx,
    filter: &Filter,
) -> Result<Element, Vec<RpcError>> {
    let mut root = engine.ds.snapshot(DatastoreName::Running).root.clone();
    if wanted(filter, MONITORING_NS, "netconf-state") {
        let sessions = engine.registry.list();
        let state = monitoring::netconf_state(
            &engine.schema,
            engine.capabilities(),
            &engine.locks(),
            &sessions,
            &engine.statistics(),
        );
        add(engine, &mut root, state);
    }
    if wanted(filter, YANG_LIBRARY_NS, "yang-library") {
        add(engine, &mut root, monitoring::yang_library(&engine.schema, &engine.content_id));
    }
    if wanted(filter, YANG_LIBRARY_NS, "modules-state") {
        add(engine, &mut root, monitoring::modules_state(&engine.schema, &engine.content_id));
    }
    if wanted(filter, NETMOD_NOTIFICATION_NS, "netconf") {
        add(engine, &mut root, monitoring::streams(&engine.bus));
    }
    if wanted(filter, NACM_NS, "nacm") {
        let c = &engine.counters;
        let g = |a: &std::sync::atomic::AtomicU64| {
            a.load(std::sync::atomic::Ordering::Relaxed).to_string()
        };
        add(
            engine,
            &mut root,
            Element::new(NACM_NS, "nacm")
                .with(Element::leaf(NACM_NS, "denied-operations", g(&c.denied_operations)))
                .with(Element::leaf(NACM_NS, "denied-data-writes", g(&c.denied_data_writes)))
                .with(Element::leaf(NACM_NS, "denied-notifications", g(&c.denied_notifications))),
        );
    }
    let origin = ctx.origin();
    let subtree = match filter {
        Filter::Subtree(f) => Some(f),
        _ => None,
    };
    for b in engine.backends() {
        match b.state(&StateRequest { filter: subtree, origin: &origin }) {
            Ok(elements) => {
                let mut wrapper = data::root();
                wrapper.children = elements.into_iter().map(Node::Element).collect();
                data::merge(engine.schema.model(), None, &mut root, wrapper);
            }
            Err(e) => {
                return Err(one(RpcError::new(ErrorTag::OperationFailed, ErrorType::Application)
                    .with_message(format!("{} (state of {})", e.message, b.name()))))
            }
        }
    }
    Ok(root)
}

// ===== NMDA (RFC 8526) =====

/// The ietf-netconf-nmda namespace.
pub const NMDA_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-netconf-nmda";

/// An NMDA datastore: the conventional ones, or operational (intended is running here).
enum Nmds {
    Conventional(DatastoreName),
    Operational,
}

fn nmda_datastore(op: &Element) -> Result<Nmds, RpcError> {
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
fn config_filter(
    model: &crate::model::Model,
    sparent: Option<&crate::model::SNode>,
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
        if s.is_key && sparent.is_some_and(|p| p.kind == crate::model::Kind::List) {
            keys.push(Node::Element(c));
            continue;
        }
        let keep = if !s.config {
            !want_config
        } else if matches!(s.kind, crate::model::Kind::Container | crate::model::Kind::List) {
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

/// Cuts the tree below `depth` levels (list keys stay with their entry).
fn prune_depth(
    model: &crate::model::Model,
    sparent: Option<&crate::model::SNode>,
    e: &mut Element,
    depth: u32,
) {
    for c in e.elements_mut() {
        let s =
            model.child_of(sparent, c.namespace.as_deref().unwrap_or_default(), &c.name).cloned();
        if depth <= 1 {
            match s.as_deref() {
                Some(s) if s.kind == crate::model::Kind::List => {
                    let keys: Vec<String> = s.keys.clone();
                    c.children.retain(
                        |n| matches!(n, Node::Element(k) if keys.iter().any(|key| *key == k.name)),
                    );
                }
                Some(s) if s.is_term() => {}
                _ => c.children.clear(),
            }
        } else {
            prune_depth(model, s.as_deref(), c, depth - 1);
        }
    }
}

fn get_data(engine: &Engine, ctx: &SessionCtx, op: &Element) -> OpResult {
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
    let body = match ds {
        Nmds::Conventional(d) => {
            let snap = engine.ds.snapshot(d);
            retrieve(engine, &acl, &snap.root, Some(&snap.xml), mode, &filter, false)?
        }
        Nmds::Operational => {
            let root = operational(engine, ctx, &filter)?;
            retrieve(engine, &acl, &root, None, mode, &filter, true)?
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
            prune_depth(model, None, &mut tree, d);
        }
        data_text(&tree)
    } else {
        inner.to_string()
    };
    Ok(ReplyBody::Raw(format!("<data xmlns=\"{NMDA_NS}\">{inner}</data>")))
}

fn edit_data(engine: &Arc<Engine>, ctx: &SessionCtx, op: &Element) -> OpResult {
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
    apply_edit(engine, ctx, op, target, default_op, Test::ThenSet, ErrorOption::StopOnError, config)
}

// ===== editing =====

/// `test-option`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Test {
    ThenSet,
    Set,
    Only,
}

fn edit_config(engine: &Arc<Engine>, ctx: &SessionCtx, op: &Element) -> OpResult {
    check_params(
        op,
        &[
            (NETCONF_BASE_NS, "target"),
            (NETCONF_BASE_NS, "default-operation"),
            (NETCONF_BASE_NS, "test-option"),
            (NETCONF_BASE_NS, "error-option"),
            (NETCONF_BASE_NS, "config"),
            (NETCONF_BASE_NS, "url"),
        ],
    )
    .map_err(one)?;
    let target = datastore(op, "target", &[DatastoreName::Running, DatastoreName::Candidate])
        .map_err(one)?;
    let default_op = enum_param(
        op,
        "default-operation",
        "a default operation",
        &[("merge", Op::Merge), ("replace", Op::Replace), ("none", Op::None)],
    )
    .map_err(one)?;
    let test = enum_param(
        op,
        "test-option",
        "a test option",
        &[("test-then-set", Test::ThenSet), ("set", Test::Set), ("test-only", Test::Only)],
    )
    .map_err(one)?;
    let error_option = enum_param(
        op,
        "error-option",
        "an error option",
        &[
            ("stop-on-error", ErrorOption::StopOnError),
            ("continue-on-error", ErrorOption::ContinueOnError),
            ("rollback-on-error", ErrorOption::RollbackOnError),
        ],
    )
    .map_err(one)?;
    if param(op, "url").is_some() {
        return Err(one(RpcError::new(ErrorTag::OperationNotSupported, ErrorType::Protocol)
            .with_message("This server does not support the :url capability; send a <config>.")));
    }
    let config = param(op, "config").ok_or_else(|| one(missing_param("config")))?;
    apply_edit(engine, ctx, op, target, default_op, test, error_option, config)
}

/// Applies `config` (with the namespace scope of `op`) to `target`: the common part of
/// edit-config and edit-data.
#[allow(clippy::too_many_arguments)]
fn apply_edit(
    engine: &Arc<Engine>,
    ctx: &SessionCtx,
    op: &Element,
    target: DatastoreName,
    default_op: Op,
    test: Test,
    error_option: ErrorOption,
    config: &Element,
) -> OpResult {
    let acl = engine.acl(&ctx.user);
    let model = engine.schema.model();
    let _w = engine.writer_for(ctx, &[target]).map_err(one)?;
    let base = engine.ds.snapshot(target);
    let mut root = base.root.clone();
    let mut scope = Scope::new();
    scope.enter(op);
    let mut errors = edit::apply(model, &mut root, config, &scope, default_op, error_option);
    if !errors.is_empty() && error_option != ErrorOption::ContinueOnError {
        return Err(errors);
    }
    let full = target == DatastoreName::Running || test != Test::Set;
    let snap = match engine.ds.check_edit(&base, root, full, config.element_count()) {
        Ok(s) => s,
        // RFC 7950 §8.3.3: the candidate need not satisfy its constraints (must, leafref,
        // mandatory, min/max-elements, unique, when) until <validate> or <commit>, so that a
        // configuration can be built in steps. The full check is tried first, so that a valid
        // candidate keeps its validated tree for the commit; what fails it is stored if it
        // parses (types, keys, structure), unvalidated, and the commit validates it.
        Err(_) if target == DatastoreName::Candidate && test == Test::ThenSet => {
            let mut root = base.root.clone();
            edit::apply(model, &mut root, config, &scope, default_op, error_option);
            match engine.ds.check_tree(root, false) {
                Ok(s) => s,
                Err(e) => {
                    errors.push(schema_error(&engine.schema, &e));
                    return Err(errors);
                }
            }
        }
        Err(e) => {
            errors.push(schema_error(&engine.schema, &e));
            return Err(errors);
        }
    };
    if acl.checks_writes() {
        let changes = data::diff(model, &base.root, &snap.root);
        if let Err(e) = acl.check_write(model, &changes) {
            bump(&engine.counters.denied_data_writes);
            errors.push(e);
            return Err(errors);
        }
    }
    // Both texts are libyang's canonical printing: equal text is equal content.
    if test != Test::Only && snap.xml != base.xml {
        let stored = match target {
            DatastoreName::Running => {
                engine.set_running(snap, &ctx.origin(), RunningWrite::Running, &[])
            }
            _ => match engine.ds.store_snapshot(target, snap, &[]) {
                Ok(_) => {
                    engine.mark_dirty(ctx.id);
                    Ok(())
                }
                Err(e) => Err(RpcError::new(ErrorTag::OperationFailed, ErrorType::Application)
                    .with_message(format!(
                        "The candidate could not be stored ({e}); nothing was changed."
                    ))),
            },
        };
        if let Err(e) = stored {
            errors.push(e);
            return Err(errors);
        }
    }
    if errors.is_empty() {
        Ok(ReplyBody::Ok)
    } else {
        Err(errors)
    }
}

/// The content of inline `<config>` as a complete configuration, or the errors of its
/// elements (unknown nodes, missing keys...).
fn inline_config(engine: &Engine, op: &Element, config: &Element) -> Result<String, Vec<RpcError>> {
    let mut root = data::root();
    let mut scope = Scope::new();
    scope.enter(op);
    let errors = edit::apply(
        engine.schema.model(),
        &mut root,
        config,
        &scope,
        Op::Replace,
        ErrorOption::StopOnError,
    );
    if errors.is_empty() {
        Ok(data_text(&root))
    } else {
        Err(errors)
    }
}

fn copy_config(engine: &Arc<Engine>, ctx: &SessionCtx, op: &Element) -> OpResult {
    check_params(
        op,
        &[
            (NETCONF_BASE_NS, "target"),
            (NETCONF_BASE_NS, "source"),
            (WITH_DEFAULTS_NS, "with-defaults"),
        ],
    )
    .map_err(one)?;
    let all = [DatastoreName::Running, DatastoreName::Candidate, DatastoreName::Startup];
    let target = datastore(op, "target", &all).map_err(one)?;
    let source = ds_param(op, "source", &all, true).map_err(one)?;
    if matches!(source, DsParam::Datastore(s) if s == target) {
        return Err(one(invalid_param(
            "source",
            "The source and the target are the same datastore.",
        )));
    }
    with_defaults(op).map_err(one)?;
    let acl = engine.acl(&ctx.user);
    let model = engine.schema.model();
    let _w = engine.writer_for(ctx, &[target]).map_err(one)?;
    let text = match source {
        DsParam::Datastore(DatastoreName::Startup) if !engine.ds.has_startup() => {
            return Err(one(RpcError::new(ErrorTag::DataMissing, ErrorType::Application)
                .with_message("There is no startup configuration to copy; save one first.")));
        }
        DsParam::Datastore(s) => engine.ds.snapshot(s).xml.clone(),
        DsParam::Config(c) => inline_config(engine, op, c)?,
    };
    let snap = engine.ds.check(&text, true).map_err(|e| one(schema_error(&engine.schema, &e)))?;
    let old = engine.ds.snapshot(target);
    let changes = data::diff(model, &old.root, &snap.root);
    if let Err(e) = acl.check_write(model, &changes) {
        bump(&engine.counters.denied_data_writes);
        return Err(one(e));
    }
    let changed = !changes.is_empty();
    drop(changes);
    let stored = match target {
        DatastoreName::Running => {
            return engine
                .set_running(snap, &ctx.origin(), RunningWrite::Running, &[])
                .map(|()| ReplyBody::Ok)
                .map_err(one)
        }
        DatastoreName::Candidate => {
            let r = engine.ds.store_snapshot(target, snap, &[]);
            if r.is_ok() && changed {
                engine.mark_dirty(ctx.id);
            }
            r
        }
        DatastoreName::Startup => engine.ds.store_snapshot(target, snap, &[]),
    };
    stored.map(|_| ReplyBody::Ok).map_err(|e| {
        one(RpcError::new(ErrorTag::OperationFailed, ErrorType::Application).with_message(format!(
            "The configuration could not be stored ({e}); nothing was changed."
        )))
    })
}

fn delete_config(engine: &Engine, ctx: &SessionCtx, op: &Element) -> OpResult {
    check_params(op, &[(NETCONF_BASE_NS, "target")]).map_err(one)?;
    let p = param(op, "target").ok_or_else(|| one(missing_param("target")))?;
    if param(p, "running").is_some() {
        return Err(one(RpcError::new(ErrorTag::OperationFailed, ErrorType::Protocol)
            .with_message(
            "The running datastore cannot be deleted; use copy-config or edit-config to change it.",
        )));
    }
    let ds = datastore(op, "target", &[DatastoreName::Startup]).map_err(one)?;
    let acl = engine.acl(&ctx.user);
    let model = engine.schema.model();
    let _w = engine.writer_for(ctx, &[ds]).map_err(one)?;
    let old = engine.ds.snapshot(ds);
    let empty = data::root();
    let changes = data::diff(model, &old.root, &empty);
    if let Err(e) = acl.check_write(model, &changes) {
        bump(&engine.counters.denied_data_writes);
        return Err(one(e));
    }
    engine.ds.delete_startup().map(|()| ReplyBody::Ok).map_err(|e| {
        one(RpcError::new(ErrorTag::OperationFailed, ErrorType::Application)
            .with_message(format!("The startup configuration could not be deleted ({e}).")))
    })
}

fn validate(engine: &Engine, op: &Element) -> OpResult {
    check_params(op, &[(NETCONF_BASE_NS, "source")]).map_err(one)?;
    let all = [DatastoreName::Running, DatastoreName::Candidate, DatastoreName::Startup];
    let text = match ds_param(op, "source", &all, true).map_err(one)? {
        DsParam::Datastore(ds) => engine.ds.snapshot(ds).xml.clone(),
        DsParam::Config(c) => inline_config(engine, op, c)?,
    };
    engine
        .ds
        .check(&text, true)
        .map(|_| ReplyBody::Ok)
        .map_err(|e| one(schema_error(&engine.schema, &e)))
}

fn lock_target(op: &Element) -> Result<DatastoreName, RpcError> {
    check_params(op, &[(NETCONF_BASE_NS, "target")])?;
    datastore(
        op,
        "target",
        &[DatastoreName::Running, DatastoreName::Candidate, DatastoreName::Startup],
    )
}

fn commit(engine: &Arc<Engine>, ctx: &SessionCtx, op: &Element) -> OpResult {
    check_params(
        op,
        &[
            (NETCONF_BASE_NS, "confirmed"),
            (NETCONF_BASE_NS, "confirm-timeout"),
            (NETCONF_BASE_NS, "persist"),
            (NETCONF_BASE_NS, "persist-id"),
        ],
    )
    .map_err(one)?;
    let confirmed = param(op, "confirmed").is_some();
    let timeout = match param(op, "confirm-timeout") {
        None => 600,
        Some(e) => match e.text().trim().parse::<u32>() {
            Ok(t) if t > 0 => u64::from(t),
            _ => {
                return Err(one(invalid_param(
                    "confirm-timeout",
                    format!(
                        "'{}' is not a time-out; give a number of seconds from 1 to 4294967295.",
                        e.text().trim()
                    ),
                )))
            }
        },
    };
    let text = |n: &str| param(op, n).map(|e| e.text().trim().to_string());
    let (persist, persist_id) = (text("persist"), text("persist-id"));
    if !confirmed && (param(op, "confirm-timeout").is_some() || persist.is_some()) {
        return Err(one(bad_param(
            "confirmed",
            "<confirm-timeout> and <persist> only go with <confirmed/>.",
        )));
    }
    engine
        .commit(ctx, confirmed, Duration::from_secs(timeout), persist, persist_id)
        .map(|()| ReplyBody::Ok)
        .map_err(one)
}

fn kill_session(engine: &Arc<Engine>, ctx: &SessionCtx, op: &Element) -> OpResult {
    check_params(op, &[(NETCONF_BASE_NS, "session-id")]).map_err(one)?;
    let p = param(op, "session-id").ok_or_else(|| one(missing_param("session-id")))?;
    let text = p.text();
    let id: u32 = text.trim().parse().ok().filter(|&n| n > 0).ok_or_else(|| {
        one(invalid_param("session-id", format!("'{}' is not a session-id.", text.trim())))
    })?;
    if id == ctx.id {
        return Err(one(invalid_param(
            "session-id",
            "A session cannot kill itself; use close-session.",
        )));
    }
    if engine.registry.get(id).is_none() {
        return Err(one(invalid_param("session-id", format!("There is no session {id}."))));
    }
    // Release its locks and undo its unconfirmed commit now, before replying (§7.9).
    engine.session_ended(id, crate::engine::EndReason::Killed, Some(ctx.id));
    engine.registry.kill_by(id, ctx.id);
    Ok(ReplyBody::Ok)
}

fn get_schema(engine: &Engine, op: &Element) -> OpResult {
    check_params(
        op,
        &[(MONITORING_NS, "identifier"), (MONITORING_NS, "version"), (MONITORING_NS, "format")],
    )
    .map_err(one)?;
    let id = op
        .child(MONITORING_NS, "identifier")
        .map(|e| e.text().trim().to_string())
        .ok_or_else(|| one(missing_param("identifier")))?;
    let version = op.child(MONITORING_NS, "version").map(|e| e.text().trim().to_string());
    if let Some(f) = op.child(MONITORING_NS, "format") {
        let t = f.text();
        let name = t.trim().rsplit(':').next().unwrap_or_default();
        if name != "yang" {
            return Err(one(invalid_param(
                "format",
                format!("The format '{name}' is not available; ask for yang."),
            )));
        }
    }
    match engine.schema.module_source(&id, version.as_deref().filter(|v| !v.is_empty())) {
        Ok(text) => Ok(ReplyBody::Raw(format!(
            "<data xmlns=\"{MONITORING_NS}\">{}</data>",
            escape_text(text)
        ))),
        Err(0) => Err(one(invalid_param(
            "identifier",
            format!(
                "This server has no schema '{id}'{}.",
                version.map(|v| format!(" revision {v}")).unwrap_or_default()
            ),
        ))),
        Err(_) => {
            let mut e = RpcError::new(ErrorTag::OperationFailed, ErrorType::Protocol)
                .with_message(format!("Several revisions of '{id}' exist; name one in <version>."));
            e.app_tag = Some("data-not-unique".into());
            Err(one(e))
        }
    }
}

fn create_subscription(
    engine: &Engine,
    subscribed: bool,
    op: &Element,
) -> Result<Outcome, Vec<RpcError>> {
    let n = NOTIFICATION_NS;
    check_params(
        op,
        &[
            (n, "stream"),
            (n, "filter"),
            (NETCONF_BASE_NS, "filter"),
            (n, "startTime"),
            (n, "stopTime"),
        ],
    )
    .map_err(one)?;
    if subscribed {
        return Err(one(RpcError::new(ErrorTag::InUse, ErrorType::Protocol).with_message(
            "This session already has a subscription; open another session for another one.",
        )));
    }
    if let Some(s) = op.child(n, "stream") {
        if s.text().trim() != STREAM {
            return Err(one(invalid_param(
                "stream",
                format!("There is no stream '{}'; this server offers NETCONF.", s.text().trim()),
            )));
        }
    }
    let time = |name: &str| -> Result<Option<SystemTime>, RpcError> {
        match op.child(n, name) {
            None => Ok(None),
            Some(e) => notify::parse_time(&e.text()).map(Some).ok_or_else(|| {
                bad_param(name, format!("'{}' is not a date-and-time.", e.text().trim()))
            }),
        }
    };
    let start = time("startTime").map_err(one)?;
    let stop = time("stopTime").map_err(one)?;
    if stop.is_some() && start.is_none() {
        return Err(one(missing_param("startTime")));
    }
    if start.is_some_and(|s| s > SystemTime::now()) {
        return Err(one(bad_param("startTime", "startTime is in the future.")));
    }
    if let (Some(a), Some(b)) = (start, stop) {
        if b < a {
            return Err(one(bad_param("stopTime", "stopTime is earlier than startTime.")));
        }
    }
    let filter_ns = if op.child(n, "filter").is_some() { n } else { NETCONF_BASE_NS };
    let filter = match parse_filter(engine, op, filter_ns).map_err(one)? {
        Filter::None => None,
        Filter::Subtree(f) => Some(EventFilter::Subtree(f)),
        Filter::XPath(x) => {
            filter_cost::check_subscription(engine, &x).map_err(one)?;
            Some(EventFilter::XPath(x))
        }
    };
    let (replay, live) = engine.bus.subscribe(start);
    Ok(Outcome::Subscribe(
        ReplyBody::Ok,
        Box::new(Subscription {
            replay: replay.into(),
            replay_complete: start.is_some(),
            live,
            filter,
            stop,
        }),
    ))
}

fn backend_rpc(engine: &Engine, ctx: &SessionCtx, op: &Element) -> OpResult {
    let ns = op.namespace.as_deref().unwrap_or_default();
    let Some(b) = engine.rpc_backend(ns, &op.name) else {
        return Err(one(RpcError::operation_not_supported(&op.name)));
    };
    engine.schema.validate_rpc(&op.to_xml()).map_err(|e| one(schema_error(&engine.schema, &e)))?;
    // libyang's operation parser checks types but not mandatory input.
    if let Some(rpc) = engine.schema.model().rpc(ns, &op.name) {
        for m in &rpc.mandatory_input {
            if op.child(ns, m).is_none() {
                return Err(one(RpcError::new(ErrorTag::MissingElement, ErrorType::Application)
                    .with_message(format!("<{}> needs the input <{m}>.", op.name))
                    .with_info(ErrorInfo::BadElement(m.clone()))));
            }
        }
    }
    match b.rpc(&ctx.origin(), op) {
        Ok(out) if out.is_empty() => Ok(ReplyBody::Ok),
        Ok(out) => {
            let mut text = String::new();
            for e in &out {
                e.write_xml(&mut text, Some(NETCONF_BASE_NS));
            }
            Ok(ReplyBody::Raw(text))
        }
        Err(e) => Err(one(RpcError::new(ErrorTag::OperationFailed, ErrorType::Application)
            .with_message(format!("{} ({})", e.message, b.name())))),
    }
}

/// Executes `operation` for session `ctx` (`subscribed`: it already has a subscription).
pub fn dispatch(engine: &Arc<Engine>, ctx: &SessionCtx, subscribed: bool, op: &Element) -> Outcome {
    match run(engine, ctx, subscribed, op) {
        Outcome::Reply(ReplyBody::Errors(mut errors)) => {
            for e in &mut errors {
                locate(engine, op, e);
            }
            Outcome::Reply(ReplyBody::Errors(errors))
        }
        other => other,
    }
}

/// Gives an operation-level error without a path the path of the operation (or of its
/// offending parameter): `/nc:rpc/nc:edit-config/nc:target`.
fn locate(engine: &Engine, op: &Element, e: &mut RpcError) {
    if e.path.is_some() || !matches!(e.error_type, ErrorType::Protocol) {
        return;
    }
    if matches!(
        e.tag,
        ErrorTag::OperationNotSupported
            | ErrorTag::UnknownNamespace
            | ErrorTag::InUse
            | ErrorTag::LockDenied
    ) {
        return;
    }
    let Some(ns) = op.namespace.as_deref() else { return };
    let prefix = engine
        .schema
        .model()
        .module_by_namespace(ns)
        .map(|m| if ns == NETCONF_BASE_NS { "nc".to_string() } else { m.prefix.clone() })
        .unwrap_or_else(|| "op".to_string());
    let mut xpath = format!("/nc:rpc/{prefix}:{}", op.name);
    let param = e.info.iter().find_map(|i| match i {
        ErrorInfo::BadElement(b) if *b != op.name => Some(b.clone()),
        _ => None,
    });
    if let Some(p) = param {
        if e.tag != ErrorTag::MissingElement && op.elements().any(|c| c.name == p) {
            xpath.push_str(&format!("/{prefix}:{p}"));
        }
    }
    let mut namespaces = vec![("nc".to_string(), NETCONF_BASE_NS.to_string())];
    if prefix != "nc" {
        namespaces.push((prefix, ns.to_string()));
    }
    *e = e.clone().with_path(xpath, namespaces);
}

fn run(engine: &Arc<Engine>, ctx: &SessionCtx, subscribed: bool, op: &Element) -> Outcome {
    let ns = op.namespace.as_deref().unwrap_or_default();
    let model = engine.schema.model();
    // Access control on the operation itself.
    let module = model.rpc(ns, &op.name).map(|r| (r.module.clone(), r.nacm));
    if let Some((module, default)) = &module {
        let acl = engine.acl(&ctx.user);
        if !acl.may_exec(module, &op.name, *default) {
            bump(&engine.counters.denied_operations);
            return Outcome::Reply(ReplyBody::Errors(vec![RpcError::new(
                ErrorTag::AccessDenied,
                ErrorType::Protocol,
            )
            .with_message(format!(
                "Access control does not let you run '{}'; ask an administrator.",
                op.name
            ))]));
        }
    }
    if ns == NETCONF_BASE_NS {
        return match op.name.as_str() {
            "close-session" => match check_params(op, &[]) {
                Ok(()) => Outcome::ReplyAndClose(ReplyBody::Ok),
                Err(e) => Outcome::Reply(ReplyBody::Errors(vec![e])),
            },
            "get" => Outcome::from(get(engine, ctx, op)),
            "get-config" => Outcome::from(get_config(engine, ctx, op)),
            "edit-config" => Outcome::from(edit_config(engine, ctx, op)),
            "copy-config" => Outcome::from(copy_config(engine, ctx, op)),
            "delete-config" => Outcome::from(delete_config(engine, ctx, op)),
            "validate" => Outcome::from(validate(engine, op)),
            "lock" => Outcome::from(
                lock_target(op)
                    .and_then(|ds| engine.lock(ds, ctx.id))
                    .map(|()| ReplyBody::Ok)
                    .map_err(one),
            ),
            "unlock" => Outcome::from(
                lock_target(op)
                    .and_then(|ds| engine.unlock(ds, ctx.id))
                    .map(|()| ReplyBody::Ok)
                    .map_err(one),
            ),
            "commit" => Outcome::from(commit(engine, ctx, op)),
            "discard-changes" => Outcome::from(check_params(op, &[]).map_err(one).and_then(|()| {
                let _w = engine.writer_for(ctx, &[DatastoreName::Candidate]).map_err(one)?;
                engine.discard_locked().map(|()| ReplyBody::Ok).map_err(|e| {
                    one(RpcError::new(ErrorTag::OperationFailed, ErrorType::Application)
                        .with_message(format!("The candidate could not be reset ({e}).")))
                })
            })),
            "cancel-commit" => Outcome::from(
                check_params(op, &[(NETCONF_BASE_NS, "persist-id")])
                    .and_then(|()| {
                        let id = param(op, "persist-id").map(|e| e.text().trim().to_string());
                        engine.cancel_commit(ctx, id)
                    })
                    .map(|()| ReplyBody::Ok)
                    .map_err(one),
            ),
            "kill-session" => Outcome::from(kill_session(engine, ctx, op)),
            _ => {
                Outcome::Reply(ReplyBody::Errors(vec![RpcError::operation_not_supported(&op.name)]))
            }
        };
    }
    if ns == NMDA_NS && op.name == "get-data" {
        return Outcome::from(get_data(engine, ctx, op));
    }
    if ns == NMDA_NS && op.name == "edit-data" {
        return Outcome::from(edit_data(engine, ctx, op));
    }
    if ns == MONITORING_NS && op.name == "get-schema" {
        return Outcome::from(get_schema(engine, op));
    }
    if ns == NOTIFICATION_NS && op.name == "create-subscription" {
        return match create_subscription(engine, subscribed, op) {
            Ok(o) => o,
            Err(e) => Outcome::Reply(ReplyBody::Errors(e)),
        };
    }
    if module.is_some() {
        return Outcome::from(backend_rpc(engine, ctx, op));
    }
    if !ns.is_empty() && model.module_by_namespace(ns).is_none() {
        return Outcome::Reply(ReplyBody::Errors(vec![RpcError::new(
            ErrorTag::UnknownNamespace,
            ErrorType::Protocol,
        )
        .with_message(format!(
            "The namespace '{ns}' of <{}> belongs to no module of this server.",
            op.name
        ))
        .with_info(ErrorInfo::BadElement(op.name.to_string()))
        .with_info(ErrorInfo::BadNamespace(ns.to_string()))]));
    }
    Outcome::Reply(ReplyBody::Errors(vec![RpcError::operation_not_supported(&op.name)]))
}

/// Applies a subscription's filter to an event; the event to send, if it passes. An event
/// on which the filter would cost more than the limit is not sent: the error says why.
pub fn filter_event(
    engine: &Engine,
    filter: Option<&EventFilter>,
    event: &Element,
) -> Result<Option<Element>, String> {
    let limit = engine.max_filter_cost();
    match filter {
        None => Ok(Some(event.clone())),
        Some(EventFilter::Subtree(f)) => {
            let mut root = data::root();
            root.push(event.clone());
            let out = filter::subtree_limited(engine.schema.model(), &root, f, limit)
                .map_err(|e| format!("subtree filter would take more than {} steps", e.limit))?;
            let first = out.elements().next().cloned();
            Ok(first)
        }
        Some(EventFilter::XPath(x)) => Ok(engine
            .schema
            .notification_matches(&event.to_xml(), x, limit)
            .map_err(|e| e.to_string())?
            .then(|| event.clone())),
    }
}
