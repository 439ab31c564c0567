//! `pfcsim network FILE`: runs a network of bridges and hosts and prints its table, or JSON.
//! The work is in `pfcsim::network` (the library).

use std::path::Path;
use std::process::ExitCode;

use pfcsim::network::table;
use pfcsim::run_network_file;

pub fn run(file: &Path, json: bool) -> ExitCode {
    let results = match run_network_file(file) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("pfcsim: {e}");
            return ExitCode::FAILURE;
        }
    };
    if json {
        match serde_json::to_string_pretty(&results) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("pfcsim: cannot write JSON: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        print!("{}", table(&results));
    }
    ExitCode::SUCCESS
}
