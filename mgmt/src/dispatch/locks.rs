//! `<lock>` and `<unlock>` (RFC 6241 §7.5, §7.6); the engine decides them.

use std::sync::Arc;

use super::params::{check_params, datastore};
use super::{one, OpResult};
use crate::datastore::DatastoreName;
use crate::engine::{Engine, Mode, SessionCtx};
use crate::protocol::error::RpcError;
use crate::protocol::rpc::ReplyBody;
use netconf_proto::xml::{Element, NETCONF_BASE_NS};

pub(super) fn lock_target(op: &Element) -> Result<DatastoreName, RpcError> {
    check_params(op, &[(NETCONF_BASE_NS, "target")])?;
    datastore(
        op,
        "target",
        &[DatastoreName::Running, DatastoreName::Candidate, DatastoreName::Startup],
    )
}

/// `<lock>` (RFC 6241 §7.5).
pub(super) fn lock(engine: &Engine, ctx: &SessionCtx, mode: Mode<'_>, op: &Element) -> OpResult {
    lock_target(op)
        .and_then(|ds| engine.lock(mode, ds, ctx.id))
        .map(|()| ReplyBody::Ok)
        .map_err(one)
}

/// `<unlock>` (RFC 6241 §7.6).
pub(super) fn unlock(
    engine: &Arc<Engine>,
    ctx: &SessionCtx,
    mode: Mode<'_>,
    op: &Element,
) -> OpResult {
    lock_target(op)
        .and_then(|ds| engine.unlock(mode, ds, ctx.id))
        .map(|()| ReplyBody::Ok)
        .map_err(one)
}
