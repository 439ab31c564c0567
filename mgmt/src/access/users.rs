//! The users file: who may log in, with which password hash and which public keys.
//!
//! One record per line, three fields separated by white space; `#` starts a comment line:
//!
//! ```text
//! # user    kind      value
//! alice     password  $argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$...
//! alice     key       ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI... alice@laptop
//! bob       key       ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ... bob@desk
//! ```
//!
//! A password is only ever stored as an Argon2 hash in PHC string form (`$argon2id$...`,
//! made by [`hash_password`]); a line holding anything else is refused, so a plain-text
//! password cannot slip in. A user may have one password line and any number of key lines,
//! in OpenSSH `authorized_keys` form (comment optional). There is no built-in user and no
//! default password: a missing or empty file admits nobody.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use argon2::password_hash::phc::PasswordHash;
use argon2::{Argon2, PasswordHasher, PasswordVerifier};
use russh::keys::PublicKey;
use thiserror::Error;

/// A user who may log in.
#[derive(Debug, Clone, Default)]
pub struct User {
    /// The Argon2 hash of the password, in PHC string form.
    pub password_hash: Option<String>,
    /// The public keys the user may authenticate with.
    pub keys: Vec<PublicKey>,
}

/// The users file, parsed.
#[derive(Debug, Clone, Default)]
pub struct Users {
    users: HashMap<String, User>,
}

/// Why the users file cannot be used.
#[derive(Debug, Error)]
pub enum UsersError {
    /// The file cannot be read.
    #[error("cannot read the users file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A line is wrong.
    #[error("users file line {line}: {reason}")]
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong and what to do.
        reason: String,
    },
}

/// Hashing a password failed (the system's random source failed).
#[derive(Debug, Error)]
#[error("cannot hash the password: {0}")]
pub struct HashError(String);

/// Hashes a password with Argon2id and default parameters, giving the PHC string to put in the
/// users file.
pub fn hash_password(password: &str) -> Result<String, HashError> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| HashError(e.to_string()))
}

fn valid_user_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphanumeric() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        && name.len() <= 64
}

// ===== impl Users =====

impl Users {
    /// Reads and parses the users file. A missing file is an error: the operator must create
    /// one (see the module documentation).
    pub fn load(path: &Path) -> Result<Users, UsersError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| UsersError::Io { path: path.to_path_buf(), source })?;
        warn_if_readable_by_others(path);
        Users::parse(&text)
    }

    /// Parses the text of a users file.
    pub fn parse(text: &str) -> Result<Users, UsersError> {
        let mut users: HashMap<String, User> = HashMap::new();
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            let err = |reason: String| UsersError::Line { line, reason };
            let trimmed = raw.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let mut fields = trimmed.splitn(3, char::is_whitespace);
            let name = fields.next().unwrap_or_default();
            let kind = fields.next().unwrap_or_default();
            let value = fields.next().unwrap_or_default().trim();
            if !valid_user_name(name) {
                return Err(err(format!(
                    "'{name}' is not a valid user name (letters, digits, '_', '-', '.'; at most 64)"
                )));
            }
            if value.is_empty() {
                return Err(err(
                    "expected '<user> password <hash>' or '<user> key <public key>'".into()
                ));
            }
            let user = users.entry(name.to_string()).or_default();
            match kind {
                "password" => {
                    let hash = PasswordHash::new(value).map_err(|_| {
                        err("the password is not an Argon2 hash; store hashes only, made with \
                             `hash_password` (e.g. `pfcd hash-password`), never plain text"
                            .into())
                    })?;
                    if !hash.algorithm.as_str().starts_with("argon2") {
                        return Err(err(format!(
                            "the password hash uses {}, not Argon2; rehash it with Argon2id",
                            hash.algorithm.as_str()
                        )));
                    }
                    if user.password_hash.is_some() {
                        return Err(err(format!("user '{name}' already has a password line")));
                    }
                    user.password_hash = Some(value.to_string());
                }
                "key" => {
                    let key = PublicKey::from_openssh(value).map_err(|e| {
                        err(format!(
                            "not an OpenSSH public key ({e}); paste a line of the form \
                                     'ssh-ed25519 AAAA... comment'"
                        ))
                    })?;
                    user.keys.push(key);
                }
                other => {
                    return Err(err(format!("unknown kind '{other}': use 'password' or 'key'")));
                }
            }
        }
        Ok(Users { users })
    }

    /// Whether `user` exists and `password` matches its hash. Slow on purpose (Argon2): call
    /// it off the async executor.
    pub fn verify_password(&self, user: &str, password: &str) -> bool {
        let Some(hash) = self.users.get(user).and_then(|u| u.password_hash.as_deref()) else {
            return false;
        };
        match PasswordHash::new(hash) {
            Ok(parsed) => Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok(),
            Err(_) => false,
        }
    }

    /// Whether `user` may authenticate with `key`.
    pub fn has_key(&self, user: &str, key: &PublicKey) -> bool {
        self.users.get(user).is_some_and(|u| u.keys.iter().any(|k| k.key_data() == key.key_data()))
    }

    /// The number of users.
    pub fn len(&self) -> usize {
        self.users.len()
    }

    /// Whether nobody can log in.
    pub fn is_empty(&self) -> bool {
        self.users.is_empty()
    }
}

