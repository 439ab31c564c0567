//! Keeping the administrator in (RFC 8341 §3.4.1, §3.2.5): a change that would take away
//! the full access of the user who makes it is refused, and `--admin USER` gives that user
//! full access back at every start if the configuration has taken it away (the recovery
//! session's job, done once at start, logged).
//!
//! An administrator who replaces the whole datastore with only the interfaces (what Ansible's
//! `default_operation: replace` sends) would otherwise delete `/nacm`: with NACM enabled and
//! no rules, every write is denied to everyone, for good.
//!
//! Here is what is checked and what is restored; the engine does both, under its writer mutex
//! (`engine/transaction.rs` refuses the change, `engine/start.rs` restores at start).

use std::sync::Arc;

use crate::access::nacm::{Nacm, UserAcl, NACM_NS};
use crate::backend::Origin;
use crate::protocol::error::{ErrorTag, ErrorType, RpcError};
use crate::yang::data;
use crate::yang::edit::YANG_NS;
use crate::yang::model::Model;
use netconf_proto::xml::{self, Element, NETCONF_BASE_NS};

/// The group and rule-list `--admin` restores; a name of its own, so that restoring never
/// merges into rules an administrator wrote.
pub const RECOVERY: &str = "admin-recovery";

/// Whether `acl` may read, write and execute everything (NACM off, or a permit-all rule
/// first).
pub(crate) fn full_access(acl: &UserAcl) -> bool {
    !acl.checks_writes() && acl.reads_everything() && acl.executes_everything()
}

/// Refuses a change of running that takes full access away from the user who makes it. Only
/// users who have full access are protected (a change an administrator makes to their own
/// partial rights is theirs to make); the server's own changes (start-up, rollback) have no
/// user. `acl_now` gives a user's access under the rules in force (asked only for a change of
/// `/nacm` by a user).
pub(crate) fn check_keeps_own_access(
    model: &Model,
    acl_now: impl FnOnce(&str) -> UserAcl,
    origin: &Origin,
    new: &Element,
    changes: &[data::Change<'_>],
) -> Result<(), RpcError> {
    let Some(user) = origin.user.as_deref() else { return Ok(()) };
    if !changes.iter().any(|c| c.namespaces().contains(&NACM_NS)) {
        return Ok(());
    }
    if !full_access(&acl_now(user)) {
        return Ok(());
    }
    let after = Arc::new(Nacm::from_config(model, new)).for_user(user);
    if full_access(&after) {
        return Ok(());
    }
    Err(RpcError::new(ErrorTag::OperationFailed, ErrorType::Application)
        .with_path("/nacm:nacm", vec![("nacm".into(), NACM_NS.into())])
        .with_message(format!(
            "This change would take full access away from user '{user}', who makes it: the \
             /nacm rules of the new configuration no longer permit them everything (a replace \
             of the whole configuration without /nacm removes every rule). Keep /nacm in the \
             configuration (merge instead of replace, or include it), or have another \
             administrator make this change."
        )))
}

/// The edits (`<config>` texts, merged in this order) that give `user` full access back: an
/// earlier recovery's group and rule-list removed first, so that the rule-list is created anew
/// in first place even if it was moved or changed since, then a group and a rule-list named
/// [`RECOVERY`] with one permit-all rule, put first.
pub(crate) fn recovery_edits(user: &str) -> [String; 2] {
    let user_text = xml::escape_text(user);
    let remove = format!(
        "<config xmlns:nc=\"{NETCONF_BASE_NS}\"><nacm xmlns=\"{NACM_NS}\"><groups>\
         <group nc:operation=\"remove\"><name>{RECOVERY}</name></group></groups>\
         <rule-list nc:operation=\"remove\"><name>{RECOVERY}</name></rule-list></nacm></config>"
    );
    let add = format!(
        "<config xmlns:yang=\"{YANG_NS}\"><nacm xmlns=\"{NACM_NS}\"><groups><group><name>{RECOVERY}</name>\
         <user-name>{user_text}</user-name></group></groups>\
         <rule-list yang:insert=\"first\"><name>{RECOVERY}</name><group>{RECOVERY}</group>\
         <rule><name>permit-all</name><module-name>*</module-name>\
         <access-operations>*</access-operations><action>permit</action>\
         <comment>Restored at start for the administrator named by --admin.</comment>\
         </rule></rule-list></nacm></config>"
    );
    [remove, add]
}
