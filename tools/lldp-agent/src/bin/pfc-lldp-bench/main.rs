//! pfc-lldp-bench: measures the LLDP agent on real (virtual) interfaces. Needs root: it creates
//! network namespaces and veth pairs, and removes them, with every process in them, at the end.
//!
//! - `link-up`: time from link up to both ends of a veth pair showing the same operational PFC
//!   Enable (one end willing), over `--runs` runs; prints the median, minimum and maximum.
//! - `idle`: one pfc-lldp on `--ports` veth ends and lldpd on their peers, both at the default
//!   msgTxInterval of 30 s; after a warm-up, prints each one's CPU time per second and resident
//!   memory over `--seconds`.
//!
//! It runs the pfc-lldp binary next to itself (build both with `--release`).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use serde_json::Value;

#[derive(Parser)]
#[command(name = "pfc-lldp-bench", about = "Benchmarks of the pfc-lldp agent on veth pairs (root)")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Link up to agreed operational PFC, median of --runs.
    LinkUp {
        #[arg(long, default_value_t = 20)]
        runs: usize,
    },
    /// Idle CPU and memory of pfc-lldp and lldpd on --ports ports each.
    Idle {
        #[arg(long, default_value_t = 64)]
        ports: usize,
        #[arg(long, default_value_t = 60)]
        seconds: u64,
        #[arg(long, default_value_t = 10)]
        warmup: u64,
    },
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Cmd::LinkUp { runs } => link_up(runs.max(1)),
        Cmd::Idle { ports, seconds, warmup } => idle(ports.max(1), seconds.max(1), warmup),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pfc-lldp-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip").args(args).output().map_err(|e| format!("ip: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("ip {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()))
    }
}

/// A namespace removed, with what runs in it, when dropped.
struct Netns(String);

impl Netns {
    fn new(tag: &str) -> Result<Self, String> {
        let name = format!("pfcbench{}-{tag}", std::process::id());
        ip(&["netns", "add", &name])?;
        Ok(Netns(name))
    }

    fn exec(&self, program: &Path) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &self.0]).arg(program);
        c
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        if let Ok(out) = Command::new("ip").args(["netns", "pids", &self.0]).output() {
            for pid in String::from_utf8_lossy(&out.stdout).split_whitespace() {
                if let Ok(pid) = pid.parse::<i32>() {
                    let _ = nix::sys::signal::kill(
                        nix::unistd::Pid::from_raw(pid),
                        nix::sys::signal::Signal::SIGKILL,
                    );
                }
            }
        }
        let _ = Command::new("ip").args(["netns", "del", &self.0]).status();
    }
}

struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn pfc_lldp_binary() -> Result<PathBuf, String> {
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let bin = me.with_file_name("pfc-lldp");
    if bin.exists() {
        Ok(bin)
    } else {
        Err(format!(
            "{} not found: build it with `cargo build --release --bin pfc-lldp`",
            bin.display()
        ))
    }
}

fn spawn(mut cmd: Command) -> Result<Child, String> {
    cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().map_err(|e| e.to_string())
}

fn oper_enable(state: &Path, port: &str) -> Option<Value> {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(state).ok()?).ok()?;
    let e = v["ports"][port]["dcbx"]["oper"]["pfc"]["enable"].clone();
    (!e.is_null()).then_some(e)
}

