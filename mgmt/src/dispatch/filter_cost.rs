//! How much a retrieval or notification filter may cost, and the replies when it would cost
//! more (DECISIONS.md, "The cost of a filter").
//!
//! A subtree filter counts its steps as it runs (`filter::subtree_limited`); an XPath
//! filter's cost is bounded before libyang runs it (`xpath_cost`). On a session's own task
//! (a request judged light, `inline`) the limit is what a light request may take: a filter
//! over it stops and the request runs again on the blocking pool, with the full limit. So
//! the expression's cost, not the data's size, decides where a filter runs.

use crate::engine::{Engine, Mode};
use crate::protocol::error::{ErrorInfo, ErrorTag, ErrorType, RpcError};
use crate::yang::filter::TooCostly;
use crate::yang::schema::SchemaError;

/// The most steps a filter may take on a session's own task: well under a millisecond.
pub const LIGHT: u64 = 20_000;

/// The most steps a filter may take in `mode`.
pub(crate) fn limit(engine: &Engine, mode: Mode<'_>) -> u64 {
    if matches!(mode, Mode::Inline { .. }) {
        LIGHT.min(engine.max_filter_cost())
    } else {
        engine.max_filter_cost()
    }
}

/// The reply to a subtree filter stopped at `stopped`; on a session's task, the request is
/// sent to the pool to run with the full limit instead.
pub(crate) fn subtree_error(engine: &Engine, stopped: TooCostly, mode: Mode<'_>) -> RpcError {
    if stopped.limit < engine.max_filter_cost() {
        rerun_on_pool(mode);
    }
    RpcError::new(ErrorTag::TooBig, ErrorType::Application)
        .with_message(format!(
            "The subtree filter would take more than {} steps (filter nodes compared with data nodes), this server's limit; select with fewer sibling filter nodes, or narrow it with containment nodes.",
            engine.max_filter_cost()
        ))
        .with_info(ErrorInfo::BadElement("filter".into()))
}

/// The reply to an XPath filter libyang refused, or that would cost too much; on a
/// session's task, one within the full limit is sent to the pool instead.
pub(crate) fn xpath_error(engine: &Engine, e: &SchemaError, mode: Mode<'_>) -> RpcError {
    let error = match e {
        SchemaError::TooCostly { estimate, limit } => {
            if *estimate <= engine.max_filter_cost() {
                rerun_on_pool(mode);
            }
            let limit = engine.max_filter_cost().max(*limit);
            RpcError::new(ErrorTag::TooBig, ErrorType::Application).with_message(format!(
                "The XPath filter could take up to {estimate} node visits on this data, more than this server's limit of {limit}; use a simpler expression (an absolute path or '//' inside a predicate runs once for every node the predicate tests) or a subtree filter."
            ))
        }
        e => RpcError::new(ErrorTag::InvalidValue, ErrorType::Protocol).with_message(format!(
            "The XPath filter cannot be evaluated: {e}; check its syntax and prefixes."
        )),
    };
    error
        .with_info(ErrorInfo::BadAttribute("select".into()))
        .with_info(ErrorInfo::BadElement("filter".into()))
}

/// Refuses a subscription's XPath filter that would cost too much on a small notification
/// (a few dozen nodes): its cost grows with each event's size, and one that is too costly
/// for a small event is for every event. (A larger event is checked again at delivery.)
pub(crate) fn check_subscription(engine: &Engine, expr: &str) -> Result<(), RpcError> {
    let event = crate::yang::xpath_cost::Shape { nodes: 64, depth: 6, fanout: 16 };
    match crate::yang::xpath_cost::estimate(expr, event) {
        Ok(estimate) if estimate <= engine.max_filter_cost() as f64 => Ok(()),
        Ok(estimate) => Err(xpath_error(
            engine,
            &SchemaError::TooCostly { estimate: estimate as u64, limit: engine.max_filter_cost() },
            Mode::Blocking,
        )),
        Err(e) => Err(xpath_error(
            engine,
            &SchemaError::Invalid {
                message: e.to_string(),
                path: None,
                app_tag: None,
                schema_path: None,
            },
            Mode::Blocking,
        )),
    }
}

/// On a session's own task, stops the request so that it runs again on the blocking pool
/// (`inline::run` returns `None`); elsewhere nothing: the error is the reply.
fn rerun_on_pool(mode: Mode<'_>) {
    if let Mode::Inline { stopped } = mode {
        stopped.set(true);
    }
}
