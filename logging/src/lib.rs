//! Logs of pfcd's programs: tracing on stderr, filtered by `RUST_LOG` (default `info`), and
//! the words every program uses for the same events ([`lldp`], [`link`]); what a peer or a
//! frame can cause is rate-limited per port and kind ([`limit`]).

pub mod limit;
pub mod link;
pub mod lldp;

/// Installs the subscriber; call once, first thing in `main`. Colours only on a terminal: a
/// log written to a file or a journal stays plain text.
pub fn init() {
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt()
        .with_ansi(terminal)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
}
