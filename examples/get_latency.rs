//! `<get>` latency against a running pfcd, with mgmt's blocking client (libssh2): p50/p99 over
//! N requests of everything (no filter), and of the lab ports' PFC state alone.
//!
//! ```text
//! cargo run --profile test --example get_latency -- [PORT] [STATE_DIR] [N]
//! ```
//! Defaults: 830, ./pfcd-state, 200. The password is read from STATE_DIR/admin.password.

use std::time::Instant;

use netconf_client::{Auth, Client, ConnectOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let port: u16 = args.next().map(|p| p.parse()).transpose()?.unwrap_or(830);
    let dir = args.next().unwrap_or_else(|| "pfcd-state".to_string());
    let n: usize = args.next().map(|p| p.parse()).transpose()?.unwrap_or(200);
    let password = std::fs::read_to_string(format!("{dir}/admin.password"))?.trim().to_string();
    let mut c = Client::connect(&ConnectOptions::new(
        "127.0.0.1",
        port,
        "admin",
        Auth::Password(password),
    ))?;
    let pfc = "<interfaces xmlns=\"urn:ietf:params:xml:ns:yang:ietf-interfaces\"/>";
    for (what, filter) in [("everything", None), ("interfaces (PFC state)", Some(pfc))] {
        c.get(filter)?; // warm-up
        let mut times = Vec::with_capacity(n);
        let mut size = 0;
        for _ in 0..n {
            let t = Instant::now();
            size = c.get(filter)?.raw().len();
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(f64::total_cmp);
        let p = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
        println!(
            "<get> of {what} ({size} octets), {n} requests: p50 {:.2} ms, p99 {:.2} ms",
            p(0.5),
            p(0.99)
        );
    }
    c.close_session()?;
    Ok(())
}
