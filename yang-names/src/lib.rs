//! The names pfcd's YANG modules define, as constants generated from `yang/` when this crate
//! is built (`build.rs`, [`generate`]): each module is a Rust module named after it
//! (`ieee802-dot1q-pfc-bridge` → [`ieee802_dot1q_pfc_bridge`]) holding `MODULE`, `NAMESPACE`
//! and one constant per data node, action and notification the module's text defines
//! (`pfc-link-delay-allowance` → `PFC_LINK_DELAY_ALLOWANCE`). A node defined in a grouping is
//! the defining module's constant, whichever module's namespace it appears in.
//!
//! Code that names a node through these constants stops compiling when the YANG renames or
//! removes the node, instead of silently reading nothing.

pub mod generate;

include!(concat!(env!("OUT_DIR"), "/names.rs"));
