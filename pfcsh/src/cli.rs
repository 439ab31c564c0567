//! pfcsh's command line, and the syntax its `--help` documents.

use std::path::PathBuf;

use clap::Parser;

/// The text after the options in `--help`: how commands are written.
pub const SYNTAX: &str = "\
OPERATIONAL COMMANDS (every command word may be cut to a unique prefix: sh int pfc)
  show interfaces pfc [PORT]          PFC per port: enabled and paused priorities, PFC frames
                                      sent and received, drops, allowance in force and source
  show interfaces pfc counters [PORT] per priority: PFC TX/RX and their rates since the last
                                      look, XOFF, XON, drops; since when the counters count
  show interfaces pfc PORT detail     buffer thresholds, peak occupancy, counters, in units
  show pfc watchdog [PORT]            the PFC watchdog per port and class: storms, restorations
  show headroom [PORT]                headroom: method, itemised calculation, measurements
  show dcbx [PORT]                    DCBX: admin, peer and operational PFC, misconfiguration
  show lldp neighbors [PORT] [detail] LLDP neighbours (detail: every TLV field)
  show pipeline                       pause mode, external memory (FDs), Pause FSM and FIFOs
  show counters [PORT]                pause, PFC, drop and LLDP counters
  show configuration [PATH]           running (the candidate in configuration mode), as set lines
  clear counters [PORT]               clear-pfc-counters (every port without PORT)
  request headroom measure PORT       measure-headroom
  monitor                             print notifications until Ctrl-C
  configure [private|exclusive]       enter configuration mode: the shared candidate; private:
                                      edits of your own applied at commit; exclusive: locked
  COMMAND | match REGEX | except REGEX | count | no-more
                                      filter the output; output taller than the terminal is
                                      paged (Space, Enter, q) unless | no-more

CONFIGURATION MODE
  set PATH VALUE        PATH is node names from the top, list keys right after the list's
                        name, e.g.  set interfaces interface lab0 bridge-port pfc pfc-enable p3 p4
                        (the value is the rest of the line; quote it to keep spaces literally)
  delete PATH [VALUE]   delete a node (a leaf-list entry: give its value)
  show | compare        the candidate against running, as +/- set lines
  commit                commit (also confirms a pending `commit confirmed`)
  commit check          validate the candidate without committing
  commit confirmed [N]  commit, rolled back after N minutes (10 without N; `30s` for seconds)
                        unless confirmed by `commit`; pfcsh says when it is rolled back
  commit and-quit       commit, then leave configuration mode
  rollback, discard     throw the candidate's changes away (discard-changes)
  exit                  leave configuration mode; with uncommitted changes the first exit
                        warns, the second leaves (Ctrl-D is exit)

Names and types come from the YANG modules the server reports: Tab completes, ? lists what may
come next with its description. A name two modules share at one place is written module:name.

SCRIPTING
  pfcsh -c 'show interfaces pfc'      run commands (repeat -c, or separate them with ; outside
                                      quotes)
  pfcsh -f FILE, or commands on stdin one a line (each run as it arrives); the first command
                                      that fails stops the script (its place is named) and the
                                      exit status is 1
  --json                              one JSON value per command, a line each (JSON Lines): show
                                      commands' data as RFC 7951 JSON, others {\"message\": ...}
  --xml                               every show command's data as NETCONF XML
  --plain                             tables with bare numbers in the model's units (octets,
                                      bits, quanta), ungrouped: a field a cell for awk

FILES
  ~/.config/pfcsh/config.toml   host, port, user, password-file, key (the flags override them)
  ~/.config/pfcsh/known_hosts   pinned host keys: `[host]:port SHA256:<base64>` (as pfcd logs
                                it); on first contact pfcsh shows the fingerprint and asks
                                (--accept-new pins it without asking)
  ~/.local/share/pfcsh/history  interactive history
  ~/.cache/pfcsh/yang/          YANG modules fetched from servers (module@revision.yang)
  ($XDG_CONFIG_HOME, $XDG_DATA_HOME, $XDG_CACHE_HOME are honoured)";

#[derive(Parser, Debug, Clone, Default)]
#[command(
    name = "pfcsh",
    version,
    about = "The operator's shell for pfcd: show, configure and commit over NETCONF/SSH",
    after_help = SYNTAX
)]
pub struct Args {
    /// Server address [default: 127.0.0.1, or config.toml's host]
    #[arg(long)]
    pub host: Option<String>,
    /// Server port [default: 830, or config.toml's port]
    #[arg(long)]
    pub port: Option<u16>,
    /// User name [default: config.toml's user, else $USER]
    #[arg(long)]
    pub user: Option<String>,
    /// Read the password from this file (e.g. pfcd-state/admin.password)
    #[arg(long, value_name = "FILE")]
    pub password_file: Option<PathBuf>,
    /// Log in with this private key (unencrypted, OpenSSH or PEM)
    #[arg(long, value_name = "FILE")]
    pub key: Option<PathBuf>,
    /// Run this command line and exit (repeatable)
    #[arg(short = 'c', long = "command", value_name = "COMMAND")]
    pub commands: Vec<String>,
    /// Run the commands in FILE, one a line, and exit
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// One JSON value per command, a line each (JSON Lines; data as RFC 7951 JSON)
    #[arg(long, conflicts_with = "xml")]
    pub json: bool,
    /// Show commands print the NETCONF XML data
    #[arg(long)]
    pub xml: bool,
    /// Tables with bare, ungrouped numbers in the model's units (octets, bits, quanta): one
    /// field a cell, for awk
    #[arg(long, conflicts_with_all = ["json", "xml"])]
    pub plain: bool,
    /// Seconds to wait for the server before giving up
    #[arg(long, default_value_t = 30)]
    pub timeout: u64,
    /// Pin a server's host key on first contact without asking (needed when no terminal
    /// can ask: scripts). Compare the fingerprint pfcsh prints with the one pfcd logged
    #[arg(long)]
    pub accept_new: bool,
}
