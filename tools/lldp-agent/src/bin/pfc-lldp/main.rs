//! pfc-lldp: the LLDP agent with DCBX and the P802.1Qdt TLVs on real interfaces.
//!
//! Runs one agent per interface with the settings of a TOML file (and a few command-line
//! shortcuts), logs every neighbour and DCBX change, and writes the whole state as JSON to a
//! file after each change, counters at most once a second (and on stdout on SIGUSR1). The run
//! loop is the library's (`pfc_lldp`), which the daemon will use too; this tool is how
//! tests, benchmarks and users run it on its own.

use pfc_lldp::{config, run};

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

#[derive(Parser)]
#[command(
    name = "pfc-lldp",
    version,
    about = "LLDP agent with DCBX (ETS, PFC, Application Priority) and the P802.1Qdt TLVs",
    after_help = "Signals: SIGHUP re-reads --config, SIGUSR1 prints the state as JSON on stdout, \
                  SIGTERM/SIGINT send shutdown LLDPDUs and exit. Needs CAP_NET_RAW."
)]
struct Cli {
    /// Settings file (TOML); see README.md.
    #[arg(short, long)]
    config: Option<PathBuf>,
    /// Run on this interface (repeatable), with the file's default settings.
    #[arg(short, long = "interface")]
    interfaces: Vec<String>,
    /// Rewrite this file with the state as JSON after every change (counters: once a second).
    #[arg(short, long)]
    state_file: Option<PathBuf>,
    /// Priorities with PFC enabled, e.g. 3,4 (overrides the file's default).
    #[arg(long, value_delimiter = ',')]
    pfc_enable: Option<Vec<u8>>,
    /// Accept the peer's PFC Enable.
    #[arg(long)]
    willing: bool,
    /// msgTxInterval, seconds.
    #[arg(long)]
    tx_interval: Option<u16>,
    /// msgTxHold.
    #[arg(long)]
    tx_hold: Option<u16>,
}

fn main() -> ExitCode {
    pfc_logging::init();
    let cli = Cli::parse();
    let opts = run::Options {
        config: cli.config,
        overrides: config::Overrides {
            interfaces: cli.interfaces,
            pfc_enable: cli.pfc_enable,
            willing: cli.willing,
            message_tx_interval: cli.tx_interval,
            message_tx_hold_multiplier: cli.tx_hold,
        },
        state_file: cli.state_file,
    };
    match run::run(opts) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pfc-lldp: {e}");
            ExitCode::FAILURE
        }
    }
}
