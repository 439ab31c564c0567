//! Host keys pinned as ssh does: a file (pfcsh's is `~/.config/pfcsh/known_hosts`, which the
//! fabric view reads too) holds one line per `[host]:port` with the SHA-256 of the server's
//! host key blob, written as OpenSSH and pfcd's
//! log show it (`SHA256:` and unpadded base64) or as `sha256:` and hex. A server whose key
//! differs from its line is refused; the user edits the file when the change is expected. A
//! line that does not parse is an error naming the file and line, never a line skipped: a
//! skipped pin would let any key through.

use std::path::{Path, PathBuf};

use base64ct::{Base64Unpadded, Encoding as _};

/// The pinned keys, read from one file.
#[derive(Debug, Clone)]
pub struct KnownHosts {
    path: PathBuf,
    lines: Vec<(String, Vec<u8>)>,
}

/// How `[host]:port` is written in the file.
pub fn host_id(host: &str, port: u16) -> String {
    format!("[{host}]:{port}")
}

/// A SHA-256 digest as OpenSSH shows it (`ssh-keygen -lf`) and pfcd logs it: `SHA256:` and
/// unpadded base64.
pub fn fingerprint(sha256: &[u8]) -> String {
    format!("SHA256:{}", Base64Unpadded::encode_string(sha256))
}

impl KnownHosts {
    /// Reads the file (absent: nothing pinned). A line that is neither a comment, blank, nor
    /// `[host]:port` and a SHA-256 digest is an error that says which and what is expected.
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
            let parsed = match (parts.next(), parts.next(), parts.next()) {
                (Some(id), Some(key), None) => digest_of(key).map(|d| (id.to_string(), d)),
                _ => None,
            };
            let Some(entry) = parsed else {
                return Err(format!(
                    "{}:{}: not a pinned host key (expected `[host]:port SHA256:<base64>`, as \
                     pfcd logs it, or `[host]:port sha256:<hex>`); fix or delete the line",
                    path.display(),
                    n + 1
                ));
            };
            lines.push(entry);
        }
        Ok(KnownHosts { path: path.to_path_buf(), lines })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The pinned SHA-256 of `id`, if any.
    pub fn pinned(&self, id: &str) -> Option<&[u8]> {
        self.lines.iter().find(|(h, _)| h == id).map(|(_, k)| k.as_slice())
    }

    /// Appends `id`'s key to the file (made with its directory when missing).
    pub fn pin(&mut self, id: &str, sha256: &[u8]) -> std::io::Result<()> {
        use std::io::Write as _;
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut file = std::fs::OpenOptions::new().create(true).append(true).open(&self.path)?;
        writeln!(file, "{id} {}", fingerprint(sha256))?;
        self.lines.push((id.to_string(), sha256.to_vec()));
        Ok(())
    }
}

/// The 32-octet digest of a pinned value: `SHA256:<unpadded base64>` or `sha256:<hex>`.
pub fn digest_of(pinned: &str) -> Option<Vec<u8>> {
    let digest = if let Some(b64) = pinned.strip_prefix("SHA256:") {
        Base64Unpadded::decode_vec(b64.trim_end_matches('=')).ok()?
    } else {
        hex::decode(pinned.strip_prefix("sha256:")?).ok()?
    };
    (digest.len() == 32).then_some(digest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pin_then_find_after_reload() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("sub/known_hosts");
        let mut k = KnownHosts::load(&path).expect("absent: empty");
        assert_eq!(k.pinned("[h]:1"), None);
        k.pin("[h]:1", &[0xab; 32]).expect("pin");
        let k = KnownHosts::load(&path).expect("parses");
        assert_eq!(k.pinned("[h]:1"), Some(&[0xab; 32][..]));
        assert_eq!(k.pinned("[h]:2"), None);
    }

    /// The OpenSSH form pasted from `ssh-keygen -lf` or from pfcd's log is a pin like any.
    #[test]
    fn the_openssh_form_and_hex_both_pin() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("known_hosts");
        let digest = [7u8; 32];
        std::fs::write(
            &path,
            format!(
                "# pinned by hand\n\n[a]:830 {}\n[b]:830 sha256:{}\n",
                fingerprint(&digest),
                hex::encode(digest)
            ),
        )
        .expect("write");
        let k = KnownHosts::load(&path).expect("parses");
        assert_eq!(k.pinned("[a]:830"), Some(&digest[..]));
        assert_eq!(k.pinned("[b]:830"), Some(&digest[..]));
        assert_eq!(fingerprint(&digest), "SHA256:BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc");
    }

    /// A pin that does not parse is an error naming the line, not a pin silently dropped
    /// (which would accept any key for that host).
    #[test]
    fn a_pin_that_does_not_parse_is_an_error() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("known_hosts");
        for bad in [
            "[h]:830 SHA256:not*base64",
            "[h]:830 sha256:abcd",
            "[h]:830 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI",
            "[h]:830",
        ] {
            std::fs::write(&path, format!("# ok\n{bad}\n")).expect("write");
            let err = KnownHosts::load(&path).expect_err(bad);
            assert!(err.contains(&format!("{}:2:", path.display())), "{err}");
            assert!(err.contains("SHA256:<base64>"), "{err}");
        }
    }
}
