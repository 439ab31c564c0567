//! How long one DCB netlink request takes, from sending to the kernel's answer (or refusal):
//! `dcb_round_trip IFNAME [COUNT]` sends COUNT IEEE GETs and as many PFC SETs to IFNAME (on veth
//! both are refused with EOPNOTSUPP; on a NIC the SET writes its current PFC back unchanged) and
//! prints p50 and p99 of each in microseconds.

use std::time::{Duration, Instant};

use pfc_dcb::{DcbSocket, IeeeObjects};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let interface = args.next().ok_or("usage: dcb_round_trip IFNAME [COUNT]")?;
    let count: usize = args.next().map(|c| c.parse()).transpose()?.unwrap_or(10_000);
    let mut dcb = DcbSocket::open()?;
    let current = dcb.ieee_get(&interface);
    let pfc = current.as_ref().ok().and_then(|(objects, _)| objects.pfc).unwrap_or_default();
    println!(
        "{interface}: IEEE GET {}",
        current.as_ref().map_or_else(|e| e.to_string(), |_| "answered".into())
    );
    let set = IeeeObjects { pfc: Some(pfc), ..Default::default() };
    let get = timed(count, || drop(dcb.ieee_get(&interface)));
    let set = timed(count, || drop(dcb.ieee_set(&interface, &set)));
    for (what, mut t) in [("IEEE GET", get), ("PFC SET", set)] {
        t.sort();
        let at = |q: f64| t[((t.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e6;
        println!("{what}: {count} requests, p50 {:.1} µs, p99 {:.1} µs", at(0.50), at(0.99));
    }
    Ok(())
}

fn timed(count: usize, mut f: impl FnMut()) -> Vec<Duration> {
    (0..count)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect()
}
