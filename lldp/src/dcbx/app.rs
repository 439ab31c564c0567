//! Application Priority: a willing port merges its peer's entries into its own; for the same
//! selector and protocol the peer's priority wins (SPEC §5). Entries are kept in our order,
//! the peer's new ones after them.

use super::{AppAdmin, PeerDcbx, Source};
use crate::wire::AppEntry;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppOper {
    pub entries: Vec<AppEntry>,
    /// `Peer` when at least one of the peer's entries is in force.
    pub source: Source,
}

pub fn negotiate(admin: &AppAdmin, peer: Option<&PeerDcbx>) -> AppOper {
    let mut entries = admin.entries.clone();
    let mut source = Source::Local;
    if admin.willing {
        for theirs in peer.and_then(|p| p.app.as_ref()).map_or(&[][..], |a| &a.entries[..]) {
            source = Source::Peer;
            let same =
                |e: &AppEntry| e.selector == theirs.selector && e.protocol == theirs.protocol;
            match entries.iter_mut().find(|e| same(e)) {
                Some(e) => e.priority = theirs.priority,
                None => entries.push(*theirs),
            }
        }
    }
    AppOper { entries, source }
}
