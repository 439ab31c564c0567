//! Which implemented modules deviate which (RFC 8525's `deviation` leaf-list): read from each
//! implemented module's source, which libyang has already compiled and applied, so only the
//! targets need finding. A deviation's target node belongs to the module of its last step's
//! prefix (an augmented node to the augmenting module), as libyang counts it.

use std::collections::{BTreeMap, BTreeSet};

/// A deviating module: its name and revision.
pub type Deviating = (String, Option<String>);

/// For each deviated module's name, the modules that deviate it.
pub type Deviations = BTreeMap<String, BTreeSet<Deviating>>;

/// Reads them from the implemented modules' sources, each given as (name, revision, text)
/// (`Schema::deviations` keeps the result: the sources do not change while the schema lives).
pub fn find<'a>(
    implemented: impl IntoIterator<Item = (&'a str, Option<&'a str>, &'a str)>,
) -> Deviations {
    let mut out: BTreeMap<String, BTreeSet<Deviating>> = BTreeMap::new();
    for (name, revision, text) in implemented {
        for target in deviated_modules(name, text) {
            let by = (name.to_string(), revision.map(str::to_string));
            out.entry(target).or_default().insert(by);
        }
    }
    out
}

/// The modules `source` (module `name`'s text) deviates.
fn deviated_modules(name: &str, source: &str) -> BTreeSet<String> {
    let mut prefixes: BTreeMap<String, String> = BTreeMap::new();
    let mut targets = Vec::new();
    let mut import: Option<String> = None;
    for line in source.lines().map(str::trim) {
        let mut words = line.split_whitespace();
        match (words.next(), words.next()) {
            (Some("import"), Some(module)) => import = Some(unquote(module).to_string()),
            (Some("prefix"), Some(prefix)) => {
                let prefix = unquote(prefix.trim_end_matches(';')).to_string();
                let module = import.take().unwrap_or_else(|| name.to_string());
                prefixes.insert(prefix, module);
            }
            (Some("deviation"), Some(path)) => targets.push(unquote(path).to_string()),
            _ => {}
        }
    }
    targets
        .iter()
        .filter_map(|path| {
            let last = path.trim_end_matches('/').rsplit('/').next()?;
            let (prefix, _) = last.split_once(':')?;
            prefixes.get(prefix).cloned()
        })
        .collect()
}

fn unquote(word: &str) -> &str {
    word.trim_matches(|c| c == '"' || c == '\'')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deviation_names_the_module_of_its_targets_last_step() {
        let source = r#"module d {
  namespace "urn:d";
  prefix d;
  import ietf-interfaces {
    prefix if;
  }
  import "ieee802-dot1q-pfc-bridge" {
    prefix "pfc-bridge";
  }
  deviation "/if:interfaces/if:interface/pfc-bridge:pfc/pfc-bridge:link-pause" {
    deviate not-supported;
  }
  deviation /if:interfaces/if:interface/if:description {
    deviate not-supported;
  }
}"#;
        let got = deviated_modules("d", source);
        assert_eq!(
            got.into_iter().collect::<Vec<_>>(),
            ["ieee802-dot1q-pfc-bridge", "ietf-interfaces"]
        );
        assert!(deviated_modules("plain", "module plain {\n  prefix p;\n}").is_empty());
    }
}
