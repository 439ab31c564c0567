//! `pfcsim scenario FILE`: runs a named scenario and prints its table, or JSON, and draws the
//! plot on request. The work is in `pfcsim` (the library).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use pfcsim::{run_file, svg, table};

pub fn run(file: &Path, json: bool, plot: Option<PathBuf>) -> ExitCode {
    let results = match run_file(file) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("pfcsim: {e}");
            return ExitCode::FAILURE;
        }
    };
    if super::print::results(&results, json, || table(&results)) != ExitCode::SUCCESS {
        return ExitCode::FAILURE;
    }
    if let Some(path) = plot {
        let Some(drawing) = svg(&results) else {
            eprintln!(
                "pfcsim: nothing to plot: set plot_interval_ns in the scenario's [run] section"
            );
            return ExitCode::FAILURE;
        };
        if let Err(e) = std::fs::write(&path, drawing) {
            eprintln!("pfcsim: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        eprintln!("plot written to {}", path.display());
    }
    ExitCode::SUCCESS
}
