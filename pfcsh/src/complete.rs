//! What may come next at the cursor: the candidates Tab completes and `?` lists, each with
//! its description. Command words come from `grammar.rs`, port names from the server,
//! configuration paths and their help from the schema (`config_path.rs`).

use yang2::schema::{DataValueType, SchemaNodeKind};

use crate::config_path::{self, display_name, Next};
use crate::grammar::{Then, Word, CONFIGURATION, OPERATIONAL};
use crate::session::{Mode, Session};
use crate::words::split;

/// One thing that may come next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// What is inserted; empty for a placeholder such as `<uint64>` (help only).
    pub word: String,
    /// What `?` prints next to it.
    pub help: String,
}

impl Candidate {
    fn new(word: impl Into<String>, help: impl Into<String>) -> Candidate {
        Candidate { word: word.into(), help: help.into() }
    }
}

/// Where the word being typed starts in `line`, and the candidates for it (all of them, not
/// yet narrowed to what was typed).
pub fn at_cursor(session: &mut Session, line: &str) -> (usize, String, Vec<Candidate>) {
    let words = split(line);
    let ends_in_space = line.is_empty() || line.ends_with(char::is_whitespace);
    let (done, partial, start) = if ends_in_space {
        (words.as_slice(), String::new(), line.len())
    } else {
        let (last, done) = words.split_last().map_or((None, &words[..]), |(l, d)| (Some(l), d));
        let last = last.map(|l| (l.text.clone(), l.start)).unwrap_or_default();
        (done, last.0, last.1)
    };
    let done: Vec<String> = done.iter().map(|w| w.text.clone()).collect();
    let root = match session.mode {
        Mode::Operational => OPERATIONAL,
        Mode::Configuration => CONFIGURATION,
    };
    let all = next_in(session, root, true, &done);
    (start, partial, all)
}

/// Candidates narrowed to those starting with `partial` (placeholders kept for `?`).
pub fn matching(all: &[Candidate], partial: &str) -> Vec<Candidate> {
    all.iter().filter(|c| c.word.starts_with(partial)).cloned().collect()
}

fn word_candidates(words: &[Word]) -> Vec<Candidate> {
    words.iter().map(|w| Candidate::new(w.word, w.help)).collect()
}

const ENTER: &str = "<Enter>";

fn next_in(session: &mut Session, words: &[Word], top: bool, done: &[String]) -> Vec<Candidate> {
    let Some((first, rest)) = done.split_first() else {
        return word_candidates(words);
    };
    let _ = top;
    // The word as typed may be a unique prefix of one (`sh int pfc`).
    let starting: Vec<&Word> =
        words.iter().filter(|w| w.word.starts_with(first.as_str())).collect();
    let found = words.iter().find(|w| w.word == first).or(match starting.as_slice() {
        [one] => Some(*one),
        _ => None,
    });
    match found {
        Some(w) => next_after(session, w.then, rest, &format!("{} {}", first, "")),
        None => Vec::new(),
    }
}

fn next_after(session: &mut Session, then: Then, done: &[String], _cmd: &str) -> Vec<Candidate> {
    match then {
        Then::End => {
            if done.is_empty() {
                vec![Candidate::new("", format!("{ENTER} runs the command"))]
            } else {
                Vec::new()
            }
        }
        Then::Words { words, complete } => {
            if done.is_empty() {
                let mut c = word_candidates(words);
                if complete {
                    c.push(Candidate::new("", format!("{ENTER} runs the command")));
                }
                c
            } else {
                next_in(session, words, false, done)
            }
        }
        Then::Port { optional, after } => {
            if let Some((first, rest)) = done.split_first() {
                if optional && after.iter().any(|w| w.word == first) {
                    return next_in(session, after, false, done);
                }
                return if rest.is_empty() && !after.is_empty() {
                    let mut c = word_candidates(after);
                    c.push(Candidate::new("", format!("{ENTER} runs the command")));
                    c
                } else if after.is_empty() {
                    if rest.is_empty() {
                        vec![Candidate::new("", format!("{ENTER} runs the command"))]
                    } else {
                        Vec::new()
                    }
                } else {
                    next_in(session, after, false, rest)
                };
            }
            let mut c: Vec<Candidate> =
                session.ports().into_iter().map(|p| Candidate::new(p, "port")).collect();
            if optional {
                c.extend(word_candidates(after));
                c.push(Candidate::new("", format!("{ENTER}: every port")));
            }
            c
        }
        Then::Seconds => {
            if done.is_empty() {
                vec![
                    Candidate::new("", "<minutes> (or `30s`) before running is rolled back"),
                    Candidate::new("", format!("{ENTER}: 10 minutes")),
                ]
            } else {
                Vec::new()
            }
        }
        Then::Path { value } => path_candidates(session, done, value),
    }
}

