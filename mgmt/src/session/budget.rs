//! The memory budget for requests in progress (DECISIONS.md, "A memory budget for requests").
//!
//! Each session may hold one request at a time: its message as it arrives, then the parsed
//! tree. What a session holds up to its allowance is its own; beyond that it draws on one
//! budget shared by all sessions, and a request that cannot draw what it needs is refused
//! (`too-big`) while the others go on. So the sessions together never hold more than
//! `sessions × allowance + shared` bytes of requests, however many send large messages at
//! once, and a session sending small requests is never refused for another's large ones.
//!
//! The figures are what the buffers hold (a message's capacity, an estimate of each parsed
//! node's size), not what the allocator has: a bound to keep, not a measurement.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use crate::config::Config;
use netconf_proto::xml::ParseLimits;

/// What a session may hold and parse of one request.
#[derive(Debug, Clone)]
pub struct RequestLimits {
    /// Limits on one message's parse.
    pub parse: ParseLimits,
    /// The budget all sessions share.
    pub budget: Arc<Budget>,
}

impl RequestLimits {
    /// The limits `config` sets, with a budget of their own.
    pub fn new(config: &Config) -> Self {
        RequestLimits {
            parse: ParseLimits {
                max_elements: config.max_message_elements,
                max_depth: config.max_message_depth.min(netconf_proto::xml::MAX_DEPTH),
            },
            budget: Budget::new(config.request_memory, config.session_request_memory),
        }
    }
}

impl Default for RequestLimits {
    /// The default configuration's limits.
    fn default() -> Self {
        RequestLimits::new(&Config::default())
    }
}

/// The budget shared by all sessions.
#[derive(Debug)]
pub struct Budget {
    /// Most bytes drawn from the shared part at once.
    limit: usize,
    /// What each session holds without drawing on the shared part.
    allowance: usize,
    /// Drawn from the shared part now.
    used: AtomicUsize,
    /// Requests refused because the shared part could not hold them.
    refusals: AtomicU64,
}

/// The shared budget could not hold a request's growth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exhausted;

impl Budget {
    /// A budget of `limit` shared bytes, each session holding `allowance` bytes of its own.
    pub fn new(limit: usize, allowance: usize) -> Arc<Budget> {
        Arc::new(Budget {
            limit,
            allowance,
            used: AtomicUsize::new(0),
            refusals: AtomicU64::new(0),
        })
    }

    /// The shared part's size, in bytes.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Bytes drawn from the shared part now.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// Requests refused so far because the shared part was used up.
    pub fn refusals(&self) -> u64 {
        self.refusals.load(Ordering::Relaxed)
    }

    /// A session's account, holding nothing yet.
    pub fn account(self: &Arc<Self>) -> Account {
        Account { budget: self.clone(), held: AtomicUsize::new(0) }
    }

    /// Draws `bytes` from the shared part, all or nothing.
    fn draw(&self, bytes: usize) -> Result<(), Exhausted> {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(bytes).filter(|&total| total <= self.limit)
            })
            .map(drop)
            .map_err(|_| {
                self.refusals.fetch_add(1, Ordering::Relaxed);
                Exhausted
            })
    }

    fn give_back(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::AcqRel);
    }

    /// The part of `held` bytes that comes from the shared part.
    fn shared_part(&self, held: usize) -> usize {
        held.saturating_sub(self.allowance)
    }
}

/// What one session holds. One request at a time uses it (the session's task, or the
/// thread its request went to), so changes need not be atomic with each other; the counter
/// is atomic only so that the account can move between threads behind an `Arc`.
#[derive(Debug)]
pub struct Account {
    budget: Arc<Budget>,
    held: AtomicUsize,
}

impl Account {
    /// What the session holds now, in bytes.
    pub fn held(&self) -> usize {
        self.held.load(Ordering::Acquire)
    }

    /// The session now holds `bytes`. Shrinking always succeeds; growing fails, changing
    /// nothing, if the shared part cannot give what goes beyond the allowance.
    pub fn set(&self, bytes: usize) -> Result<(), Exhausted> {
        let held = self.held();
        let (before, after) = (self.budget.shared_part(held), self.budget.shared_part(bytes));
        if after > before {
            self.budget.draw(after - before)?;
        } else if before > after {
            self.budget.give_back(before - after);
        }
        self.held.store(bytes, Ordering::Release);
        Ok(())
    }

    /// The session holds `bytes` more (see [`Account::set`]).
    pub fn grow(&self, bytes: usize) -> Result<(), Exhausted> {
        self.set(self.held().saturating_add(bytes))
    }

    /// The session holds `bytes` less.
    pub fn shrink(&self, bytes: usize) {
        let _ = self.set(self.held().saturating_sub(bytes));
    }
}

impl Drop for Account {
    fn drop(&mut self) {
        self.budget.give_back(self.budget.shared_part(self.held()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_hold_their_allowance_and_share_the_rest() {
        let budget = Budget::new(100, 10);
        let (a, b) = (budget.account(), budget.account());
        // Within the allowance: nothing shared.
        a.set(10).expect("own");
        assert_eq!(budget.used(), 0);
        a.set(70).expect("shared");
        assert_eq!(budget.used(), 60);
        // b cannot take more than what is left, but always its allowance.
        assert_eq!(b.set(60), Err(Exhausted));
        assert_eq!((b.held(), budget.used()), (0, 60));
        b.set(50).expect("fits");
        assert_eq!(budget.used(), 100);
        assert_eq!(budget.refusals(), 1);
        // Shrinking gives back; dropping gives back what is left.
        a.shrink(30);
        assert_eq!(budget.used(), 70);
        drop(b);
        assert_eq!(budget.used(), 30);
        drop(a);
        assert_eq!(budget.used(), 0);
    }
}
