//! Which connections may hold a place before they have authenticated, and the places kept for
//! those that have (DECISIONS.md, "Connections before authentication").
//!
//! Unauthenticated connections have their own table, separate from the authenticated ones, so
//! that no number of strangers can take an authorised user's place. The newest connection
//! always gets in; when a limit is reached it displaces another:
//!
//! - At most [`Limits::per_source`] from one source (an IPv4 address, or an IPv6 /64: one
//!   subscriber's allocation). A new connection from a source at its limit displaces one of
//!   that source's own.
//! - At most [`Limits::unauthenticated`] in all. A new connection that finds the table full
//!   displaces one of the source holding the most places (counting the new one).
//! - In both cases the victim is the least advanced connection ([`Stage`]: no SSH version line
//!   yet, then in key exchange, then authenticating), the oldest among equals. A client that
//!   is getting on with its login passes the first two stages within a round trip or two, so
//!   silent or slow connections, from however many sources, displace each other and not it.
//! - A connection that authenticates leaves this table for one of [`Limits::authenticated`]
//!   places, which unauthenticated connections never take; with none free it is refused.
//!
//! The login deadline is enforced by the connection's task (`connection.rs`) through
//! [`TicketWatch::expire`], which, like displacement and promotion, decides under the table's
//! lock, so a connection is either authenticated or cut, never both.

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Notify;
use tracing::warn;

use super::flood_log::{Closed, FloodLog};

/// How many connections may wait for authentication, and how many authenticated ones may be
/// open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Unauthenticated connections in all (at least 1).
    pub unauthenticated: usize,
    /// Unauthenticated connections from one source (at least 1).
    pub per_source: usize,
    /// Authenticated connections.
    pub authenticated: usize,
}

/// Counts since start, and the tables' current sizes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AdmissionStats {
    /// Connections accepted.
    pub accepted: u64,
    /// Connections displaced because their source had [`Limits::per_source`] newer ones.
    pub displaced_per_source: u64,
    /// Connections displaced because the unauthenticated table was full.
    pub displaced: u64,
    /// Connections cut at the login deadline.
    pub login_timeouts: u64,
    /// Connections that authenticated and got a place.
    pub authenticated: u64,
    /// Connections that authenticated but found every authenticated place taken.
    pub refused_full: u64,
    /// Unauthenticated connections holding a place now.
    pub unauthenticated_now: usize,
    /// Authenticated connections holding a place now.
    pub authenticated_now: usize,
}

/// Where a connection comes from, for the per-source limit. IPv4-mapped IPv6 addresses count
/// as the IPv4 address; other IPv6 addresses by their /64, the smallest block a subscriber is
/// normally given, so that one subscriber cannot pose as 2^64 sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Source {
    V4(u32),
    V6Prefix(u64),
}

impl Source {
    fn of(ip: IpAddr) -> Source {
        match ip {
            IpAddr::V4(v4) => Source::V4(v4.into()),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Source::V4(v4.into()),
                None => Source::V6Prefix((u128::from(v6) >> 64) as u64),
            },
        }
    }
}

/// Set once, when a connection is displaced; stays set.
#[derive(Debug, Default)]
struct Flag {
    set: AtomicBool,
    notify: Notify,
}

impl Flag {
    fn set(&self) {
        self.set.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    fn is_set(&self) -> bool {
        self.set.load(Ordering::SeqCst)
    }

    async fn wait(&self) {
        loop {
            // Registered before the check, so a `set` in between is not missed.
            let notified = self.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_set() {
                return;
            }
            notified.await;
        }
    }
}

/// How far an unauthenticated connection has got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// Accepted; the client's SSH version line has not arrived.
    Connected,
    /// The version line has arrived; key exchange.
    VersionLine,
    /// Key exchange done: the client has tried to authenticate.
    Authenticating,
}

#[derive(Debug)]
struct Waiting {
    peer: SocketAddr,
    source: Source,
    stage: Stage,
    displaced: Arc<Flag>,
}

#[derive(Debug, Default)]
struct Table {
    next_id: u64,
    /// Unauthenticated connections by id; ids grow, so the first is the oldest.
    waiting: BTreeMap<u64, Waiting>,
    per_source: HashMap<Source, usize>,
    authenticated: usize,
}

