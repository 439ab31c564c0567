//! netconf-load: load on a NETCONF server over SSH, through `netconf-client`. The `nc-load`
//! benchmark's engine is here: the netconfd baseline's workload
//! (`shared/bench/netconfd-baseline/bench.py`) on the blocking client, so that one fast load
//! generator measures any NETCONF server over SSH (ours, netconfd behind OpenSSH) the same
//! way. bench.py is bound by Python and paramiko at a few hundred operations per second; a
//! Rust client on libssh2 is not, so throughput figures measure the server. Its programs:
//! `nc-load` and `login-flood` (login time under a flood of connections, BENCHMARKS.md).
//! A crate of its own so that the client's users (pfcsh) link none of this, nor the flood's
//! tokio and russh.
//!
//! Files: `settings.rs` (what to run), `workload.rs` (the four parts), `stats.rs`
//! (percentiles, rows), `cpu.rs` (server CPU from `/proc`, descendants and reaped children
//! included).

mod cpu;
mod settings;
mod stats;
mod workload;

use std::io::Write;

pub use cpu::{CpuMeter, CpuSample};
pub use settings::Settings;
pub use stats::{nearest_rank, Cpu, Row, Stats, Throughput};
pub use workload::{count_interfaces, entries, iface, IANA_NS, IF_NS};

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
            let mut client = netconf_client::Client::connect(&run.settings.connect)?;
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
