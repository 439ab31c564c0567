//! Textual data paths split into steps: `/q:name[k='v'][.='x']/...`, the shape shared by
//! libyang's JSON paths (module-name qualifiers) and NACM's node-instance-identifiers
//! (prefix qualifiers). What a qualifier means is the caller's business.

/// One step as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawStep {
    /// The text before `:` in the step's name (a module name or a prefix), if any.
    pub qualifier: Option<String>,
    /// The local name (`*` is left to the caller).
    pub name: String,
    /// Predicates `[k='v']` in order: the key's own qualifier dropped, the value unquoted;
    /// a leaf-list value predicate has the key `.`.
    pub predicates: Vec<(String, String)>,
}

/// Splits an absolute path into its steps; `None` if the text is not one (a step that does
/// not start with `/`, an empty name, an unclosed predicate). `/` alone is no step.
pub(crate) fn split(text: &str) -> Option<Vec<RawStep>> {
    let chars: Vec<char> = text.trim().chars().collect();
    if chars == ['/'] {
        return Some(Vec::new());
    }
    let mut steps = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '/' {
            return None;
        }
        i += 1;
        let start = i;
        while i < chars.len() && chars[i] != '/' && chars[i] != '[' {
            i += 1;
        }
        let qname: String = chars[start..i].iter().collect();
        let (qualifier, name) = match qname.split_once(':') {
            Some((q, n)) => (Some(q.to_string()), n.to_string()),
            None => (None, qname),
        };
        if name.is_empty() {
            return None;
        }
        let mut predicates = Vec::new();
        while i < chars.len() && chars[i] == '[' {
            let close = closing_bracket(&chars, i)?;
            let pred: String = chars[i + 1..close].iter().collect();
            if let Some((k, v)) = pred.split_once('=') {
                let k = k.trim();
                let k = k.rsplit(':').next().unwrap_or(k).to_string();
                predicates.push((k, unquote(v.trim()).to_string()));
            }
            i = close + 1;
        }
        steps.push(RawStep { qualifier, name, predicates });
    }
    Some(steps)
}

/// The `]` closing the predicate opened at `open`, outside quotes.
fn closing_bracket(chars: &[char], open: usize) -> Option<usize> {
    let mut quote: Option<char> = None;
    for (j, &c) in chars.iter().enumerate().skip(open + 1) {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, ']') => return Some(j),
            _ => {}
        }
    }
    None
}

fn unquote(v: &str) -> &str {
    for q in ['\'', '"'] {
        if v.len() >= 2 && v.starts_with(q) && v.ends_with(q) {
            return &v[1..v.len() - 1];
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_qualifiers_and_predicates() {
        let s = split("/if:interfaces/interface[if:name='a]b'][.=\"x\"]/mtu").expect("path");
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].qualifier.as_deref(), Some("if"));
        assert_eq!(s[1].qualifier, None);
        assert_eq!(
            s[1].predicates,
            vec![("name".to_string(), "a]b".to_string()), (".".to_string(), "x".to_string())]
        );
        assert_eq!(s[2].name, "mtu");
        assert_eq!(split(" / "), Some(Vec::new()));
    }

    #[test]
    fn what_is_not_a_path() {
        for bad in ["if:interfaces", "/if:", "//x", "/a[k='v'", "/a[k='v]"] {
            assert_eq!(split(bad), None, "{bad}");
        }
    }
}
