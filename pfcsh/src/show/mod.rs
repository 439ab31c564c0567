//! The operational tables. Each show command fetches its subtree (`filters.rs`), converts it
//! to RFC 7951 JSON with libyang (`crate::data`) and renders it (`pfc.rs`, `headroom.rs`,
//! `dcbx.rs`, `lldp.rs`, `pipeline.rs`, `counters.rs`); `--json` and `--xml` print the
//! converted data or the reply's own instead.

pub mod counters;
pub mod dcbx;
pub mod filters;
pub mod headroom;
pub mod lldp;
pub mod pfc;
pub mod pfc_counters;
pub mod pipeline;
pub mod table;
pub mod units;
pub mod watchdog;

use serde_json::Value;

use crate::data::{list, text};

/// The interface entries of a reply, each with its pfc container.
pub fn interfaces(v: &Value) -> &[Value] {
    list(v, "interfaces/interface")
}

/// The port's name.
pub fn name_of(entry: &Value) -> String {
    text(entry, "name").unwrap_or_default()
}

/// `text` or `-`.
pub fn or_dash(v: Option<String>) -> String {
    v.filter(|s| !s.is_empty()).unwrap_or_else(|| "-".into())
}
