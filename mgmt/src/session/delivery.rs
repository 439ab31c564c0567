//! Which notifications a subscribed session is sent, and where their filter runs: the
//! access check and a small subtree filter on the session's task; an XPath filter, or a
//! large subtree filter, on the blocking pool (their cost grows with the filter and each
//! event, and the async worker serves every session).

use std::sync::Arc;
use std::time::SystemTime;

use tracing::warn;

use crate::dispatch::{filter_event, EventFilter, Subscription};
use crate::engine::{Engine, SessionCtx};
use crate::notify::Notification;
use crate::protocol::sessions::SessionHandle;

/// The largest subtree filter (in elements) applied on the session's task.
const LIGHT_FILTER: usize = 64;

/// The notification to send for `n`, if the subscription's filter and the user's access
/// rights let it through; `None` too if the session is killed meanwhile.
pub(crate) async fn deliverable(
    engine: &Arc<Engine>,
    ctx: &SessionCtx,
    sub: &Subscription,
    n: Arc<Notification>,
    handle: &SessionHandle,
) -> Option<String> {
    let light = match &sub.filter {
        None => true,
        Some(EventFilter::Subtree(f)) => f.element_count() <= LIGHT_FILTER,
        Some(EventFilter::XPath(_)) => false,
    };
    if light {
        return check(engine, ctx, sub.filter.as_ref(), sub.stop, &n);
    }
    let (e, c, filter, stop) = (engine.clone(), ctx.clone(), sub.filter.clone(), sub.stop);
    let work = tokio::task::spawn_blocking(move || check(&e, &c, filter.as_ref(), stop, &n));
    tokio::select! {
        done = work => done.ok().flatten(),
        () = handle.killed() => None,
    }
}

fn check(
    engine: &Engine,
    ctx: &SessionCtx,
    filter: Option<&EventFilter>,
    stop: Option<SystemTime>,
    n: &Notification,
) -> Option<String> {
    if stop.is_some_and(|stop| n.event_time > stop) {
        return None;
    }
    let model = engine.schema().model();
    let Some(located) = crate::yang::event::locate(model, &n.event) else {
        warn!(session = ctx.id, event = %n.event.name, "a notification the schema does not define was not sent");
        return None;
    };
    if !engine.acl(&ctx.user).may_receive(model, &located) {
        engine.count_denied_notification();
        return None;
    }
    match filter_event(engine, filter, &n.event) {
        Ok(event) => Some(Notification { event_time: n.event_time, event: event? }.to_xml()),
        Err(e) => {
            warn!(session = ctx.id, event = %n.event.name, "a notification was not sent: its filter: {e}");
            None
        }
    }
}
