//! The candidate's operations: `<validate>` (RFC 6241 §8.6), `<commit>` with its
//! confirmed-commit parameters (§8.3, §8.4), `<discard-changes>` and `<cancel-commit>`.

use std::sync::Arc;
use std::time::Duration;

use super::editing::inline_config;
use super::params::{bad_param, check_params, ds_param, invalid_param, param, DsParam};
use super::{one, OpResult};
use crate::datastore::DatastoreName;
use crate::engine::{schema_error, Engine, Mode, SessionCtx};
use crate::protocol::error::{ErrorTag, ErrorType, RpcError};
use crate::protocol::rpc::ReplyBody;
use netconf_proto::xml::{Element, NETCONF_BASE_NS};

/// `<validate>`: the schema's checks, then what a commit of the same content would check
/// beyond them (`Engine::check_content`: access, keeping the administrator in, the
/// backends' `prepare`), under the writer mutex so that no change runs meanwhile. An inline
/// `<config>` is a document, not a change of running by anyone (whether it would be merged or
/// replace running is not said), so the backends check it but access control does not.
pub(super) fn validate(
    engine: &Engine,
    ctx: &SessionCtx,
    mode: Mode<'_>,
    op: &Element,
) -> OpResult {
    check_params(op, &[(NETCONF_BASE_NS, "source")]).map_err(one)?;
    let all = [DatastoreName::Running, DatastoreName::Candidate, DatastoreName::Startup];
    let source = ds_param(op, "source", &all, true).map_err(one)?;
    let _w = engine.writer(ctx, mode).map_err(one)?;
    let (text, as_running) = match source {
        DsParam::Datastore(ds) => (engine.ds.snapshot(ds).xml.clone(), true),
        DsParam::Config(c) => (inline_config(engine, op, c)?, false),
    };
    let snap = engine.ds.check(&text, true).map_err(|e| one(schema_error(&engine.schema, &e)))?;
    engine.check_content(&snap, &ctx.origin(), as_running).map(|()| ReplyBody::Ok).map_err(one)
}

pub(super) fn commit(
    engine: &Arc<Engine>,
    ctx: &SessionCtx,
    mode: Mode<'_>,
    op: &Element,
) -> OpResult {
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
        .commit(ctx, mode, confirmed, Duration::from_secs(timeout), persist, persist_id)
        .map(|()| ReplyBody::Ok)
        .map_err(one)
}

/// `<discard-changes>` (RFC 6241 §8.3.4.2).
pub(super) fn discard_changes(
    engine: &Engine,
    ctx: &SessionCtx,
    mode: Mode<'_>,
    op: &Element,
) -> OpResult {
    check_params(op, &[]).map_err(one)?;
    let _w = engine.writer_for(ctx, mode, &[DatastoreName::Candidate]).map_err(one)?;
    engine.discard_locked().map(|()| ReplyBody::Ok).map_err(|e| {
        one(RpcError::new(ErrorTag::OperationFailed, ErrorType::Application)
            .with_message(format!("The candidate could not be reset ({e}).")))
    })
}

/// `<cancel-commit>` (RFC 6241 §8.4.4.1).
pub(super) fn cancel_commit(
    engine: &Engine,
    ctx: &SessionCtx,
    mode: Mode<'_>,
    op: &Element,
) -> OpResult {
    check_params(op, &[(NETCONF_BASE_NS, "persist-id")])
        .and_then(|()| {
            let id = param(op, "persist-id").map(|e| e.text().trim().to_string());
            engine.cancel_commit(ctx, mode, id)
        })
        .map(|()| ReplyBody::Ok)
        .map_err(one)
}
