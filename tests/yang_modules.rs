//! pfcd's YANG modules (`yang/*.yang`) load in mgmt's schema, i.e. with the libyang that
//! libyang2-sys bundles (scripts/yang-check.sh checks them with Debian's yanglint, pyang and
//! yangcli): the example configuration validates, every example refusal is refused with the
//! message it names, and the RPCs and notifications parse. The examples are of the proposed
//! model, so they are checked without pfcd-deviations; with it, what it deviates is refused.

use std::path::{Path, PathBuf};

use mgmt::yang::model::{Kind, SNode};
use mgmt::yang::schema::Schema;

/// pfcd's modules and their revisions.
const OURS: [(&str, &str); 13] = [
    ("ieee802-dot1q-pfc", "2026-11-30"),
    ("ieee802-dot1q-pfc-if", "2026-11-29"),
    ("ieee802-dot1q-pfc-bridge", "2026-11-30"),
    ("ieee802-dot1q-pfc-bridge-notifications", "2026-11-30"),
    ("ieee802-dot1q-lldp-pfc-tlv", "2026-11-29"),
    ("pfcd-pipeline", "2026-11-30"),
    ("pfcd-lab", "2026-11-29"),
    ("pfcd-headroom", "2026-11-29"),
    ("pfcd-deviations", "2026-11-29"),
    ("pfcd-watchdog", "2026-11-30"),
    ("pfcd-pfc", "2026-11-29"),
    ("pfcd-lldp", "2026-11-29"),
    ("pfcd-nic", "2026-11-29"),
];

fn yang() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("yang")
}

/// Our modules and the standard ones, all implemented with every feature.
fn schema() -> Schema {
    Schema::new(&[yang(), yang().join("standard")], &[]).expect("the modules load")
}

/// The proposed model: the same without pfcd-deviations (copied to a directory of their own).
fn proposal() -> Schema {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir =
        std::env::temp_dir().join(format!("pfcd-yang-proposal-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    for entry in std::fs::read_dir(yang()).expect("yang/") {
        let path = entry.expect("entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        if name.ends_with(".yang") && name != "pfcd-deviations.yang" {
            std::fs::copy(&path, dir.join(&name)).expect("copy");
        }
    }
    let schema = Schema::new(&[dir.clone(), yang().join("standard")], &[]).expect("they load");
    let _ = std::fs::remove_dir_all(&dir);
    schema
}

#[test]
fn the_modules_load_implemented_with_the_pfc_feature() {
    let schema = schema();
    let modules = schema.modules();
    for (name, revision) in OURS {
        let m = modules.iter().find(|m| m.name == name).expect("loaded");
        assert!(m.implemented, "{name} is implemented");
        assert_eq!(m.revision.as_deref(), Some(revision), "{name}");
    }
    let names: Vec<String> = std::fs::read_dir(yang())
        .expect("yang/ exists")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".yang").map(str::to_string))
        .collect();
    assert_eq!(names.len(), OURS.len(), "every module in yang/ is checked here: {names:?}");
    assert!(schema.feature_enabled("ieee802-dot1q-pfc-bridge", "priority-flow-control"));
    // What 5.11 makes optional, each a feature pfcd implements.
    for feature in ["automatic-headroom", "macsec", "privacy", "local-delay-tlv"] {
        assert!(schema.feature_enabled("ieee802-dot1q-pfc", feature), "{feature}");
    }
}

#[test]
fn the_example_configuration_validates() {
    let xml = std::fs::read_to_string(yang().join("tests/valid/pfc-config.xml")).expect("read");
    let canonical = proposal().canonical_config(&xml).expect("valid");
    assert!(canonical.contains("<pfc-enable>p3 p4</pfc-enable>"), "{canonical}");
    // An end station's interface takes the same parameters (ieee802-dot1q-pfc-if).
    let xml = std::fs::read_to_string(yang().join("tests/valid/pfc-if-config.xml")).expect("read");
    let canonical = proposal().canonical_config(&xml).expect("valid");
    assert!(canonical.contains("ieee802-dot1q-pfc-if"), "{canonical}");
}