impl Table {
    fn remove(&mut self, id: u64) -> Option<Waiting> {
        let w = self.waiting.remove(&id)?;
        if let Some(n) = self.per_source.get_mut(&w.source) {
            *n -= 1;
            if *n == 0 {
                self.per_source.remove(&w.source);
            }
        }
        Some(w)
    }

    /// The connection to displace for one from `incoming`: the least advanced, then of the
    /// source holding the most places (counting the new one), then the oldest; only among
    /// `incoming`'s own connections if `own_source`.
    fn victim(&self, incoming: Source, own_source: bool) -> Option<u64> {
        let count =
            |s: Source| self.per_source.get(&s).copied().unwrap_or(0) + usize::from(s == incoming);
        self.waiting
            .iter()
            .filter(|(_, w)| !own_source || w.source == incoming)
            .min_by_key(|&(&id, w)| (w.stage, Reverse(count(w.source)), id))
            .map(|(&id, _)| id)
    }
}

#[derive(Debug, Default)]
struct Counters {
    accepted: AtomicU64,
    displaced_per_source: AtomicU64,
    displaced: AtomicU64,
    login_timeouts: AtomicU64,
    authenticated: AtomicU64,
    refused_full: AtomicU64,
}

/// The tables of unauthenticated and authenticated connections.
#[derive(Debug)]
pub struct Admission {
    limits: Limits,
    table: Mutex<Table>,
    counters: Counters,
    flood_log: FloodLog,
}

impl Admission {
    /// Empty tables with these limits (zeros are taken as 1).
    pub fn new(limits: Limits) -> Arc<Admission> {
        let limits = Limits {
            unauthenticated: limits.unauthenticated.max(1),
            per_source: limits.per_source.max(1),
            authenticated: limits.authenticated,
        };
        Arc::new(Admission {
            limits,
            table: Mutex::default(),
            counters: Counters::default(),
            flood_log: FloodLog::default(),
        })
    }

    /// The rate-limited log of connections closed before they authenticated.
    pub(crate) fn flood_log(&self) -> &FloodLog {
        &self.flood_log
    }

