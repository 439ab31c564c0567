//! Every configuration leaf of pfcd's own modules is honoured or not advertised: walking the
//! compiled schema (pfcd's modules with pfcd-deviations applied, as the daemon loads them), each
//! configuration leaf must be listed here with the test that shows the daemon taking it; what
//! pfcd does not implement is deviated (`yang/pfcd-deviations.yang`), so it is not in the
//! schema at all and a configuration naming it is refused. The daemon announces the deviations
//! in yang-library.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use mgmt::yang::model::{Kind, SNode};
use mgmt::yang::schema::Schema;
use test_support::lab::LabPfcd;

/// The modules whose configuration leaves are pfcd's to honour (the LLDP and bridge modules'
/// own leaves are the standard ones', refused or taken by their families).
const OURS: [&str; 8] = [
    "ieee802-dot1q-pfc-bridge",
    "ieee802-dot1q-lldp-pfc-tlv",
    "pfcd-pipeline",
    "pfcd-headroom",
    "pfcd-lab",
    "pfcd-watchdog",
    "pfcd-pfc",
    "pfcd-lldp",
];

const PFC: &str = "interfaces/interface/bridge-port/pfc/";
const INPUTS: &str = "interfaces/interface/bridge-port/pfc/headroom/calculation-inputs/";
const TLV: &str = "lldp/port/pfc-tlv-extension/";
const PIPE: &str = "pipeline/";
const WD: &str = "interfaces/interface/bridge-port/pfc-watchdog/";
const WD_TEST: &str = "every_watchdog_leaf_reaches_the_ports_setup";

/// Each configuration leaf (its path of names below the top) and the test that shows it taken.
const HONOURED: &[(&str, &str, &str)] = &[
    (PFC, "pfc-link-delay-allowance", "every_pfc_leaf_reaches_the_ports_intent"),
    (PFC, "pfc-headroom-allowance", "every_pfc_leaf_reaches_the_ports_intent"),
    (PFC, "pfc-enable", "every_pfc_leaf_reaches_the_ports_intent"),
    (PFC, "headroom/method", "every_pfc_leaf_reaches_the_ports_intent"),
    (PFC, "headroom/minimum-allowance", "every_pfc_leaf_reaches_the_ports_intent"),
    (PFC, "headroom/maximum-allowance", "every_pfc_leaf_reaches_the_ports_intent"),
    (PFC, "headroom/initial-allowance", "every_pfc_leaf_reaches_the_ports_intent"),
    (PFC, "priority/priority", "every_pfc_leaf_reaches_the_ports_intent"),
    (PFC, "priority/buffer-allocation", "every_pfc_leaf_reaches_the_ports_intent"),
    (INPUTS, "cable-length", "every_calculation_input_moves_the_calculation_or_our_local_delay"),
    (INPUTS, "medium", "every_calculation_input_moves_the_calculation_or_our_local_delay"),
    (
        INPUTS,
        "propagation-velocity",
        "every_calculation_input_moves_the_calculation_or_our_local_delay",
    ),
    (
        INPUTS,
        "one-way-link-delay",
        "every_calculation_input_moves_the_calculation_or_our_local_delay",
    ),
    (
        INPUTS,
        "reception-processing",
        "every_calculation_input_moves_the_calculation_or_our_local_delay",
    ),
    (INPUTS, "pfc-generation", "every_calculation_input_moves_the_calculation_or_our_local_delay"),
    (INPUTS, "interface-rtt", "every_calculation_input_moves_the_calculation_or_our_local_delay"),
    (
        INPUTS,
        "receive-processing",
        "every_calculation_input_moves_the_calculation_or_our_local_delay",
    ),
    (INPUTS, "pause-entry", "every_calculation_input_moves_the_calculation_or_our_local_delay"),
    (
        INPUTS,
        "use-peer-local-delay",
        "every_calculation_input_moves_the_calculation_or_our_local_delay",
    ),
    (
        INPUTS,
        "peer-interface-rtt",
        "every_calculation_input_moves_the_calculation_or_our_local_delay",
    ),
    (
        INPUTS,
        "peer-pause-entry",
        "every_calculation_input_moves_the_calculation_or_our_local_delay",
    ),
    (INPUTS, "max-frame", "every_calculation_input_moves_the_calculation_or_our_local_delay"),
    (INPUTS, "pfc-frame", "every_calculation_input_moves_the_calculation_or_our_local_delay"),
    (
        INPUTS,
        "macsec-user-data",
        "every_calculation_input_moves_the_calculation_or_our_local_delay",
    ),
    (INPUTS, "secy-delay", "every_calculation_input_moves_the_calculation_or_our_local_delay"),
    (TLV, "macsec-capable", "every_pfc_tlv_leaf_reaches_the_agents_dcbx_settings"),
    (TLV, "privacy-capable", "every_pfc_tlv_leaf_reaches_the_agents_dcbx_settings"),
    (TLV, "rtm-hdrm", "every_pfc_tlv_leaf_reaches_the_agents_dcbx_settings"),
    (TLV, "ptp-hdrm", "every_pfc_tlv_leaf_reaches_the_agents_dcbx_settings"),
    (TLV, "legacy-tlv", "every_pfc_tlv_leaf_reaches_the_agents_dcbx_settings"),
    (
        "lldp/port/pfc-local-delay-tlv-extension/",
        "tx-enable",
        "every_pfc_tlv_leaf_reaches_the_agents_dcbx_settings",
    ),
    (WD, "enabled", WD_TEST),
    (WD, "detection-time", WD_TEST),
    (WD, "restoration-time", WD_TEST),
    (WD, "action", WD_TEST),
    (WD, "ignore-link-pause", WD_TEST),
    (WD, "priority/priority", WD_TEST),
    (WD, "priority/enabled", WD_TEST),
    (WD, "priority/detection-time", WD_TEST),
    (WD, "priority/restoration-time", WD_TEST),
    (WD, "priority/action", WD_TEST),
    (WD, "link-pause/enabled", WD_TEST),
    (WD, "link-pause/detection-time", WD_TEST),
    (WD, "link-pause/restoration-time", WD_TEST),
    (WD, "link-pause/action", WD_TEST),
    (
        "peer-storms/storm/",
        "port",
        "a_peer_storm_on_priority_3_is_found_at_detection_time_and_each_action_applies",
    ),
    (
        "peer-storms/storm/",
        "class",
        "a_peer_storm_on_priority_3_is_found_at_detection_time_and_each_action_applies",
    ),
    (PIPE, "mode", "every_pipeline_leaf_reaches_the_engines_configuration"),
    (PIPE, "port-credit", "every_pipeline_leaf_reaches_the_engines_configuration"),
    (PIPE, "pause-detect-latency", "every_pipeline_leaf_reaches_the_engines_configuration"),
    (PIPE, "external-memory/capacity", "every_pipeline_leaf_reaches_the_engines_configuration"),
    (
        PIPE,
        "external-memory/write-latency",
        "every_pipeline_leaf_reaches_the_engines_configuration",
    ),
    (PIPE, "external-memory/read-latency", "every_pipeline_leaf_reaches_the_engines_configuration"),
    (
        PIPE,
        "external-memory/ops-per-cycle",
        "every_pipeline_leaf_reaches_the_engines_configuration",
    ),
];

