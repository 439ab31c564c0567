//! The table of open NETCONF sessions: session-id allocation, the maximum-sessions limit, and
//! a kill signal per session (for `<kill-session>` and server shutdown).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use tokio::sync::Notify;

/// What the server knows of one session (the seed of ietf-netconf-monitoring's `session`).
#[derive(Debug, Clone)]
pub struct SessionInfo {
    /// The session-id (1..=4294967295).
    pub id: u32,
    /// The authenticated user.
    pub username: String,
    /// The client's address.
    pub source: Option<SocketAddr>,
    /// When the session started.
    pub login_time: SystemTime,
    /// Its counters (ietf-netconf-monitoring).
    pub counters: Arc<SessionCounters>,
}

/// Per-session counters of ietf-netconf-monitoring.
#[derive(Debug, Default)]
pub struct SessionCounters {
    /// Correct rpc messages received.
    pub in_rpcs: AtomicU64,
    /// Messages that were not correct rpc messages.
    pub in_bad_rpcs: AtomicU64,
    /// rpc-reply messages holding an rpc-error.
    pub out_rpc_errors: AtomicU64,
    /// Notifications sent.
    pub out_notifications: AtomicU64,
}

impl SessionCounters {
    /// Adds one to `c`.
    pub fn bump(c: &AtomicU64) {
        c.fetch_add(1, Ordering::Relaxed);
    }

    /// Reads `c`.
    pub fn get(c: &AtomicU64) -> u64 {
        c.load(Ordering::Relaxed)
    }
}

#[derive(Debug)]
struct Entry {
    info: SessionInfo,
    kill: Arc<Notify>,
    killed_by: Arc<AtomicU32>,
}

#[derive(Debug, Default)]
struct Table {
    sessions: HashMap<u32, Entry>,
    last_id: u32,
}

/// The session table, shared by all connections.
#[derive(Debug)]
pub struct Registry {
    max_sessions: usize,
    table: Mutex<Table>,
}

/// The session table is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the server already has its maximum of {0} sessions")]
pub struct Full(pub usize);

/// A session's place in the table; leaving the table happens when this is dropped.
#[derive(Debug)]
pub struct SessionHandle {
    registry: Arc<Registry>,
    id: u32,
    kill: Arc<Notify>,
    killed_by: Arc<AtomicU32>,
    counters: Arc<SessionCounters>,
}

// ===== impl Registry =====

impl Registry {
    /// An empty table admitting at most `max_sessions` sessions.
    pub fn new(max_sessions: usize) -> Arc<Self> {
        Arc::new(Registry { max_sessions, table: Mutex::new(Table::default()) })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        // A poisoned lock means a panic elsewhere while holding it; the table itself is
        // still consistent (every mutation is a single insert or remove).
        self.table.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Opens a session with a fresh session-id, or fails if the table is full.
    pub fn open(
        self: &Arc<Self>,
        username: &str,
        source: Option<SocketAddr>,
    ) -> Result<SessionHandle, Full> {
        let mut table = self.lock();
        if table.sessions.len() >= self.max_sessions {
            return Err(Full(self.max_sessions));
        }
        // Next free id, skipping 0 (not a valid session-id) and ids still in use.
        let mut id = table.last_id;
        loop {
            id = id.wrapping_add(1);
            if id != 0 && !table.sessions.contains_key(&id) {
                break;
            }
        }
        table.last_id = id;
        let kill = Arc::new(Notify::new());
        let killed_by = Arc::new(AtomicU32::new(0));
        let counters = Arc::new(SessionCounters::default());
        let info = SessionInfo {
            id,
            username: username.to_string(),
            source,
            login_time: SystemTime::now(),
            counters: counters.clone(),
        };
        table.sessions.insert(id, Entry { info, kill: kill.clone(), killed_by: killed_by.clone() });
        Ok(SessionHandle { registry: self.clone(), id, kill, killed_by, counters })
    }

    /// Asks session `id` to end. False if there is no such session.
    pub fn kill(&self, id: u32) -> bool {
        self.kill_by(id, 0)
    }

    /// Asks session `id` to end on behalf of session `by` (kill-session; 0: the server).
    pub fn kill_by(&self, id: u32, by: u32) -> bool {
        match self.lock().sessions.get(&id) {
            Some(entry) => {
                entry.killed_by.store(by, Ordering::Relaxed);
                entry.kill.notify_one();
                true
            }
            None => false,
        }
    }

    /// The information of session `id`.
    pub fn get(&self, id: u32) -> Option<SessionInfo> {
        self.lock().sessions.get(&id).map(|e| e.info.clone())
    }

    /// Asks every session to end.
    pub fn kill_all(&self) {
        for entry in self.lock().sessions.values() {
            entry.kill.notify_one();
        }
    }

    /// The open sessions, ordered by id.
    pub fn list(&self) -> Vec<SessionInfo> {
        let mut v: Vec<_> = self.lock().sessions.values().map(|e| e.info.clone()).collect();
        v.sort_by_key(|i| i.id);
        v
    }

    /// The number of open sessions.
    pub fn len(&self) -> usize {
        self.lock().sessions.len()
    }

    /// Whether no session is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

// ===== impl SessionHandle =====

impl SessionHandle {
    /// The session-id.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Resolves when the session is asked to end.
    pub async fn killed(&self) {
        self.kill.notified().await;
    }

    /// The session that killed this one with kill-session, if any.
    pub fn killed_by(&self) -> Option<u32> {
        Some(self.killed_by.load(Ordering::Relaxed)).filter(|&id| id != 0)
    }

    /// The session's counters.
    pub fn counters(&self) -> &Arc<SessionCounters> {
        &self.counters
    }

    /// The session's information.
    pub fn info(&self) -> Option<SessionInfo> {
        self.registry.get(self.id)
    }
}

impl Drop for SessionHandle {
    fn drop(&mut self) {
        self.registry.lock().sessions.remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_slots_freed_on_drop() {
        let r = Registry::new(2);
        let a = r.open("alice", None).expect("room");
        let b = r.open("bob", None).expect("room");
        assert_eq!((a.id(), b.id()), (1, 2));
        assert_eq!(r.open("carol", None).map(|h| h.id()), Err(Full(2)));
        drop(a);
        let c = r.open("carol", None).expect("room again");
        assert_eq!(c.id(), 3);
        assert_eq!(
            r.list().iter().map(|i| i.username.as_str()).collect::<Vec<_>>(),
            ["bob", "carol"]
        );
    }

    #[test]
    fn id_allocation_wraps_and_skips_zero_and_live_ids() {
        let r = Registry::new(10);
        let keep = r.open("a", None).expect("room");
        assert_eq!(keep.id(), 1);
        r.lock().last_id = u32::MAX - 1;
        let x = r.open("b", None).expect("room");
        assert_eq!(x.id(), u32::MAX);
        let y = r.open("c", None).expect("room");
        assert_eq!(y.id(), 2, "skips 0 and the live id 1");
    }

    #[tokio::test]
    async fn kill_wakes_the_session() {
        let r = Registry::new(1);
        let h = r.open("a", None).expect("room");
        assert!(r.kill(h.id()));
        assert!(!r.kill(99));
        tokio::time::timeout(std::time::Duration::from_secs(5), h.killed()).await.expect("woken");
    }
}
