//! `<action>` (RFC 7950 §7.15.2): a YANG 1.1 action invoked on a data node. The envelope
//! names the node by its hierarchy, one data node a level with its list keys, down to the
//! action's element holding the input. In order: the envelope's shape (against the schema
//! index), the input (libyang, which also gives the keys' canonical values), the caller's
//! rights (RFC 8341 §3.4.5), the node's existence in running or the backends' state, then the
//! backend owning the action's module runs it; its output is checked against the schema
//! before it is returned.

use super::get::operational;
use super::retrieve::Filter;
use super::{one, OpResult};
use crate::backend::ActionRequest;
use crate::datastore::DatastoreName;
use crate::engine::{bump, schema_error, Engine, SessionCtx};
use crate::protocol::error::{ErrorInfo, ErrorTag, ErrorType, RpcError};
use crate::protocol::rpc::ReplyBody;
use crate::yang::data::DataPath;
use crate::yang::model::{Action, Model, SNode};
use crate::yang::nested::{walk, Stop};
use netconf_proto::xml::{self, Element, Node, NETCONF_BASE_NS};

/// The YANG 1.1 namespace, `<action>`'s (RFC 7950 §7.15.2).
pub const YANG_1_NS: &str = "urn:ietf:params:xml:ns:yang:1";

/// What an `<action>` envelope names.
struct Target<'m, 'a> {
    /// The top-level data node of the hierarchy.
    top: &'a Element,
    /// The action's element, holding the input.
    element: &'a Element,
    /// The action's definition.
    action: &'m Action,
}

pub(super) fn action(engine: &Engine, ctx: &SessionCtx, op: &Element) -> OpResult {
    let model = engine.schema.model();
    let target = locate(model, op).map_err(one)?;
    let action = target.action;
    // Prefixes declared on <rpc> or <action> stay in scope for values in the input.
    let mut top = target.top.clone();
    let mut namespaces = op.namespaces().to_vec();
    namespaces.extend_from_slice(top.namespaces());
    *top.namespaces_mut() = namespaces;

    let (parsed, canonical) = engine
        .schema
        .parse_action(&top.to_xml(), false)
        .map_err(|e| one(input_error(engine, &e)))?;
    // The backend gets the input with canonical values, as libyang reprints it.
    let canonical = xml::parse(canonical.as_bytes())
        .map(|t| Element::new(YANG_1_NS, "action").with(t))
        .map_err(|e| {
            one(RpcError::new(ErrorTag::OperationFailed, ErrorType::Application)
                .with_message(format!("The action's input could not be read back: {e}.")))
        })?;
    let input = locate(model, &canonical).map_err(one)?.element;
    let mut node = DataPath::parse_json(model, &parsed).ok_or_else(|| {
        one(RpcError::new(ErrorTag::OperationFailed, ErrorType::Application)
            .with_message(format!("The path '{parsed}' of the action could not be read.")))
    })?;
    let action_step = node.0.pop();
    for m in &action.mandatory_input {
        if input.child(&action.namespace, m).is_none() {
            let mut e = RpcError::new(ErrorTag::MissingElement, ErrorType::Application)
                .with_message(format!("The action '{}' needs the input <{m}>.", action.name))
                .with_info(ErrorInfo::BadElement(m.clone()));
            if let Some(step) = &action_step {
                let (xpath, ns) = node.child(step.clone()).to_xpath();
                e = e.with_path(xpath, ns);
            }
            return Err(one(e));
        }
    }

    let acl = engine.acl(&ctx.user);
    if let Err(e) = acl.check_action(model, &node, action) {
        bump(&engine.counters.denied_operations);
        return Err(one(e));
    }
    if !exists(engine, ctx, &node)? {
        let (xpath, ns) = node.to_xpath();
        return Err(one(RpcError::new(ErrorTag::DataMissing, ErrorType::Application)
            .with_message(format!(
                "The node {xpath} does not exist, so its action '{}' cannot run; create it or name an existing one.",
                action.name
            ))
            .with_path(xpath, ns)));
    }

    let not_supported = || {
        one(RpcError::new(ErrorTag::OperationNotSupported, ErrorType::Application).with_message(
            format!(
                "No part of this server runs the action '{}' of module {}.",
                action.name, action.module
            ),
        ))
    };
    let Some(backend) = engine.module_backend(&action.namespace) else {
        return Err(not_supported());
    };
    let origin = ctx.origin();
    let request = ActionRequest { node: &node, input, origin: &origin };
    let output = match backend.action(&request) {
        None => return Err(not_supported()),
        Some(Err(e)) => {
            return Err(one(RpcError::new(ErrorTag::OperationFailed, ErrorType::Application)
                .with_message(format!("{} ({})", e.message, backend.name()))))
        }
        Some(Ok(output)) => output,
    };
    check_output(engine, &target, top.namespaces(), &output).map_err(|why| {
        tracing::error!(backend = backend.name(), action = %action.name, %why, "an action's output breaks its schema");
        one(RpcError::new(ErrorTag::OperationFailed, ErrorType::Application).with_message(format!(
            "The action '{}' ran, but its output ({}) does not match its schema: {why}; this is a fault of the server, report it.",
            action.name,
            backend.name()
        )))
    })?;
    if output.is_empty() {
        return Ok(ReplyBody::Ok);
    }
    let mut text = String::new();
    for e in &output {
        e.write_xml(&mut text, Some(NETCONF_BASE_NS));
    }
    Ok(ReplyBody::Raw(text))
}