fn link_up(runs: usize) -> Result<(), String> {
    let bin = pfc_lldp_binary()?;
    let scratch =
        Scratch(std::env::temp_dir().join(format!("pfc-lldp-bench-{}", std::process::id())));
    std::fs::create_dir_all(&scratch.0).map_err(|e| e.to_string())?;
    let a = Netns::new("a")?;
    let b = Netns::new("b")?;
    ip(&[
        "-n",
        &a.0,
        "link",
        "add",
        "bla",
        "address",
        "02:00:00:00:00:0a",
        "type",
        "veth",
        "peer",
        "name",
        "blb",
        "address",
        "02:00:00:00:00:0b",
        "netns",
        &b.0,
    ])?;
    let conf = |name: &str, willing: bool, enable: &str| {
        format!("[pfc]\nwilling = {willing}\nenable = [{enable}]\n[[port]]\nname = \"{name}\"\n")
    };
    let (ca, cb) = (scratch.0.join("a.toml"), scratch.0.join("b.toml"));
    std::fs::write(&ca, conf("bla", true, "3")).map_err(|e| e.to_string())?;
    std::fs::write(&cb, conf("blb", false, "3, 4")).map_err(|e| e.to_string())?;
    let want = serde_json::json!([3, 4]);
    let mut times = Vec::new();
    for run in 0..runs {
        let (sa, sb) =
            (scratch.0.join(format!("a{run}.json")), scratch.0.join(format!("b{run}.json")));
        let mut agents = Vec::new();
        for (ns, c, s) in [(&a, &ca, &sa), (&b, &cb, &sb)] {
            let mut cmd = ns.exec(&bin);
            cmd.arg("--config").arg(c).arg("--state-file").arg(s);
            agents.push(spawn(cmd)?);
        }
        let ready = Instant::now();
        while !(sa.exists() && sb.exists()) {
            if ready.elapsed() > Duration::from_secs(5) {
                return Err("pfc-lldp did not start".into());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        ip(&["-n", &a.0, "link", "set", "bla", "up"])?;
        // The link comes up with its second end.
        let start = Instant::now();
        ip(&["-n", &b.0, "link", "set", "blb", "up"])?;
        loop {
            if oper_enable(&sa, "bla").as_ref() == Some(&want)
                && oper_enable(&sb, "blb").as_ref() == Some(&want)
            {
                break;
            }
            if start.elapsed() > Duration::from_secs(10) {
                return Err(format!("run {run}: no agreement within 10 s"));
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        times.push(start.elapsed());
        for mut agent in agents {
            let _ = agent.kill();
            let _ = agent.wait();
        }
        ip(&["-n", &a.0, "link", "set", "bla", "down"])?;
        ip(&["-n", &b.0, "link", "set", "blb", "down"])?;
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "link up to agreed operational PFC over veth, {runs} runs: median {:.2} ms, min {:.2} ms, max {:.2} ms",
        ms(times[times.len() / 2]),
        ms(times[0]),
        ms(times[times.len() - 1])
    );
    Ok(())
}

/// CPU time in nanoseconds (the scheduler's own count, /proc/PID/schedstat, finer than the
/// 10 ms clock ticks of /proc/PID/stat), and resident memory in KiB, of one single-threaded
/// process.
fn usage(pid: u32) -> Option<(u64, u64)> {
    let sched = std::fs::read_to_string(format!("/proc/{pid}/schedstat")).ok()?;
    let ns = sched.split_whitespace().next()?.parse::<u64>().ok()?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let rss = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some((ns, rss))
}

/// Every process in a namespace whose command name is `comm`.
fn pids_named(ns: &Netns, comm: &str) -> Vec<u32> {
    let out = Command::new("ip").args(["netns", "pids", &ns.0]).output();
    let pids = out.map(|o| String::from_utf8_lossy(&o.stdout).to_string()).unwrap_or_default();
    pids.split_whitespace()
        .filter_map(|p| p.parse::<u32>().ok())
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/comm")).is_ok_and(|c| c.trim() == comm)
        })
        .collect()
}

fn total(pids: &[u32]) -> (u64, u64) {
    pids.iter().filter_map(|p| usage(*p)).fold((0, 0), |(t, r), (a, b)| (t + a, r + b))
}

fn idle(ports: usize, seconds: u64, warmup: u64) -> Result<(), String> {
    let bin = pfc_lldp_binary()?;
    let lldpd = PathBuf::from("/usr/sbin/lldpd");
    if !lldpd.exists() {
        return Err("lldpd not found (Debian package lldpd; scripts/deps.sh installs it)".into());
    }
    let scratch =
        Scratch(std::env::temp_dir().join(format!("pfc-lldp-bench-{}", std::process::id())));
    std::fs::create_dir_all(&scratch.0).map_err(|e| e.to_string())?;
    let a = Netns::new("ia")?;
    let b = Netns::new("ib")?;
    let mut conf = String::from("[pfc]\nwilling = true\nenable = [3]\n");
    for i in 0..ports {
        let (pa, pb) = (format!("p{i}"), format!("q{i}"));
        ip(&["-n", &a.0, "link", "add", &pa, "type", "veth", "peer", "name", &pb, "netns", &b.0])?;
        ip(&["-n", &a.0, "link", "set", &pa, "up"])?;
        ip(&["-n", &b.0, "link", "set", &pb, "up"])?;
        conf.push_str(&format!("[[port]]\nname = \"{pa}\"\n"));
    }
    let config = scratch.0.join("bench.toml");
    std::fs::write(&config, conf).map_err(|e| e.to_string())?;
    let mut cmd = a.exec(&bin);
    cmd.arg("--config").arg(&config).env("RUST_LOG", "warn");
    let mut agent = spawn(cmd)?;
    let socket = scratch.0.join("lldpd.ctl");
    let mut cmd = b.exec(&lldpd);
    cmd.args(["-d", "-O", "/dev/null", "-I", "q*", "-u"]).arg(&socket);
    let mut peer = spawn(cmd)?;
    std::thread::sleep(Duration::from_secs(warmup));
    let ours = vec![agent.id()];
    let theirs = pids_named(&b, "lldpd");
    let (t0_ours, t0_theirs, start) = (total(&ours).0, total(&theirs).0, Instant::now());
    std::thread::sleep(Duration::from_secs(seconds));
    let elapsed = start.elapsed().as_secs_f64();
    let (t1_ours, rss_ours) = total(&ours);
    let (t1_theirs, rss_theirs) = total(&theirs);
    let cpu = |t0: u64, t1: u64| t1.saturating_sub(t0) as f64 / 1e9 / elapsed * 100.0;
    println!("idle, {ports} ports each, msgTxInterval 30 s, measured over {elapsed:.0} s after {warmup} s:");
    println!(
        "  pfc-lldp (1 process):          CPU {:.4} %, RSS {:.1} MiB",
        cpu(t0_ours, t1_ours),
        rss_ours as f64 / 1024.0
    );
    println!(
        "  lldpd {} ({} processes): CPU {:.4} %, RSS {:.1} MiB",
        lldpd_version(),
        theirs.len(),
        cpu(t0_theirs, t1_theirs),
        rss_theirs as f64 / 1024.0
    );
    let _ = agent.kill();
    let _ = agent.wait();
    let _ = peer.kill();
    let _ = peer.wait();
    Ok(())
}

fn lldpd_version() -> String {
    Command::new("/usr/sbin/lldpd")
        .arg("-v")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}