/// What pfcd-deviations takes out: configuration leaves of the proposal the daemon does not
/// implement.
const DEVIATED: [&str; 2] =
    ["headroom/measurement/minimum-round-trip", "headroom/measurement/maximum-round-trip"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The configuration leaves of `node` and below defined by one of [`OURS`], as paths of names.
fn config_leaves(node: &Arc<SNode>, above: &str, out: &mut Vec<String>) {
    if !node.config {
        return;
    }
    let path = format!("{above}{}", node.name);
    match node.kind {
        Kind::Leaf | Kind::LeafList if OURS.contains(&node.module.as_str()) => out.push(path),
        Kind::Container | Kind::List => {
            for child in node.children() {
                config_leaves(child, &format!("{path}/"), out);
            }
        }
        _ => {}
    }
}

/// Whether some Rust file of the workspace defines `fn name(`.
fn test_exists(name: &str) -> bool {
    let needle = format!("fn {name}(");
    let mut dirs = vec![root().join("src"), root().join("tests"), root().join("lldp")];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for path in entries.filter_map(|e| e.ok()).map(|e| e.path()) {
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && std::fs::read_to_string(&path).is_ok_and(|t| t.contains(&needle))
            {
                return true;
            }
        }
    }
    false
}

#[test]
fn every_configuration_leaf_is_honoured_with_a_test_or_deviated() {
    let yang = root().join("yang");
    let schema = Schema::new(&[yang.clone(), yang.join("standard")], &[]).expect("modules load");
    let mut leaves = Vec::new();
    for top in schema.model().tops() {
        config_leaves(top, "", &mut leaves);
    }
    let listed: Vec<String> = HONOURED.iter().map(|(at, leaf, _)| format!("{at}{leaf}")).collect();
    let unlisted: Vec<&String> = leaves.iter().filter(|l| !listed.contains(l)).collect();
    assert!(
        unlisted.is_empty(),
        "configuration leaves neither shown honoured nor deviated: {unlisted:#?}"
    );
    let gone: Vec<&String> = listed.iter().filter(|l| !leaves.contains(l)).collect();
    assert!(gone.is_empty(), "listed but not in the schema: {gone:#?}");
    for (at, leaf, test) in HONOURED {
        assert!(test_exists(test), "{at}{leaf}: no test named {test}");
    }
    for leaf in DEVIATED {
        let path = format!("{PFC}{leaf}");
        assert!(!leaves.contains(&path), "{path} is deviated, not in the schema");
    }
}

