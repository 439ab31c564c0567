//! Where pfcsh pins host keys (`~/.config/pfcsh/known_hosts`), which the fabric view reads
//! only (`netconf_client::known_hosts`): every device's key is checked against it before a
//! password is sent.

use std::path::{Path, PathBuf};

pub use netconf_client::known_hosts::{host_id, KnownHosts};

/// pfcsh's file: `$XDG_CONFIG_HOME/pfcsh/known_hosts`, else `~/.config/pfcsh/known_hosts`.
pub fn pfcsh_file() -> PathBuf {
    let config = match std::env::var_os("XDG_CONFIG_HOME") {
        Some(dir) if Path::new(&dir).is_absolute() => PathBuf::from(dir),
        _ => std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default().join(".config"),
    };
    config.join("pfcsh").join("known_hosts")
}
