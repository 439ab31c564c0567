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
        let agent = Agent::spawn(ns, scratch, tag, config, true);
        wait_for(Duration::from_secs(5), &format!("{tag} to write its state"), || agent.state());
        agent
    }

    /// Starts pfc-lldp without a state file (what it costs to run bare); returns once it has
    /// logged its first port opened.
    pub fn start_without_state_file(
        ns: &Netns,
        scratch: &Scratch,
        tag: &str,
        config: &str,
    ) -> Agent {
        let agent = Agent::spawn(ns, scratch, tag, config, false);
        wait_for(Duration::from_secs(5), &format!("{tag} to open a port"), || {
            agent.log().contains("port opened").then_some(())
        });
        agent
    }

    fn spawn(ns: &Netns, scratch: &Scratch, tag: &str, config: &str, state: bool) -> Agent {
        let config_file = scratch.path(&format!("{tag}.toml"));
        let state_file = scratch.path(&format!("{tag}.json"));
        let log_file = scratch.path(&format!("{tag}.log"));
        std::fs::write(&config_file, config).expect("write settings");
        let mut cmd: Command = ns.command(pfc_lldp());
        cmd.arg("--config").arg(&config_file);
        if state {
            cmd.arg("--state-file").arg(&state_file);
        }
        cmd.env("RUST_LOG", "debug");
        let daemon = Daemon::spawn("pfc-lldp", cmd, &log_file);
        Agent { daemon, state_file, config_file, log_file }
    }

    /// CPU time the agent has used so far: (utime + stime in clock ticks from /proc/PID/stat,
    /// nanoseconds on a CPU from /proc/PID/schedstat when the kernel keeps it). `ip netns exec`
    /// execs the agent, so the child's pid is the agent's.
    pub fn cpu_time(&self) -> (u64, Option<u64>) {
        let pid = self.daemon.child.id();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc/PID/stat");
        // Fields after the command name, which is in parentheses and may hold spaces.
        let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or_default();
        let fields: Vec<u64> = after.split_whitespace().map(|f| f.parse().unwrap_or(0)).collect();
        // utime and stime are fields 14 and 15 of stat(5); `after` starts at field 3.
        let ticks = fields[11] + fields[12];
        let on_cpu = std::fs::read_to_string(format!("/proc/{pid}/schedstat"))
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse().ok());
        (ticks, on_cpu)
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
