//! The operations on sessions: `<close-session>` and `<kill-session>` (RFC 6241 §7.8, §7.9).

use std::sync::Arc;

use super::params::{check_params, invalid_param, missing_param, param};
use super::{one, OpResult, Outcome};
use crate::engine::{Engine, SessionCtx};
use crate::protocol::rpc::ReplyBody;
use netconf_proto::xml::{Element, NETCONF_BASE_NS};

/// `<close-session>` (RFC 6241 §7.8): the reply, then the session ends.
pub(super) fn close_session(op: &Element) -> Outcome {
    match check_params(op, &[]) {
        Ok(()) => Outcome::ReplyAndClose(ReplyBody::Ok),
        Err(e) => Outcome::Reply(ReplyBody::Errors(vec![e])),
    }
}

pub(super) fn kill_session(engine: &Arc<Engine>, ctx: &SessionCtx, op: &Element) -> OpResult {
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
