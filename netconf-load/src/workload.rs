//! The four parts of the netconfd baseline's workload (`bench.py`), step for step:
//!
//! * a. connect + hello (timed), then close-session (untimed);
//! * b. get-config of running holding 1/512/4096 interfaces (3 warm-up reads);
//! * c. edit-config merging N new interfaces into the candidate, then commit, with a
//!   remove-all + commit between repetitions (the first repetition is a warm-up);
//! * d. K concurrent sessions, each looping edit-config (its own interface) + commit.
//!
//! Deviations from bench.py, each deliberate: `<config>` is always in the NETCONF namespace
//! (mgmt refuses a bare one); the CPU of part a covers connect + close-session, since the
//! server's per-connection work (sshd fork, key exchange) happens in both; a failing part is
//! reported and the next one runs instead of the whole run aborting.

use std::io::Write;
use std::sync::{mpsc, Arc, Barrier};
use std::time::{Duration, Instant};

use quick_xml::events::Event;
use quick_xml::name::ResolveResult;
use quick_xml::NsReader;

use netconf_client::{Client, Datastore, Error, Result};

use crate::cpu::{CpuMeter, CpuSample};
use crate::settings::Settings;
use crate::stats::{Cpu, Row, Stats, Throughput};

/// The ietf-interfaces namespace.
pub const IF_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-interfaces";
/// The iana-if-type namespace (the `type` leaf's identities).
pub const IANA_NS: &str = "urn:ietf:params:xml:ns:yang:iana-if-type";
const NC_NS: &str = netconf_proto::xml::NETCONF_BASE_NS;

/// One interface entry, exactly bench.py's `iface()`.
pub fn iface(name: &str, description: &str) -> String {
    format!(
        "<interface><name>{name}</name>\
         <type xmlns:ianaift=\"{IANA_NS}\">ianaift:ethernetCsmacd</type>\
         <description>{description}</description><enabled>true</enabled></interface>"
    )
}

/// `<interfaces>` with `n` entries `if0..`, the content of `<config>`.
pub fn entries(n: usize) -> String {
    let mut body = String::with_capacity(n * 200 + 100);
    body.push_str(&format!("<interfaces xmlns=\"{IF_NS}\">"));
    for i in 0..n {
        body.push_str(&iface(&format!("if{i}"), "bench"));
    }
    body.push_str("</interfaces>");
    body
}

/// Removes every interface (no error if there are none).
fn remove_all() -> String {
    format!("<interfaces xmlns=\"{IF_NS}\" xmlns:nc=\"{NC_NS}\" nc:operation=\"remove\"/>")
}

/// Empties the interfaces in candidate and running.
pub fn clear_all(c: &mut Client) -> Result<()> {
    c.edit_config(Datastore::Candidate, &remove_all(), None)?;
    c.commit()
}

/// Number of `<interface>` elements (ietf-interfaces namespace) in an XML text.
pub fn count_interfaces(xml: &str) -> Result<usize> {
    let mut reader = NsReader::from_str(xml);
    let mut count = 0;
    loop {
        let (ns, event) = reader
            .read_resolved_event()
            .map_err(|e| Error::Protocol(format!("reply is not well-formed XML: {e}")))?;
        match event {
            Event::Start(s) | Event::Empty(s) => {
                let in_if = matches!(ns, ResolveResult::Bound(n) if n.as_ref() == IF_NS);
                if in_if && s.local_name().as_ref() == "interface" {
                    count += 1;
                }
            }
            Event::Eof => return Ok(count),
            _ => {}
        }
    }
}

/// Interfaces in running.
fn count_running(c: &mut Client) -> Result<usize> {
    let filter = format!("<interfaces xmlns=\"{IF_NS}\"/>");
    let reply = c.get_config(Datastore::Running, Some(&filter))?;
    count_interfaces(reply.raw())
}

fn check_count(c: &mut Client, want: usize) -> Result<()> {
    let got = count_running(c)?;
    if got == want {
        Ok(())
    } else {
        Err(Error::Protocol(format!("running holds {got} interfaces after the edit, not {want}")))
    }
}

/// Shared state of one run.
pub(super) struct Run<'a> {
    pub settings: &'a Settings,
    pub meter: Option<CpuMeter>,
    pub rows: Vec<Row>,
    pub log: &'a mut dyn Write,
}

