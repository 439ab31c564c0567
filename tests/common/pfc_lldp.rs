//! Runs the `pfc-lldp` binary in a namespace and reads the state it writes.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use super::netns::{pfc_lldp, wait_for, Daemon, Netns};
use super::Scratch;

pub struct Agent {
    pub daemon: Daemon,
    pub state_file: PathBuf,
    pub config_file: PathBuf,
    pub log_file: PathBuf,
}

impl Agent {
    /// Starts pfc-lldp in `ns` with this TOML settings file; files go to `scratch` under `tag`.
    pub fn start(ns: &Netns, scratch: &Scratch, tag: &str, config: &str) -> Agent {
        let config_file = scratch.path(&format!("{tag}.toml"));
        let state_file = scratch.path(&format!("{tag}.json"));
        let log_file = scratch.path(&format!("{tag}.log"));
        std::fs::write(&config_file, config).expect("write settings");
        let mut cmd: Command = ns.command(pfc_lldp());
        cmd.arg("--config").arg(&config_file).arg("--state-file").arg(&state_file);
        cmd.env("RUST_LOG", "debug");
        let daemon = Daemon::spawn("pfc-lldp", cmd, &log_file);
        let agent = Agent { daemon, state_file, config_file, log_file };
        wait_for(Duration::from_secs(5), &format!("{tag} to write its state"), || agent.state());
        agent
    }

    /// The last state written, if there is one.
    pub fn state(&self) -> Option<Value> {
        let text = std::fs::read_to_string(&self.state_file).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// One port's state.
    pub fn port(&self, name: &str) -> Option<Value> {
        self.state().map(|s| s["ports"][name].clone()).filter(|p| !p.is_null())
    }

    /// Operational PFC enable of a port, as its list of priorities.
    pub fn oper_enable(&self, port: &str) -> Option<Vec<u64>> {
        let p = self.port(port)?;
        let list = p["dcbx"]["oper"]["pfc"]["enable"]
            .as_array()?
            .iter()
            .filter_map(Value::as_u64)
            .collect();
        Some(list)
    }

    /// Rewrites the settings file and sends SIGHUP.
    pub fn reconfigure(&self, config: &str) {
        std::fs::write(&self.config_file, config).expect("write settings");
        self.daemon.signal(nix::sys::signal::Signal::SIGHUP);
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log_file).unwrap_or_default()
    }
}
