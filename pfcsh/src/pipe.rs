//! What follows `|` on a command line: `match REGEX` (lines that match), `except REGEX` (lines
//! that do not), `count` (how many lines), `no-more` (no pager). `show | compare` is a command of
//! configuration mode, not a pipe. The pager (`--More--`) stops output taller than the terminal
//! until a key: Space a page more, Enter a line, q the rest.

use std::io::{Read as _, Write as _};

/// The filters of one command line, in order.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Pipes {
    pub filters: Vec<Filter>,
    pub no_more: bool,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Filter {
    Match(String),
    Except(String),
    Count,
}

const WORDS: &[&str] = &["match", "except", "count", "no-more"];

/// Splits `words` into the command and its pipes. `| compare` (or a unique prefix of it) stays
/// with the command.
pub fn split(words: &[String]) -> Result<(Vec<String>, Pipes), String> {
    let mut segments = words.split(|w| w == "|");
    let mut command: Vec<String> = segments.next().unwrap_or_default().to_vec();
    let mut pipes = Pipes::default();
    for segment in segments {
        let Some((first, rest)) = segment.split_first() else {
            return Err("nothing after `|`: match REGEX, except REGEX, count or no-more".into());
        };
        if pipes.filters.is_empty() && !pipes.no_more && "compare".starts_with(first.as_str()) {
            command.push("|".into());
            command.push("compare".into());
            command.extend(rest.iter().cloned());
            continue;
        }
        let starting: Vec<&str> =
            WORDS.iter().copied().filter(|w| w.starts_with(first.as_str())).collect();
        let word = match starting.as_slice() {
            [one] => *one,
            _ => {
                return Err(format!(
                    "`| {first}` is not a pipe: match REGEX, except REGEX, count or no-more"
                ))
            }
        };
        match (word, rest) {
            ("match" | "except", [pattern]) => {
                regex::Regex::new(pattern)
                    .map_err(|e| format!("`| {word} {pattern}`: not a regular expression: {e}"))?;
                pipes.filters.push(if word == "match" {
                    Filter::Match(pattern.clone())
                } else {
                    Filter::Except(pattern.clone())
                });
            }
            ("match" | "except", _) => {
                return Err(format!(
                    "`| {word}` takes one regular expression (quote it if it has spaces)"
                ))
            }
            ("count", []) => pipes.filters.push(Filter::Count),
            ("no-more", []) => pipes.no_more = true,
            _ => return Err(format!("`| {word}` takes nothing after it")),
        }
    }
    Ok((command, pipes))
}

/// `text` through the filters.
pub fn apply(pipes: &Pipes, text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for f in &pipes.filters {
        lines = match f {
            Filter::Match(p) | Filter::Except(p) => {
                let re = regex::Regex::new(p).expect("checked when split");
                let keep = matches!(f, Filter::Match(_));
                lines.into_iter().filter(|l| re.is_match(l) == keep).collect()
            }
            Filter::Count => vec![format!("Count: {} lines", lines.len())],
        };
    }
    lines.into_iter().map(|l| format!("{l}\n")).collect()
}

/// Prints `text`, a page at a time when it is taller than the terminal (`rows`).
pub fn page(text: &str, rows: Option<usize>) {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let Some(rows) = rows.filter(|r| lines.len() >= *r && *r > 2) else {
        crate::visible::print(text);
        return;
    };
    let mut shown = 0;
    let mut room = rows - 1;
    while shown < lines.len() {
        let end = (shown + room).min(lines.len());
        crate::visible::print(&lines[shown..end].concat());
        shown = end;
        if shown >= lines.len() {
            break;
        }
        let prompt = "--More-- (Space: next page, Enter: next line, q: stop)";
        print!("{prompt}");
        let _ = std::io::stdout().flush();
        let key = read_key();
        print!("\r{}\r", " ".repeat(prompt.len()));
        let _ = std::io::stdout().flush();
        room = match key {
            Some(b' ') => rows - 1,
            Some(b'\r' | b'\n') => 1,
            _ => break,
        };
    }
}

/// One key from the terminal, without echo or waiting for Enter.
fn read_key() -> Option<u8> {
    let stdin = std::io::stdin();
    let saved = rustix::termios::tcgetattr(&stdin).ok()?;
    let mut raw = saved.clone();
    raw.make_raw();
    rustix::termios::tcsetattr(&stdin, rustix::termios::OptionalActions::Now, &raw).ok()?;
    let mut key = [0u8; 1];
    let read = stdin.lock().read(&mut key);
    let _ = rustix::termios::tcsetattr(&stdin, rustix::termios::OptionalActions::Now, &saved);
    match read {
        Ok(1) => Some(key[0]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn pipes_are_split_from_the_command() {
        let (c, p) = split(&words("show interfaces pfc | match lab2 | count")).expect("ok");
        assert_eq!(c, words("show interfaces pfc"));
        assert_eq!(p.filters, vec![Filter::Match("lab2".into()), Filter::Count]);
        let (c, p) = split(&words("show | comp")).expect("ok");
        assert_eq!(c, words("show | compare"));
        assert_eq!(p, Pipes::default());
        let (_, p) = split(&words("show pipeline | no")).expect("ok");
        assert!(p.no_more);
        assert!(split(&words("show x | bogus")).is_err());
        assert!(split(&words("show x | match [")).is_err());
    }

    #[test]
    fn filters_keep_count_or_drop_lines() {
        let text = "PORT\nlab1\nlab2\nlab12\n";
        let p = split(&words("x | match lab.2")).expect("ok").1;
        assert_eq!(apply(&p, text), "lab12\n");
        let p = split(&words("x | except lab | count")).expect("ok").1;
        assert_eq!(apply(&p, text), "Count: 1 lines\n");
    }
}