impl Run<'_> {
    pub(super) fn say(&mut self, text: &str) {
        let _ = writeln!(self.log, "{text}");
        let _ = self.log.flush();
    }

    fn push(&mut self, row: Row) {
        let line = row.line();
        self.say(&line);
        self.rows.push(row);
    }

    fn sample(&self) -> Option<CpuSample> {
        self.meter.as_ref().and_then(CpuMeter::sample)
    }

    fn connect(&self) -> Result<Client> {
        Client::connect(&self.settings.connect)
    }

    /// Runs a part; a failure is reported and does not stop the run.
    pub(super) fn part(&mut self, title: &str, f: impl FnOnce(&mut Self) -> Result<()>) {
        self.say(title);
        if let Err(e) = f(self) {
            self.say(&format!("  FAILED: {e}"));
        }
    }

    /// a. connect + hello.
    pub(super) fn connect_part(&mut self) -> Result<()> {
        let reps = self.settings.connect_reps;
        let mut times = Vec::with_capacity(reps);
        let c0 = self.sample();
        let start = Instant::now();
        for _ in 0..reps {
            let t0 = Instant::now();
            let c = self.connect()?;
            times.push(t0.elapsed());
            c.close_session()?;
        }
        let wall = start.elapsed();
        let cpu = cpu_between(c0, self.sample(), reps, wall);
        self.push(Row {
            key: "connect".into(),
            name: "connect+hello".into(),
            stats: Stats::of(&times),
            cpu,
            throughput: None,
            note: "(cpu: connect+hello+close-session)".into(),
        });
        Ok(())
    }

    /// b. get-config of running with N entries.
    pub(super) fn get_config_part(&mut self, c: &mut Client) -> Result<()> {
        for &n in &self.settings.sizes.clone() {
            clear_all(c)?;
            c.edit_config(Datastore::Candidate, &entries(n), None)?;
            c.commit()?;
            check_count(c, n)?;
            for _ in 0..3 {
                c.get_config(Datastore::Running, None)?;
            }
            let reps = self.settings.get_reps;
            let mut times = Vec::with_capacity(reps);
            let mut size = 0;
            let c0 = self.sample();
            let start = Instant::now();
            for _ in 0..reps {
                let t0 = Instant::now();
                let r = c.get_config(Datastore::Running, None)?;
                times.push(t0.elapsed());
                size = r.raw().len();
            }
            let wall = start.elapsed();
            let cpu = cpu_between(c0, self.sample(), reps, wall);
            self.push(Row {
                key: format!("get-config/{n}"),
                name: format!("get-config running, {n} entries"),
                stats: Stats::of(&times),
                cpu,
                throughput: None,
                note: format!("reply={:.0} KiB", size as f64 / 1024.0),
            });
        }
        clear_all(c)
    }

    /// c. edit-config (merge N entries into the candidate) + commit.
    pub(super) fn edit_part(&mut self, c: &mut Client) -> Result<()> {
        for &n in &self.settings.sizes.clone() {
            let cfg = entries(n);
            let reps = self.settings.edit_reps;
            let (mut te, mut tc, mut tt) = (Vec::new(), Vec::new(), Vec::new());
            // Zero with the same shape as a sample (an SSH part or not), then summed per rep.
            let mut used =
                self.sample().map(|s| CpuSample { server: 0.0, with_ssh: s.with_ssh.map(|_| 0.0) });
            let mut wall = Duration::ZERO;
            clear_all(c)?;
            for i in 0..=reps {
                let c0 = self.sample();
                let t0 = Instant::now();
                c.edit_config(Datastore::Candidate, &cfg, None)?;
                let t1 = Instant::now();
                c.commit()?;
                let t2 = Instant::now();
                let c1 = self.sample();
                if i > 0 {
                    te.push(t1 - t0);
                    tc.push(t2 - t1);
                    tt.push(t2 - t0);
                    wall += t2 - t0;
                    used = match (used, c0, c1) {
                        (Some(u), Some(a), Some(b)) => Some(add(u, b.since(&a))),
                        _ => None,
                    };
                } else {
                    check_count(c, n)?;
                }
                clear_all(c)?;
            }
            let cpu = used.map(|used| Cpu { used, ops: reps, wall });
            for (key, name, times, cpu) in [
                ("edit", "edit-config", &te, None),
                ("commit", "commit", &tc, None),
                ("edit+commit", "edit+commit", &tt, cpu),
            ] {
                self.push(Row {
                    key: format!("{key}/{n}"),
                    name: format!("{name} N={n}"),
                    stats: Stats::of(times),
                    cpu,
                    throughput: None,
                    note: String::new(),
                });
            }
        }
        Ok(())
    }

    /// d. K sessions looping edit-config (own interface) + commit for the duration.
    pub(super) fn throughput_part(&mut self) -> Result<()> {
        for &k in &self.settings.sessions.clone() {
            let c = self.connect()?;
            let mut c = c;
            clear_all(&mut c)?;
            c.close_session()?;
            let row = self.throughput_once(k)?;
            self.push(row);
        }
        Ok(())
    }

    fn throughput_once(&mut self, k: usize) -> Result<Row> {
        let duration = self.settings.duration;
        // Everyone connected → start; results in → CPU sampled → everyone closes.
        let start = Arc::new(Barrier::new(k + 1));
        let done = Arc::new(Barrier::new(k + 1));
        let (tx, rx) = mpsc::channel();
        let mut threads = Vec::with_capacity(k);
        for w in 0..k {
            let (start, done, tx) = (start.clone(), done.clone(), tx.clone());
            let opts = self.settings.connect.clone();
            threads.push(std::thread::spawn(move || {
                let client = Client::connect(&opts);
                start.wait();
                let result = match client {
                    Ok(mut c) => {
                        let r = worker_loop(&mut c, w, duration);
                        let _ = tx.send(Ok(r));
                        done.wait();
                        let _ = c.close_session();
                        return;
                    }
                    Err(e) => Err(e.to_string()),
                };
                let _ = tx.send(result);
                done.wait();
            }));
        }
        drop(tx);
        start.wait();
        let c0 = self.sample();
        let t_start = Instant::now();
        let mut results = Vec::with_capacity(k);
        let mut connect_failures = Vec::new();
        for _ in 0..k {
            match rx.recv() {
                Ok(Ok(r)) => results.push(r),
                Ok(Err(e)) => connect_failures.push(e),
                Err(_) => connect_failures.push("worker thread died".into()),
            }
        }
        let c1 = self.sample();
        let t_end = results.iter().map(|r: &WorkerResult| r.end).max().unwrap_or(t_start);
        done.wait();
        for t in threads {
            let _ = t.join();
        }
        let wall = t_end.saturating_duration_since(t_start).max(Duration::from_millis(1));
        let latencies: Vec<Duration> = results.iter().flat_map(|r| r.latencies.clone()).collect();
        let errors: usize = results.iter().map(|r| r.errors).sum();
        let ops = latencies.len();
        let mut note = String::new();
        if !connect_failures.is_empty() {
            note.push_str(&format!(
                "{} sessions failed to connect (first: {}) ",
                connect_failures.len(),
                connect_failures[0]
            ));
        }
        if let Some(e) = results.iter().find_map(|r| r.first_error.clone()) {
            note.push_str(&format!("first error: {e}"));
        }
        Ok(Row {
            key: format!("throughput/{k}"),
            name: format!("K={k} sessions edit+commit"),
            stats: Stats::of(&latencies),
            cpu: cpu_between(c0, c1, ops, wall),
            throughput: Some(Throughput {
                sessions: k,
                ops_per_s: ops as f64 / wall.as_secs_f64(),
                errors,
            }),
            note,
        })
    }
}

