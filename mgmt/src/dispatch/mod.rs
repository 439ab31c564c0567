//! Turns one operation into a reply: parameter checking, access control (exec), and the
//! operations of RFC 6241 (get, get-config, edit-config, copy-config, delete-config, lock,
//! unlock, close-session, kill-session, commit, discard-changes, cancel-commit, validate),
//! RFC 6022's get-schema, RFC 5277's create-subscription, the RPCs backends run, and YANG 1.1
//! actions (RFC 7950 §7.15).
//!
//! Everything here is synchronous and may take a while (validation of large
//! configurations): sessions call it from a blocking thread, except for requests that
//! [`crate::session::inline`] judges light, which run on the session's own task.
//!
//! This file is the operation table ([`dispatch`]: access control on the operation, then one
//! function per operation) and the error-path of operation-level errors. One file per
//! family: `params.rs` (parameters), `retrieve.rs` (filters and what every read shares),
//! `get.rs` (get, get-config), `nmda.rs` (get-data, edit-data), `editing.rs` (edit-config,
//! copy-config, delete-config), `locks.rs`, `commit.rs` (validate, commit, discard-changes,
//! cancel-commit), `session_ops.rs` (close-session, kill-session), `get_schema.rs`,
//! `notifications.rs` (create-subscription), `backend_rpc.rs`, `action.rs` (YANG 1.1
//! `<action>`); `filter_cost.rs` (what a
//! retrieval or notification filter may cost, and the replies when it would cost more).

mod action;
mod backend_rpc;
mod commit;
mod editing;
mod filter_cost;
mod get;
mod get_schema;
mod locks;
mod nmda;
mod notifications;
mod params;
mod retrieve;
mod session_ops;

use std::sync::Arc;

use crate::engine::monitoring::MONITORING_NS;
use crate::engine::{bump, Engine, Mode, SessionCtx};
use crate::notify::NOTIFICATION_NS;
use crate::protocol::error::{ErrorInfo, ErrorTag, ErrorType, RpcError};
use crate::protocol::rpc::ReplyBody;
use netconf_proto::xml::{Element, NETCONF_BASE_NS};

use action::action;
pub use action::YANG_1_NS;
use backend_rpc::backend_rpc;
use commit::{cancel_commit, commit, discard_changes, validate};
use editing::{copy_config, delete_config, edit_config};
use get::{get, get_config};
use get_schema::get_schema;
use locks::{lock, unlock};
pub use nmda::NMDA_NS;
use nmda::{edit_data, get_data};
use notifications::create_subscription;
pub use notifications::{filter_event, EventFilter, Subscription};
pub use params::WITH_DEFAULTS_NS;
use session_ops::{close_session, kill_session};

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

/// Executes `operation` for session `ctx`, running in `mode` (`subscribed`: it already has a
/// subscription).
pub fn dispatch(
    engine: &Arc<Engine>,
    ctx: &SessionCtx,
    mode: Mode<'_>,
    subscribed: bool,
    op: &Element,
) -> Outcome {
    match run(engine, ctx, mode, subscribed, op) {
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

fn run(
    engine: &Arc<Engine>,
    ctx: &SessionCtx,
    mode: Mode<'_>,
    subscribed: bool,
    op: &Element,
) -> Outcome {
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
            "close-session" => close_session(op),
            "get" => Outcome::from(get(engine, ctx, mode, op)),
            "get-config" => Outcome::from(get_config(engine, ctx, mode, op)),
            "edit-config" => Outcome::from(edit_config(engine, ctx, mode, op)),
            "copy-config" => Outcome::from(copy_config(engine, ctx, mode, op)),
            "delete-config" => Outcome::from(delete_config(engine, ctx, mode, op)),
            "validate" => Outcome::from(validate(engine, ctx, mode, op)),
            "lock" => Outcome::from(lock(engine, ctx, mode, op)),
            "unlock" => Outcome::from(unlock(engine, ctx, mode, op)),
            "commit" => Outcome::from(commit(engine, ctx, mode, op)),
            "discard-changes" => Outcome::from(discard_changes(engine, ctx, mode, op)),
            "cancel-commit" => Outcome::from(cancel_commit(engine, ctx, mode, op)),
            "kill-session" => Outcome::from(kill_session(engine, ctx, op)),
            _ => {
                Outcome::Reply(ReplyBody::Errors(vec![RpcError::operation_not_supported(&op.name)]))
            }
        };
    }
    if ns == NMDA_NS && op.name == "get-data" {
        return Outcome::from(get_data(engine, ctx, mode, op));
    }
    if ns == NMDA_NS && op.name == "edit-data" {
        return Outcome::from(edit_data(engine, ctx, mode, op));
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
    if ns == YANG_1_NS && op.name == "action" {
        return Outcome::from(action(engine, ctx, op));
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