/// Walks the envelope down to the action with the schema index: one data node a level (a
/// list entry's keys besides it), ending at an action of the last node.
fn locate<'m, 'a>(model: &'m Model, op: &'a Element) -> Result<Target<'m, 'a>, RpcError> {
    let mut children = op.elements();
    let Some(top) = children.next() else {
        return Err(RpcError::new(ErrorTag::MissingElement, ErrorType::Application)
            .with_message("The <action> is empty; put in it the path to the node, with the action's element at its end.")
            .with_info(ErrorInfo::BadElement("action".into())));
    };
    if let Some(extra) = children.next() {
        return Err(more_than_one("action", extra));
    }
    let found = walk(model, top, |parent, ns, name| parent.action(ns, name)).map_err(stopped)?;
    Ok(Target { top, element: found.element, action: found.operation })
}

/// Why the envelope names no action, as the rpc-error RFC 6241 gives for it.
fn stopped(stop: Stop<'_, '_>) -> RpcError {
    let where_ = |parent: Option<&SNode>| {
        parent.map_or_else(|| "at the top level".to_string(), |p| format!("in <{}>", p.name))
    };
    match stop {
        Stop::UnknownNamespace(e) => {
            let ns = e.namespace.as_deref().unwrap_or_default();
            RpcError::new(ErrorTag::UnknownNamespace, ErrorType::Protocol)
                .with_message(format!(
                    "The namespace '{ns}' of <{}> belongs to no module of this server.",
                    e.name
                ))
                .with_info(ErrorInfo::BadElement(e.name.to_string()))
                .with_info(ErrorInfo::BadNamespace(ns.to_string()))
        }
        Stop::Unknown(e, parent) => {
            unknown(e, format!("<{}> is no data node or action {}.", e.name, where_(parent)))
        }
        Stop::NotContainer(e, s, parent) => unknown(
            e,
            format!(
                "<{}> is a {} {}, not an action; only containers and list entries have actions.",
                e.name,
                if s.is_term() { "leaf" } else { "data node" },
                where_(parent)
            ),
        ),
        Stop::MissingKey(e, k) => RpcError::new(ErrorTag::MissingElement, ErrorType::Application)
            .with_message(format!("The list entry <{}> needs its key <{k}>.", e.name))
            .with_info(ErrorInfo::BadElement(k)),
        Stop::Empty(e) => RpcError::new(ErrorTag::MissingElement, ErrorType::Application)
            .with_message(format!(
                "<{}> names no action; put the action's element inside it.",
                e.name
            ))
            .with_info(ErrorInfo::BadElement(e.name.to_string())),
        Stop::MoreThanOne(e, extra) => more_than_one(&e.name, extra),
    }
}