struct WorkerResult {
    latencies: Vec<Duration>,
    errors: usize,
    first_error: Option<String>,
    end: Instant,
}

/// One throughput session: its own interface `w<k>`, description `v<i>` changing each time.
fn worker_loop(c: &mut Client, w: usize, duration: Duration) -> WorkerResult {
    let name = format!("w{w}");
    let deadline = Instant::now() + duration;
    let mut r =
        WorkerResult { latencies: Vec::new(), errors: 0, first_error: None, end: Instant::now() };
    let mut i = 0u64;
    loop {
        let t0 = Instant::now();
        if t0 >= deadline {
            break;
        }
        let cfg = format!(
            "<interfaces xmlns=\"{IF_NS}\">{}</interfaces>",
            iface(&name, &format!("v{i}"))
        );
        let outcome = c.edit_config(Datastore::Candidate, &cfg, None).and_then(|()| c.commit());
        match outcome {
            Ok(()) => r.latencies.push(t0.elapsed()),
            Err(e) => {
                r.errors += 1;
                if r.first_error.is_none() {
                    r.first_error = Some(e.to_string().chars().take(300).collect());
                }
                // A broken session cannot go on; an rpc-error can.
                if !matches!(e, Error::Rpc(_)) {
                    break;
                }
            }
        }
        i += 1;
    }
    r.end = Instant::now();
    r
}

fn add(a: CpuSample, b: CpuSample) -> CpuSample {
    CpuSample {
        server: a.server + b.server,
        with_ssh: a.with_ssh.zip(b.with_ssh).map(|(x, y)| x + y),
    }
}

fn cpu_between(
    c0: Option<CpuSample>,
    c1: Option<CpuSample>,
    ops: usize,
    wall: Duration,
) -> Option<Cpu> {
    Some(Cpu { used: c1?.since(&c0?), ops, wall })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_match_bench_py_and_count() {
        let e = entries(2);
        assert!(
            e.starts_with(&format!("<interfaces xmlns=\"{IF_NS}\"><interface><name>if0</name>"))
        );
        assert_eq!(count_interfaces(&e).expect("xml"), 2);
        assert_eq!(
            iface("x", "d"),
            "<interface><name>x</name><type xmlns:ianaift=\"urn:ietf:params:xml:ns:yang:iana-if-type\">\
             ianaift:ethernetCsmacd</type><description>d</description><enabled>true</enabled></interface>"
        );
        // Prefixed, and an element of the same name in another namespace is not counted.
        let reply = format!(
            "<rpc-reply xmlns=\"{NC_NS}\" xmlns:if=\"{IF_NS}\"><data><if:interfaces><if:interface/>\
             <if:interface><if:name>a</if:name></if:interface></if:interfaces><interface/></data></rpc-reply>"
        );
        assert_eq!(count_interfaces(&reply).expect("xml"), 2);
    }
}
