//! A session's start and end as the engine sees them: the live sessions, and at the end its
//! locks released, its candidate changes discarded, its unconfirmed commit rolled back, and
//! the RFC 6470 notifications.

use std::sync::Arc;

use tracing::{error, info};

use super::{bump, Engine, SessionCtx};
use crate::notify::NC_NOTIFICATIONS_NS;
use netconf_proto::xml::Element;

/// Why a session ended (RFC 6470 termination-reason).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndReason {
    /// close-session.
    Closed,
    /// kill-session.
    Killed,
    /// The transport went away.
    Dropped,
    /// A time-out.
    Timeout,
    /// The hello was refused.
    BadHello,
    /// Anything else (protocol error, server shutdown).
    Other,
}

impl EndReason {
    fn as_str(self) -> &'static str {
        match self {
            EndReason::Closed => "closed",
            EndReason::Killed => "killed",
            EndReason::Dropped => "dropped",
            EndReason::Timeout => "timeout",
            EndReason::BadHello => "bad-hello",
            EndReason::Other => "other",
        }
    }
}

impl Engine {
    /// Records a new session and announces it (netconf-session-start).
    pub fn session_started(&self, ctx: &SessionCtx) {
        bump(&self.counters.in_sessions);
        self.lock_state().live.insert(ctx.id, ctx.clone());
        let n = NC_NOTIFICATIONS_NS;
        let mut e = Element::new(n, "netconf-session-start")
            .with(Element::leaf(n, "username", &ctx.user))
            .with(Element::leaf(n, "session-id", ctx.id.to_string()));
        if let Some(a) = ctx.source {
            e.push(Element::leaf(n, "source-host", a.ip().to_string()));
        }
        self.bus.publish(e);
    }

    /// A hello was refused.
    pub fn bad_hello(&self) {
        bump(&self.counters.in_bad_hellos);
    }

    /// Cleans up after session `id`: releases its locks, discards the candidate changes it
    /// held locked, rolls back its unconfirmed (not persisted) confirmed commit, and
    /// announces the end. Safe to call twice (kill-session, then the session's own exit).
    pub fn session_ended(self: &Arc<Self>, id: u32, reason: EndReason, killed_by: Option<u32>) {
        let (ctx, held_candidate, rollback) = {
            let mut st = self.lock_state();
            let Some(ctx) = st.live.remove(&id) else { return };
            let held_candidate = st.locks.get("candidate").is_some_and(|l| l.session == id);
            st.locks.retain(|_, l| l.session != id);
            let rollback = st
                .confirmed
                .as_ref()
                .filter(|c| c.session == id && c.persist.is_none())
                .map(|c| c.generation);
            (ctx, held_candidate, rollback)
        };
        if matches!(reason, EndReason::Dropped | EndReason::Timeout | EndReason::Other) {
            bump(&self.counters.dropped_sessions);
        }
        if let Some(generation) = rollback {
            let w = self.lock_write();
            if self.confirmed().is_some_and(|c| c.generation == generation) {
                info!(
                    session = id,
                    "the session that issued a confirmed commit ended: rolling back"
                );
                self.rollback_confirmed(&w, "cancel", Some(&ctx));
            }
        }
        if held_candidate {
            let _w = self.lock_write();
            let dirty = !self.lock_state().dirty.is_empty();
            if dirty {
                if let Err(e) = self.discard_locked() {
                    error!("discarding the candidate of ended session {id} failed: {e}");
                }
            }
        }
        let n = NC_NOTIFICATIONS_NS;
        let mut e = Element::new(n, "netconf-session-end")
            .with(Element::leaf(n, "username", &ctx.user))
            .with(Element::leaf(n, "session-id", id.to_string()));
        if let Some(a) = ctx.source {
            e.push(Element::leaf(n, "source-host", a.ip().to_string()));
        }
        if let Some(k) = killed_by {
            e.push(Element::leaf(n, "killed-by", k.to_string()));
        }
        e.push(Element::leaf(n, "termination-reason", reason.as_str()));
        self.bus.publish(e);
    }
}
