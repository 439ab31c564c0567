//! From YANG module text to the Rust source of the name constants. A small tokenizer is
//! enough: the names wanted are the arguments of data-definition statements, found by walking
//! statements (keyword, argument, `;` or a `{ … }` block), with comments and quoted strings
//! skipped as YANG defines them (RFC 7950 §6.1).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

/// The statements whose argument is a name code looks up in data, replies and notifications.
const NAMED: [&str; 9] = [
    "container",
    "leaf",
    "leaf-list",
    "list",
    "action",
    "rpc",
    "notification",
    "anydata",
    "anyxml",
];

/// What one module gives: its name, namespace and the names it defines, sorted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Names {
    pub module: String,
    pub namespace: String,
    pub nodes: BTreeSet<String>,
}

/// The `.yang` files of `dir` (not its subdirectories), by file name, with their text.
pub fn read_dir(dir: &Path) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| e.to_string())? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()).map(str::to_string) else {
            continue;
        };
        if path.is_file() && name.ends_with(".yang") {
            out.push((name, std::fs::read_to_string(&path).map_err(|e| e.to_string())?));
        }
    }
    out.sort();
    Ok(out)
}

/// The Rust source for `modules` (file name, text).
pub fn rust(modules: &[(String, String)]) -> Result<String, String> {
    let mut out = String::from("// Generated from yang/*.yang by pfc-yang-names' build.rs.\n");
    for (file, text) in modules {
        let n = names(text).map_err(|e| format!("{file}: {e}"))?;
        let _ = writeln!(out, "\n/// `{}` ({})", n.module, n.namespace);
        let _ = writeln!(out, "pub mod {} {{", ident(&n.module).to_lowercase());
        let _ = writeln!(out, "    pub const MODULE: &str = {:?};", n.module);
        let _ = writeln!(out, "    pub const NAMESPACE: &str = {:?};", n.namespace);
        for node in &n.nodes {
            let _ = writeln!(out, "    pub const {}: &str = {node:?};", ident(node));
        }
        out.push_str("}\n");
    }
    Ok(out)
}

/// `pfc-link-delay-allowance` → `PFC_LINK_DELAY_ALLOWANCE`.
fn ident(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' })
        .collect()
}

/// The module's name, namespace and defined names.
pub fn names(text: &str) -> Result<Names, String> {
    let tokens = tokenize(text)?;
    let (mut module, mut namespace, mut nodes) = (None, None, BTreeSet::new());
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].as_str() {
            "{" => depth += 1,
            "}" => depth = depth.saturating_sub(1),
            ";" => {}
            keyword => {
                let argument = tokens.get(i + 1).filter(|t| !matches!(t.as_str(), "{" | ";" | "}"));
                match (keyword, argument, depth) {
                    ("module", Some(a), 0) => module = Some(a.clone()),
                    ("namespace", Some(a), 1) => namespace = Some(a.clone()),
                    (k, Some(a), _) if NAMED.contains(&k) => {
                        nodes.insert(a.clone());
                    }
                    _ => {}
                }
                // The statement's argument is not a keyword.
                if argument.is_some() {
                    i += 1;
                }
            }
        }
        i += 1;
    }
    Ok(Names {
        module: module.ok_or("no module statement")?,
        namespace: namespace.ok_or("no namespace statement")?,
        nodes,
    })
}

/// YANG's tokens: `{`, `}`, `;`, unquoted words and quoted strings (their content, concatenated
/// across `+`); comments dropped.
fn tokenize(text: &str) -> Result<Vec<String>, String> {
    let mut tokens: Vec<String> = Vec::new();
    let mut chars = text.chars().peekable();
    let mut joining = false;
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {}
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                loop {
                    let c = chars.next().ok_or("an unterminated comment")?;
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            '{' | '}' | ';' => tokens.push(c.to_string()),
            '+' if matches!(chars.peek(), Some(c) if c.is_whitespace()) => joining = true,
            '"' | '\'' => {
                let mut s = String::new();
                loop {
                    let d = chars.next().ok_or("an unterminated string")?;
                    if d == c {
                        break;
                    }
                    if c == '"' && d == '\\' {
                        s.push(chars.next().ok_or("an unterminated string")?);
                    } else {
                        s.push(d);
                    }
                }
                match tokens.last_mut() {
                    Some(last) if joining => last.push_str(&s),
                    _ => tokens.push(s),
                }
                joining = false;
            }
            c => {
                let mut s = c.to_string();
                while let Some(&d) = chars.peek() {
                    if d.is_whitespace() || matches!(d, '{' | '}' | ';' | '"' | '\'') {
                        break;
                    }
                    s.push(d);
                    chars.next();
                }
                tokens.push(s);
            }
        }
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = r#"module m {
  namespace "urn:m";  // the namespace
  prefix m;
  /* a container, "quoted" } in a comment */
  container top {
    description "a { brace in a string; and a leaf x {";
    leaf a-b { type string; }
    list items { key "k"; leaf k { type string; } }
    action go;
  }
  grouping g { leaf-list tags { type string; } }
  notification n { leaf "quoted-name" { type string; } }
}"#;

    #[test]
    fn every_defined_name_and_nothing_from_strings_or_comments() {
        let n = names(MODULE).expect("parses");
        assert_eq!(n.module, "m");
        assert_eq!(n.namespace, "urn:m");
        let want = ["a-b", "go", "items", "k", "n", "quoted-name", "tags", "top"];
        assert_eq!(n.nodes.iter().map(String::as_str).collect::<Vec<_>>(), want);
    }

    #[test]
    fn the_source_has_a_constant_per_name() {
        let source = rust(&[("m.yang".into(), MODULE.into())]).expect("generates");
        assert!(source.contains("pub mod m {"), "{source}");
        assert!(source.contains("pub const A_B: &str = \"a-b\";"), "{source}");
        assert!(source.contains("pub const NAMESPACE: &str = \"urn:m\";"), "{source}");
    }
}
