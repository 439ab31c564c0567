//! A network file read, checked, built and run to its results.

use std::path::Path;

use dataplane::time::Picos;

use super::build;
use super::error::NetworkError;
use super::observe::Observer;
use super::results::NetworkResults;
use super::sim::Sim;
use super::spec::NetworkFile;

/// Reads and parses a network file.
pub fn load_network(path: &Path) -> Result<NetworkFile, NetworkError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|source| NetworkError::Read { path: name.clone(), source })?;
    parse_network(&name, &text)
}

/// Parses network text; `name` says where it came from in errors.
pub fn parse_network(name: &str, text: &str) -> Result<NetworkFile, NetworkError> {
    toml::from_str(text)
        .map_err(|e| NetworkError::Parse { path: name.to_string(), message: e.to_string() })
}

/// Runs a network.
pub fn run_network(file: &NetworkFile) -> Result<NetworkResults, NetworkError> {
    let topo = build::build(file)?;
    let duration = Picos::from_us(file.run.duration_us);
    let window = Picos::from_us(file.run.window_us);
    let sample = Picos::from_us(file.run.sample_us);
    let observer = Observer::new(&topo, Picos::from_us(file.run.deadlock_threshold_us));
    let mut sim = Sim::new(topo, duration, window, sample, observer);
    sim.run();
    Ok(NetworkResults::from_sim(&mut sim, &file.name, &file.description, duration, window))
}

/// Loads and runs a network file.
pub fn run_network_file(path: &Path) -> Result<NetworkResults, NetworkError> {
    run_network(&load_network(path)?)
}
