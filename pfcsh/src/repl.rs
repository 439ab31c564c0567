//! The interactive loop on rustyline: Tab completes from `complete.rs`, `?` lists what may
//! come next with descriptions (without inserting a `?`), history persists in
//! `~/.local/share/pfcsh/history`. Ctrl-D is `exit`; a confirmed commit's rollback is announced
//! while the prompt waits.
//!
//! `?` is bound to accept the line with a flag set: the loop prints the help and hands the
//! same line back to the editor with the cursor where it was. rustyline's key handlers must
//! be `Send + Sync` and so cannot reach the session (and the NETCONF client) that the help
//! needs; the loop can.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::{DefaultHistory, History as _};
use rustyline::validate::Validator;
use rustyline::{
    Cmd, CompletionType, ConditionalEventHandler, Config, Editor, Event, EventContext,
    EventHandler, Helper, KeyEvent, RepeatCount,
};

use crate::complete::{at_cursor, matching};
use crate::session::{Flow, Session};

/// Completion over the shared session.
struct ShellHelper {
    session: Rc<RefCell<Session>>,
}

impl Completer for ShellHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &rustyline::Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let mut session = self.session.borrow_mut();
        let (start, partial, all) = at_cursor(&mut session, &line[..pos]);
        let pairs = matching(&all, &partial)
            .into_iter()
            .filter(|c| !c.word.is_empty())
            .map(|c| Pair {
                display: c.word.clone(),
                replacement: format!("{} ", crate::words::quote(&c.word)),
            })
            .collect();
        Ok((start, pairs))
    }
}

impl Hinter for ShellHelper {
    type Hint = String;
}
impl Highlighter for ShellHelper {}
impl Validator for ShellHelper {}
impl Helper for ShellHelper {}

/// `?`: remember where the cursor was and accept the line.
struct QuestionMark {
    asked: Arc<AtomicBool>,
    pos: Arc<AtomicUsize>,
}

impl ConditionalEventHandler for QuestionMark {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, ctx: &EventContext<'_>) -> Option<Cmd> {
        self.asked.store(true, Ordering::SeqCst);
        self.pos.store(ctx.pos(), Ordering::SeqCst);
        Some(Cmd::AcceptLine)
    }
}

/// The `?` listing for `line` (text before the cursor).
pub fn help_text(session: &mut Session, line: &str) -> String {
    let (_, partial, all) = at_cursor(session, line);
    let shown = matching(&all, &partial);
    if shown.is_empty() {
        return "  (nothing may come here)\n".into();
    }
    let width = shown.iter().map(|c| c.word.chars().count()).max().unwrap_or(0).max(8);
    let room = crate::show::table::width().saturating_sub(width + 4).max(20);
    let mut out = String::from("Possible completions:\n");
    for c in shown {
        let help = cut(&c.help, room);
        if c.word.is_empty() {
            out += &format!("  {help}\n");
        } else {
            out += &format!("  {:<width$}  {help}\n", c.word);
        }
    }
    out
}

/// `text` in at most `room` characters, ending in "…" when cut (at a word's end if one is near).
fn cut(text: &str, room: usize) -> String {
    if text.chars().count() <= room {
        return text.to_string();
    }
    let kept: String = text.chars().take(room.saturating_sub(1)).collect();
    let at_word = kept.rfind(' ').filter(|i| *i + 15 >= kept.len()).unwrap_or(kept.len());
    format!("{}…", kept[..at_word].trim_end())
}

