//! What the workspace's system tests share: network namespaces and veth pairs, hosts that send
//! and count frames, the project's programs under test (pfcd, pfc-bridge, pfc-lldp, ...), and
//! independent implementations (tshark, scapy, lldpd, ...).

pub mod bridge;
pub mod bridged_network;
pub mod hosts;
pub mod lab;
pub mod lldp_frames;
pub mod netns;
pub mod pfc_lldp;
pub mod pfcd;
pub mod ring;
pub mod traffic;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The path of one of the workspace's programs (`pfcd`, `pfc-bridge`, `pfc-lldp`,
/// `pfc-traffic`, `pfc-delay`, ...), built beside the running test: cargo puts a test binary in
/// `target/<profile>/deps/` and programs in `target/<profile>/`. `cargo test --workspace`
/// builds every program first, because each package with one has integration tests; a test run
/// of one package alone may need `cargo build -p <package>` of the others first, which the
/// panic says.
pub fn program(name: &str) -> PathBuf {
    let test = std::env::current_exe().expect("the test's own path");
    let profile_dir = test
        .parent()
        .and_then(Path::parent)
        .expect("a test binary lives in target/<profile>/deps/");
    let path = profile_dir.join(name);
    assert!(
        path.is_file(),
        "{} is not built: run the tests with `cargo test --workspace`, or build it first \
         (`cargo build --workspace --bins`)",
        path.display()
    );
    path
}

/// Finds an external tool. A missing tool fails the test in CI (where `scripts/deps.sh` installs
/// it) and is skipped loudly elsewhere, so a developer without the package still gets a result.
pub fn external_tool(path: &str, package: &str) -> Option<PathBuf> {
    let p = PathBuf::from(path);
    if p.exists() {
        return Some(p);
    }
    let msg =
        format!("{path} not found (Debian package {package}); run scripts/deps.sh to install it");
    if std::env::var_os("CI").is_some() {
        panic!("{msg}");
    }
    eprintln!("\n!!!!! SKIPPED: {msg} !!!!!\n");
    None
}

/// A scratch directory removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Self {
        Scratch::under(&std::env::temp_dir(), name)
    }

    /// In /dev/shm (memory) where there is one, as a daemon's runtime files in /run would be:
    /// for measurements that a disk's file system would swamp.
    pub fn in_memory(name: &str) -> Self {
        let shm = Path::new("/dev/shm");
        Scratch::under(if shm.is_dir() { shm } else { Path::new("/tmp") }, name)
    }

    fn under(parent: &Path, name: &str) -> Self {
        let dir = parent.join(format!("pfcd-test-{name}-{}-{}", std::process::id(), unique()));
        std::fs::create_dir_all(&dir).expect("create scratch dir");
        Scratch(dir)
    }

    pub fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// Writes frames to a pcap file, one microsecond apart.
pub fn write_pcap(path: &Path, frames: &[Vec<u8>]) {
    let file = std::fs::File::create(path).expect("create pcap");
    let mut w = dataplane::pcap::PcapWriter::new(std::io::BufWriter::new(file)).expect("pcap");
    for (i, f) in frames.iter().enumerate() {
        w.write_frame(i as u64 * 1000, f).expect("write frame");
    }
    use std::io::Write;
    w.into_inner().flush().expect("flush pcap");
}

/// Runs tshark over a pcap and returns, per frame, the value of each field as tshark prints it
/// (occurrences of a repeated field joined with `|`).
pub fn tshark_fields(tshark: &Path, pcap: &Path, fields: &[&str]) -> Vec<Vec<String>> {
    let mut cmd = Command::new(tshark);
    cmd.arg("-n").arg("-r").arg(pcap).args(["-T", "fields", "-E", "separator=/t"]);
    cmd.args(["-E", "occurrence=a", "-E", "aggregator=|"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("run tshark");
    assert!(out.status.success(), "tshark failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .expect("tshark prints UTF-8")
        .lines()
        .map(|line| line.split('\t').map(str::to_string).collect())
        .collect()
}

/// Reads a number as tshark prints it: decimal or 0x-prefixed hexadecimal.
pub fn tshark_number(text: &str) -> u64 {
    let t = text.trim();
    match t.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => t.parse(),
    }
    .unwrap_or_else(|_| panic!("tshark printed '{t}' where a number was expected"))
}

/// tshark in `ns` writing the first `count` frames on `interface` that match the capture
/// `filter` to `pcap`, returned once it says it is capturing. The rest of what it says is read
/// to the end on a thread of its own, so it never writes into a closed pipe.
pub fn start_capture(
    ns: &netns::Netns,
    tshark: &Path,
    (interface, filter): (&str, &str),
    count: u32,
    pcap: &Path,
) -> std::process::Child {
    use std::io::{BufRead, BufReader};
    let mut child = ns
        .command(tshark)
        .args(["-i", interface, "-f", filter, "-c", &count.to_string(), "-F", "pcap", "-w"])
        .arg(pcap)
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("start tshark");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    assert!(
        lines.any(|l| l.is_ok_and(|l| l.contains("Capturing on"))),
        "tshark did not start capturing"
    );
    std::thread::spawn(move || lines.for_each(drop));
    child
}
