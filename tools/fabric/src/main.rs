//! `pfc-fabric`: the command line over the collector (see the library's documentation).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Parser;
use netconf_client::Auth;
use pfc_fabric::known_hosts::{pfcsh_file, KnownHosts};
use pfc_fabric::{Collector, DeviceSpec, Flows, Login, View};

/// A lossless fabric seen from the management plane: reads devices over NETCONF (LLDP
/// neighbours, PFC pause and XOFF state per port and priority), and shows the topology, what
/// is paused, PFC deadlock cycles and congestion trees. Uses only the YANG modules, so it works
/// against any server that serves them.
#[derive(Parser, Debug)]
#[command(name = "pfc-fabric", version)]
struct Args {
    /// A device to read, as NAME=HOST:PORT (repeat for each device).
    #[arg(long = "device", value_name = "NAME=HOST:PORT", required = true)]
    devices: Vec<DeviceSpec>,
    /// The SSH user on every device (default: $USER).
    #[arg(long)]
    user: Option<String>,
    /// A file whose first line is the password of every device.
    #[arg(long, value_name = "FILE")]
    password_file: Option<PathBuf>,
    /// An unencrypted private key file for public-key login (else an ssh-agent's keys).
    #[arg(long, value_name = "FILE", conflicts_with = "password_file")]
    key: Option<PathBuf>,
    /// Host keys pinned as pfcsh pins them (default: pfcsh's, ~/.config/pfcsh/known_hosts);
    /// a device whose key is not pinned is reported, not logged into.
    #[arg(long, value_name = "FILE")]
    known_hosts: Option<PathBuf>,
    /// Log into any device whatever its host key (only on a network you trust, a lab).
    #[arg(long, conflicts_with = "known_hosts")]
    accept_any_host_key: bool,
    /// Seconds to wait for a device at each step before reporting it as not answering.
    #[arg(long, default_value_t = 5, value_name = "SECONDS")]
    timeout: u64,
    /// One JSON document per refresh, one per line (JSON Lines), instead of text.
    #[arg(long)]
    json: bool,
    /// Also draw the topology into FILE (SVG), rewritten whole at each refresh.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Refresh every SECONDS until Ctrl-C (default: once).
    #[arg(long, value_name = "SECONDS")]
    watch: Option<f64>,
    /// The flows that run through the fabric (TOML: `[[flow]]` tables with name, path and
    /// priority, as in a pfcsim network scenario, which serves as it is): each congestion tree
    /// then names the flows caught in it and its victims. A path lists devices; its ends may be
    /// hosts, as DEVICE:PORT or a name a `[[link]]` attaches to a DEVICE:PORT.
    #[arg(long, value_name = "FILE")]
    flows: Option<PathBuf>,
    /// A deadlock is reported once every part of its cycle has held this long.
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    threshold_ms: u64,
}

fn main() {
    let args = Args::parse();
    match run(&args) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("pfc-fabric: {e}");
            std::process::exit(2);
        }
    }
}

fn run(args: &Args) -> Result<i32, String> {
    let mut names = std::collections::BTreeSet::new();
    for d in &args.devices {
        if !names.insert(d.name.as_str()) {
            return Err(format!("device name {} given twice: name each device once", d.name));
        }
    }
    let interval = match args.watch {
        Some(s) if !(s.is_finite() && s > 0.0) => {
            return Err(format!("--watch {s}: give a number of seconds above 0"))
        }
        Some(s) => Some(Duration::from_secs_f64(s)),
        None => None,
    };
    let flows = match &args.flows {
        Some(path) => {
            let flows = Flows::load(path)?;
            flows.check_devices(&names)?;
            flows
        }
        None => Flows::default(),
    };
    let login = login(args)?;
    let endpoints = args.devices.iter().map(|d| login.endpoint(d)).collect();
    let mut collector = Collector::new(endpoints, Duration::from_millis(args.threshold_ms));
    collector.set_flows(flows);
    loop {
        let started = Instant::now();
        let view = collector.refresh();
        show(args, &view)?;
        let Some(interval) = interval else {
            return Ok(if view.answered().count() == 0 { 1 } else { 0 });
        };
        std::thread::sleep(interval.saturating_sub(started.elapsed()));
    }
}

fn login(args: &Args) -> Result<Login, String> {
    let user =
        args.user.clone().or_else(|| std::env::var("USER").ok()).ok_or("no user: give --user")?;
    let auth = if let Some(path) = &args.password_file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the password file {}: {e}", path.display()))?;
        Auth::Password(text.lines().next().unwrap_or_default().to_string())
    } else if let Some(key) = &args.key {
        Auth::KeyFile(key.clone())
    } else if std::env::var_os("SSH_AUTH_SOCK").is_some() {
        Auth::Agent
    } else {
        return Err("no credentials: give --password-file or --key (or run an ssh-agent)".into());
    };
    let known_hosts = if args.accept_any_host_key {
        None
    } else {
        Some(KnownHosts::load(&args.known_hosts.clone().unwrap_or_else(pfcsh_file))?)
    };
    Ok(Login { user, auth, timeout: Duration::from_secs(args.timeout.max(1)), known_hosts })
}

/// One refresh printed (text or a JSON line) and drawn.
fn show(args: &Args, view: &View) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    let printed = if args.json {
        let line = serde_json::to_string(view).map_err(|e| format!("JSON: {e}"))?;
        writeln!(out, "{line}")
    } else {
        writeln!(out, "{}", pfc_fabric::text::render(view))
    };
    printed.and_then(|()| out.flush()).map_err(|e| format!("cannot write the output: {e}"))?;
    if let Some(path) = &args.svg {
        write_whole(path, &pfc_fabric::svg::render(view))?;
    }
    Ok(())
}

/// Writes `text` beside `path` and renames it there: a viewer never reads half a picture.
fn write_whole(path: &Path, text: &str) -> Result<(), String> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    std::fs::write(&partial, text)
        .and_then(|()| std::fs::rename(&partial, path))
        .map_err(|e| format!("cannot write the SVG {}: {e}", path.display()))
}
