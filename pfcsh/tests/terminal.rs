//! pfcsh at a terminal against a live lab, where an operator meets it: `monitor` twice in one
//! session, a warning before leaving uncommitted changes, a confirmed commit's rollback
//! announced, `?` help cut with "…" and the terminal's full width used.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::{Home, Lab};
use rexpect::session::{spawn_command, PtySession};

const IDLE: &str = "[lab]\ntraffic = false\n";

/// pfcsh in a pseudo-terminal of `cols` × `rows`, at its first prompt.
fn shell_sized(home: &Home, lab: &Lab, cols: u16, rows: u16) -> PtySession {
    shell_waiting(home, lab, cols, rows, Duration::from_secs(30))
}

/// The same, each expectation waiting at most `wait`.
fn shell_waiting(home: &Home, lab: &Lab, cols: u16, rows: u16, wait: Duration) -> PtySession {
    let inner = home.pfcsh(lab.port, &lab.password_file);
    let mut c = Command::new("sh");
    c.arg("-c").arg(format!("stty cols {cols} rows {rows}; exec \"$0\" \"$@\""));
    c.arg(inner.get_program()).args(inner.get_args());
    for (k, v) in inner.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    let mut p = spawn_command(c, Some(wait.as_millis() as u64)).expect("pty");
    p.exp_string("pfcsh> ").expect("the first prompt");
    p
}

/// What rexpect read (each octet as one char) as the UTF-8 text pfcsh wrote.
fn utf8(read: &str) -> String {
    let octets: Vec<u8> = read.chars().map(|c| c as u32 as u8).collect();
    String::from_utf8_lossy(&octets).into_owned()
}

fn keys(p: &mut PtySession, text: &str) {
    p.send(text).expect("send");
    p.flush().expect("flush");
}

#[test]
fn monitor_runs_again_after_ctrl_c() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    let mut p = shell_sized(&home, &lab, 80, 24);
    for _ in 0..2 {
        p.send_line("monitor").expect("send");
        p.exp_string("monitoring notifications").expect("monitoring");
        keys(&mut p, "\x03");
        p.exp_string("pfcsh> ").expect("back at the prompt");
    }
    p.send_line("exit").expect("send");
    p.exp_eof().expect("ends");
}

#[test]
fn leaving_with_uncommitted_changes_warns_first() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    let mut p = shell_sized(&home, &lab, 80, 24);
    p.send_line("configure").expect("send");
    p.exp_string("pfcsh# ").expect("configuration mode");
    p.send_line("set interfaces interface lab0 description pending").expect("send");
    p.exp_string("pfcsh# ").expect("prompt");
    p.send_line("exit").expect("send");
    p.exp_string("uncommitted changes").expect("warned");
    p.exp_string("pfcsh# ").expect("still in configuration mode");
    // After another command, Ctrl-D warns the same way.
    p.send_line("show | compare").expect("send");
    p.exp_string("+ set interfaces interface lab0 description pending").expect("the change");
    p.exp_string("pfcsh# ").expect("prompt");
    keys(&mut p, "\x04");
    p.exp_string("uncommitted changes").expect("warned on Ctrl-D");
    p.exp_string("pfcsh# ").expect("still in configuration mode");
    p.send_line("exit").expect("send");
    p.exp_string("pfcsh> ").expect("a second exit leaves");
    // Leaving pfcsh warns too: the changes are still in the shared candidate.
    p.send_line("exit").expect("send");
    p.exp_string("uncommitted changes you made").expect("warned before leaving pfcsh");
    p.exp_string("pfcsh> ").expect("still in pfcsh");
    p.send_line("exit").expect("send");
    p.exp_eof().expect("a second exit ends pfcsh");
}

#[test]
fn a_confirmed_commit_not_confirmed_is_announced_when_rolled_back() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    let mut p = shell_sized(&home, &lab, 80, 24);
    p.send_line("configure").expect("send");
    p.exp_string("pfcsh# ").expect("configuration mode");
    p.send_line("set interfaces interface lab0 description trial").expect("send");
    p.exp_string("pfcsh# ").expect("prompt");
    p.send_line("commit confirmed 3s").expect("send");
    p.exp_string("rolled back in 3 s").expect("committed");
    p.exp_string("pfcsh# ").expect("prompt");
    // Nothing typed: the announcement comes by itself.
    p.exp_string("rolled back").expect("the rollback announced");
    p.send_line("exit").expect("send");
    p.exp_string("pfcsh> ").expect("prompt");
    p.send_line("exit").expect("send");
    p.exp_eof().expect("ends");
}

