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
        OPT_PORT,
    )]),
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
    w("configure", "enter configuration mode (edits the candidate)", Then::End),
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
                    "commit, rolled back unless confirmed within N seconds",
                    Then::Seconds,
                ),
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
