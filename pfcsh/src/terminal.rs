//! The terminal pfcsh prints on: its size (tables and `?` help use the full width; the pager
//! pages by its height), and whether there is one at all.

use std::io::IsTerminal as _;

/// Columns and rows of the terminal on stdout; `None` when stdout is not a terminal or it
/// reports no size. `$COLUMNS` and `$LINES` stand in for a terminal that reports none.
pub fn size() -> Option<(usize, usize)> {
    let stdout = std::io::stdout();
    if !stdout.is_terminal() {
        return None;
    }
    let reported = rustix::termios::tcgetwinsize(&stdout)
        .ok()
        .filter(|w| w.ws_col > 0 && w.ws_row > 0)
        .map(|w| (usize::from(w.ws_col), usize::from(w.ws_row)));
    reported.or_else(|| {
        let env = |name| std::env::var(name).ok()?.parse::<usize>().ok().filter(|n| *n > 0);
        Some((env("COLUMNS")?, env("LINES")?))
    })
}

/// Takes the terminal's width for tables and help (80 columns without a terminal).
pub fn adopt_width() {
    if let Some((columns, _)) = size() {
        crate::show::table::set_width(columns);
    }
}
