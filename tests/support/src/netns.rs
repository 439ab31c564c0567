//! Network namespaces and veth pairs for tests that run real agents, and guards that remove
//! them (and every process left inside them) when the test ends, passed or failed.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::external_tool;

/// True when this process may create namespaces (root). Not root: fails in CI, where the
/// suite runs as root, and skips loudly elsewhere.
pub fn can_run(test: &str) -> bool {
    if external_tool("/usr/sbin/ip", "iproute2").is_none() {
        return false;
    }
    if nix::unistd::geteuid().is_root() {
        return true;
    }
    let msg = format!("{test} needs root to create network namespaces");
    if std::env::var_os("CI").is_some() {
        panic!("{msg}");
    }
    eprintln!("\n!!!!! SKIPPED: {msg} !!!!!\n");
    false
}

/// For a test that must run inside a namespace of its own (`ip netns exec` mounts the
/// namespace's /sys, where the code under test reads its interfaces): outside, builds the
/// namespace with the veth pair `{prefix}0`/`{prefix}1` up, runs this test's own program there
/// as test `test` with `inside` set in its environment, asserts it passed, and returns false;
/// inside, returns true, and the caller runs the test's body. Not root: see [`can_run`].
pub fn run_inside_veth_pair(prefix: &str, test: &str, inside: &str) -> bool {
    if std::env::var_os(inside).is_some() {
        return true;
    }
    if !can_run(test) {
        return false;
    }
    let ns = Netns::new(prefix);
    let (a, b) = (format!("{prefix}0"), format!("{prefix}1"));
    ns.link(&["add", &a, "type", "veth", "peer", "name", &b]);
    ns.link(&["set", &a, "up"]);
    ns.link(&["set", &b, "up"]);
    let exe = std::env::current_exe().expect("this test's program");
    let out = ns
        .command(exe)
        .args(["--exact", test, "--nocapture"])
        .env(inside, "1")
        .output()
        .expect("run inside the namespace");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && text.contains("1 passed"), "{text}");
    false
}

/// Runs `ip` with these arguments; panics with its message when it fails.
pub fn ip(args: &[&str]) {
    let out = Command::new("/usr/sbin/ip").args(args).output().expect("run ip");
    assert!(
        out.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A network namespace of our own; deleted, with whatever still runs in it, when dropped.
pub struct Netns {
    pub name: String,
}

impl Netns {
    pub fn new(tag: &str) -> Self {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let name = format!("pfct{}-{tag}{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed));
        ip(&["netns", "add", &name]);
        ip(&["-n", &name, "link", "set", "lo", "up"]);
        Netns { name }
    }

    /// A command that runs inside the namespace.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new("/usr/sbin/ip");
        c.args(["netns", "exec", &self.name]).arg(program);
        c
    }

    /// Runs a command in the namespace to the end; returns its stdout, panics on failure.
    pub fn run(&self, program: &str, args: &[&str]) -> String {
        let out = self.command(program).args(args).output().expect("run in namespace");
        assert!(
            out.status.success(),
            "{program} {}: {}{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn link(&self, args: &[&str]) {
        let mut all = vec!["-n", &self.name, "link"];
        all.extend_from_slice(args);
        ip(&all);
    }

    /// The pids of every process in the namespace.
    fn pids(&self) -> Vec<i32> {
        Command::new("/usr/sbin/ip")
            .args(["netns", "pids", &self.name])
            .output()
            .map(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .split_whitespace()
                    .filter_map(|p| p.parse().ok())
                    .collect()
            })
            .unwrap_or_default()
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        // Only processes inside this test's own namespace: ours by construction.
        for pid in self.pids() {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        let _ = Command::new("/usr/sbin/ip").args(["netns", "del", &self.name]).status();
    }
}

/// A veth pair with one end in each namespace, with the given names and MAC addresses, left down.
pub fn veth(a: &Netns, a_if: &str, a_mac: &str, b: &Netns, b_if: &str, b_mac: &str) {
    // Created inside namespace a, so that no interface ever appears in the host's namespace.
    ip(&[
        "-n", &a.name, "link", "add", a_if, "address", a_mac, "type", "veth", "peer", "name", b_if,
        "address", b_mac, "netns", &b.name,
    ]);
}

/// A child process killed (SIGTERM, then SIGKILL) when dropped.
pub struct Daemon {
    pub child: Child,
    pub name: &'static str,
}

impl Daemon {
    pub fn spawn(name: &'static str, mut cmd: Command, log: &Path) -> Self {
        let log_file = std::fs::File::create(log).expect("log file");
        let err = log_file.try_clone().expect("log file");
        let child =
            cmd.stdout(Stdio::from(log_file)).stderr(Stdio::from(err)).spawn().expect("spawn");
        Daemon { child, name }
    }

    pub fn signal(&self, sig: nix::sys::signal::Signal) {
        let pid = nix::unistd::Pid::from_raw(self.child.id() as i32);
        let _ = nix::sys::signal::kill(pid, sig);
    }

    /// Stops it and waits for it.
    pub fn stop(&mut self) {
        self.signal(nix::sys::signal::Signal::SIGTERM);
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Polls `check` every 10 ms until it returns `Some`, or panics after `timeout` with `what`
/// and the last value seen.
pub fn wait_for<T>(timeout: Duration, what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = check() {
            return v;
        }
        if start.elapsed() > timeout {
            panic!("timed out after {timeout:?} waiting for {what}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Where the pfc-lldp binary of this build is.
pub fn pfc_lldp() -> PathBuf {
    super::program("pfc-lldp")
}

/// Runs `f` on a thread that has entered the namespace, and returns what it returns: a socket
/// opened there stays in the namespace wherever it is used afterwards.
pub fn in_netns<T: Send>(ns: &Netns, f: impl FnOnce() -> T + Send) -> T {
    let path = format!("/run/netns/{}", ns.name);
    std::thread::scope(|s| {
        s.spawn(|| {
            let file = std::fs::File::open(&path).expect("open the namespace");
            nix::sched::setns(file, nix::sched::CloneFlags::CLONE_NEWNET).expect("setns");
            f()
        })
        .join()
        .expect("thread in the namespace")
    })
}

/// Waits until `interface` in `ns` is operationally up: until the kernel's link watch has seen
/// the carrier, a veth's queue discards what is sent.
pub fn wait_up(ns: &Netns, interface: &str) {
    wait_for(Duration::from_secs(5), &format!("{interface} to come up"), || {
        let out = Command::new("/usr/sbin/ip")
            .args(["-n", &ns.name, "-o", "link", "show", interface])
            .output()
            .ok()?;
        String::from_utf8_lossy(&out.stdout).contains("state UP").then_some(())
    });
}
