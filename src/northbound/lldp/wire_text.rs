//! Text a peer sent (system name and description, port description, textual chassis and port
//! IDs), made safe at the northbound boundary for every client that shows or parses it.
//!
//! A peer may put any octet in these TLVs. Raw, a NUL makes libyang refuse the data, an ESC or
//! another C0 control is not a character XML 1.0 allows (lxml refuses the reply), and on the
//! operator's terminal ESC, BEL, the C1 controls and the bidirectional controls rewrite what
//! the screen shows. So they are written as visible escapes, in the notation C, Python and
//! Rust read: `\t`, `\n`, `\r`; `\xHH` for the other C0 controls, DEL and the C1 controls
//! (the code point, U+0000 to U+009F); `\uHHHH` for the bidirectional controls, the line and
//! paragraph separators, the byte order mark and the noncharacters U+FFFE and U+FFFF; a
//! backslash is doubled, so that a peer cannot forge an escape. Octets that are not UTF-8 are
//! U+FFFD, as before. The YANG leaves hold at most 255 characters: longer after escaping, the
//! text is cut after the last whole escape that fits and ends with `…`.

use std::fmt::Write as _;

/// What the LLDP model's text leaves hold at most (`length "0..255"`, `1..255` for IDs).
pub const MAX_CHARS: usize = 255;

/// `text` with every character a client must not get raw escaped, cut to [`MAX_CHARS`].
pub fn wire_text(text: &str) -> String {
    escaped(text, MAX_CHARS)
}

/// `text` escaped, cut to `max_chars` characters.
pub fn escaped(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = 0;
    let mut piece = String::new();
    for (i, c) in text.char_indices() {
        piece.clear();
        escape_char(c, &mut piece);
        let len = piece.chars().count();
        // Room for this piece, and for `…` too unless it is the last.
        let last = i + c.len_utf8() == text.len();
        let needed = if last { len } else { len + 1 };
        if chars + needed > max_chars {
            out.push('…');
            return out;
        }
        out.push_str(&piece);
        chars += len;
    }
    out
}

fn escape_char(c: char, out: &mut String) {
    match c {
        '\\' => out.push_str("\\\\"),
        '\t' => out.push_str("\\t"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        }
        c if hidden(c) => {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        }
        c => out.push(c),
    }
}

/// Characters that are not controls but change or hide what a screen shows, or that XML does
/// not allow: the bidirectional controls (Unicode UAX #9: ALM, LRM, RLM, LRE to RLO, LRI to
/// PDI), the line and paragraph separators, the byte order mark, U+FFFE and U+FFFF.
fn hidden(c: char) -> bool {
    matches!(
        c,
        '\u{061c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{feff}'
            | '\u{fffe}'
            | '\u{ffff}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_written_as_visible_escapes() {
        assert_eq!(wire_text("sw\u{1b}[31m\u{7}\u{0}"), "sw\\x1b[31m\\x07\\x00");
        assert_eq!(wire_text("a\tb\nc\rd\u{7f}\u{9b}"), "a\\tb\\nc\\rd\\x7f\\x9b");
        assert_eq!(wire_text("\u{202e}txt.exe\u{2066}"), "\\u202etxt.exe\\u2066");
        assert_eq!(wire_text("\u{feff}\u{fffe}\u{2028}"), "\\ufeff\\ufffe\\u2028");
    }

    #[test]
    fn a_backslash_is_doubled_so_that_no_escape_can_be_forged() {
        assert_eq!(wire_text("C:\\x1b"), "C:\\\\x1b");
    }

    #[test]
    fn printable_text_in_any_script_is_kept() {
        for t in ["core-sw1.example", "Ünïcödé スイッチ", "مرحبا", "", "a b\"<&>'"] {
            assert_eq!(wire_text(t), t);
        }
    }

    #[test]
    fn text_longer_than_the_leaf_after_escaping_is_cut_at_a_whole_escape() {
        let cut = wire_text(&"\u{1b}".repeat(255));
        assert_eq!(cut.chars().count(), 253, "{cut}");
        assert!(cut.ends_with("\\x1b…"), "{cut}");
        assert_eq!(escaped("abcdef", 4), "abc…");
        assert_eq!(escaped("abcd", 4), "abcd", "exactly the limit");
        assert_eq!(escaped("ab\u{1b}", 5), "ab…", "an escape is never split");
        let full = "x".repeat(255);
        assert_eq!(wire_text(&full), full);
    }
}
