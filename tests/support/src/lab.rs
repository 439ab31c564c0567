//! pfcd with its embedded lab (no settings file: four simulated ports `lab0` to `lab3`),
//! started on a free port with a fresh state directory, reached with the credentials it
//! printed; killed when dropped.

use std::io::{BufRead as _, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use netconf_client::{Auth, Client, ConnectOptions};

use super::{program, Scratch};

/// A running lab pfcd.
pub struct LabPfcd {
    child: Child,
    pub port: u16,
    password: String,
    pub log: PathBuf,
    _scratch: Scratch,
}

impl LabPfcd {
    /// Starts pfcd's lab; `tag` names its scratch directory and log.
    pub fn start(tag: &str) -> LabPfcd {
        Self::start_with_settings(tag, None)
    }

    /// Starts pfcd's lab with `settings` as its settings file (TOML), if given.
    pub fn start_with_settings(tag: &str, settings: Option<&str>) -> LabPfcd {
        Self::spawn(Scratch::new(tag), settings)
    }

    /// Starts pfcd's lab on a state directory `fill` prepared first (an earlier release's,
    /// say).
    pub fn start_on_state(tag: &str, fill: impl FnOnce(&std::path::Path)) -> LabPfcd {
        let scratch = Scratch::new(tag);
        fill(&scratch.path("state"));
        Self::spawn(scratch, None)
    }

    fn spawn(scratch: Scratch, settings: Option<&str>) -> LabPfcd {
        let state = scratch.path("state");
        let log = scratch.path("pfcd.log");
        let mut command = Command::new(program("pfcd"));
        if let Some(settings) = settings {
            let file = scratch.path("pfcd.toml");
            std::fs::write(&file, settings).expect("settings file");
            command.arg("--config").arg(file);
        }
        let mut child = command
            .args(["--listen", "127.0.0.1:0", "--state-dir"])
            .arg(&state)
            .env("RUST_LOG", "info")
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).expect("log file"))
            .spawn()
            .expect("pfcd starts");
        let Banner { port, password, .. } = read_banner(&mut child);
        LabPfcd { child, port, password, log, _scratch: scratch }
    }

    /// A NETCONF session as the administrator; a reply that takes longer than `timeout` is an
    /// error (a daemon that hangs fails the test instead of stopping it).
    pub fn client_within(&self, timeout: Duration) -> Client {
        let mut opts = ConnectOptions::new(
            "127.0.0.1",
            self.port,
            "admin",
            Auth::Password(self.password.clone()),
        );
        opts.timeout = timeout;
        Client::connect(&opts).expect("connects with the printed credentials")
    }

    pub fn client(&self) -> Client {
        self.client_within(Duration::from_secs(30))
    }

    /// The daemon's resident set size, KiB (`VmRSS` of /proc/PID/status); `None` once it has
    /// exited.
    pub fn rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }

    /// Kills the daemon (as a power loss would) and moves its state directory to `to`, to
    /// start another on it.
    pub fn kill_and_keep_state(&mut self, to: &std::path::Path) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        std::fs::rename(self._scratch.path("state"), to).expect("the state directory moves");
    }

    /// The daemon's process id (to signal it).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The administrator's password, as the daemon wrote it.
    pub fn password(&self) -> &str {
        &self.password
    }

    /// The daemon's state directory (its users file is `users` there).
    pub fn state_dir(&self) -> PathBuf {
        self._scratch.path("state")
    }

    /// Whether the daemon is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// What the daemon logged so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for LabPfcd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What pfcd printed as it started: the port it listens on, the administrator's password (read
/// from the file the banner names; never printed itself), and the banner's text.
pub struct Banner {
    pub port: u16,
    pub password: String,
    pub text: String,
}

/// Reads pfcd's banner from its stdout, up to "pfcd ready on".
pub fn read_banner(child: &mut Child) -> Banner {
    let stdout = child.stdout.take().expect("stdout");
    let mut text = String::new();
    let mut port = None;
    for line in BufReader::new(stdout).lines() {
        let line = line.expect("stdout line");
        text.push_str(&line);
        text.push('\n');
        if let Some(addr) = line.strip_prefix("pfcd ready on ") {
            let addr: std::net::SocketAddr = addr.trim().parse().expect("an address");
            port = Some(addr.port());
            break;
        }
    }
    let port = port.unwrap_or_else(|| panic!("pfcd never said it was ready:\n{text}"));
    let file = text
        .split("password in ")
        .nth(1)
        .and_then(|rest| rest.split(" (mode 0600)").next())
        .unwrap_or_else(|| panic!("the banner names the password file:\n{text}"));
    let password = std::fs::read_to_string(file).expect("password file").trim().to_string();
    Banner { port, password, text }
}