/// Runs the interactive shell until `exit` or Ctrl-D. Errors of commands are printed and the
/// loop goes on; the return value says whether any command failed.
pub fn run(session: Session) -> Result<bool, String> {
    let session = Rc::new(RefCell::new(session));
    let config = Config::builder()
        .completion_type(CompletionType::List)
        .auto_add_history(false)
        .max_history_size(5000)
        .map_err(|e| e.to_string())?
        .build();
    let mut editor: Editor<ShellHelper, DefaultHistory> =
        Editor::with_config(config).map_err(|e| format!("cannot start line editing: {e}"))?;
    editor.set_helper(Some(ShellHelper { session: Rc::clone(&session) }));
    let asked = Arc::new(AtomicBool::new(false));
    let pos = Arc::new(AtomicUsize::new(0));
    editor.bind_sequence(
        KeyEvent::from('?'),
        EventHandler::Conditional(Box::new(QuestionMark {
            asked: Arc::clone(&asked),
            pos: Arc::clone(&pos),
        })),
    );
    // A confirmed commit's rollback is announced on a line of its own while the prompt waits
    // (rustyline's external printer stops the editor reading keys in a pseudo-terminal); the
    // line being typed stays in the editor.
    session.borrow_mut().confirm.announce_with(Box::new(|m| {
        eprint!("\r\n");
        crate::visible::eprintln(&m);
    }));
    session.borrow_mut().interactive = true;
    let history = crate::paths::history_file();
    let _ = editor.load_history(&history);
    let mut failed = false;
    let mut initial: Option<(String, String)> = None;
    loop {
        crate::terminal::adopt_width();
        let prompt = session.borrow().prompt();
        let read = match initial.take() {
            Some((left, right)) => editor.readline_with_initial(prompt, (&left, &right)),
            None => editor.readline(prompt),
        };
        let line = match read {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => continue,
            // Ctrl-D is `exit`: it leaves configuration mode, and warns the same way.
            Err(ReadlineError::Eof) => "exit".to_string(),
            Err(e) => return Err(format!("line editing failed: {e}")),
        };
        if asked.swap(false, Ordering::SeqCst) {
            let at = pos.load(Ordering::SeqCst).min(line.len());
            let at = (0..=at).rev().find(|i| line.is_char_boundary(*i)).unwrap_or(0);
            crate::visible::print(&help_text(&mut session.borrow_mut(), &line[..at]));
            initial = Some((line[..at].to_string(), line[at..].to_string()));
            continue;
        }
        // Several lines pasted at once (bracketed paste keeps them in one edit) run one by one,
        // as typed; an empty line still runs (and does nothing).
        let mut quit = false;
        for one in pasted_lines(&line) {
            if !one.trim().is_empty() {
                let _ = editor.history_mut().add(one.trim());
                save_history(&mut editor, &history);
            }
            let outcome = session.borrow_mut().execute(one);
            match outcome {
                Ok(Flow::Continue) => {}
                Ok(Flow::Quit) => {
                    quit = true;
                    break;
                }
                Err(e) => {
                    failed = true;
                    crate::visible::println(&format!("error: {e}"));
                }
            }
        }
        if quit {
            break;
        }
    }
    save_history(&mut editor, &history);
    Ok(failed)
}

/// The lines of what the editor returned: one, or each non-blank line of a paste.
fn pasted_lines(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.split(['\n', '\r']).filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        vec![text]
    } else {
        lines
    }
}

fn save_history(editor: &mut Editor<ShellHelper, DefaultHistory>, path: &std::path::Path) {
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = editor.save_history(path);
}

#[cfg(test)]
mod tests {
    use super::{cut, pasted_lines};

    #[test]
    fn a_paste_of_several_lines_runs_each() {
        assert_eq!(pasted_lines("show pfc"), vec!["show pfc"]);
        assert_eq!(pasted_lines(""), vec![""]);
        assert_eq!(
            pasted_lines("set a 1\r\n\nset b 2\n  \nshow | compare\n"),
            vec!["set a 1", "set b 2", "show | compare"]
        );
    }

    #[test]
    fn a_cut_description_ends_in_an_ellipsis() {
        assert_eq!(cut("short", 20), "short");
        let c = cut("The PFC Enable of the port, as it is advertised", 20);
        assert!(c.ends_with('…') && c.chars().count() <= 20, "{c}");
        assert_eq!(c, "The PFC Enable of…");
    }
}
