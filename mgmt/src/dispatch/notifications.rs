//! `<create-subscription>` (RFC 5277 §2.1): the subscription a session then serves, and its
//! filter applied to each event.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::SystemTime;

use tokio::sync::broadcast;

use super::params::{bad_param, check_params, invalid_param, missing_param};
use super::retrieve::{parse_filter, Filter};
use super::{one, Outcome};
use crate::dispatch::filter_cost;
use crate::engine::Engine;
use crate::notify::{self, Notification, NOTIFICATION_NS, STREAM};
use crate::protocol::error::{ErrorTag, ErrorType, RpcError};
use crate::protocol::rpc::ReplyBody;
use crate::yang::data;
use crate::yang::filter;
use netconf_proto::xml::{Element, NETCONF_BASE_NS};

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

pub(super) fn create_subscription(
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
