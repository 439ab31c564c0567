//! The body of mgmt's edit-config fuzz target (`fuzz/fuzz_targets/nc_edit.rs`), here so that
//! the same check runs for a bounded number of inputs in every test run
//! (`tests/fuzz_bounded.rs`) and for as long as one likes under libFuzzer: it panics when an
//! edit leaves libyang's canonical form unstable. The framing and XML targets' bodies are
//! `netconf_proto::fuzzing`'s.

use crate::datastore::{DatastoreName, Datastores};
use crate::yang::edit::{self, ErrorOption, Op};
use netconf_proto::xml::{self, Scope};

/// edit-config into libyang: `data` is the `<config>` of an edit of `datastores`' candidate;
/// whatever the edit engine accepts, libyang either refuses with an error or accepts, and an
/// accepted configuration's canonical text is a fixed point (checking it again gives it back).
/// Returns whether libyang was given the result.
pub fn edit_config(datastores: &Datastores, data: &[u8]) -> bool {
    let Ok(config) = xml::parse(data) else { return false };
    let model = datastores.schema().model();
    let base = datastores.snapshot(DatastoreName::Candidate);
    let mut root = base.root.clone();
    let mut scope = Scope::new();
    scope.enter(&config);
    if !edit::apply(model, &mut root, &config, &scope, Op::Merge, ErrorOption::StopOnError)
        .is_empty()
    {
        return false;
    }
    for full in [false, true] {
        let Ok(snap) = datastores.check_tree(root.clone(), full) else { continue };
        let again = datastores.check(&snap.xml, full).expect("a canonical configuration checks");
        assert_eq!(again.xml, snap.xml, "the canonical text is a fixed point");
    }
    true
}
