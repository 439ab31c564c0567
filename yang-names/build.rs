//! Generates `names.rs` from pfcd's own YANG modules (`../yang/*.yang`, not the standard ones
//! under `yang/standard/`): one Rust module per YANG module, with its name, namespace and a
//! constant for every data node, action and notification it defines.

#[path = "src/generate.rs"]
mod generate;

use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../yang");
    println!("cargo:rerun-if-changed={}", dir.display());
    let modules = generate::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for (file, _) in &modules {
        println!("cargo:rerun-if-changed={}", dir.join(file).display());
    }
    let source = generate::rust(&modules).unwrap_or_else(|e| panic!("yang/: {e}"));
    let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("names.rs");
    std::fs::write(&out, source).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}
