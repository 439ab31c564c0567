//! `commit confirmed`: the time-out as the operator writes it (minutes as Junos counts them,
//! or `30s`), and a timer that announces the server's rollback when the time-out passes
//! without a confirming `commit`, even while pfcsh waits at the prompt.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Junos's time-out when `commit confirmed` names none.
pub const DEFAULT: Duration = Duration::from_secs(600);

/// Where an announcement is printed (the line editor's printer at a prompt, else stderr).
pub type Announcer = Arc<Mutex<Box<dyn FnMut(String) + Send>>>;

/// `5` (minutes), `5m`, `5min`, `30s`: the time-out, at least one second.
pub fn parse(word: &str) -> Result<Duration, String> {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &word[digits.len()..];
    let n: u64 = digits.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
        format!("commit confirmed takes minutes (`5`) or seconds (`30s`), not `{word}`")
    })?;
    let seconds = match unit {
        "" | "m" | "min" => n.checked_mul(60),
        "s" => Some(n),
        _ => None,
    }
    .filter(|s| *s <= u64::from(u32::MAX))
    .ok_or_else(|| {
        format!("commit confirmed takes minutes (`5`) or seconds (`30s`), not `{word}`")
    })?;
    Ok(Duration::from_secs(seconds))
}

/// `10 min`, `30 s`, `1 min 30 s`.
pub fn label(d: Duration) -> String {
    let s = d.as_secs();
    match (s / 60, s % 60) {
        (0, s) => format!("{s} s"),
        (m, 0) => format!("{m} min"),
        (m, s) => format!("{m} min {s} s"),
    }
}

/// The confirmed commit waiting for its confirmation, if any.
pub struct Pending {
    generation: Arc<AtomicU64>,
    waiting: bool,
    announcer: Announcer,
}

impl Default for Pending {
    fn default() -> Self {
        let stderr: Box<dyn FnMut(String) + Send> = Box::new(|m| crate::visible::eprintln(&m));
        Pending {
            generation: Arc::new(AtomicU64::new(0)),
            waiting: false,
            announcer: Arc::new(Mutex::new(stderr)),
        }
    }
}

impl Pending {
    /// Prints later announcements with `announcer`.
    pub fn announce_with(&mut self, announcer: Box<dyn FnMut(String) + Send>) {
        if let Ok(mut a) = self.announcer.lock() {
            *a = announcer;
        }
    }

    /// A confirmed commit was accepted: announce its rollback after `timeout`.
    pub fn start(&mut self, timeout: Duration) {
        let generation = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
        self.waiting = true;
        let current = Arc::clone(&self.generation);
        let announcer = Arc::clone(&self.announcer);
        std::thread::spawn(move || {
            std::thread::sleep(timeout);
            if current.load(Ordering::SeqCst) == generation {
                if let Ok(mut a) = announcer.lock() {
                    a(format!(
                        "commit confirmed {} ago was not confirmed: pfcd rolled back running \
                         to the configuration before it",
                        label(timeout)
                    ));
                }
            }
        });
    }

    /// A `commit` confirmed it (or a new confirmed commit replaced it): no announcement.
    /// True when one was waiting.
    pub fn confirmed(&mut self) -> bool {
        self.generation.fetch_add(1, Ordering::SeqCst);
        std::mem::take(&mut self.waiting)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minutes_unless_seconds_are_written() {
        assert_eq!(parse("5"), Ok(Duration::from_secs(300)));
        assert_eq!(parse("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse("30s"), Ok(Duration::from_secs(30)));
        assert!(parse("0").is_err());
        assert!(parse("5h").is_err());
        assert!(parse("x").is_err());
        assert_eq!(label(Duration::from_secs(600)), "10 min");
        assert_eq!(label(Duration::from_secs(90)), "1 min 30 s");
    }
}
