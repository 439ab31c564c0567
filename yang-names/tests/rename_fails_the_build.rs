//! A leaf renamed in the YANG and not in the code fails the build: the names generated from a
//! copy of `yang/` with `pfc-link-delay-allowance` renamed no longer have the constant the
//! northbound names it by, and a program using it, which compiles against the real modules,
//! does not compile against the renamed ones (rustc: "cannot find value"). The daemon's and
//! pfcsh's PFC code names the leaves through the constants only (checked below), so the same
//! holds for them.

use std::path::{Path, PathBuf};
use std::process::Command;

use pfc_yang_names::generate;

const USER: &str = "mod names { include!(\"names.rs\"); }\n\
     fn main() { println!(\"{}\", names::ieee802_dot1q_pfc::PFC_LINK_DELAY_ALLOWANCE); }\n";

fn yang_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../yang")
}

/// Compiles [`USER`] against the names generated from `modules`; rustc's stderr on failure.
fn compile(tag: &str, modules: &[(String, String)]) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("pfc-yang-names-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    std::fs::write(dir.join("names.rs"), generate::rust(modules).expect("generates"))
        .expect("names.rs");
    std::fs::write(dir.join("main.rs"), USER).expect("main.rs");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc)
        .args(["--edition", "2021", "--crate-type", "bin", "-o"])
        .arg(dir.join("user"))
        .arg(dir.join("main.rs"))
        .output()
        .expect("rustc runs");
    let _ = std::fs::remove_dir_all(&dir);
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

#[test]
fn a_leaf_renamed_in_the_yang_fails_the_build_of_code_that_names_it() {
    let modules = generate::read_dir(&yang_dir()).expect("yang/");
    compile("as-is", &modules).expect("the code compiles against the modules as they are");

    let renamed: Vec<(String, String)> = modules
        .iter()
        .map(|(file, text)| {
            (file.clone(), text.replace("leaf pfc-link-delay-allowance {", "leaf pfc-link-delay {"))
        })
        .collect();
    assert_ne!(renamed, modules, "the leaf was renamed in the copy");
    let err = compile("renamed", &renamed).expect_err("the build fails once the leaf is renamed");
    assert!(
        err.contains("PFC_LINK_DELAY_ALLOWANCE") && err.contains("cannot find value"),
        "rustc names the missing constant: {err}"
    );
}

/// The node names `files` (yang/ file names) define.
fn names_of(modules: &[(String, String)], files: &[&str]) -> Vec<String> {
    modules
        .iter()
        .filter(|(file, _)| files.contains(&file.as_str()))
        .flat_map(|(_, text)| generate::names(text).expect("parses").nodes)
        .collect()
}

/// Which of `names` `file` (from the workspace root) spells out as a string literal, outside
/// its tests (which may spell the XML out).
fn spelt<'n>(file: &str, names: &'n [String]) -> Vec<&'n String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join(file)).expect("read");
    let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or_default().to_string();
    names.iter().filter(|n| code.contains(&format!("\"{n}\""))).collect()
}

#[test]
fn the_pipeline_watchdog_and_lldp_families_name_their_nodes_through_the_constants() {
    let modules = generate::read_dir(&yang_dir()).expect("yang/");
    for (files, family, module) in [
        (["config.rs", "state.rs"].as_slice(), "pipeline", ["pfcd-pipeline.yang"].as_slice()),
        (
            ["config.rs", "state.rs", "notification.rs", "mod.rs"].as_slice(),
            "watchdog",
            ["pfcd-watchdog.yang"].as_slice(),
        ),
        (
            ["config.rs", "state.rs", "notification.rs"].as_slice(),
            "lldp",
            ["ieee802-dot1q-lldp-pfc-tlv.yang", "pfcd-lldp.yang"].as_slice(),
        ),
    ] {
        let names = names_of(&modules, module);
        for file in files {
            let file = format!("src/northbound/{family}/{file}");
            let literals = spelt(&file, &names);
            assert!(literals.is_empty(), "{file} spells {literals:?} out");
        }
    }
}

#[test]
fn the_daemon_and_pfcsh_name_the_pfc_leaves_through_the_constants() {
    // The files that write the Bridge Port's pfc container (the northbound) and read it
    // (pfcsh's PFC, headroom and counters tables): no string literal of a node name of the PFC
    // modules, so renaming one in the YANG cannot leave a column empty.
    let modules = generate::read_dir(&yang_dir()).expect("yang/");
    let pfc_names: Vec<String> = modules
        .iter()
        .filter(|(file, _)| {
            ["ieee802-dot1q-pfc.yang", "ieee802-dot1q-pfc-bridge.yang", "pfcd-pfc.yang"]
                .contains(&file.as_str())
        })
        .flat_map(|(_, text)| generate::names(text).expect("parses").nodes)
        .collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for file in [
        "src/northbound/pfc/state.rs",
        "src/northbound/pfc/config.rs",
        "src/northbound/pfc/action.rs",
        "src/northbound/pfc/notification.rs",
        "pfcsh/src/show/pfc.rs",
        "pfcsh/src/show/pfc_counters.rs",
        "pfcsh/src/show/headroom.rs",
        "pfcsh/src/show/counters.rs",
    ] {
        let text = std::fs::read_to_string(root.join(file)).expect("read");
        // The tests at the end of a file may spell the XML out.
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or_default();
        let literals: Vec<&String> =
            pfc_names.iter().filter(|n| code.contains(&format!("\"{n}\""))).collect();
        assert!(literals.is_empty(), "{file} spells {literals:?} out");
    }
}
