//! `~/.config/pfcsh/config.toml`: defaults for the connection, each overridden by its flag.
//!
//! ```toml
//! host = "127.0.0.1"
//! port = 830
//! user = "admin"
//! password-file = "/home/me/pfcd-state/admin.password"
//! key = "/home/me/.ssh/id_ed25519"
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The file's fields, every one optional.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct FileSettings {
    pub host: Option<String>,
    pub port: Option<u16>,
    pub user: Option<String>,
    pub password_file: Option<PathBuf>,
    pub key: Option<PathBuf>,
}

impl FileSettings {
    /// The file's settings; no file is no settings, a broken file is an error naming it.
    pub fn load(path: &Path) -> Result<FileSettings, String> {
        match std::fs::read_to_string(path) {
            Ok(text) => toml::from_str(&text).map_err(|e| {
                format!("{}: {}", path.display(), e.message().lines().next().unwrap_or("invalid"))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(FileSettings::default()),
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_kebab_case_and_unknown_ones_refused() {
        let s: FileSettings =
            toml::from_str("host = \"h\"\nport = 8300\npassword-file = \"/p\"").expect("parses");
        assert_eq!(s.host.as_deref(), Some("h"));
        assert_eq!(s.port, Some(8300));
        assert_eq!(s.password_file.as_deref(), Some(Path::new("/p")));
        assert!(toml::from_str::<FileSettings>("hots = \"h\"").is_err());
    }
}
