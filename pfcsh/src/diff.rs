//! `show | compare`: the candidate's `set` lines against running's, as a unified-style list
//! (`+` only in the candidate, `-` only in running), in the configuration's order.

/// The lines that differ, each prefixed `+ ` or `- `. Lines both have are left out.
pub fn compare(running: &[String], candidate: &[String]) -> Vec<String> {
    // Longest common subsequence over lines: a few thousand lines at most.
    let (n, m) = (running.len(), candidate.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if running[i] == candidate[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < n || j < m {
        if i < n && j < m && running[i] == candidate[j] {
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push(format!("- {}", running[i]));
            i += 1;
        } else {
            out.push(format!("+ {}", candidate[j]));
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn changed_line_shows_as_minus_then_plus_in_place() {
        let running = v(&["set a 1", "set b p3", "set c 2"]);
        let candidate = v(&["set a 1", "set b \"p3 p4\"", "set c 2", "set d 5"]);
        assert_eq!(compare(&running, &candidate), ["- set b p3", "+ set b \"p3 p4\"", "+ set d 5"]);
        assert!(compare(&running, &running).is_empty());
    }
}
