//! What pfcsh prints, made safe for the terminal. The server's data (an LLDP peer's system
//! name, say), its error messages and its schema's descriptions can hold any character, and a
//! control character written raw is a command to the terminal: ESC starts a sequence that can
//! move the cursor, retitle the window or rewrite what the screen shows, BEL rings, CR writes
//! over the line, the bidirectional controls reorder it. Everything pfcsh prints goes through
//! [`visible`]: line feeds are kept (they are the output's lines), every other C0 control, DEL
//! and C1 control is written as `\xHH` (its code point) and every bidirectional control, line
//! or paragraph separator and byte order mark as `\uHHHH`: the notation pfcd's LLDP state
//! already uses for text from the wire, which therefore passes unchanged.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::Write as _;

/// `text` with every character that would act on the terminal written as a visible escape.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(acts_on_terminal) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if !acts_on_terminal(c) => out.push(c),
            '\u{0}'..='\u{9f}' => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
        }
    }
    Cow::Owned(out)
}

fn acts_on_terminal(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{9}'
            | '\u{b}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{061c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{feff}'
    )
}

/// Prints `text` on stdout, made visible, as it is (no line feed added).
pub fn print(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(visible(text).as_bytes());
    let _ = out.flush();
}

/// Prints `text` and a line feed on stdout, made visible.
pub fn println(text: &str) {
    print(&format!("{text}\n"));
}

/// Prints `text` and a line feed on stderr, made visible.
pub fn eprintln(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(visible(&format!("{text}\n")).as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_controls_are_escaped_and_lines_kept() {
        assert_eq!(visible("sw\u{1b}]0;owned\u{7}\u{0}\r\n"), "sw\\x1b]0;owned\\x07\\x00\\x0d\n");
        assert_eq!(visible("\t\u{7f}\u{9b}2J"), "\\x09\\x7f\\x9b2J");
        assert_eq!(visible("\u{202e}gpj.exe"), "\\u202egpj.exe");
    }

    #[test]
    fn printable_text_and_the_servers_escapes_pass_unchanged() {
        for t in ["core-sw1  p3 p4\n", "Ünïcödé スイッチ │ ─", "sw\\x1b[31m \\\\ \\u202e"]
        {
            assert!(matches!(visible(t), Cow::Borrowed(_)), "{t}");
        }
    }
}