/// `commit confirmed 1` is a minute, as on Junos: nothing is rolled back before it, and the
/// rollback is announced at the prompt when it comes, and running no longer has the change.
#[test]
fn commit_confirmed_1_is_a_minute_and_its_rollback_is_announced() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    let mut p = shell_waiting(&home, &lab, 80, 24, Duration::from_secs(120));
    p.send_line("configure").expect("send");
    p.exp_string("pfcsh# ").expect("configuration mode");
    p.send_line("set interfaces interface lab0 description for-a-minute").expect("send");
    p.exp_string("pfcsh# ").expect("prompt");
    let committed = Instant::now();
    p.send_line("commit confirmed 1").expect("send");
    p.exp_string("rolled back in 1 min").expect("committed for a minute");
    p.exp_string("pfcsh# ").expect("prompt");
    p.exp_string("rolled back").expect("the rollback announced");
    let after = committed.elapsed();
    assert!(after >= Duration::from_secs(59), "rolled back after {after:?}, before the minute");
    p.send_line("exit").expect("send");
    p.exp_string("pfcsh> ").expect("prompt");
    p.send_line("show configuration interfaces interface lab0").expect("send");
    let shown = utf8(&p.exp_string("pfcsh> ").expect("the configuration, then the prompt"));
    assert!(!shown.contains("for-a-minute"), "running has no trace of it:\n{shown}");
    p.send_line("exit").expect("send");
    p.exp_eof().expect("ends");
}

#[test]
fn help_uses_the_terminal_width_and_marks_what_it_cuts() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    let mut p = shell_sized(&home, &lab, 200, 24);
    p.send_line("configure").expect("send");
    p.exp_string("pfcsh# ").expect("configuration mode");
    keys(&mut p, "set interfaces interface lab0 bridge-port pfc ?");
    p.exp_string("Possible completions:").expect("help");
    let help = utf8(&p.exp_string("pfcsh# ").expect("help, then the prompt"));
    let longest = help.lines().map(|l| l.trim_end().chars().count()).max().unwrap_or(0);
    assert!(longest > 100, "help fills a 200-column terminal, longest line {longest}:\n{help}");
    assert!(help.lines().all(|l| l.trim_end().chars().count() <= 200), "{help}");
    keys(&mut p, "\x15exit\r");
    p.exp_string("pfcsh> ").expect("prompt");

    let mut p = shell_sized(&home, &lab, 60, 24);
    keys(&mut p, "show ?");
    p.exp_string("Possible completions:").expect("help");
    let help = utf8(&p.exp_string("pfcsh> ").expect("help, then the prompt"));
    assert!(help.lines().all(|l| l.trim_end().chars().count() <= 60), "{help}");
    assert!(help.contains('…'), "a cut description ends in …:\n{help}");
}

/// The operator's way round long output on a 64-port lab in a 24-row terminal: abbreviations,
/// a pager, `| match`, `| count` and `| no-more`.
#[test]
fn abbreviations_pipes_and_the_pager() {
    let lab = Lab::start("[lab]\nports = 64\ntraffic = false\n");
    let home = Home::new();
    let mut p = shell_sized(&home, &lab, 100, 24);
    p.send_line("sh int pfc").expect("send");
    let first_page = utf8(&p.exp_string("--More--").expect("a pager on 65 lines"));
    assert!(first_page.contains("lab0 "), "{first_page}");
    assert!(!first_page.contains("lab40 "), "one page only:\n{first_page}");
    keys(&mut p, " ");
    p.exp_string("lab40 ").expect("the next page");
    keys(&mut p, "q");
    p.exp_string("pfcsh> ").expect("q stops the output");

    p.send_line("show interfaces pfc | match lab2").expect("send");
    let matched = utf8(&p.exp_string("pfcsh> ").expect("prompt"));
    let ports: Vec<&str> = matched
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.starts_with("lab"))
        .collect();
    assert_eq!(ports.len(), 11, "lab2 and lab20-lab29:\n{matched}");
    p.send_line("show interfaces pfc counters | match lab2").expect("send");
    let matched = utf8(&p.exp_string("pfcsh> ").expect("prompt"));
    assert!(matched.lines().any(|l| l.starts_with("lab2 ")), "{matched}");
    assert!(!matched.lines().any(|l| l.starts_with("lab1 ")), "{matched}");
    p.send_line("show interfaces pfc | count").expect("send");
    p.exp_string("Count: 65 lines").expect("the header and 64 ports");
    p.exp_string("pfcsh> ").expect("prompt");
    p.send_line("show interfaces pfc | no-more").expect("send");
    let all = utf8(&p.exp_string("lab63 ").expect("the last port without a pause"));
    assert!(!all.contains("--More--"), "no pager:\n{all}");
    p.exp_string("pfcsh> ").expect("prompt");
    p.send_line("exit").expect("send");
    p.exp_eof().expect("ends");
}