#[test]
fn the_daemon_announces_its_deviations_in_yang_library() {
    let mut pfcd = LabPfcd::start("pfcd-deviations");
    let mut c = pfcd.client();
    let filter = "<yang-library xmlns=\"urn:ietf:params:xml:ns:yang:ietf-yang-library\">\
                  <module-set><module><name>ieee802-dot1q-pfc-bridge</name></module>\
                  </module-set></yang-library>";
    let reply = c.get(Some(filter)).expect("get");
    let data = reply.data().unwrap_or_default().to_string();
    assert!(data.contains("<deviation>pfcd-deviations</deviation>"), "{data}");
    let all = c
        .get(Some(
            "<yang-library xmlns=\"urn:ietf:params:xml:ns:yang:ietf-yang-library\"><module-set>\
             <module><name>pfcd-deviations</name></module></module-set></yang-library>",
        ))
        .expect("get");
    assert!(all.data().unwrap_or_default().contains(pfc_yang_names::pfcd_deviations::NAMESPACE));
    // A filter naming a deviated leaf (as older clients' may) selects nothing of it, not an
    // error.
    let pfc = c
        .get(Some(
            "<interfaces xmlns=\"urn:ietf:params:xml:ns:yang:ietf-interfaces\"><interface>\
             <name>lab0</name><bridge-port xmlns=\"urn:ieee:std:802.1Q:yang:ieee802-dot1q-bridge\">\
             <pfc xmlns=\"urn:ieee:std:802.1Q:yang:ieee802-dot1q-pfc-bridge\"><headroom>\
             <method-in-force/><measurement><maximum-round-trip/></measurement></headroom></pfc>\
             </bridge-port></interface></interfaces>",
        ))
        .expect("a filter with maximum-round-trip is answered");
    let data = pfc.data().unwrap_or_default().to_string();
    assert!(data.contains("<method-in-force"), "{data}");
    assert!(!data.contains("maximum-round-trip"), "{data}");
    assert!(pfcd.alive(), "{}", pfcd.log_text());
}

#[test]
fn on_real_interfaces_a_pipeline_figure_the_bridge_fixes_is_refused_and_mode_taken() {
    use netconf_client::Datastore;
    use test_support::hosts::{hosts, Hosts};
    use test_support::netns::can_run;
    use test_support::pfcd::{start_pfcd, PIPE_NS};
    use test_support::Scratch;
    if !can_run("on_real_interfaces_a_pipeline_figure_the_bridge_fixes_is_refused_and_mode_taken") {
        return;
    }
    let scratch = Scratch::new("pfcd-pipeline-fixed");
    let Hosts { h1_ns: _h1_ns, sw, h2_ns: _h2_ns, .. } = hosts("bplf");
    let pfcd = start_pfcd(&sw, &scratch, &["p1", "p2"]);
    let mut c = pfcd.client(&sw);
    let before = c.get_config(Datastore::Running, None).expect("running");
    let edit = format!("<pipeline xmlns=\"{PIPE_NS}\"><port-credit>64</port-credit></pipeline>");
    c.edit_config(Datastore::Candidate, &edit, None).expect("the candidate takes it");
    let err = c.commit().expect_err("the bridge runs its own credit");
    let errors = err.reply().map(|r| r.errors().to_vec()).unwrap_or_default();
    assert!(
        errors.iter().any(|e| e.error_path.as_deref().is_some_and(|p| p.contains("port-credit"))
            && e.error_message.as_deref().is_some_and(|m| m.contains("remove port-credit"))),
        "{errors:?}"
    );
    c.discard_changes().expect("discard");
    let after = c.get_config(Datastore::Running, None).expect("running");
    assert_eq!(after.data(), before.data(), "running unchanged");
    let mode = format!("<pipeline xmlns=\"{PIPE_NS}\"><mode>fifo</mode></pipeline>");
    c.edit_config(Datastore::Candidate, &mode, None).expect("edit");
    c.commit().expect("mode is the bridge's to change");
}
