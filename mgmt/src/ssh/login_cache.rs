//! Recently verified password logins, so that a client that reconnects with the same
//! credentials (an Ansible play opens a connection per task, a poller one per poll) is not
//! charged a full Argon2id check every time.
//!
//! After a password passes Argon2id, the cache keeps, per user, a keyed BLAKE2b digest of the
//! password and the time of the check. A later login whose digest matches, within the
//! time-to-live, is accepted without Argon2id. What this does and does not change:
//!
//! - A wrong password never matches a digest, so it always pays the full Argon2id check (and
//!   the server's rejection delay): online guessing is exactly as slow as without the cache.
//! - The digest key is random, made at start and kept only in memory; nothing reaches disk.
//!   Someone who can read the server's memory can test guesses against a digest quickly, but
//!   could equally read the passwords as they arrive.
//! - An entry lives for the time-to-live from its Argon2id check (a hit does not extend it),
//!   so every password is checked against the users file's hash at least that often.
//! - Each users file (the one loaded at start, each reload) has its own cache: a changed or
//!   removed password stops working at the reload, whatever was cached.
//! - One entry per user who has logged in with a password: the cache cannot grow beyond the
//!   users file.
//!
//! Dovecot's `auth_cache` and SSSD's credential cache do the same for IMAP and system logins.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use blake2::{Blake2b256, Digest};
use subtle::ConstantTimeEq;

type PasswordDigest = [u8; 32];

#[derive(Debug)]
struct Entry {
    digest: PasswordDigest,
    verified_at: Instant,
}

/// Recently verified passwords, by user.
pub struct LoginCache {
    key: [u8; 32],
    /// `None`: caching is off, every login runs Argon2id.
    ttl: Option<Duration>,
    entries: Mutex<HashMap<String, Entry>>,
}

impl std::fmt::Debug for LoginCache {
    // The key and the digests stay out of logs; `try_lock`, so that formatting never waits.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let cached = self.entries.try_lock().map(|e| e.len()).ok();
        f.debug_struct("LoginCache").field("ttl", &self.ttl).field("cached", &cached).finish()
    }
}

impl LoginCache {
    /// An empty cache whose entries live `ttl` (`None` or zero: caching off).
    pub fn new(ttl: Option<Duration>) -> Self {
        LoginCache {
            key: rand::random(),
            ttl: ttl.filter(|t| !t.is_zero()),
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `password` is the one `user` logged in with less than the time-to-live ago.
    pub fn recalls(&self, user: &str, password: &str) -> bool {
        self.recalls_at(user, password, Instant::now())
    }

    /// Notes that `password` has just passed Argon2id for `user`.
    pub fn remember(&self, user: &str, password: &str) {
        self.remember_at(user, password, Instant::now());
    }

    /// How many users have a login cached (expired entries included until next looked at).
    pub fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(std::sync::PoisonError::into_inner).len()
    }

    /// Whether no login is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn recalls_at(&self, user: &str, password: &str, now: Instant) -> bool {
        let Some(ttl) = self.ttl else { return false };
        let digest = self.digest(user, password);
        let mut entries = self.entries.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(entry) = entries.get(user) else { return false };
        if now.saturating_duration_since(entry.verified_at) >= ttl {
            entries.remove(user);
            return false;
        }
        bool::from(entry.digest.ct_eq(&digest))
    }

    fn remember_at(&self, user: &str, password: &str, now: Instant) {
        if self.ttl.is_none() {
            return;
        }
        let entry = Entry { digest: self.digest(user, password), verified_at: now };
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(user.to_string(), entry);
    }

    /// BLAKE2b with the key in front is a MAC (BLAKE2 has no length extension); the user's
    /// name goes in with its length, so no (user, password) pair can pose as another.
    fn digest(&self, user: &str, password: &str) -> PasswordDigest {
        Blake2b256::new()
            .chain_update(self.key)
            .chain_update((user.len() as u64).to_le_bytes())
            .chain_update(user.as_bytes())
            .chain_update(password.as_bytes())
            .finalize()
            .into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: Duration = Duration::from_secs(60);

    #[test]
    fn recalls_only_the_remembered_password_of_that_user() {
        let cache = LoginCache::new(Some(MINUTE));
        assert!(!cache.recalls("alice", "s3cret"), "nothing verified yet");
        cache.remember("alice", "s3cret");
        assert!(cache.recalls("alice", "s3cret"));
        assert!(!cache.recalls("alice", "s3cret "), "another password");
        assert!(!cache.recalls("alice", ""), "an empty password");
        assert!(!cache.recalls("bob", "s3cret"), "another user with the same password");
        // The length prefix keeps ("ali", "ces3cret") from posing as ("alice", "s3cret").
        assert!(!cache.recalls("ali", "ces3cret"));
        assert!(cache.recalls("alice", "s3cret"), "a wrong guess leaves the entry alone");
    }

    #[test]
    fn an_entry_expires_after_the_ttl_from_its_check() {
        let cache = LoginCache::new(Some(MINUTE));
        let t0 = Instant::now();
        cache.remember_at("alice", "pw", t0);
        assert!(cache.recalls_at("alice", "pw", t0 + Duration::from_secs(59)));
        // A hit does not extend the entry: at the TTL it is gone however often it was used.
        assert!(!cache.recalls_at("alice", "pw", t0 + MINUTE));
        assert!(!cache.recalls_at("alice", "pw", t0 + Duration::from_secs(1)), "removed");
        cache.remember_at("alice", "pw", t0 + MINUTE);
        assert!(cache.recalls_at("alice", "pw", t0 + Duration::from_secs(61)));
    }

    #[test]
    fn a_new_password_replaces_the_old_one() {
        let cache = LoginCache::new(Some(MINUTE));
        cache.remember("alice", "old");
        cache.remember("alice", "new");
        assert!(cache.recalls("alice", "new"));
        assert!(!cache.recalls("alice", "old"));
    }

    #[test]
    fn off_recalls_nothing() {
        for ttl in [None, Some(Duration::ZERO)] {
            let cache = LoginCache::new(ttl);
            cache.remember("alice", "pw");
            assert!(!cache.recalls("alice", "pw"), "{ttl:?}");
        }
    }

    #[test]
    fn two_caches_do_not_share_digests() {
        let (a, b) = (LoginCache::new(Some(MINUTE)), LoginCache::new(Some(MINUTE)));
        assert_ne!(a.digest("alice", "pw"), b.digest("alice", "pw"), "keys are random");
        assert_eq!(a.digest("alice", "pw"), a.digest("alice", "pw"));
    }
}