#[cfg(unix)]
fn warn_if_readable_by_others(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(meta) = std::fs::metadata(path) {
        if meta.permissions().mode() & 0o077 != 0 {
            tracing::warn!(
                path = %path.display(),
                "the users file is readable by group or others; chmod 600 it"
            );
        }
    }
}

#[cfg(not(unix))]
fn warn_if_readable_by_others(_path: &Path) {}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use argon2::{Algorithm, Params, Version};

    /// A hash with tiny Argon2 parameters, so tests stay fast.
    pub(crate) fn weak_hash(password: &str) -> String {
        let params = Params::new(8, 1, 1, None).expect("valid params");
        Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
            .hash_password(password.as_bytes())
            .expect("hash")
            .to_string()
    }

    const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDYXF9WKcl9//gfl/WRgNenLf/S3u0Jo2seXL5uGLW1a test@example";

    #[test]
    fn parses_passwords_and_keys() {
        let text = format!(
            "# comment\n\nalice password {}\nalice key {KEY}\nbob key {KEY}\n",
            weak_hash("s3cret")
        );
        let users = Users::parse(&text).expect("valid");
        assert_eq!(users.len(), 2);
        assert!(users.verify_password("alice", "s3cret"));
        assert!(!users.verify_password("alice", "wrong"));
        assert!(!users.verify_password("bob", "s3cret"), "bob has no password");
        assert!(!users.verify_password("nobody", "s3cret"));
        let key = PublicKey::from_openssh(KEY).expect("key");
        assert!(users.has_key("alice", &key) && users.has_key("bob", &key));
        assert!(!users.has_key("nobody", &key));
    }

    #[test]
    fn refuses_plain_text_and_other_mistakes() {
        let hash = weak_hash("x");
        let cases = [
            "alice password hunter2".to_string(),
            "alice password $5$rounds=5000$salt$abc".to_string(),
            format!("alice password {hash}\nalice password {hash}"),
            "alice key ssh-ed25519 notbase64".to_string(),
            "alice secret x".to_string(),
            "alice password".to_string(),
            format!("bad:name password {hash}"),
        ];
        for text in cases {
            let e = Users::parse(&text).expect_err(&text);
            assert!(matches!(e, UsersError::Line { .. }), "{text}: {e}");
        }
    }

    #[test]
    fn hash_password_makes_argon2id_phc_strings() {
        let h = hash_password("pw").expect("hash");
        assert!(h.starts_with("$argon2id$"), "{h}");
        let users = Users::parse(&format!("u password {h}")).expect("valid");
        assert!(users.verify_password("u", "pw"));
    }

    #[test]
    fn missing_file_is_an_error_and_empty_file_admits_nobody() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(matches!(Users::load(&dir.path().join("nope")), Err(UsersError::Io { .. })));
        let empty = dir.path().join("users");
        std::fs::write(&empty, "# nobody\n").expect("write");
        assert!(Users::load(&empty).expect("valid").is_empty());
    }
}
