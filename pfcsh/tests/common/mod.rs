//! What pfcsh's tests share: a live pfcd lab on a free port with a fresh state directory,
//! a scratch HOME (and XDG directories) so nothing touches the real one, and pfcsh run
//! with the lab's printed credentials, scripted or through a pseudo-terminal.
//!
//! pfcd is a binary of the workspace's root package, which cargo only hands to that
//! package's own tests (`CARGO_BIN_EXE_pfcd`); pfcsh's tests find it beside pfcsh in the
//! target directory, where `cargo test --workspace` (CI) builds both.

#![allow(dead_code)]

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use netconf_client::{Auth, Client, ConnectOptions};

/// The pfcsh binary under test.
pub fn pfcsh_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_pfcsh"))
}

/// A binary built beside pfcsh (pfcd, mgmt-serve).
pub fn sibling_bin(name: &str) -> PathBuf {
    let path = pfcsh_bin().with_file_name(name);
    assert!(
        path.is_file(),
        "{} is not built: `cargo test --workspace` builds it (or `cargo build --bin {name}`)",
        path.display()
    );
    path
}

/// A scratch directory removed when dropped.
pub fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("pfcsh-test-").tempdir().expect("scratch dir")
}

/// A running pfcd with its lab; killed when dropped.
pub struct Lab {
    child: Child,
    pub port: u16,
    pub password_file: PathBuf,
    _dir: tempfile::TempDir,
}

impl Lab {
    /// A lab with `settings` as its settings file (TOML).
    pub fn start(settings: &str) -> Lab {
        let dir = scratch();
        let settings_file = dir.path().join("pfcd.toml");
        std::fs::write(&settings_file, settings).expect("settings");
        let mut child = Command::new(sibling_bin("pfcd"))
            .arg("--config")
            .arg(&settings_file)
            .args(["--listen", "127.0.0.1:0", "--state-dir"])
            .arg(dir.path().join("state"))
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(dir.path().join("pfcd.log")).expect("log"))
            .spawn()
            .expect("pfcd starts");
        let stdout = child.stdout.take().expect("stdout");
        let mut port = None;
        for line in BufReader::new(stdout).lines() {
            let line = line.expect("line");
            if let Some(addr) = line.strip_prefix("pfcd ready on ") {
                port = Some(addr.trim().parse::<std::net::SocketAddr>().expect("address").port());
                break;
            }
        }
        let port = port.expect("pfcd says it is ready");
        let password_file = dir.path().join("state/admin.password");
        Lab { child, port, password_file, _dir: dir }
    }

    /// What pfcd logged (its host key's fingerprint among it).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self._dir.path().join("pfcd.log")).unwrap_or_default()
    }

    pub fn password(&self) -> String {
        std::fs::read_to_string(&self.password_file).expect("password").trim().to_string()
    }

    /// A NETCONF session of the test's own (netconf-client), to check what pfcsh did.
    pub fn client(&self) -> Client {
        let opts =
            ConnectOptions::new("127.0.0.1", self.port, "admin", Auth::Password(self.password()));
        Client::connect(&opts).expect("connects")
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A scratch HOME with XDG directories inside it.
pub struct Home {
    pub dir: tempfile::TempDir,
}

impl Home {
    pub fn new() -> Home {
        Home { dir: scratch() }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn known_hosts(&self) -> PathBuf {
        self.path().join("config/pfcsh/known_hosts")
    }

    pub fn history(&self) -> PathBuf {
        self.path().join("data/pfcsh/history")
    }

    /// pfcsh with this HOME, connecting to `port` as admin with `password_file`, pinning the
    /// host key on first contact without asking (`--accept-new`).
    pub fn pfcsh(&self, port: u16, password_file: &Path) -> Command {
        let mut c = self.pfcsh_asking(port, password_file);
        c.arg("--accept-new");
        c
    }

    /// The same without `--accept-new`: pfcsh asks before pinning a new host key.
    pub fn pfcsh_asking(&self, port: u16, password_file: &Path) -> Command {
        let mut c = Command::new(pfcsh_bin());
        c.env("HOME", self.path())
            .env("XDG_CONFIG_HOME", self.path().join("config"))
            .env("XDG_DATA_HOME", self.path().join("data"))
            .env("XDG_CACHE_HOME", self.path().join("cache"))
            .env_remove("SSH_AUTH_SOCK")
            .env("TERM", "xterm")
            .args(["--host", "127.0.0.1", "--port", &port.to_string(), "--user", "admin"])
            .arg("--password-file")
            .arg(password_file)
            .arg("--timeout")
            .arg("20");
        c
    }
}

/// Runs pfcsh with `-c` for each command, no terminal.
pub fn run(cmd: &mut Command, commands: &[&str]) -> Output {
    for c in commands {
        cmd.arg("-c").arg(c);
    }
    cmd.stdin(Stdio::null()).output().expect("pfcsh runs")
}

/// Runs pfcsh on `commands` fed through its standard input one at a time, `gap` apart (a
/// script's commands follow each other within milliseconds: a lab's simulated clock may not
/// move in between).
pub fn run_apart(cmd: &mut Command, commands: &[&str], gap: std::time::Duration) -> Output {
    use std::io::Write;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("pfcsh runs");
    let mut stdin = child.stdin.take().expect("stdin");
    for (i, c) in commands.iter().enumerate() {
        if i > 0 {
            std::thread::sleep(gap);
        }
        writeln!(stdin, "{c}").expect("a command to pfcsh");
    }
    drop(stdin);
    child.wait_with_output().expect("pfcsh ends")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
