//! Server CPU time from Linux's `/proc/PID/stat`, for "CPU per operation" figures.
//!
//! A process group's CPU is, for every given PID **and every live descendant** of it,
//! `utime + stime + cutime + cstime` (fields 14–17), each process counted once:
//!
//! * `utime + stime` covers the process itself, all its threads included (a tokio server).
//! * Live descendants cover a server behind OpenSSH: sshd forks a privileged child per
//!   connection, that one an unprivileged child, and that one the subsystem process
//!   (`netconf-subsystem` for netconfd); all of them do the session's SSH work.
//! * `cutime + cstime` cover descendants that have already exited and been waited for: when
//!   a session ends, its processes' time moves into their parent's `cutime`/`cstime`, so a
//!   sample taken after a connect + close loop still sees the per-connection children that
//!   came and went between two samples.
//!
//! What is missed: a child whose parent exits before it (it is re-parented outside the
//! group and its time is credited to whoever reaps it), and time of processes not
//! descended from the given PIDs. Resolution is the kernel's clock tick (`getconf CLK_TCK`,
//! normally 100 Hz = 10 ms), so per-operation figures are meaningful only averaged over
//! enough operations to span many ticks.

use std::collections::{HashMap, HashSet};

/// The kernel's clock ticks per second, for converting `/proc` times.
fn clock_ticks() -> f64 {
    // `getconf` instead of sysconf(3): the workspace forbids `unsafe`, and USER_HZ is the
    // same for every process, so asking once is enough.
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|&t| t > 0.0)
        .unwrap_or(100.0)
}

/// Parent PID and `utime + stime + cutime + cstime` in ticks, from one `/proc/PID/stat`.
fn stat(pid: u32) -> Option<(u32, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may contain spaces or ')'.
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state): field N is fields[N - 3].
    let ppid = fields.get(1)?.parse().ok()?;
    let mut ticks = 0u64;
    for i in 11..=14 {
        ticks += fields.get(i)?.parse::<u64>().ok()?;
    }
    Some((ppid, ticks))
}

/// Every process's parent, from a scan of `/proc`.
fn parents() -> HashMap<u32, u32> {
    let mut map = HashMap::new();
    let Ok(dir) = std::fs::read_dir("/proc") else { return map };
    for entry in dir.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if let Some((ppid, _)) = stat(pid) {
            map.insert(pid, ppid);
        }
    }
    map
}

/// CPU seconds of `roots` and their live descendants (see the module doc); `None` if no
/// root could be read (wrong PID, no permission).
fn group_seconds(roots: &[u32], parents: &HashMap<u32, u32>, ticks_per_s: f64) -> Option<f64> {
    let mut members: HashSet<u32> = roots.iter().copied().collect();
    // Children lists once, then a walk down from the roots.
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for (&pid, &ppid) in parents {
        children.entry(ppid).or_default().push(pid);
    }
    let mut stack: Vec<u32> = roots.to_vec();
    while let Some(p) = stack.pop() {
        for &c in children.get(&p).into_iter().flatten() {
            if members.insert(c) {
                stack.push(c);
            }
        }
    }
    let mut any_root = false;
    let mut ticks = 0u64;
    for pid in members {
        if let Some((_, t)) = stat(pid) {
            ticks += t;
            any_root |= roots.contains(&pid);
        }
    }
    any_root.then(|| ticks as f64 / ticks_per_s)
}

/// One reading of the server's CPU.
#[derive(Debug, Clone, Copy, Default)]
pub struct CpuSample {
    /// The server group's CPU seconds.
    pub server: f64,
    /// The server group plus the SSH group (`None` without SSH PIDs).
    pub with_ssh: Option<f64>,
}

impl CpuSample {
    /// `self - earlier`, in seconds.
    pub fn since(&self, earlier: &CpuSample) -> CpuSample {
        CpuSample {
            server: self.server - earlier.server,
            with_ssh: self.with_ssh.zip(earlier.with_ssh).map(|(a, b)| a - b),
        }
    }
}

/// Samples the CPU of the server's processes and, separately, of its SSH front end.
#[derive(Debug, Clone)]
pub struct CpuMeter {
    server: Vec<u32>,
    ssh: Vec<u32>,
    ticks_per_s: f64,
}

impl CpuMeter {
    /// A meter for `server` PIDs and `ssh` PIDs (sshd in front of the server; may be
    /// empty). `None` if no server PID is given.
    pub fn new(server: Vec<u32>, ssh: Vec<u32>) -> Option<CpuMeter> {
        (!server.is_empty()).then(|| CpuMeter { server, ssh, ticks_per_s: clock_ticks() })
    }

    /// Whether the SSH group is measured too.
    pub fn has_ssh(&self) -> bool {
        !self.ssh.is_empty()
    }

    /// The current totals; `None` if the server PIDs cannot be read (it exited).
    pub fn sample(&self) -> Option<CpuSample> {
        let parents = parents();
        let server = group_seconds(&self.server, &parents, self.ticks_per_s)?;
        let with_ssh = if self.ssh.is_empty() {
            None
        } else {
            // One walk over both groups, so a process in both is counted once.
            let all: Vec<u32> = self.server.iter().chain(&self.ssh).copied().collect();
            group_seconds(&all, &parents, self.ticks_per_s)
        };
        Some(CpuSample { server, with_ssh })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_process_is_readable_and_grows() {
        let me = std::process::id();
        let meter = CpuMeter::new(vec![me], vec![]).expect("a server pid");
        let a = meter.sample().expect("readable");
        // Burn CPU until the tick counter moves (bounded: a loaded machine may give us
        // little CPU, but within 10 s of spinning at least one 10 ms tick is ours).
        let start = std::time::Instant::now();
        let mut x = 0u64;
        let b = loop {
            for _ in 0..100_000 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            }
            let b = meter.sample().expect("readable");
            if b.since(&a).server > 0.0 || start.elapsed() > std::time::Duration::from_secs(10) {
                break b;
            }
        };
        std::hint::black_box(x);
        assert!(b.since(&a).server > 0.0, "CPU time advanced: {a:?} -> {b:?}");
        assert!(b.with_ssh.is_none());
    }

    #[test]
    fn exited_children_are_counted_through_cutime() {
        let me = std::process::id();
        let meter = CpuMeter::new(vec![me], vec![]).expect("a server pid");
        let a = meter.sample().expect("readable");
        // A child that burns CPU and is waited for: its time lands in our cutime.
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg("i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done")
            .status()
            .expect("sh runs");
        assert!(status.success());
        let b = meter.sample().expect("readable");
        assert!(b.since(&a).server >= 0.01, "child CPU counted: {a:?} -> {b:?}");
    }

    #[test]
    fn a_missing_pid_gives_none() {
        let meter = CpuMeter::new(vec![u32::MAX - 1], vec![]).expect("a server pid");
        assert!(meter.sample().is_none());
    }
}
