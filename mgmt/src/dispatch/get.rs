//! `<get-config>` and `<get>` (RFC 6241 §7.1, §7.7): a datastore, or running with the
//! server's and the backends' state.

use super::params::{check_params, datastore, with_defaults, WITH_DEFAULTS_NS};
use super::retrieve::{data_reply, parse_filter, retrieve, Filter};
use super::{one, OpResult};
use crate::access::nacm::NACM_NS;
use crate::backend::StateRequest;
use crate::datastore::DatastoreName;
use crate::engine::monitoring::{self, MONITORING_NS, YANG_LIBRARY_NS};
use crate::engine::{Engine, Mode, SessionCtx};
use crate::notify::NETMOD_NOTIFICATION_NS;
use crate::protocol::error::{ErrorTag, ErrorType, RpcError};
use crate::yang::data;
use netconf_proto::xml::{Element, Node, NETCONF_BASE_NS};

pub(super) fn get_config(
    engine: &Engine,
    ctx: &SessionCtx,
    run_mode: Mode<'_>,
    op: &Element,
) -> OpResult {
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
    retrieve(engine, &acl, &snap.root, Some(&snap.xml), mode, &filter, false, None, run_mode)
}

/// Whether a subtree filter can select the top-level node `name` in `ns`.
pub(super) fn wanted(filter: &Filter, ns: &str, name: &str) -> bool {
    match filter {
        Filter::Subtree(f) => {
            f.elements().any(|t| t.name == name && t.namespace.as_deref().is_none_or(|n| n == ns))
        }
        _ => true,
    }
}

pub(super) fn add(engine: &Engine, root: &mut Element, e: Element) {
    let mut wrapper = data::root();
    wrapper.push(e);
    data::merge(engine.schema.model(), None, root, wrapper);
}

pub(super) fn get(engine: &Engine, ctx: &SessionCtx, run_mode: Mode<'_>, op: &Element) -> OpResult {
    check_params(op, &[(NETCONF_BASE_NS, "filter"), (WITH_DEFAULTS_NS, "with-defaults")])
        .map_err(one)?;
    let mode = with_defaults(op).map_err(one)?;
    let filter = parse_filter(engine, op, NETCONF_BASE_NS).map_err(one)?;
    if matches!(filter, Filter::Subtree(ref f) if !f.has_elements()) {
        return Ok(data_reply(""));
    }
    let root = operational(engine, ctx, &filter)?;
    let acl = engine.acl(&ctx.user);
    retrieve(engine, &acl, &root, None, mode, &filter, true, None, run_mode)
}

/// Running with the server's and the backends' state merged in (what `<get>` and the
/// operational datastore show); only the top-level state a subtree filter can select is
/// built.
pub(super) fn operational(
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
