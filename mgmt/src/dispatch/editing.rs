//! `<edit-config>` (RFC 6241 §7.2, and the part `<edit-data>` shares), `<copy-config>` and
//! `<delete-config>` (§7.3, §7.4).

use std::sync::Arc;

use super::params::{
    check_params, datastore, ds_param, enum_param, invalid_param, missing_param, param,
    with_defaults, DsParam, WITH_DEFAULTS_NS,
};
use super::{one, OpResult};
use crate::datastore::when;
use crate::datastore::DatastoreName;
use crate::engine::{bump, schema_error, Engine, Mode, RunningWrite, SessionCtx};
use crate::protocol::error::{ErrorTag, ErrorType, RpcError};
use crate::protocol::rpc::ReplyBody;
use crate::yang::data::{self, data_text};
use crate::yang::edit::{self, ErrorOption, Op};
use netconf_proto::xml::{Element, Scope, NETCONF_BASE_NS};

/// `test-option`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Test {
    ThenSet,
    Set,
    Only,
}

pub(super) fn edit_config(
    engine: &Arc<Engine>,
    ctx: &SessionCtx,
    mode: Mode<'_>,
    op: &Element,
) -> OpResult {
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
    apply_edit(engine, ctx, mode, op, target, default_op, test, error_option, config)
}

/// Applies `config` (with the namespace scope of `op`) to `target`: the common part of
/// edit-config and edit-data.
#[allow(clippy::too_many_arguments)]
pub(super) fn apply_edit(
    engine: &Arc<Engine>,
    ctx: &SessionCtx,
    mode: Mode<'_>,
    op: &Element,
    target: DatastoreName,
    default_op: Op,
    test: Test,
    error_option: ErrorOption,
    config: &Element,
) -> OpResult {
    let acl = engine.acl(&ctx.user);
    let model = engine.schema.model();
    let _w = engine.writer_for(ctx, mode, &[target]).map_err(one)?;
    let base = engine.ds.snapshot(target);
    let mut root = base.root.clone();
    let mut scope = Scope::new();
    scope.enter(op);
    let mut errors = edit::apply(model, &mut root, config, &scope, default_op, error_option);
    if !errors.is_empty() && error_option != ErrorOption::ContinueOnError {
        return Err(errors);
    }
    let full = target == DatastoreName::Running || test != Test::Set;
    // RFC 7950 §8.3.3: the candidate need not satisfy its constraints (must, leafref,
    // mandatory, min/max-elements, unique) until <validate> or <commit>, so that a
    // configuration can be built in steps. The full check is tried first, so that a valid
    // candidate keeps its validated tree for the commit; what fails it is stored if it parses
    // (types, keys, structure), unvalidated, and the commit validates it.
    let in_steps = target == DatastoreName::Candidate && test == Test::ThenSet;
    let mut deleted = Vec::new();
    let snap = match engine.ds.check_edit(&base, root, full, config.element_count()) {
        Ok(s) => s,
        Err(refusal) if in_steps || when::may_delete(&refusal) => {
            // The edited tree again: the check took it.
            let mut root = base.root.clone();
            edit::apply(model, &mut root, config, &scope, default_op, error_option);
            let resolved = when::delete_switched_off(&engine.ds, &base.root, root, full, refusal);
            deleted = resolved.deleted;
            match resolved.checked {
                Ok(s) => s,
                Err(e) if in_steps && !when::may_delete(&e) => {
                    match engine.ds.check_tree(resolved.root, false) {
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
            }
        }
        Err(e) => {
            errors.push(schema_error(&engine.schema, &e));
            return Err(errors);
        }
    };
    if acl.checks_writes() {
        // The user is charged for what the request does, not for the nodes the server
        // deleted because their `when` turned false (RFC 8341 §3.4.5).
        let before = when::without(model, &base.root, &deleted);
        let changes = data::diff(model, before.as_ref(), &snap.root);
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
pub(super) fn inline_config(
    engine: &Engine,
    op: &Element,
    config: &Element,
) -> Result<String, Vec<RpcError>> {
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

pub(super) fn copy_config(
    engine: &Arc<Engine>,
    ctx: &SessionCtx,
    mode: Mode<'_>,
    op: &Element,
) -> OpResult {
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
    let _w = engine.writer_for(ctx, mode, &[target]).map_err(one)?;
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

pub(super) fn delete_config(
    engine: &Engine,
    ctx: &SessionCtx,
    mode: Mode<'_>,
    op: &Element,
) -> OpResult {
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
    let _w = engine.writer_for(ctx, mode, &[ds]).map_err(one)?;
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
