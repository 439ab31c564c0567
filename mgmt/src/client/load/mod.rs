//! The `nc-load` benchmark's engine: the netconfd baseline's workload
//! (`shared/bench/netconfd-baseline/bench.py`) on this crate's blocking client, so that one
//! fast load generator measures any NETCONF server over SSH (ours, netconfd behind OpenSSH)
//! the same way. bench.py is bound by Python and paramiko at a few hundred operations per
//! second; a Rust client on libssh2 is not, so throughput figures measure the server.
//!
//! Files: `workload.rs` (the four parts), `stats.rs` (percentiles, rows), `cpu.rs` (server
//! CPU from `/proc`, descendants and reaped children included).

mod cpu;
mod stats;
mod workload;

use std::io::Write;
use std::time::Duration;

pub use cpu::{CpuMeter, CpuSample};
pub use stats::{nearest_rank, Cpu, Row, Stats, Throughput};
pub use workload::{count_interfaces, entries, iface, IANA_NS, IF_NS};

use super::ConnectOptions;

/// What to run and against what.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The server and credentials; each session (and each connect repetition) uses them.
    pub connect: ConnectOptions,
    /// The server's processes, for CPU per operation (empty: no CPU figures).
    pub server_pids: Vec<u32>,
    /// Processes that carry the server's SSH when it is not in the server (OpenSSH's sshd
    /// in front of netconfd); reported as a second figure, server + SSH.
    pub ssh_pids: Vec<u32>,
    /// Which parts: any of `a` (connect), `b` (get-config), `c` (edit+commit), `d`
    /// (throughput).
    pub parts: String,
    /// Connect repetitions (bench.py: 20).
    pub connect_reps: usize,
    /// get-config repetitions per size (bench.py: 50).
    pub get_reps: usize,
    /// edit+commit repetitions per size, after one warm-up (bench.py: 20).
    pub edit_reps: usize,
    /// Numbers of interfaces for parts b and c (bench.py: 1, 512, 4096).
    pub sizes: Vec<usize>,
    /// Concurrent sessions for part d (bench.py: 1, 10, 50).
    pub sessions: Vec<usize>,
    /// Length of each throughput measurement (bench.py: 20 s).
    pub duration: Duration,
}

impl Settings {
    /// bench.py's full workload.
    pub fn full(connect: ConnectOptions) -> Settings {
        Settings {
            connect,
            server_pids: Vec::new(),
            ssh_pids: Vec::new(),
            parts: "abcd".into(),
            connect_reps: 20,
            get_reps: 50,
            edit_reps: 20,
            sizes: vec![1, 512, 4096],
            sessions: vec![1, 10, 50],
            duration: Duration::from_secs(20),
        }
    }

    /// bench.py's `--quick` smoke test.
    pub fn quick(connect: ConnectOptions) -> Settings {
        Settings {
            connect_reps: 3,
            get_reps: 5,
            edit_reps: 2,
            sizes: vec![1, 512],
            sessions: vec![1, 4],
            duration: Duration::from_secs(3),
            ..Settings::full(connect)
        }
    }
}

/// Runs the selected parts, printing each result line to `log` as it comes, and returns the
/// rows. A part that fails is reported in `log` and skipped.
pub fn run(settings: &Settings, log: &mut dyn Write) -> Vec<Row> {
    let meter = CpuMeter::new(settings.server_pids.clone(), settings.ssh_pids.clone());
    let mut run = workload::Run { settings, meter, rows: Vec::new(), log };
    if let Some(m) = &run.meter {
        if m.sample().is_none() {
            let text = format!(
                "warning: cannot read /proc/<pid>/stat of {:?}: no CPU figures",
                settings.server_pids
            );
            run.say(&text);
            run.meter = None;
        }
    }
    let parts = settings.parts.as_str();
    if parts.contains('a') {
        run.part("a. connect + hello", workload::Run::connect_part);
    }
    if parts.contains('b') || parts.contains('c') {
        run.part("b/c. one session for get-config and edit-config", |run| {
            let mut client = super::Client::connect(&run.settings.connect)?;
            if parts.contains('b') {
                run.part("b. get-config running", |run| run.get_config_part(&mut client));
            }
            if parts.contains('c') {
                run.part("c. edit-config (merge N new entries -> candidate) + commit", |run| {
                    run.edit_part(&mut client)
                });
            }
            client.close_session()
        });
    }
    if parts.contains('d') {
        let title = format!(
            "d. throughput: K sessions (1 thread each), loop edit-config(1 entry)+commit for {:.0} s",
            settings.duration.as_secs_f64()
        );
        run.part(&title, workload::Run::throughput_part);
    }
    run.rows
}
