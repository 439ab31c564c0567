//! Host keys pinned after first use, as ssh does: `~/.config/pfcsh/known_hosts` holds one line
//! per `[host]:port` with the SHA-256 of the server's host key blob in hex. A server whose key
//! differs from its line is refused; the user edits the file when the change is expected.

use std::path::{Path, PathBuf};

/// The pinned keys, read from one file.
#[derive(Debug, Clone)]
pub struct KnownHosts {
    path: PathBuf,
    lines: Vec<(String, String)>,
}

/// How `[host]:port` is written in the file.
pub fn host_id(host: &str, port: u16) -> String {
    format!("[{host}]:{port}")
}

impl KnownHosts {
    /// Reads the file (absent: nothing pinned). Lines that do not parse are kept out.
    pub fn load(path: &Path) -> KnownHosts {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let lines = text
            .lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .filter_map(|l| {
                let mut parts = l.split_whitespace();
                Some((parts.next()?.to_string(), parts.next()?.to_string()))
            })
            .collect();
        KnownHosts { path: path.to_path_buf(), lines }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The pinned SHA-256 (hex) of `id`, if any.
    pub fn pinned(&self, id: &str) -> Option<&str> {
        self.lines.iter().find(|(h, _)| h == id).map(|(_, k)| k.as_str())
    }

    /// Appends `id`'s key to the file (made with its directory when missing).
    pub fn pin(&mut self, id: &str, sha256_hex: &str) -> std::io::Result<()> {
        use std::io::Write as _;
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut file = std::fs::OpenOptions::new().create(true).append(true).open(&self.path)?;
        writeln!(file, "{id} sha256:{sha256_hex}")?;
        self.lines.push((id.to_string(), format!("sha256:{sha256_hex}")));
        Ok(())
    }
}

/// The hex digest inside a pinned value (`sha256:HEX`).
pub fn digest_of(pinned: &str) -> Option<Vec<u8>> {
    hex::decode(pinned.strip_prefix("sha256:")?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pin_then_find_after_reload() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("sub/known_hosts");
        let mut k = KnownHosts::load(&path);
        assert_eq!(k.pinned("[h]:1"), None);
        k.pin("[h]:1", "abcd").expect("pin");
        let k = KnownHosts::load(&path);
        assert_eq!(k.pinned("[h]:1"), Some("sha256:abcd"));
        assert_eq!(digest_of("sha256:abcd"), Some(vec![0xab, 0xcd]));
        assert_eq!(k.pinned("[h]:2"), None);
    }
}
