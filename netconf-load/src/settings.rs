//! What a run of the workload does, and against which server.

use std::time::Duration;

use netconf_client::ConnectOptions;

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
