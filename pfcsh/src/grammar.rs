//! The command words of both modes and their help, as a tree that completion and `?` walk.
//! What a command does is in `shell.rs`; the words here must name the same commands.

/// What may follow a word.
#[derive(Debug, Clone, Copy)]
pub enum Then {
    /// The command is complete (Enter runs it).
    End,
    /// One of these words (`complete`: the command is also complete without one).
    Words { words: &'static [Word], complete: bool },
    /// A port name, then `after` (`optional`: the port may be left out).
    Port { optional: bool, after: &'static [Word] },
    /// A configuration path (and, for `set`/`delete`, a value), from the schema.
    Path { value: bool },
    /// A number of seconds.
    Seconds,
}

/// One command word.
#[derive(Debug, Clone, Copy)]
pub struct Word {
    pub word: &'static str,
    pub help: &'static str,
    pub then: Then,
}

const fn w(word: &'static str, help: &'static str, then: Then) -> Word {
    Word { word, help, then }
}

const fn words(words: &'static [Word]) -> Then {
    Then::Words { words, complete: false }
}

const OPT_PORT: Then = Then::Port { optional: true, after: &[] };

const DETAIL: &[Word] = &[w("detail", "every field each neighbour sent", Then::End)];

/// What `show` shows of the state, the same in both modes.
const SHOW_INTERFACES: Word = w(
    "interfaces",
    "interface state",
    words(&[w(
        "pfc",
        "PFC per port: enabled and paused priorities, requests, allowance in force",
        Then::Port { optional: true, after: PFC_AFTER },
    )]),
);

/// What may follow `show interfaces pfc`: `counters [PORT]`, or `PORT detail`.
const PFC_AFTER: &[Word] = &[
    w(
        "counters",
        "PFC frames sent and received with rates, XOFF/XON, drops per priority",
        OPT_PORT,
    ),
    w("detail", "every buffer threshold and counter of the port, in units", Then::End),
];

/// `show pfc watchdog [PORT]`.
const SHOW_PFC: Word = w(
    "pfc",
    "PFC",
    words(&[w("watchdog", "the PFC watchdog: storms detected, restorations, drops", OPT_PORT)]),
);
const SHOW_HEADROOM: Word =
    w("headroom", "headroom: method, itemised calculation, measurements and history", OPT_PORT);
const SHOW_DCBX: Word =
    w("dcbx", "DCBX: admin, peer and operational PFC enable, misconfiguration", OPT_PORT);
const SHOW_LLDP: Word = w(
    "lldp",
    "LLDP",
    words(&[w(
        "neighbors",
        "LLDP neighbours per port",
        Then::Port { optional: true, after: DETAIL },
    )]),
);
const SHOW_PIPELINE: Word =
    w("pipeline", "transmit pipeline: Pause FSM state, FIFO depths, pause reaction", Then::End);
const SHOW_COUNTERS: Word = w("counters", "pause, PFC, drop and LLDP counters per port", OPT_PORT);

const SHOW: &[Word] = &[
    SHOW_INTERFACES,
    SHOW_PFC,
    SHOW_HEADROOM,
    SHOW_DCBX,
    SHOW_LLDP,
    SHOW_PIPELINE,
    SHOW_COUNTERS,
    w(
        "configuration",
        "the configuration as set lines (a path narrows it)",
        Then::Path { value: false },
    ),
];

const SHOW_CONFIG: &[Word] = &[
    SHOW_INTERFACES,
    SHOW_PFC,
    SHOW_HEADROOM,
    SHOW_DCBX,
    SHOW_LLDP,
    SHOW_PIPELINE,
    SHOW_COUNTERS,
    w(
        "configuration",
        "the candidate as set lines (a path narrows it)",
        Then::Path { value: false },
    ),
    w(
        "|",
        "pipe",
        words(&[w("compare", "the candidate against running, as +/- set lines", Then::End)]),
    ),
];

/// `clear counters [PORT]`, in both modes.
const CLEAR: Word = w(
    "clear",
    "clear",
    words(&[w("counters", "clear PFC counters (every port without one)", OPT_PORT)]),
);

/// `request headroom measure PORT`, in both modes.
const REQUEST: Word = w(
    "request",
    "request an action",
    words(&[w(
        "headroom",
        "headroom",
        words(&[w(
            "measure",
            "measure a port's headroom again",
            Then::Port { optional: false, after: &[] },
        )]),
    )]),
);

/// Operational mode.
pub const OPERATIONAL: &[Word] = &[
    w("show", "show state or configuration", words(SHOW)),
    CLEAR,
    REQUEST,
    w("monitor", "print notifications as they come, until Ctrl-C", Then::End),
    w(
        "configure",
        "enter configuration mode (edits the shared candidate)",
        Then::Words {
            words: &[
                w("private", "edits of your own, applied at commit under a lock", Then::End),
                w("exclusive", "lock the candidate while you configure", Then::End),
            ],
            complete: true,
        },
    ),
    w("help", "the commands and the path syntax", Then::End),
    w("exit", "leave pfcsh", Then::End),
];

/// Configuration mode.
pub const CONFIGURATION: &[Word] = &[
    w("set", "set a value: set PATH VALUE", Then::Path { value: true }),
    w("delete", "delete a node: delete PATH", Then::Path { value: true }),
    w("show", "show state, the candidate, or | compare", words(SHOW_CONFIG)),
    w(
        "commit",
        "commit the candidate to running",
        Then::Words {
            words: &[
                w("check", "validate the candidate without committing", Then::End),
                w(
                    "confirmed",
                    "commit, rolled back unless confirmed in N minutes (10; or `30s`)",
                    Then::Seconds,
                ),
                w("and-quit", "commit, then leave configuration mode", Then::End),
            ],
            complete: true,
        },
    ),
    w("rollback", "throw the candidate's changes away", Then::End),
    w("discard", "throw the candidate's changes away", Then::End),
    CLEAR,
    REQUEST,
    w("help", "the commands and the path syntax", Then::End),
    w("exit", "leave configuration mode", Then::End),
];

/// `typed` with every command word written as a unique prefix of one (`sh int pfc`) spelt out,
/// as far as the words are command words (ports, paths and values are left as typed).
pub fn expand(mode: crate::session::Mode, typed: &[String]) -> Result<Vec<String>, String> {
    let mut level: &'static [Word] = match mode {
        crate::session::Mode::Operational => OPERATIONAL,
        crate::session::Mode::Configuration => CONFIGURATION,
    };
    let mut out = Vec::with_capacity(typed.len());
    let mut words = typed.iter();
    for word in words.by_ref() {
        let found: &Word = match level.iter().find(|w| w.word == word) {
            Some(exact) => exact,
            None => {
                let starting: Vec<&'static Word> =
                    level.iter().filter(|w| w.word.starts_with(word.as_str())).collect();
                match starting.as_slice() {
                    [one] => one,
                    [] => {
                        out.push(word.clone());
                        break;
                    }
                    many => {
                        return Err(format!(
                            "`{word}` is ambiguous here: {}",
                            many.iter().map(|w| w.word).collect::<Vec<_>>().join(", ")
                        ))
                    }
                }
            }
        };
        out.push(found.word.to_string());
        match found.then {
            Then::Words { words, .. } => level = words,
            Then::Port { optional: true, after } if !after.is_empty() => {
                // A port, or one of the words that may follow it.
                let rest: Vec<String> = words.cloned().collect();
                out.extend(expand_after_port(after, &rest));
                return Ok(out);
            }
            _ => break,
        }
    }
    out.extend(words.cloned());
    Ok(out)
}

/// The words after an optional port: a word of `after` in its first or second place may be
/// abbreviated (`show lldp neighbors lab0 det`).
fn expand_after_port(after: &[Word], rest: &[String]) -> Vec<String> {
    rest.iter()
        .enumerate()
        .map(|(i, word)| {
            let starting: Vec<&Word> =
                after.iter().filter(|w| w.word.starts_with(word.as_str())).collect();
            match starting.as_slice() {
                [one] if i + 1 == rest.len() && i <= 1 => one.word.to_string(),
                _ => word.clone(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Mode;

    fn expanded(mode: Mode, line: &str) -> Result<String, String> {
        let typed: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        expand(mode, &typed).map(|w| w.join(" "))
    }

    #[test]
    fn unique_prefixes_are_spelt_out() {
        assert_eq!(expanded(Mode::Operational, "sh int pfc").as_deref(), Ok("show interfaces pfc"));
        assert_eq!(
            expanded(Mode::Operational, "sh lldp n lab0 det").as_deref(),
            Ok("show lldp neighbors lab0 detail")
        );
        assert_eq!(
            expanded(Mode::Configuration, "com conf 5").as_deref(),
            Ok("commit confirmed 5")
        );
        assert_eq!(
            expanded(Mode::Operational, "sh headroom la").as_deref(),
            Ok("show headroom la")
        );
        assert!(expanded(Mode::Configuration, "s x").is_err(), "set or show: ambiguous");
        assert_eq!(expanded(Mode::Operational, "bogus x").as_deref(), Ok("bogus x"));
    }
}