fn path_candidates(session: &mut Session, done: &[String], with_value: bool) -> Vec<Candidate> {
    let existing = session.key_values_source();
    if session.vocabulary.is_none() && with_value {
        session.vocabulary = Some(crate::values::Vocabulary::of(session.context()));
    }
    let vocabulary = session.vocabulary.clone().unwrap_or_default();
    let ctx = session.context();
    let walk = match config_path::walk(ctx, done, true) {
        Ok(w) => w,
        Err(e) => return vec![Candidate::new("", e)],
    };
    let mut out = Vec::new();
    let mut ports_wanted = false;
    match &walk.next {
        Next::Child(nodes) => {
            for n in nodes {
                let mut help = config_path::summary(n);
                if matches!(n.kind(), SchemaNodeKind::Leaf | SchemaNodeKind::LeafList) {
                    if let Some(t) = config_path::type_help(n) {
                        help = format!("{t} {help}");
                    }
                }
                out.push(Candidate::new(display_name(n, nodes), help));
            }
            if !walk.steps.is_empty() {
                out.push(Candidate::new("", format!("{ENTER} runs the command")));
            }
        }
        Next::Key(list, index) => {
            let key = list.list_keys().nth(*index);
            let key_name = key.as_ref().map(|k| k.name().to_string()).unwrap_or_default();
            let type_text = key.as_ref().and_then(config_path::type_help).unwrap_or_default();
            for v in crate::shell::existing_keys(&existing, &walk.steps, *index) {
                out.push(Candidate::new(v, format!("existing {}", list.name())));
            }
            out.push(Candidate::new(
                "",
                format!("<{key_name}> {type_text} key of {}", list.name()),
            ));
        }
        Next::Value(leaf) => {
            if !with_value {
                return Vec::new();
            }
            let t = leaf.leaf_type().map(|t| t.base_type());
            if t == Some(DataValueType::Bool) {
                out.push(Candidate::new("true", ""));
                out.push(Candidate::new("false", ""));
            }
            if let (Some(base), None) = (t, &walk.value) {
                let path = config_path::xpath(&walk.steps);
                for v in vocabulary.offered(ctx, &path, base) {
                    out.push(Candidate::new(v, "a value"));
                }
            }
            if t == Some(DataValueType::Bits) {
                let path = config_path::xpath(&walk.steps);
                let given = walk.value.clone().unwrap_or_default();
                for bit in config_path::priority_bits(ctx, &path) {
                    if !given.split_whitespace().any(|g| g == bit) {
                        out.push(Candidate::new(bit, "a bit of the set (several: p3 p4)"));
                    }
                }
            }
            let interface_ref =
                leaf.leaf_type().and_then(|t| t.typedef_name()).as_deref() == Some("interface-ref");
            ports_wanted = interface_ref && walk.value.is_none();
            let mut help = config_path::type_help(leaf).unwrap_or_default();
            let summary = config_path::summary(leaf);
            if !summary.is_empty() {
                help = format!("{help} {summary}");
            }
            // default_value_canonical() of the vendored binding reads a leaf's default without
            // checking there is one (a null pointer without); default_value() checks.
            let default = leaf.default_value().and_then(|_| leaf.default_value_canonical());
            if let Some(d) = default {
                help = format!("{help} (default {d})");
            }
            out.push(Candidate::new("", help));
            if walk.value.is_some() {
                out.push(Candidate::new("", format!("{ENTER} runs the command")));
            }
        }
    }
    if ports_wanted {
        out.extend(session.ports().into_iter().map(|p| Candidate::new(p, "port")));
    }
    out
}
