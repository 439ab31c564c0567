//! From `<commit>` reply to the peer's operational PFC Enable changing, against a running pfcd
//! lab: alternates lab0's `pfc-enable` between `p3` and `p3 p4` N times and, after each commit's
//! reply, reads `/pfcd-lab:lab/port[lab0]/peer-dcbx/oper-pfc-enable` until the peer runs the new
//! vector. Prints p50/p99/max; the resolution is one `<get>` round trip (about half a
//! millisecond), which the figures include.
//!
//! LLDP's transmit credit (802.1AB txCreditMax, one credit back a second) holds back an LLDPDU
//! that follows others closely (each local change sends one at once). So that the figure is
//! pfcd's latency and not that limit, the program first sets lab0's `tx-credit-max` to 10 (and
//! `tx-fast-init` to 1, so that a new neighbour's burst spends little), and starts commits
//! GAP_MS apart (default 1100): each change then finds a credit. Back to back (GAP_MS 0) it
//! measures the credit limit instead: once the credit is spent, about a second per commit.
//!
//! ```text
//! cargo run --profile test --example commit_to_peer -- [PORT] [STATE_DIR] [N] [GAP_MS]
//! ```
//! Defaults: 830, ./pfcd-state, 100, 1100. The password is read from STATE_DIR/admin.password.

use std::time::{Duration, Instant};

use netconf_client::{Auth, Client, ConnectOptions, Datastore};

const IF: &str = "urn:ietf:params:xml:ns:yang:ietf-interfaces";
const BRIDGE: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-bridge";
const PFC: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-pfc-bridge";
const LAB: &str = pfc_yang_names::pfcd_lab::NAMESPACE;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let port: u16 = args.next().map(|p| p.parse()).transpose()?.unwrap_or(830);
    let dir = args.next().unwrap_or_else(|| "pfcd-state".to_string());
    let n: usize = args.next().map(|p| p.parse()).transpose()?.unwrap_or(100);
    let gap = Duration::from_millis(args.next().map(|p| p.parse()).transpose()?.unwrap_or(1100));
    let password = std::fs::read_to_string(format!("{dir}/admin.password"))?.trim().to_string();
    let mut c = Client::connect(&ConnectOptions::new(
        "127.0.0.1",
        port,
        "admin",
        Auth::Password(password),
    ))?;
    let peer = format!(
        "<lab xmlns=\"{LAB}\"><port><name>lab0</name><peer-dcbx><oper-pfc-enable/></peer-dcbx>\
         </port></lab>"
    );
    let lldp = "urn:ieee:std:802.1AB:yang:ieee802-dot1ab-lldp";
    c.edit_config(
        Datastore::Candidate,
        &format!(
            "<lldp xmlns=\"{lldp}\"><port><name>lab0</name><dest-mac-address>01-80-C2-00-00-0E\
             </dest-mac-address><tx-fast-init>1</tx-fast-init><tx-credit-max>10</tx-credit-max>\
             </port></lldp>"
        ),
        None,
    )?;
    c.commit()?;
    std::thread::sleep(Duration::from_secs(10)); // credits back to the maximum
    let mut times = Vec::with_capacity(n);
    for i in 0..n {
        let started = Instant::now();
        let want = if i % 2 == 0 { "p3 p4" } else { "p3" };
        let edit = format!(
            "<interfaces xmlns=\"{IF}\"><interface><name>lab0</name><bridge-port xmlns=\"{BRIDGE}\">\
             <pfc xmlns=\"{PFC}\"><pfc-enable>{want}</pfc-enable></pfc></bridge-port></interface>\
             </interfaces>"
        );
        c.edit_config(Datastore::Candidate, &edit, None)?;
        c.commit()?;
        let replied = Instant::now();
        let expected = format!("<oper-pfc-enable>{want}</oper-pfc-enable>");
        loop {
            let reply = c.get(Some(&peer))?;
            if reply.data().is_some_and(|d| d.contains(&expected)) {
                break;
            }
            if replied.elapsed() > Duration::from_secs(10) {
                return Err(format!("the peer never ran {want}").into());
            }
        }
        times.push(replied.elapsed().as_secs_f64() * 1e3);
        std::thread::sleep(gap.saturating_sub(started.elapsed()));
    }
    times.sort_by(f64::total_cmp);
    let p = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    println!(
        "commit reply to the peer's operational PFC Enable, {n} commits {} ms apart: p50 {:.2} ms, p99 {:.2} ms, \
         max {:.2} ms",
        gap.as_millis(),
        p(0.5),
        p(0.99),
        times[times.len() - 1]
    );
    c.close_session()?;
    Ok(())
}
