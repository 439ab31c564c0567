//! What `pfcsim scenario` and `pfcsim network` print: their results as JSON, or as a table.

use std::process::ExitCode;

use serde::Serialize;

/// `results` as pretty JSON when `json`, else `table()`; a failure to write the JSON is said.
pub fn results(results: &impl Serialize, json: bool, table: impl FnOnce() -> String) -> ExitCode {
    if !json {
        print!("{}", table());
        return ExitCode::SUCCESS;
    }
    match serde_json::to_string_pretty(results) {
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("pfcsim: cannot write JSON: {e}");
            ExitCode::FAILURE
        }
    }
}
