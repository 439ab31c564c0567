//! Generates `names.rs` from pfcd's own YANG modules (`../yang/*.yang`) and the standard ones
//! whose nodes pfcd names (LLDP, DCBX, interfaces): one Rust module per YANG module, with its
//! name, namespace and a constant for every data node, action and notification it defines.

#[path = "src/generate.rs"]
mod generate;

use std::path::Path;

/// The standard modules (in `yang/standard/`) named too.
const STANDARD: [&str; 3] =
    ["ieee802-dot1ab-lldp", "ieee802-dot1q-lldp-dcbx-tlv", "ietf-interfaces"];

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../yang");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut modules = generate::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    // The standard modules pfcd serves (LLDP, DCBX, interfaces), whose nodes the daemon and
    // pfcsh name too.
    let standard = dir.join("standard");
    let mut published =
        generate::read_dir(&standard).unwrap_or_else(|e| panic!("{}: {e}", standard.display()));
    published.retain(|(file, _)| STANDARD.iter().any(|m| file.starts_with(&format!("{m}@"))));
    for (file, _) in &modules {
        println!("cargo:rerun-if-changed={}", dir.join(file).display());
    }
    for (file, _) in &published {
        println!("cargo:rerun-if-changed={}", standard.join(file).display());
    }
    modules.extend(published);
    let source = generate::rust(&modules).unwrap_or_else(|e| panic!("yang/: {e}"));
    let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("names.rs");
    std::fs::write(&out, source).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}