#[test]
fn every_example_refusal_is_refused_with_its_message() {
    let schema = proposal();
    let mut checked = 0;
    for entry in std::fs::read_dir(yang().join("tests/invalid")).expect("tests/invalid exists") {
        let path = entry.expect("entry").path();
        let xml = std::fs::read_to_string(&path).expect("read");
        let expect = xml
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("<!-- expect: "))
            .and_then(|l| l.strip_suffix(" -->"))
            .unwrap_or_else(|| panic!("{}: first line names the message", path.display()));
        let err = schema
            .canonical_config(&xml)
            .expect_err(&format!("{} must be refused", path.display()));
        assert!(err.to_string().contains(expect), "{}: {err}", path.display());
        checked += 1;
    }
    assert!(checked >= 6, "{checked} refusals");
}

#[test]
fn the_rpcs_and_notifications_parse() {
    let schema = schema();
    let bridge = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-pfc-bridge";
    let pfc = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-pfc";
    let tlv = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-lldp-pfc-tlv";
    let pfcd_pfc = pfc_yang_names::pfcd_pfc::NAMESPACE;
    let headroom = pfc_yang_names::pfcd_headroom::NAMESPACE;
    for action in ["measure-headroom", "clear-pfc-counters"] {
        let invoked = format!(
            r#"<interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><interface>
                 <name>lab0</name>
                 <bridge-port xmlns="urn:ieee:std:802.1Q:yang:ieee802-dot1q-bridge">
                   <pfc xmlns="{bridge}"><{action}/></pfc></bridge-port></interface></interfaces>"#
        );
        schema.parse_action(&invoked, false).unwrap_or_else(|e| panic!("{action}: {e}"));
    }
    schema
        .validate_notification(&format!(
            r#"<interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><interface>
                 <name>lab0</name>
                 <bridge-port xmlns="urn:ieee:std:802.1Q:yang:ieee802-dot1q-bridge">
                 <pfc xmlns="{bridge}">
                 <headroom-allowance-changed xmlns="{bridge}-notifications" xmlns:pfc="{pfc}">
                 <old-allowance>126224</old-allowance><old-source>pfc:link-delay-allowance</old-source>
                 <new-allowance>164352</new-allowance><new-source>pfc:measurement-result</new-source>
                 <clamp>none</clamp>
               </headroom-allowance-changed></pfc></bridge-port></interface></interfaces>"#
        ))
        .expect("headroom-allowance-changed, inside the port's pfc container");
    // No longer a top-level notification naming an interface.
    assert!(schema
        .validate_notification(&format!(
            r#"<headroom-allowance-changed xmlns="{bridge}-notifications" xmlns:pfc="{pfc}">
                 <old-allowance>126224</old-allowance></headroom-allowance-changed>"#
        ))
        .is_err());
    schema
        .validate_notification(&format!(
            r#"<receive-buffer-drop xmlns="{pfcd_pfc}" xmlns:pfc="{pfc}">
                 <interface>lab0</interface><priority>3</priority>
                 <frames-dropped>12</frames-dropped><allowance-in-force>20000</allowance-in-force>
                 <allowance-source>pfc:link-delay-allowance</allowance-source>
               </receive-buffer-drop>"#
        ))
        .expect("receive-buffer-drop");
    schema
        .validate_notification(&format!(
            r#"<pfc-dcbx-misconfiguration xmlns="{tlv}">
                 <name>lab0</name><dest-mac-address>01-80-C2-00-00-0E</dest-mac-address>
                 <misconfigured>true</misconfigured><misconfiguration>enable-mismatch</misconfiguration>
                 <local-pfc-enable>p3 p4</local-pfc-enable><peer-pfc-enable>p3</peer-pfc-enable>
               </pfc-dcbx-misconfiguration>"#
        ))
        .expect("pfc-dcbx-misconfiguration");
    schema
        .validate_notification(&format!(
            r#"<allowance-clamped xmlns="{headroom}">
                 <interface>lab0</interface><reason>receive-buffer</reason>
                 <selected-allowance>1407374883750992</selected-allowance>
                 <allowance-in-force>4186112</allowance-in-force>
                 <receive-buffer-limit>4186112</receive-buffer-limit>
               </allowance-clamped>"#
        ))
        .expect("allowance-clamped");
    assert!(schema.model().rpc(bridge, "measure-headroom").is_none(), "an action, not an RPC");
}