/// Two operators in `configure private` at once: neither sees the other's edit, each commits
/// only their own; `configure exclusive` keeps a third from committing meanwhile.
#[test]
fn private_candidates_do_not_see_each_other_and_exclusive_locks() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    let mut a = shell_sized(&home, &lab, 120, 24);
    let mut b = shell_sized(&home, &lab, 120, 24);
    for (p, text) in [(&mut a, "from-a"), (&mut b, "from-b")] {
        p.send_line("configure private").expect("send");
        p.exp_string("(private)# ").expect("private configuration mode");
        let port = if text == "from-a" { "lab0" } else { "lab1" };
        p.send_line(&format!("set interfaces interface {port} description {text}")).expect("send");
        p.exp_string("(private)# ").expect("prompt");
    }
    b.send_line("show | compare").expect("send");
    let seen = b.exp_string("(private)# ").expect("B's comparison");
    assert!(seen.contains("+ set interfaces interface lab1 description from-b"), "{seen}");
    assert!(!seen.contains("from-a"), "B does not see A's edit:\n{seen}");
    a.send_line("commit").expect("send");
    a.exp_string("commit complete").expect("A commits");
    a.exp_string("(private)# ").expect("prompt");
    b.send_line("show | compare").expect("send");
    let seen = b.exp_string("(private)# ").expect("B's comparison");
    assert!(seen.contains("from-b") && !seen.contains("from-a"), "{seen}");
    b.send_line("commit").expect("send");
    b.exp_string("commit complete").expect("B commits");
    b.exp_string("(private)# ").expect("prompt");
    a.send_line("show configuration interfaces interface lab0 description").expect("send");
    a.exp_string("description from-a").expect("A's edit in running");
    a.send_line("show configuration interfaces interface lab1 description").expect("send");
    a.exp_string("description from-b").expect("B's edit in running");
    a.send_line("exit").expect("send");
    a.exp_string("pfcsh> ").expect("A leaves");

    // A holds the lock; B's private commit is refused meanwhile, and goes through after.
    a.send_line("configure exclusive").expect("send");
    a.exp_string("(exclusive)# ").expect("exclusive configuration mode");
    b.send_line("set interfaces interface lab1 description again").expect("send");
    b.exp_string("(private)# ").expect("prompt");
    b.send_line("commit").expect("send");
    b.exp_string("locked").expect("refused while A holds the lock");
    b.exp_string("(private)# ").expect("prompt");
    a.send_line("exit").expect("send");
    a.exp_string("pfcsh> ").expect("A leaves and unlocks");
    b.send_line("commit").expect("send");
    b.exp_string("commit complete").expect("B commits after");
    for p in [&mut a, &mut b] {
        p.send_line("exit").expect("send");
    }
}

/// A priority set's values are offered by `?` and completed by Tab.
#[test]
fn bits_values_are_listed_and_completed() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    let mut p = shell_sized(&home, &lab, 100, 24);
    p.send_line("configure").expect("send");
    p.exp_string("pfcsh# ").expect("configuration mode");
    keys(&mut p, "set interfaces interface lab0 bridge-port pfc pfc-enable ?");
    p.exp_string("Possible completions:").expect("help");
    let help = utf8(&p.exp_string("pfcsh# ").expect("prompt"));
    for bit in ["p0", "p3", "p7"] {
        assert!(help.lines().any(|l| l.trim_start().starts_with(bit)), "{bit} listed:\n{help}");
    }
    // A first Tab on an ambiguous word rings; the second lists.
    keys(&mut p, "p\t\t");
    p.exp_string("p5").expect("Tab lists the bits");
    keys(&mut p, "3 p4\r");
    // Accepted (rustyline turns bracketed paste off), then the prompt: a prompt alone could
    // be the redraw after the listing.
    p.exp_string("\x1b[?2004l").expect("accepted");
    p.exp_string("pfcsh# ").expect("prompt");
    p.send_line("show | compare").expect("send");
    p.exp_string("pfc-enable \"p3 p4\"").expect("the completed value set");
}

/// Enumerations and identities: `?` lists their values, Tab completes them.
#[test]
fn enum_and_identity_values_are_listed_and_completed() {
    let lab = Lab::start(IDLE);
    let home = Home::new();
    let mut p = shell_sized(&home, &lab, 100, 24);
    p.send_line("configure").expect("send");
    p.exp_string("pfcsh# ").expect("configuration mode");
    keys(&mut p, "set interfaces interface lab2 bridge-port pfc headroom method ?");
    p.exp_string("Possible completions:").expect("help");
    let help = utf8(&p.exp_string("pfcsh# ").expect("prompt"));
    for value in ["manual", "link-delay", "measurement", "link-delay-and-measurement"] {
        assert!(
            help.lines().any(|l| l.split_whitespace().next() == Some(value)),
            "identity {value} listed:\n{help}"
        );
    }
    keys(&mut p, "\x15set pipeline mode ?");
    p.exp_string("Possible completions:").expect("help");
    let help = utf8(&p.exp_string("pfcsh# ").expect("prompt"));
    assert!(help.lines().any(|l| l.trim_start().starts_with("external")), "enum listed:\n{help}");
    keys(&mut p, "ext\t\r");
    p.exp_string("\x1b[?2004l").expect("accepted");
    p.exp_string("pfcsh# ").expect("prompt");
    p.send_line("show | compare").expect("send");
    p.exp_string("+ set pipeline mode external").expect("Tab completed the enum");
}
