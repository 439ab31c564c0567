//! The table of open NETCONF sessions: session-id allocation, the maximum-sessions limit, and
//! a kill signal per session (for `<kill-session>` and server shutdown).

use std::collections::HashMap;
use std::net::SocketAddr;
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
}

#[derive(Debug)]
struct Entry {
    info: SessionInfo,
    kill: Arc<Notify>,
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
        let info = SessionInfo {
            id,
            username: username.to_string(),
            source,
            login_time: SystemTime::now(),
        };
        table.sessions.insert(id, Entry { info, kill: kill.clone() });
        Ok(SessionHandle { registry: self.clone(), id, kill })
    }

    /// Asks session `id` to end. False if there is no such session.
    pub fn kill(&self, id: u32) -> bool {
        match self.lock().sessions.get(&id) {
            Some(entry) => {
                entry.kill.notify_one();
                true
            }
            None => false,
        }
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