#[test]
fn what_pfcd_deviates_is_refused_by_name() {
    let ns = |m: &str| format!("urn:ieee:std:802.1Q:yang:{m}");
    let port = |inner: &str| {
        format!(
            r#"<interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><interface>
                 <name>p1</name>
                 <type xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type">ianaift:ethernetCsmacd</type>
                 <bridge-port xmlns="{}"><pfc xmlns="{}">{inner}</pfc></bridge-port>
               </interface></interfaces>"#,
            ns("ieee802-dot1q-bridge"),
            ns("ieee802-dot1q-pfc-bridge")
        )
    };
    let schema = schema();
    for (inner, leaf) in [
        (
            "<headroom><measurement><maximum-round-trip>400</maximum-round-trip></measurement>\
             </headroom>",
            "maximum-round-trip",
        ),
        (
            "<headroom><measurement><minimum-round-trip>10</minimum-round-trip></measurement>\
             </headroom>",
            "minimum-round-trip",
        ),
    ] {
        let xml = port(inner);
        assert!(proposal().canonical_config(&xml).is_ok(), "the proposal has {leaf}");
        let err = schema.canonical_config(&xml).expect_err(&format!("{leaf} deviated"));
        assert!(err.to_string().contains(leaf), "{leaf}: {err}");
    }
}

/// The description strings of a module: what stands between `description` and the `;` that
/// closes its quoted text, with line breaks and indentation folded to single spaces.
fn descriptions(module: &str) -> Vec<String> {
    module
        .split("description")
        .skip(1)
        .filter_map(|rest| {
            let text = rest.trim_start().strip_prefix('"')?;
            let end = text.find("\";")?;
            Some(text[..end].split_whitespace().collect::<Vec<_>>().join(" "))
        })
        .collect()
}

/// The readings (R1, R2, ...) a text names.
fn readings_named(text: &str) -> std::collections::BTreeSet<u32> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter_map(|word| word.strip_prefix('R')?.parse().ok())
        .collect()
}

#[test]
fn every_reading_of_the_draft_is_named_where_used_and_listed_for_the_task_group() {
    let readme = std::fs::read_to_string(yang().join("README.md")).expect("yang/README.md");
    let section = readme
        .split("## Readings of the draft (comments for the task group)")
        .nth(1)
        .expect("yang/README.md has the readings' section")
        .split("\n## ")
        .next()
        .unwrap_or_default();
    let mut listed = std::collections::BTreeSet::new();
    for row in section.lines().filter(|l| l.starts_with("| R")) {
        let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
        assert_eq!(cells.len(), 5, "reading, clause, the draft, pfcd, resolution: {row}");
        assert!(cells.iter().all(|c| !c.is_empty()), "no empty cell: {row}");
        listed.extend(readings_named(cells[0]));
    }
    assert!(!listed.is_empty(), "the section lists the readings:\n{section}");
    let mut named = std::collections::BTreeSet::new();
    for (module, _) in OURS.iter().filter(|(m, _)| m.starts_with("ieee802-")) {
        let text = std::fs::read_to_string(yang().join(format!("{module}.yang"))).expect("module");
        for d in descriptions(&text) {
            // What the draft leaves open, stated as fact: whose bit enables a function, and
            // the Local Delay TLV's unit.
            let open = ["both ends set", "both ends advertise", "of both ends", "TimeInterval"];
            if open.iter().any(|phrase| d.contains(phrase)) {
                assert!(!readings_named(&d).is_empty(), "{module}: names no reading: {d}");
            }
            named.extend(readings_named(&d));
        }
    }
    assert_eq!(named, listed, "every reading named in a module is listed, and used");
}

