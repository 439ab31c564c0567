#![no_main]
// edit-config of arbitrary `<config>` documents into libyang (C), with mgmt's test modules:
// mgmt::fuzzing::edit_config.
use std::path::PathBuf;
use std::sync::{Arc, LazyLock};

use libfuzzer_sys::fuzz_target;
use mgmt::datastore::Datastores;
use mgmt::yang::schema::{ModuleSpec, Schema};

static DATASTORES: LazyLock<(tempfile::TempDir, Datastores)> = LazyLock::new(|| {
    let yang = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../mgmt/tests/yang");
    let modules =
        [ModuleSpec::new("ietf-interfaces", &[]), ModuleSpec::new("iana-if-type", &[])];
    let schema = Arc::new(Schema::new(&[yang], &modules).expect("test schema"));
    let dir = tempfile::tempdir().expect("tempdir");
    let ds = Datastores::open(dir.path(), schema).expect("datastores");
    (dir, ds)
});

fuzz_target!(|data: &[u8]| {
    mgmt::fuzzing::edit_config(&DATASTORES.1, data);
});