fn unknown(e: &Element, message: String) -> RpcError {
    RpcError::new(ErrorTag::UnknownElement, ErrorType::Application)
        .with_message(message)
        .with_info(ErrorInfo::BadElement(e.name.to_string()))
}

fn more_than_one(parent: &str, extra: &Element) -> RpcError {
    unknown(
        extra,
        format!(
            "<{parent}> holds more than one node (<{}> is one too many); an action's path has one node a level.",
            extra.name
        ),
    )
}

/// libyang's refusal of the input as an rpc-error (error-path at the offending node).
fn input_error(engine: &Engine, e: &crate::yang::schema::SchemaError) -> RpcError {
    let mut err = schema_error(&engine.schema, e);
    if let Some(m) = &mut err.message {
        *m = m.replace("correct the configuration", "correct the action's input");
    }
    err
}

/// Whether the node at `node` exists: in running, else in the operational state.
fn exists(engine: &Engine, ctx: &SessionCtx, node: &DataPath) -> Result<bool, Vec<RpcError>> {
    if holds(&engine.ds.snapshot(DatastoreName::Running).root, node) {
        return Ok(true);
    }
    let root = operational(engine, ctx, &Filter::Subtree(filter_for(node)))?;
    Ok(holds(&root, node))
}

/// Whether `root` holds the node at `node`.
fn holds(root: &Element, node: &DataPath) -> bool {
    let mut e = root;
    for step in &node.0 {
        let is_it = |c: &&Element| {
            c.name == step.name
                && c.namespace.as_deref() == Some(step.ns.as_str())
                && step
                    .keys
                    .iter()
                    .all(|(k, v)| c.child(&step.ns, k).is_some_and(|l| l.text() == *v))
        };
        match e.elements().find(is_it) {
            Some(c) => e = c,
            None => return false,
        }
    }
    true
}

/// A subtree filter selecting the node at `node` (a hint for the backends' state).
fn filter_for(node: &DataPath) -> Element {
    let mut inner: Option<Element> = None;
    for step in node.0.iter().rev() {
        let mut e = Element::new(&step.ns, &step.name);
        for (k, v) in &step.keys {
            e.push(Element::leaf(&step.ns, k, v.as_str()));
        }
        if let Some(i) = inner.take() {
            e.push(i);
        }
        inner = Some(e);
    }
    let mut filter = Element::new(NETCONF_BASE_NS, "filter");
    if let Some(i) = inner {
        filter.push(i);
    }
    filter
}

/// Checks `output` against the action's schema: the envelope with the action's element
/// holding the output instead of the input (`namespaces` declared on its top).
fn check_output(
    engine: &Engine,
    target: &Target<'_, '_>,
    namespaces: &[(Option<String>, String)],
    output: &[Element],
) -> Result<(), String> {
    let action = target.action;
    for m in &action.mandatory_output {
        if !output.iter().any(|e| e.is(&action.namespace, m)) {
            return Err(format!("the mandatory output <{m}> is missing"));
        }
    }
    let mut reply = with_output(target.top, target.element, output);
    *reply.namespaces_mut() = namespaces.to_vec();
    engine.schema.parse_action(&reply.to_xml(), true).map(|_| ()).map_err(|e| e.to_string())
}

/// A copy of `e` in which the element `action` (a descendant of `e`, or `e`) holds `output`
/// instead of its children.
fn with_output(e: &Element, action: &Element, output: &[Element]) -> Element {
    let mut copy = e.clone_shallow();
    if std::ptr::eq(e, action) {
        copy.children = output.iter().cloned().map(Node::Element).collect();
        return copy;
    }
    copy.children = e
        .children
        .iter()
        .map(|n| match n {
            Node::Element(c) => Node::Element(with_output(c, action, output)),
            other => other.clone(),
        })
        .collect();
    copy
}
