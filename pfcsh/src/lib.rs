//! pfcsh, the operator's shell for pfcd: operational commands (`show …`, `clear counters`,
//! `request headroom measure`, `monitor`) and a configuration mode on the candidate
//! (`set`, `delete`, `show | compare`, `commit`), over NETCONF with the `netconf-client` crate.
//!
//! Paths, types and help texts come from the YANG modules the server reports (ietf-yang-library
//! and `<get-schema>`, cached per module@revision), so pfcsh knows no leaf by heart: a leaf the
//! server gains is completable and settable at once. Files, one job each:
//!
//! | file | job |
//! | --- | --- |
//! | `cli.rs` | command-line flags and `--help` |
//! | `paths.rs`, `settings.rs` | XDG directories, `config.toml` |
//! | `known_hosts.rs`, `connect.rs` | host-key pinning, credentials, the session |
//! | `schema/` | the server's modules: yang-library, get-schema, cache, libyang context |
//! | `words.rs` | splitting a command line into words (quotes) |
//! | `config_path.rs` | `set`/`delete` words ↔ schema nodes, edit-config XML |
//! | `set_form.rs`, `diff.rs` | configuration as `set` lines, and their diff |
//! | `grammar.rs` | the commands, their words and help |
//! | `values.rs` | the enum and identity values a leaf takes, for Tab and `?` |
//! | `complete.rs` | what may come next at a cursor (Tab and `?`) |
//! | `session.rs` | the session: client, libyang context, mode, format, what completion fetched |
//! | `shell.rs` | runs one command line in operational or configuration mode |
//! | `configure.rs` | configuration mode's commands: set, delete, compare, commits, leaving |
//! | `show/` | the operational tables |
//! | `data.rs` | reply XML → libyang tree → RFC 7951 JSON |
//! | `rpc_error.rs` | an rpc-error as one sentence |
//! | `pipe.rs` | `| match`, `| except`, `| count`, `| no-more`, and the pager |
//! | `private.rs` | `configure private` (edits kept in pfcsh) and `configure exclusive` |
//! | `monitor.rs` | notifications until Ctrl-C |
//! | `confirm.rs` | `commit confirmed`'s time-out and the announcement of its rollback |
//! | `terminal.rs` | the terminal's size |
//! | `repl.rs` | the interactive loop (rustyline, history, `?`) |
//! | `visible.rs` | every character printed that would act on the terminal, escaped |
//! | `run.rs` | start-up: flags, connect, interactive or script |

pub mod cli;
pub mod complete;
pub mod config_path;
pub mod configure;
pub mod confirm;
pub mod connect;
pub mod data;
pub mod diff;
pub mod grammar;
pub mod monitor;
pub mod paths;
pub mod pipe;
pub mod private;
pub mod repl;
pub mod rpc_error;
mod run;
pub mod schema;
pub mod session;
pub mod set_form;
pub mod settings;
pub mod shell;
pub mod show;
pub mod terminal;
pub mod values;
pub mod visible;
pub mod words;

pub use run::{open, run};
