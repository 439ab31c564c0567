//! Plain text tables that fit the terminal (80 columns when there is none): columns as wide as
//! their widest cell, numbers right-aligned, and the last column cut short, ending in "…", when
//! the row would pass the width.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Column alignment.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A table being filled.
pub struct Table {
    headers: Vec<(&'static str, Align)>,
    rows: Vec<Vec<String>>,
}

/// The width without a terminal to measure.
pub const DEFAULT_WIDTH: usize = 80;

static WIDTH: AtomicUsize = AtomicUsize::new(DEFAULT_WIDTH);

/// The widest line a table (or `?` help) prints.
pub fn width() -> usize {
    WIDTH.load(Ordering::Relaxed)
}

/// Sets the width to the terminal's (at least 40 columns, so that tables stay tables).
pub fn set_width(columns: usize) {
    WIDTH.store(columns.max(40), Ordering::Relaxed);
}

impl Table {
    pub fn new(headers: &[(&'static str, Align)]) -> Table {
        Table { headers: headers.to_vec(), rows: Vec::new() }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub fn render(&self) -> String {
        let n = self.headers.len();
        let mut widths: Vec<usize> = self.headers.iter().map(|(h, _)| h.chars().count()).collect();
        for r in &self.rows {
            for (i, c) in r.iter().enumerate().take(n) {
                widths[i] = widths[i].max(c.chars().count());
            }
        }
        // Give the last column what is left of the width (at least 8).
        let used: usize = widths[..n - 1].iter().sum::<usize>() + 2 * (n - 1);
        widths[n - 1] = widths[n - 1].min(width().saturating_sub(used).max(8));
        let mut out = String::new();
        let header: Vec<String> = self.headers.iter().map(|(h, _)| h.to_string()).collect();
        for cells in std::iter::once(&header).chain(&self.rows) {
            let mut line = String::new();
            #[allow(clippy::needless_range_loop)] // widths, cells and headers side by side
            for i in 0..n {
                let cell = cells.get(i).map(String::as_str).unwrap_or("");
                let cell: String = if cell.chars().count() > widths[i] {
                    cell.chars().take(widths[i].saturating_sub(1)).chain(['…']).collect()
                } else {
                    cell.to_string()
                };
                let pad = widths[i] - cell.chars().count();
                if i > 0 {
                    line.push_str("  ");
                }
                match self.headers[i].1 {
                    Align::Right => {
                        line.push_str(&" ".repeat(pad));
                        line.push_str(&cell);
                    }
                    Align::Left => {
                        line.push_str(&cell);
                        if i + 1 < n {
                            line.push_str(&" ".repeat(pad));
                        }
                    }
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

/// `key: value` lines, keys padded to one width.
pub fn pairs(items: &[(&str, String)]) -> String {
    let w = items.iter().map(|(k, _)| k.chars().count()).max().unwrap_or(0);
    items.iter().map(|(k, v)| format!("  {k:<w$}  {v}\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_fit_80_columns_and_numbers_align_right() {
        let mut t =
            Table::new(&[("PORT", Align::Left), ("N", Align::Right), ("TEXT", Align::Left)]);
        t.row(vec!["lab0".into(), "5".into(), "x".repeat(200)]);
        t.row(vec!["lab10".into(), "12345".into(), "short".into()]);
        let s = t.render();
        assert!(s.lines().all(|l| l.chars().count() <= DEFAULT_WIDTH), "{s}");
        assert!(s.contains("lab0       5  x"), "{s}");
        assert!(s.contains("lab10  12345  short"), "{s}");
    }
}