/// The leaves `yang/README.md` lists, with a clause, under "What the IEEE-namespace modules
/// hold, clause by clause".
fn clause_list() -> Vec<String> {
    let readme = std::fs::read_to_string(yang().join("README.md")).expect("yang/README.md");
    let section = readme
        .split("## What the IEEE-namespace modules hold, clause by clause")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the clause list in yang/README.md");
    section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once("` | "))
        .filter(|(_, clause)| !clause.trim().trim_end_matches('|').trim().is_empty())
        .map(|(leaf, _)| leaf.to_string())
        .collect()
}

/// The leaves of `node` and below that pfcd's IEEE-namespace modules define, as paths of
/// names from the node their augment adds to (`pfc/...` below the Bridge Port, `pfc-dcbx/...`
/// below an LLDP port).
fn ieee_leaves(node: &SNode, above: &str, out: &mut Vec<String>) {
    let ours = ["ieee802-dot1q-pfc-bridge", "ieee802-dot1q-pfc-if", "ieee802-dot1q-lldp-pfc-tlv"];
    let path =
        if above.is_empty() { node.name.to_string() } else { format!("{above}/{}", node.name) };
    if matches!(node.kind, Kind::Leaf | Kind::LeafList) {
        if ours.contains(&node.module.as_str()) {
            out.push(path);
        }
        return;
    }
    for child in node.children() {
        ieee_leaves(child, &path, out);
    }
}

#[test]
fn every_leaf_of_the_ieee_namespace_modules_is_one_the_draft_defines() {
    let proposal = proposal();
    let mut leaves = Vec::new();
    for top in proposal.model().tops() {
        ieee_leaves(top, "", &mut leaves);
    }
    // Relative to where the modules augment: below the Bridge Port (-bridge) or the
    // interface (-if: the same grouping, so the same leaves), below an LLDP port.
    let leaves: Vec<String> = leaves
        .iter()
        .map(|l| {
            let l = l.strip_prefix("interfaces/interface/bridge-port/").unwrap_or(l);
            let l = l.strip_prefix("interfaces/interface/").unwrap_or(l);
            l.strip_prefix("lldp/port/").unwrap_or(l).to_string()
        })
        .collect();
    assert!(leaves.len() > 40, "the modules' leaves were found: {leaves:?}");
    let listed = clause_list();
    let unlisted: Vec<&String> = leaves.iter().filter(|l| !listed.contains(l)).collect();
    assert!(
        unlisted.is_empty(),
        "IEEE-namespace leaves with no clause in yang/README.md (the draft's, or pfcd's own \
         and then in pfcd-pfc or pfcd-lldp): {unlisted:#?}"
    );
    let gone: Vec<&String> = listed.iter().filter(|l| !leaves.contains(l)).collect();
    assert!(gone.is_empty(), "listed in yang/README.md but in no module: {gone:#?}");
}

/// The module table at the top of `yang/README.md`: each module's name and namespace.
fn readme_namespaces() -> Vec<(String, String)> {
    let readme = std::fs::read_to_string(yang().join("README.md")).expect("yang/README.md");
    readme
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| {
            let (name, rest) = l.split_once("` | `")?;
            let (namespace, _) = rest.split_once("` |")?;
            Some((name.to_string(), namespace.to_string()))
        })
        .collect()
}

/// pfcd's own modules live under namespaces it can stand behind: a UUID URN each (the `uuid`
/// NID is registered, RFC 9562), not the unregistered `urn:pfcd:`; yang/README.md names each
/// module's namespace as the module does.
#[test]
fn pfcds_own_modules_have_uuid_urn_namespaces_and_the_readme_names_them() {
    let modules = schema().modules();
    let listed = readme_namespaces();
    let mut seen = std::collections::BTreeSet::new();
    for (name, _) in OURS {
        let m = modules.iter().find(|m| m.name == name).expect("loaded");
        if name.starts_with("pfcd-") {
            let uuid = m
                .namespace
                .strip_prefix("urn:uuid:")
                .unwrap_or_else(|| panic!("{name}'s namespace {} is not a UUID URN", m.namespace));
            let groups: Vec<usize> = uuid.split('-').map(str::len).collect();
            assert_eq!(groups, [8, 4, 4, 4, 12], "{name}: {uuid} is a UUID");
            assert!(uuid.chars().all(|c| c == '-' || c.is_ascii_hexdigit()), "{uuid}");
            assert!(uuid.chars().all(|c| !c.is_ascii_uppercase()), "lower case (RFC 9562)");
            assert!(seen.insert(uuid.to_string()), "{name}'s namespace is its own");
        }
        assert!(!m.namespace.starts_with("urn:pfcd:"), "{name}: {}", m.namespace);
        let listed = listed.iter().find(|(n, _)| n == name);
        let (_, ns) = listed.unwrap_or_else(|| panic!("{name} in yang/README.md's module table"));
        assert_eq!(ns, &m.namespace, "yang/README.md's namespace of {name}");
    }
}

