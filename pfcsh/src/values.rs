//! The values of enumerations and identities that `?` lists and Tab completes. The libyang
//! binding lists neither, so the names are read from the modules' YANG text (every `enum NAME`
//! and `identity NAME`, once per session) and each is kept only if libyang accepts it as the
//! value of the leaf at hand: what is offered is exactly what `set` takes.

use yang2::context::Context;
use yang2::data::DataTree;
use yang2::schema::{DataValueType, SchemaOutputFormat, SchemaPrinterFlags};

/// Every enum name and (module, identity) of the schema's modules.
#[derive(Debug, Default, Clone)]
pub struct Vocabulary {
    enums: Vec<String>,
    identities: Vec<(String, String)>,
}

impl Vocabulary {
    pub fn of(ctx: &Context) -> Vocabulary {
        let mut v = Vocabulary::default();
        for m in ctx.modules(false) {
            let Ok(text) = m.print_string(SchemaOutputFormat::YANG, SchemaPrinterFlags::empty())
            else {
                continue;
            };
            for (keyword, name) in statements(&text) {
                match keyword {
                    "enum" => v.enums.push(name),
                    _ => v.identities.push((m.name().to_string(), name)),
                }
            }
        }
        v.enums.sort();
        v.enums.dedup();
        v
    }

    /// The values the leaf at `path` (of base type `base`) accepts, as `set` takes them.
    pub fn offered(&self, ctx: &Context, path: &str, base: DataValueType) -> Vec<String> {
        let accepts = |v: &str| DataTree::new(ctx).new_path(path, Some(v), false).is_ok();
        match base {
            DataValueType::Enum | DataValueType::Union => {
                self.enums.iter().filter(|e| accepts(e)).cloned().collect()
            }
            DataValueType::IdentityRef => {
                let mut out: Vec<String> = self
                    .identities
                    .iter()
                    .filter(|(m, n)| accepts(&format!("{m}:{n}")))
                    .map(|(_, n)| n.clone())
                    .collect();
                out.sort();
                out.dedup();
                out
            }
            _ => Vec::new(),
        }
    }
}

/// `enum NAME` and `identity NAME` statements of YANG text (names quoted or not).
fn statements(text: &str) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let words: Vec<&str> = text.split_whitespace().collect();
    for pair in words.windows(2) {
        let keyword = match pair[0] {
            "enum" => "enum",
            "identity" => "identity",
            _ => continue,
        };
        let name = pair[1].trim_end_matches(['{', ';']).trim_matches(['"', '\'']);
        let is_name = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if is_name {
            out.push((keyword, name.to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::statements;

    #[test]
    fn enum_and_identity_statements_are_found() {
        let text = "typedef t { type enumeration { enum external; enum \"mac-hold\" { } } }\n\
                    identity measured { base m; }";
        let found: Vec<(&str, String)> = statements(text);
        assert_eq!(
            found,
            vec![
                ("enum", "external".to_string()),
                ("enum", "mac-hold".to_string()),
                ("identity", "measured".to_string())
            ]
        );
    }
}
