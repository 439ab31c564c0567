//! Where pfcsh keeps its files, after the XDG base directory specification: settings and
//! pinned host keys under `$XDG_CONFIG_HOME/pfcsh` (`~/.config/pfcsh`), history under
//! `$XDG_DATA_HOME/pfcsh` (`~/.local/share/pfcsh`), fetched YANG modules under
//! `$XDG_CACHE_HOME/pfcsh` (`~/.cache/pfcsh`).

use std::path::PathBuf;

/// The directory of one XDG kind: `$VAR` when set to an absolute path, else `$HOME/fallback`.
fn base(var: &str, fallback: &str) -> PathBuf {
    match std::env::var_os(var) {
        Some(dir) if PathBuf::from(&dir).is_absolute() => PathBuf::from(dir),
        _ => home().join(fallback),
    }
}

fn home() -> PathBuf {
    std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."))
}

/// `~/.config/pfcsh`.
pub fn config_dir() -> PathBuf {
    base("XDG_CONFIG_HOME", ".config").join("pfcsh")
}

/// `~/.local/share/pfcsh`.
pub fn data_dir() -> PathBuf {
    base("XDG_DATA_HOME", ".local/share").join("pfcsh")
}

/// `~/.cache/pfcsh`.
pub fn cache_dir() -> PathBuf {
    base("XDG_CACHE_HOME", ".cache").join("pfcsh")
}

/// The settings file.
pub fn config_file() -> PathBuf {
    config_dir().join("config.toml")
}

/// The pinned host keys.
pub fn known_hosts_file() -> PathBuf {
    config_dir().join("known_hosts")
}

/// The interactive history.
pub fn history_file() -> PathBuf {
    data_dir().join("history")
}
