//! What a refresh of the fabric view costs: LABS pfcd labs of PORTS ports each (started here,
//! on loopback), read back to back REFRESHES times after one refresh that opens the sessions.
//! Prints the first refresh's wall time (each session's SSH login included), a refresh's wall
//! time (median, 90th percentile), the collector's CPU per refresh, the labs' CPU per refresh
//! (their own work meanwhile included: an idle lab runs only LLDP/DCBX), and one device's reply
//! size. TRAFFIC `traffic` runs each lab's peers' traffic (default: idle labs).
//!
//! ```sh
//! cargo build --release --bin pfcd -p pfc-fabric --example refresh_cost
//! target/release/examples/refresh_cost LABS PORTS REFRESHES [traffic]
//! ```

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use netconf_client::{Auth, Client, ConnectOptions};
use pfc_fabric::{Collector, Endpoint};
use test_support::lab::read_banner;
use test_support::{program, Scratch};

/// utime + stime of a process, in clock ticks.
fn cpu_ticks(pid: &str) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The command name may hold spaces: fields are counted after its closing parenthesis.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or_default();
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |i: usize| fields.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    field(11) + field(12)
}

struct Lab {
    child: Child,
    opts: ConnectOptions,
    _scratch: Scratch,
}

impl Drop for Lab {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn lab(n: usize, ports: usize, traffic: bool) -> Lab {
    let scratch = Scratch::new(&format!("fv-bench-{n}"));
    let settings = scratch.path("pfcd.toml");
    std::fs::write(&settings, format!("[lab]\nports = {ports}\ntraffic = {traffic}\n"))
        .expect("settings");
    let mut child = Command::new(program("pfcd"))
        .arg("--config")
        .arg(&settings)
        .args(["--listen", "127.0.0.1:0", "--state-dir"])
        .arg(scratch.path("state"))
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(scratch.path("pfcd.log")).expect("log"))
        .spawn()
        .expect("pfcd starts");
    let banner = read_banner(&mut child);
    let opts =
        ConnectOptions::new("127.0.0.1", banner.port, "admin", Auth::Password(banner.password));
    Lab { child, opts, _scratch: scratch }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg =
        |i: usize, default: usize| args.get(i).and_then(|v| v.parse().ok()).unwrap_or(default);
    let (labs, ports, refreshes) = (arg(1, 3), arg(2, 4), arg(3, 50));
    let traffic = args.get(4).is_some_and(|t| t == "traffic");
    let started: Vec<Lab> = (0..labs).map(|n| lab(n, ports, traffic)).collect();
    // Let every lab settle (LLDP's first exchanges, the first state).
    std::thread::sleep(Duration::from_secs(3));
    let size = {
        let mut c = Client::connect(&started[0].opts).expect("connects");
        let reply = c.get(Some(&pfc_fabric::query::filter(true))).expect("get");
        reply.data().unwrap_or_default().len()
    };
    let endpoints = started
        .iter()
        .enumerate()
        .map(|(n, l)| {
            let opts = l.opts.clone();
            Endpoint::new(format!("lab{n}"), move || {
                Client::connect(&opts).map_err(|e| e.to_string())
            })
        })
        .collect();
    let mut collector = Collector::new(endpoints, Duration::from_secs(1));
    let login = Instant::now();
    let first = collector.refresh();
    let login = login.elapsed();
    assert_eq!(first.answered().count(), labs, "every lab answers");
    let pids: Vec<String> = started.iter().map(|l| l.child.id().to_string()).collect();
    let me = std::process::id().to_string();
    let labs_cpu = || pids.iter().map(|p| cpu_ticks(p)).sum::<u64>();
    let (me0, labs0) = (cpu_ticks(&me), labs_cpu());
    let mut times = Vec::new();
    let begun = Instant::now();
    for _ in 0..refreshes {
        let t = Instant::now();
        let v = collector.refresh();
        times.push(t.elapsed());
        assert_eq!(v.answered().count(), labs);
    }
    let wall = begun.elapsed();
    let tick_ms = 1000.0 / 100.0; // CLK_TCK is 100 on Linux
    let me_ms = (cpu_ticks(&me) - me0) as f64 * tick_ms / refreshes as f64;
    let labs_ms = (labs_cpu() - labs0) as f64 * tick_ms / refreshes as f64;
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{labs} labs x {ports} ports (traffic {traffic}), {refreshes} refreshes in {:.2} s: \
         first refresh (sessions opened) {:.0} ms; refresh p50 {:.1} ms, p90 {:.1} ms; collector CPU {me_ms:.2} ms/refresh; labs' CPU \
         {labs_ms:.1} ms/refresh; one device's reply {size} octets",
        wall.as_secs_f64(),
        ms(login),
        ms(times[times.len() / 2]),
        ms(times[times.len() * 9 / 10]),
    );
}
