//! ieee802-dot1q-bridge's filtering database: the static filtering entries (802.1Q 8.8.1) an
//! operator writes under the bridge component of pfcd's ports, read in [`config`] into the
//! bridge's static entries, or refused, naming the leaf and what pfcd supports.

pub mod config;
