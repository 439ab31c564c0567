//! The host keys pfcsh pinned (`~/.config/pfcsh/known_hosts`: one `[host]:port` and the
//! SHA-256 of the server's host key blob a line, as `SHA256:<base64>` or `sha256:<hex>`), read
//! only: the fabric view checks every device's key against them before it sends a password.
//! A line that does not parse is an error naming the file and line, never a line skipped (a
//! skipped pin would let any key through).

use std::path::{Path, PathBuf};

use base64ct::{Base64Unpadded, Encoding as _};

/// The pinned keys of one file.
#[derive(Debug, Clone, Default)]
pub struct KnownHosts {
    lines: Vec<(String, Vec<u8>)>,
}

/// pfcsh's file: `$XDG_CONFIG_HOME/pfcsh/known_hosts`, else `~/.config/pfcsh/known_hosts`.
pub fn pfcsh_file() -> PathBuf {
    let config = match std::env::var_os("XDG_CONFIG_HOME") {
        Some(dir) if Path::new(&dir).is_absolute() => PathBuf::from(dir),
        _ => std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default().join(".config"),
    };
    config.join("pfcsh").join("known_hosts")
}

/// How `[host]:port` is written in the file.
pub fn host_id(host: &str, port: u16) -> String {
    format!("[{host}]:{port}")
}

impl KnownHosts {
    /// Reads the file (absent: nothing pinned).
    pub fn load(path: &Path) -> Result<KnownHosts, String> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        let mut lines = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut parts = line.split_whitespace();
            let entry = match (parts.next(), parts.next(), parts.next()) {
                (Some(id), Some(key), None) => digest_of(key).map(|d| (id.to_string(), d)),
                _ => None,
            };
            let Some(entry) = entry else {
                return Err(format!(
                    "{}:{}: not a pinned host key (expected `[host]:port SHA256:<base64>` or \
                     `[host]:port sha256:<hex>`); fix or delete the line",
                    path.display(),
                    n + 1
                ));
            };
            lines.push(entry);
        }
        Ok(KnownHosts { lines })
    }

    /// The pinned SHA-256 of `id`, if any.
    pub fn pinned(&self, id: &str) -> Option<&[u8]> {
        self.lines.iter().find(|(h, _)| h == id).map(|(_, k)| k.as_slice())
    }
}

/// The 32-octet digest of a pinned value: `SHA256:<unpadded base64>` or `sha256:<hex>`.
fn digest_of(pinned: &str) -> Option<Vec<u8>> {
    let digest = if let Some(b64) = pinned.strip_prefix("SHA256:") {
        Base64Unpadded::decode_vec(b64.trim_end_matches('=')).ok()?
    } else {
        hex::decode(pinned.strip_prefix("sha256:")?).ok()?
    };
    (digest.len() == 32).then_some(digest)
}
