//! Figure 36-7 on real links: three pfcd bridges in a ring on veth (`test_support::ring`), each
//! host sending line-rate lossless traffic on priority 3 to the host two bridges on,
//! clockwise, so that every ring link carries two flows. The ring's buffers fill, each bridge's
//! clockwise egress is paused by the next bridge's counter-clockwise ingress, whose frames wait
//! for its own paused clockwise egress: a circular buffer dependency, traffic stops for good.
//!
//! Needs root (namespaces); skipped loudly without it, failed in CI.

use std::time::{Duration, Instant};

use test_support::netns::can_run;
use test_support::pfcd::{commit_pfc, commit_watchdog, pfc_of, priority, value};
use test_support::ring::{host_mac, ring, Ring};
use test_support::traffic::spawn;

/// Whether every bridge's clockwise egress on priority 3 is paused and every counter-clockwise
/// ingress sends XOFF: the cycle, as each bridge's own state says.
fn cycle_held(ring: &mut Ring) -> bool {
    ring.bridges.iter_mut().all(|b| {
        let cw = priority(&pfc_of(&mut b.client, "cw"), 3);
        let ccw = priority(&pfc_of(&mut b.client, "ccw"), 3);
        value(&cw, "priority-paused").as_deref() == Some("true")
            && value(&ccw, "xoff").as_deref() == Some("true")
    })
}

#[test]
fn the_36_7_ring_deadlocks_on_veth() {
    if !can_run("the_36_7_ring_deadlocks_on_veth") {
        return;
    }
    // The watchdog off and the longest transit delay: nothing breaks the deadlock for 4 s.
    let mut ring = ring("dl", "max-transit-ms = 4000\n");
    ring.route_clockwise();
    for b in &mut ring.bridges {
        commit_pfc(&mut b.client, &["cw", "ccw", "host"], "<pfc-enable>p3</pfc-enable>");
        commit_watchdog(&mut b.client, &["cw", "ccw", "host"], "<enabled>false</enabled>");
    }
    std::thread::sleep(Duration::from_millis(300));
    let senders: Vec<_> = (0..3)
        .map(|i| {
            let to = host_mac((i + 2) % 3 + 1).to_string().replace('-', ":");
            let ns = &ring.hosts[i].0;
            spawn(
                ns,
                &[
                    "send",
                    "-i",
                    "eth0",
                    "--flow",
                    "3:8Gbps:1500",
                    "--dst",
                    &to,
                    "--vid",
                    "10",
                    "--duration",
                    "3s",
                    "--json",
                ],
            )
        })
        .collect();
    let start = Instant::now();
    let mut held_at = None;
    while start.elapsed() < Duration::from_secs(3) {
        if cycle_held(&mut ring) {
            held_at = Some(start.elapsed());
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    eprintln!("cycle held at {held_at:?}");
    for s in senders {
        let out = s.wait_with_output().expect("wait");
        eprintln!("{}", String::from_utf8_lossy(&out.stdout));
    }
    for (i, b) in ring.bridges.iter_mut().enumerate() {
        for p in ["cw", "ccw", "host"] {
            let pr = priority(&pfc_of(&mut b.client, p), 3);
            eprintln!(
                "b{} {p}: paused {:?} xoff {:?} occ {:?} drops {:?}",
                i + 1,
                value(&pr, "priority-paused"),
                value(&pr, "xoff"),
                value(&pr, "occupancy"),
                value(&pr, "frames-dropped")
            );
        }
    }
    assert!(held_at.is_some(), "the cycle formed");
}