    fn table(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Gives a newly accepted connection from `peer` a place, displacing another if a limit
    /// is reached (the displaced connection's [`TicketWatch::displaced`] fires). The
    /// [`Ticket`] goes to whoever authenticates the connection; the [`TicketWatch`] to the
    /// task that cuts it.
    pub fn admit(self: &Arc<Self>, peer: SocketAddr) -> (Ticket, TicketWatch) {
        let source = Source::of(peer.ip());
        let displaced = Arc::new(Flag::default());
        self.counters.accepted.fetch_add(1, Ordering::Relaxed);
        let mut table = self.table();
        let from_source = table.per_source.get(&source).copied().unwrap_or(0);
        let victim = if from_source >= self.limits.per_source {
            table.victim(source, true).map(|id| (id, Reason::PerSource))
        } else if table.waiting.len() >= self.limits.unauthenticated {
            table.victim(source, false).map(|id| (id, Reason::Full))
        } else {
            None
        };
        if let Some((id, reason)) = victim {
            if let Some(w) = table.remove(id) {
                w.displaced.set();
                let counter = match reason {
                    Reason::PerSource => &self.counters.displaced_per_source,
                    Reason::Full => &self.counters.displaced,
                };
                counter.fetch_add(1, Ordering::Relaxed);
                if self.flood_log.line(Closed::Displaced) {
                    warn!(
                        displaced = %w.peer,
                        by = %peer,
                        "closing an unauthenticated connection: {}",
                        reason.text()
                    );
                }
            }
        }
        let id = table.next_id;
        table.next_id += 1;
        let waiting =
            Waiting { peer, source, stage: Stage::Connected, displaced: displaced.clone() };
        table.waiting.insert(id, waiting);
        *table.per_source.entry(source).or_insert(0) += 1;
        drop(table);
        let ticket = Ticket { admission: self.clone(), id: Some(id) };
        let watch = TicketWatch { admission: self.clone(), id, displaced };
        (ticket, watch)
    }

    /// Connection `id` has got as far as `stage` (if it still waits).
    fn reached(&self, id: u64, stage: Stage) {
        if let Some(w) = self.table().waiting.get_mut(&id) {
            w.stage = w.stage.max(stage);
        }
    }

    /// Counts since start and the tables' sizes now.
    pub fn stats(&self) -> AdmissionStats {
        let (unauthenticated_now, authenticated_now) = {
            let t = self.table();
            (t.waiting.len(), t.authenticated)
        };
        let c = &self.counters;
        AdmissionStats {
            accepted: c.accepted.load(Ordering::Relaxed),
            displaced_per_source: c.displaced_per_source.load(Ordering::Relaxed),
            displaced: c.displaced.load(Ordering::Relaxed),
            login_timeouts: c.login_timeouts.load(Ordering::Relaxed),
            authenticated: c.authenticated.load(Ordering::Relaxed),
            refused_full: c.refused_full.load(Ordering::Relaxed),
            unauthenticated_now,
            authenticated_now,
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Reason {
    PerSource,
    Full,
}

impl Reason {
    fn text(self) -> &'static str {
        match self {
            Reason::PerSource => "its source has too many unauthenticated connections",
            Reason::Full => "too many unauthenticated connections",
        }
    }
}

/// Why an authenticated connection gets no place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// It was displaced or cut at the deadline while its authentication was checked.
    #[error("the connection lost its place before it authenticated")]
    Gone,
    /// Every authenticated place is taken.
    #[error("too many authenticated connections")]
    Full,
}

/// An unauthenticated connection's place. Dropped: the place is freed (if the connection
/// still holds it).
#[derive(Debug)]
pub struct Ticket {
    admission: Arc<Admission>,
    /// `None` once promoted.
    id: Option<u64>,
}

impl Ticket {
    /// The connection has got as far as `stage`.
    pub fn reached(&self, stage: Stage) {
        if let Some(id) = self.id {
            self.admission.reached(id, stage);
        }
    }

    /// A test, cheap and callable from any thread, of whether the connection has lost its
    /// place (displaced or cut at the deadline): a password check still queued for it can be
    /// skipped, since its result could no longer let it in.
    pub fn gone_check(&self) -> impl Fn() -> bool + Send + 'static {
        let (admission, id) = (self.admission.clone(), self.id);
        move || id.is_none_or(|id| !admission.table().waiting.contains_key(&id))
    }

    /// The connection has authenticated: trades its unauthenticated place for an
    /// authenticated one.
    pub fn promote(mut self) -> Result<AuthenticatedSlot, Refused> {
        let Some(id) = self.id.take() else { return Err(Refused::Gone) };
        let admission = self.admission.clone();
        let mut table = admission.table();
        if table.remove(id).is_none() {
            return Err(Refused::Gone);
        }
        if table.authenticated >= admission.limits.authenticated {
            drop(table);
            admission.counters.refused_full.fetch_add(1, Ordering::Relaxed);
            return Err(Refused::Full);
        }
        table.authenticated += 1;
        drop(table);
        admission.counters.authenticated.fetch_add(1, Ordering::Relaxed);
        Ok(AuthenticatedSlot { admission })
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            self.admission.table().remove(id);
        }
    }
}

/// An authenticated connection's place, freed when dropped.
#[derive(Debug)]
pub struct AuthenticatedSlot {
    admission: Arc<Admission>,
}

impl Drop for AuthenticatedSlot {
    fn drop(&mut self) {
        self.admission.table().authenticated -= 1;
    }
}

/// What the connection's task watches: displacement, and the login deadline.
#[derive(Debug)]
pub struct TicketWatch {
    admission: Arc<Admission>,
    id: u64,
    displaced: Arc<Flag>,
}

impl TicketWatch {
    /// The rate-limited log of connections closed before they authenticated.
    pub(crate) fn flood_log(&self) -> &FloodLog {
        &self.admission.flood_log
    }

    /// Completes when the connection has been displaced (never, once it has authenticated).
    pub async fn displaced(&self) {
        self.displaced.wait().await;
    }

    /// Whether the connection has been displaced.
    pub fn is_displaced(&self) -> bool {
        self.displaced.is_set()
    }

    /// The connection has got as far as `stage`.
    pub fn reached(&self, stage: Stage) {
        self.admission.reached(self.id, stage);
    }

