//! `pfcsim network FILE`: runs a network of bridges and hosts and prints its table, or JSON,
//! and draws it to an SVG file. The work is in `pfcsim::network` (the library).

use std::path::Path;
use std::process::ExitCode;

use pfcsim::network::{load_network, network_svg, run_network, table};

pub fn run(file: &Path, json: bool, svg: Option<&Path>) -> ExitCode {
    let results = match load_network(file).and_then(|f| Ok((run_network(&f)?, f))) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("pfcsim: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (results, network) = results;
    if let Some(path) = svg {
        if let Err(e) = std::fs::write(path, network_svg(&network, &results)) {
            eprintln!("pfcsim: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    super::print::results(&results, json, || table(&results))
}