/// The identities of ieee802-dot1q-pfc, each with its bases, read from the module's text.
fn identities() -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(yang().join("ieee802-dot1q-pfc.yang")).expect("module");
    let mut found: Vec<(String, Vec<String>)> = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("  identity ").and_then(|l| l.strip_suffix(" {")) {
            found.push((name.to_string(), Vec::new()));
            inside = true;
        } else if line == "  }" {
            inside = false;
        } else if let Some(base) =
            line.trim().strip_prefix("base ").and_then(|l| l.strip_suffix(';'))
        {
            if let (true, Some((_, bases))) = (inside, found.last_mut()) {
                bases.push(base.to_string());
            }
        }
    }
    found
}

/// One base per meaning (how the allowance is obtained, where the one in force came from), and
/// the methods named as 36.8 names its two calculations: based on link delay, based on
/// measurement.
#[test]
fn each_identity_has_one_meaning_and_the_methods_follow_36_8() {
    let identities = identities();
    let of = |base: &str| -> Vec<&str> {
        identities
            .iter()
            .filter(|(_, b)| b.iter().any(|b| b == base))
            .map(|(n, _)| n.as_str())
            .collect()
    };
    for (name, bases) in &identities {
        assert!(bases.len() <= 1, "{name} has one base, not {bases:?}");
    }
    assert_eq!(
        of("headroom-method"),
        ["manual", "link-delay", "measurement", "link-delay-and-measurement", "dcbx-negotiated"]
    );
    assert_eq!(
        of("allowance-source"),
        [
            "link-delay-allowance",
            "link-delay-result",
            "measurement-result",
            "initial-value",
            "administrative-override"
        ]
    );
}

/// The `type` statement of leaf `leaf` in ieee802-dot1q-pfc, and the `units` of that typedef.
fn type_and_units(text: &str, leaf: &str) -> (String, String) {
    let at = text.find(&format!("leaf {leaf} {{")).unwrap_or_else(|| panic!("leaf {leaf}"));
    let typ = text[at..].split("type ").nth(1).and_then(|t| t.split(';').next()).expect("type");
    let typ = typ.trim().to_string();
    let typedef = text.find(&format!("typedef {typ} {{")).unwrap_or_else(|| panic!("{typ}"));
    let units = text[typedef..].split("units \"").nth(1).and_then(|u| u.split('"').next());
    (typ, units.expect("the typedef's units").to_string())
}

/// A delay input of the calculation is in bit times, whose length depends on the speed: its
/// unit says at which speed. An allowance is buffer, bits at any speed, and says bits.
#[test]
fn each_bit_time_input_says_at_which_speed_and_allowances_are_bits_of_buffer() {
    let text = std::fs::read_to_string(yang().join("ieee802-dot1q-pfc.yang")).expect("module");
    let delays = [
        "reception-processing",
        "pfc-generation",
        "interface-rtt",
        "receive-processing",
        "peer-interface-rtt",
        "secy-delay",
    ];
    for leaf in delays {
        let (typ, units) = type_and_units(&text, leaf);
        assert_eq!(units, "bit times at the port's speed", "{leaf} ({typ})");
    }
    for leaf in [
        "pfc-link-delay-allowance",
        "pfc-headroom-allowance",
        "minimum-allowance",
        "maximum-allowance",
        "initial-allowance",
        "calculated-allowance",
        "allowance-in-force",
    ] {
        assert_eq!(type_and_units(&text, leaf).1, "bits", "{leaf}");
    }
}
