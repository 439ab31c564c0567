//! How long a NIC port takes from a change of what is in force (a DCBX agreement, a commit) to
//! the NIC's answer: `nic_program IFNAME [COUNT]` makes COUNT changes of the operational PFC
//! Enable, alternately priority 3 and priorities 3 and 4, and for each works out the plan and
//! puts it on IFNAME through DCB netlink exactly as a NIC port does (DCBX mode, then
//! `ieee_pfc`, then the receive buffers where the NIC reports them, each its own request,
//! waiting for each answer), then prints p50 and p99 in
//! microseconds. With `ets-app` as a third argument each change is a DCBX agreement changing
//! ETS and APP instead: the ETS tables in force alternate between the port's own and a peer's
//! recommendation, and RoCE's APP entry between priorities 3 and 4 (the plan's requests: DCBX
//! mode, `ieee_ets`, `ieee_pfc`, the old entry deleted, the new one added). On veth every
//! request is refused (EOPNOTSUPP): the time is pfcd's and the kernel's round trips, no
//! driver's. On a NIC it changes its PFC (and ETS and APP): run it only on one you may
//! reconfigure.

use std::time::{Duration, Instant};

use pfcd::dataplane::headroom::Medium;
use pfcd::dataplane::time::LinkSpeed;
use pfcd::lldp::dcbx::{AppOper, EtsAdmin, EtsOper, EtsReason, Source};
use pfcd::lldp::wire::{AppEntry, AppSelector};
use pfcd::nic::apply::apply;
use pfcd::nic::buffers::BufferFacts;
use pfcd::nic::ets_app::{EtsAppFacts, EtsFacts};
use pfcd::nic::plan::{Plan, PortFacts};
use pfcd::nic::sysfs;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let interface = args.next().ok_or("usage: nic_program IFNAME [COUNT] [ets-app]")?;
    let count: usize = args.next().map(|c| c.parse()).transpose()?.unwrap_or(10_000);
    let ets_app = args.next().is_some_and(|a| a == "ets-app");
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
            if ets_app {
                facts.ets_app = agreement(i);
            } else {
                facts.oper_pfc_enable = if i % 2 == 0 { 0b0000_1000 } else { 0b0001_1000 };
            }
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
    let what = if ets_app { "ETS/APP agreement" } else { "PFC change" };
    println!(
        "{what} to the NIC's last answer: {count} changes, p50 {:.1} µs, p99 {:.1} µs",
        at(0.50),
        at(0.99)
    );
    Ok(())
}

/// The `i`th ETS/APP agreement: even ones the port's own ETS and RoCE at priority 3, odd ones
/// a peer's recommendation and RoCE at priority 4; the NIC holding the previous one's entry.
fn agreement(i: usize) -> EtsAppFacts {
    let roce =
        |priority| AppEntry { priority, selector: AppSelector::UDP_DCCP_PORT, protocol: 4791 };
    let ours = i.is_multiple_of(2);
    let (theirs, previous) = if ours { (roce(3), roce(4)) } else { (roce(4), roce(3)) };
    let admin = EtsAdmin::default();
    let mut tables = admin.config.tables;
    if !ours {
        tables.priority_tc[3] = 1;
        tables.tc_bandwidth[..2].copy_from_slice(&[50, 50]);
    }
    let (source, reason) = if ours {
        (Source::Local, EtsReason::NotWilling)
    } else {
        (Source::Peer, EtsReason::PeerRecommendation)
    };
    EtsAppFacts {
        ets: Some(EtsFacts { admin, oper: EtsOper { tables, source, reason } }),
        app: Some(AppOper { entries: vec![theirs], source }),
        apps_on_nic: vec![pfc_dcb::DcbApp {
            selector: previous.selector.0,
            priority: previous.priority,
            protocol: 4791,
        }],
    }
}
