//! Splitting a command line into words: whitespace separates, double or single quotes keep
//! spaces inside one word (`set … description "uplink to sw2"`).

/// One word and where it starts in the line (completion needs to know what to replace).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    pub start: usize,
}

/// The words of `line`. An unterminated quote runs to the end of the line.
pub fn split(line: &str) -> Vec<Word> {
    let mut words = Vec::new();
    let mut current: Option<Word> = None;
    let mut quote: Option<char> = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => {
                current.get_or_insert(Word { text: String::new(), start: i }).text.push(c)
            }
            (None, '"' | '\'') => {
                quote = Some(c);
                current.get_or_insert(Word { text: String::new(), start: i });
            }
            (None, c) if c.is_whitespace() => {
                if let Some(w) = current.take() {
                    words.push(w);
                }
            }
            (None, c) => current.get_or_insert(Word { text: String::new(), start: i }).text.push(c),
        }
    }
    words.extend(current);
    words
}

/// The commands of a `-c` argument: `;` separates them except inside quotes
/// (`set … description "uplink; to sw2"` is one command).
pub fn split_commands(line: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, ';') => {
                commands.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    commands.push(current);
    commands
}

/// `value` quoted when it has whitespace or is empty, so that `split` gives it back whole.
pub fn quote(value: &str) -> String {
    if value.is_empty() || value.chars().any(|c| c.is_whitespace() || c == '"' || c == '\'') {
        if value.contains('"') {
            format!("'{value}'")
        } else {
            format!("\"{value}\"")
        }
    } else {
        value.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(line: &str) -> Vec<String> {
        split(line).into_iter().map(|w| w.text).collect()
    }

    #[test]
    fn quotes_keep_spaces_and_positions_are_kept() {
        assert_eq!(texts("set a \"b c\" d"), ["set", "a", "b c", "d"]);
        assert_eq!(texts("  x  'y z"), ["x", "y z"]);
        assert_eq!(split("ab  cd")[1].start, 4);
        assert_eq!(texts(&format!("v {}", quote("p3 p4"))), ["v", "p3 p4"]);
        assert_eq!(texts(&format!("v {}", quote(""))), ["v", ""]);
        assert_eq!(split_commands("a; b \"c; d\"; 'e;'"), ["a", " b \"c; d\"", " 'e;'"]);
    }
}
