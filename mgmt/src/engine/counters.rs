//! The server's counters (RFC 6022 statistics, RFC 8341's denial counters).

use std::sync::atomic::{AtomicU64, Ordering};

use super::Engine;
use crate::engine::monitoring::Statistics;

#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) in_bad_hellos: AtomicU64,
    pub(crate) in_sessions: AtomicU64,
    pub(crate) dropped_sessions: AtomicU64,
    pub(crate) in_rpcs: AtomicU64,
    pub(crate) in_bad_rpcs: AtomicU64,
    pub(crate) out_rpc_errors: AtomicU64,
    pub(crate) out_notifications: AtomicU64,
    pub(crate) denied_operations: AtomicU64,
    pub(crate) denied_data_writes: AtomicU64,
    pub(crate) denied_notifications: AtomicU64,
}

pub(crate) fn bump(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

impl Engine {
    /// Server-wide counters.
    pub fn statistics(&self) -> Statistics {
        let c = &self.counters;
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        Statistics {
            start: Some(self.started),
            in_bad_hellos: g(&c.in_bad_hellos),
            in_sessions: g(&c.in_sessions),
            dropped_sessions: g(&c.dropped_sessions),
            in_rpcs: g(&c.in_rpcs),
            in_bad_rpcs: g(&c.in_bad_rpcs),
            out_rpc_errors: g(&c.out_rpc_errors),
            out_notifications: g(&c.out_notifications),
        }
    }

    /// Counts a correct rpc.
    pub fn count_rpc(&self) {
        bump(&self.counters.in_rpcs);
    }

    /// Counts a message that was not a correct rpc.
    pub fn count_bad_rpc(&self) {
        bump(&self.counters.in_bad_rpcs);
    }

    /// Counts a reply holding rpc-errors.
    pub fn count_error_reply(&self) {
        bump(&self.counters.out_rpc_errors);
    }

    /// Counts a notification sent.
    pub fn count_notification(&self) {
        bump(&self.counters.out_notifications);
    }

    /// Counts a notification withheld by access control.
    pub fn count_denied_notification(&self) {
        bump(&self.counters.denied_notifications);
    }
}
