//! The SSH host key: an Ed25519 key in OpenSSH format, generated on first start and kept in
//! the state directory (`ssh_host_ed25519_key`, mode 0600, with the public half beside it in
//! `ssh_host_ed25519_key.pub`), so clients see the same host key across restarts.

use std::path::{Path, PathBuf};

use russh::keys::ssh_key::LineEnding;
use russh::keys::{Algorithm, HashAlg, PrivateKey};
use thiserror::Error;

use crate::state_dir::write_file;

/// Why the host key cannot be had.
#[derive(Debug, Error)]
pub enum HostKeyError {
    /// Reading or writing the key file failed.
    #[error("host key file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file exists but does not hold a usable private key.
    #[error("host key file {path} is not an unencrypted OpenSSH private key ({reason}); move it away to have a new one generated")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        reason: String,
    },
    /// Generating or encoding a key failed.
    #[error("cannot generate a host key: {0}")]
    Generate(String),
}

/// Loads the host key at `path`, generating and storing a new Ed25519 key if there is none.
pub fn load_or_generate(path: &Path) -> Result<PrivateKey, HostKeyError> {
    let io = |source| HostKeyError::Io { path: path.to_path_buf(), source };
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let key = PrivateKey::from_openssh(&text).map_err(|e| HostKeyError::Invalid {
                path: path.to_path_buf(),
                reason: e.to_string(),
            })?;
            if key.is_encrypted() {
                return Err(HostKeyError::Invalid {
                    path: path.to_path_buf(),
                    reason: "it is encrypted".into(),
                });
            }
            tracing::info!(path = %path.display(), fingerprint = %key.public_key().fingerprint(HashAlg::Sha256), "loaded SSH host key");
            Ok(key)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let key = PrivateKey::random(&mut rand::rng(), Algorithm::Ed25519)
                .map_err(|e| HostKeyError::Generate(e.to_string()))?;
            let private = key
                .to_openssh(LineEnding::LF)
                .map_err(|e| HostKeyError::Generate(e.to_string()))?;
            let public =
                key.public_key().to_openssh().map_err(|e| HostKeyError::Generate(e.to_string()))?;
            write_file(path, private.as_bytes(), 0o600).map_err(io)?;
            let pub_path = path.with_extension("pub");
            write_file(&pub_path, format!("{public}\n").as_bytes(), 0o644)
                .map_err(|source| HostKeyError::Io { path: pub_path.clone(), source })?;
            tracing::info!(path = %path.display(), fingerprint = %key.public_key().fingerprint(HashAlg::Sha256), "generated SSH host key");
            Ok(key)
        }
        Err(e) => Err(io(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_once_then_reloaded() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("ssh_host_ed25519_key");
        let first = load_or_generate(&path).expect("generated");
        assert_eq!(first.algorithm(), Algorithm::Ed25519);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).expect("exists").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let public = std::fs::read_to_string(path.with_extension("pub")).expect("public half");
        assert!(public.starts_with("ssh-ed25519 "));
        let second = load_or_generate(&path).expect("loaded");
        assert_eq!(first.public_key().key_data(), second.public_key().key_data());
    }

    /// The key goes into a temporary file that is created anew, never through a link planted
    /// where it goes: the private key never lands in another file.
    #[test]
    fn a_link_planted_as_the_temporary_file_is_not_written_through() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("ssh_host_ed25519_key");
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").expect("victim");
        std::os::unix::fs::symlink(&victim, dir.path().join("ssh_host_ed25519_key.tmp"))
            .expect("symlink");
        std::os::unix::fs::symlink(&victim, dir.path().join("ssh_host_ed25519_key.pub.tmp"))
            .expect("symlink");
        load_or_generate(&path).expect("generated");
        assert_eq!(std::fs::read_to_string(&victim).expect("victim"), "precious");
        assert!(std::fs::symlink_metadata(&path).expect("key").is_file());
    }

    #[test]
    fn garbage_key_file_is_reported_not_replaced() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("ssh_host_ed25519_key");
        std::fs::write(&path, "not a key").expect("write");
        assert!(matches!(load_or_generate(&path), Err(HostKeyError::Invalid { .. })));
        assert_eq!(std::fs::read_to_string(&path).expect("kept"), "not a key");
    }
}
