//! How long a NIC port takes from a change of what is in force (a DCBX agreement, a commit) to
//! the NIC's answer: `nic_program IFNAME [COUNT]` makes COUNT changes of the operational PFC
//! Enable, alternately priority 3 and priorities 3 and 4, and for each works out the plan and
//! puts it on IFNAME through DCB netlink exactly as a NIC port does (DCBX mode, then
//! `ieee_pfc`, then the receive buffers where the NIC reports them, each its own request,
//! waiting for each answer), then prints p50 and p99 in
//! microseconds. On veth every request is refused (EOPNOTSUPP): the time is pfcd's and the
//! kernel's round trips, no driver's. On a NIC it changes its PFC: run it only on one you may
//! reconfigure.

use std::time::{Duration, Instant};

use pfcd::dataplane::headroom::Medium;
use pfcd::dataplane::time::LinkSpeed;
use pfcd::nic::apply::apply;
use pfcd::nic::buffers::BufferFacts;
use pfcd::nic::plan::{Plan, PortFacts};
use pfcd::nic::sysfs;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let interface = args.next().ok_or("usage: nic_program IFNAME [COUNT]")?;
    let count: usize = args.next().map(|c| c.parse()).transpose()?.unwrap_or(10_000);
    let mut dcb = pfc_dcb::DcbSocket::open()?;
    let mut facts = PortFacts {
        driver: sysfs::driver(&interface),
        oper_pfc_enable: 0,
        pfc_cap: 8,
        mbc: false,
        allowance_bits: 126_224,
        speed: LinkSpeed::G100,
        medium: Medium::Fibre,
        buffers: dcb.ieee_get(&interface).ok().and_then(|(objects, _)| objects.buffer).map(|b| {
            BufferFacts { max_frame: 9216, allocation_octets: [None; 8], total_size: b.total_size }
        }),
        ets_app: Default::default(),
    };
    let first = apply(&mut dcb, &interface, &Plan::for_port(&facts));
    println!("{interface} (driver {:?}): {first:?}", facts.driver);
    let mut times: Vec<Duration> = (0..count)
        .map(|i| {
            facts.oper_pfc_enable = if i % 2 == 0 { 0b0000_1000 } else { 0b0001_1000 };
            let start = Instant::now();
            let plan = Plan::for_port(&facts);
            let outcome = apply(&mut dcb, &interface, &plan);
            let took = start.elapsed();
            std::hint::black_box(outcome);
            took
        })
        .collect();
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e6;
    println!(
        "change to the NIC's last answer: {count} changes, p50 {:.1} µs, p99 {:.1} µs",
        at(0.50),
        at(0.99)
    );
    Ok(())
}