    /// The login deadline has passed: true if the connection had not authenticated, and its
    /// place is now freed (it must be cut); false if it had (it stays).
    pub fn expire(&self) -> bool {
        let expired = self.admission.table().remove(self.id).is_some();
        if expired {
            self.admission.counters.login_timeouts.fetch_add(1, Ordering::Relaxed);
        }
        expired
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer(s: &str) -> SocketAddr {
        s.parse().expect("address")
    }

    fn limits(unauthenticated: usize, per_source: usize, authenticated: usize) -> Limits {
        Limits { unauthenticated, per_source, authenticated }
    }

    fn is_displaced(watch: &TicketWatch) -> bool {
        watch.is_displaced()
    }

    #[tokio::test]
    async fn displaced_completes_whether_set_before_or_while_waiting() {
        let a = Admission::new(limits(1, 1, 1));
        let (_t1, w1) = a.admit(peer("10.0.0.1:1"));
        let waiting = tokio::spawn(async move { w1.displaced().await });
        tokio::task::yield_now().await;
        let (_t2, w2) = a.admit(peer("10.0.0.2:1"));
        tokio::time::timeout(std::time::Duration::from_secs(5), waiting)
            .await
            .expect("woken")
            .expect("task");
        let (_t3, _w3) = a.admit(peer("10.0.0.3:1"));
        tokio::time::timeout(std::time::Duration::from_secs(5), w2.displaced())
            .await
            .expect("already set");
    }

    #[test]
    fn a_source_at_its_limit_displaces_its_own_oldest() {
        let a = Admission::new(limits(10, 2, 4));
        let (_t1, w1) = a.admit(peer("10.0.0.1:1000"));
        let (_t2, w2) = a.admit(peer("10.0.0.1:1001"));
        let (_o, other) = a.admit(peer("10.0.0.2:1000"));
        let (_t3, w3) = a.admit(peer("10.0.0.1:1002"));
        assert!(is_displaced(&w1), "the oldest of the source goes");
        assert!(!is_displaced(&w2) && !is_displaced(&w3) && !is_displaced(&other));
        let s = a.stats();
        assert_eq!((s.displaced_per_source, s.displaced, s.unauthenticated_now), (1, 0, 3));
    }

    #[test]
    fn a_full_table_displaces_the_oldest_of_the_busiest_source() {
        let a = Admission::new(limits(4, 4, 4));
        let (_lone, lone) = a.admit(peer("192.0.2.7:22"));
        let flood: Vec<_> = (0..3).map(|i| a.admit(peer(&format!("10.0.0.1:{i}")))).collect();
        // Full: a newcomer from a third source pushes out the flood's oldest, not the lone
        // client that came first.
        let (_n, newcomer) = a.admit(peer("10.0.0.9:5"));
        assert!(is_displaced(&flood[0].1));
        assert!(!is_displaced(&lone) && !is_displaced(&newcomer));
        assert!(!is_displaced(&flood[1].1) && !is_displaced(&flood[2].1));
        assert_eq!((a.stats().displaced, a.stats().unauthenticated_now), (1, 4));
    }

    /// 550 connections from 50 sources, `lone` from another.
    fn flood(a: &Arc<Admission>) -> Vec<(Ticket, TicketWatch)> {
        (0..550u32)
            .map(|i| a.admit(peer(&format!("127.0.0.{}:{}", 10 + i % 50, 1000 + i))))
            .collect()
    }

    #[test]
    fn a_flood_from_fewer_sources_than_places_spares_a_lone_client() {
        let a = Admission::new(limits(64, 16, 4));
        let (_lone, lone) = a.admit(peer("127.0.0.2:40000"));
        let _flood = flood(&a);
        assert!(!is_displaced(&lone), "sources with two or more places go first");
        let s = a.stats();
        assert_eq!((s.unauthenticated_now, s.accepted), (64, 551));
        assert_eq!(s.displaced + s.displaced_per_source, 551 - 64);
    }

    #[test]
    fn a_flood_from_more_sources_than_places_spares_a_client_past_its_version_line() {
        let a = Admission::new(limits(16, 4, 4));
        let (_t, silent) = a.admit(peer("127.0.0.2:40000"));
        let (_t, lone) = a.admit(peer("127.0.0.3:40000"));
        lone.reached(Stage::VersionLine);
        let _flood = flood(&a);
        // One place per source: the source count cannot tell a lone client from the flood,
        // but how far it got can.
        assert!(is_displaced(&silent), "a silent lone connection is like the flood's");
        assert!(!is_displaced(&lone), "one that sent its version line outlasts them");
    }

    #[test]
    fn the_least_advanced_connection_goes_first_then_the_oldest() {
        let a = Admission::new(limits(3, 3, 4));
        let (t1, w1) = a.admit(peer("10.0.0.1:1"));
        let (_t2, w2) = a.admit(peer("10.0.0.2:1"));
        let (_t3, w3) = a.admit(peer("10.0.0.3:1"));
        t1.reached(Stage::Authenticating);
        w2.reached(Stage::VersionLine);
        let (_t4, w4) = a.admit(peer("10.0.0.4:1"));
        assert!(is_displaced(&w3) && !is_displaced(&w1) && !is_displaced(&w2));
        let (_t5, _w5) = a.admit(peer("10.0.0.5:1"));
        assert!(
            is_displaced(&w4),
            "the newcomer that has not advanced, before older ones that have"
        );
        let (_t6, _w6) = a.admit(peer("10.0.0.6:1"));
        assert!(!is_displaced(&w1) && !is_displaced(&w2), "they outlast every newcomer");
        assert_eq!(a.stats().displaced, 3);
    }

    #[test]
    fn ipv6_counts_by_64_and_mapped_ipv4_as_ipv4() {
        let a = Admission::new(limits(10, 1, 4));
        let (_t1, w1) = a.admit(peer("[2001:db8:1:2::1]:1"));
        let (_t2, w2) = a.admit(peer("[2001:db8:1:2:ffff::9]:2"));
        assert!(is_displaced(&w1), "same /64");
        let (_t3, w3) = a.admit(peer("[2001:db8:1:3::1]:3"));
        assert!(!is_displaced(&w2) && !is_displaced(&w3), "another /64");
        let (_t4, w4) = a.admit(peer("192.0.2.1:4"));
        let (_t5, _w5) = a.admit(peer("[::ffff:192.0.2.1]:5"));
        assert!(is_displaced(&w4), "the mapped address is the same source");
    }

    #[test]
    fn authenticated_places_are_separate_and_freed_on_drop() {
        let a = Admission::new(limits(2, 2, 1));
        let (t1, _w1) = a.admit(peer("10.0.0.1:1"));
        let slot = t1.promote().expect("a free authenticated place");
        // Two strangers fill the unauthenticated table; the authenticated place is untouched.
        let (t2, _w2) = a.admit(peer("10.0.0.2:1"));
        let (_t3, _w3) = a.admit(peer("10.0.0.3:1"));
        assert_eq!((a.stats().unauthenticated_now, a.stats().authenticated_now), (2, 1));
        assert_eq!(t2.promote().expect_err("full"), Refused::Full);
        assert_eq!(a.stats().refused_full, 1);
        drop(slot);
        let (t4, _w4) = a.admit(peer("10.0.0.4:1"));
        assert!(t4.promote().is_ok());
        assert_eq!(a.stats().authenticated, 2);
    }

    #[test]
    fn expiry_and_promotion_exclude_each_other() {
        let a = Admission::new(limits(4, 4, 4));
        let (t, w) = a.admit(peer("10.0.0.1:1"));
        assert!(w.expire(), "not authenticated: cut");
        assert_eq!(t.promote().expect_err("expired"), Refused::Gone, "too late to authenticate");
        let (t, w) = a.admit(peer("10.0.0.1:2"));
        let _slot = t.promote().expect("in time");
        assert!(!w.expire(), "authenticated: stays");
        let s = a.stats();
        assert_eq!((s.login_timeouts, s.unauthenticated_now, s.authenticated_now), (1, 0, 1));
    }

    #[test]
    fn a_displaced_connection_cannot_authenticate_and_a_dropped_ticket_frees_its_place() {
        let a = Admission::new(limits(1, 1, 4));
        let (t1, _w1) = a.admit(peer("10.0.0.1:1"));
        let gone = t1.gone_check();
        assert!(!gone());
        let (t2, _w2) = a.admit(peer("10.0.0.2:1"));
        assert!(gone(), "displaced");
        assert_eq!(t1.promote().expect_err("displaced"), Refused::Gone);
        drop(t2);
        assert_eq!(a.stats().unauthenticated_now, 0);
    }
}
