//! Two DCBX ports on a simulated link (the data plane's `SimPort`, the same `FramePort` trait a
//! real interface has), in simulated time: they agree at once, and a lossy link still converges
//! thanks to the fast-transmission burst.

use std::time::Duration;

use dataplane::io::{FramePort, SimClock, SimPort};
use dataplane::sim::{Medium, SimLink};
use dataplane::time::{LinkSpeed, Picos};
use dataplane::wire::MacAddr;
use lldp::dcbx::{DcbxAdmin, PfcAdmin, PfcReason};
use lldp::port::{DcbxPort, LocalSystem, PortOutput, PortSettings};
use lldp::wire::ChassisId;

const A: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x0a]);
const B: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x0b]);

fn port(name: &str, mac: MacAddr, willing: bool, enable: u8) -> DcbxPort {
    let system = LocalSystem {
        chassis_id: ChassisId::MacAddress(mac),
        system_name: None,
        system_description: None,
        capabilities: lldp::wire::SystemCapabilities::STATION_ONLY,
    };
    let dcbx = DcbxAdmin {
        pfc: PfcAdmin { willing, pfc_enable: enable, ..PfcAdmin::default() },
        ..DcbxAdmin::default()
    };
    DcbxPort::new(name, mac, system, PortSettings { dcbx, ..PortSettings::default() })
        .expect("valid")
}

fn to_duration(t: Picos) -> Duration {
    Duration::from_nanos(t.as_ns())
}

/// Runs both ends until `until`, event by event; returns when each end's state last changed.
fn run(ends: &mut [(DcbxPort, SimPort); 2], clock: &SimClock, until: Picos) {
    let mut buf = [0u8; 2048];
    loop {
        let now = clock.now();
        for (port, link) in ends.iter_mut() {
            let mut outs: Vec<PortOutput> = Vec::new();
            while let Ok(Some(n)) = link.recv(&mut buf) {
                outs.push(port.receive(&buf[..n], to_duration(now)));
            }
            if port.next_deadline().is_some_and(|t| t <= to_duration(now)) {
                outs.push(port.poll(to_duration(now)));
            }
            for f in outs.iter().flat_map(|o| &o.frames) {
                link.send(f).expect("simulated send");
            }
        }
        let next = ends
            .iter()
            .flat_map(|(p, l)| [p.next_deadline().map(Picos::from_duration), l.next_arrival()])
            .flatten()
            .filter(|t| *t > now)
            .min();
        match next {
            Some(t) if t <= until => clock.advance_to(t),
            _ => return,
        }
    }
}

fn start(loss_ppm: u32) -> ([(DcbxPort, SimPort); 2], SimClock) {
    let clock = SimClock::default();
    let link =
        |seed| SimLink::new(LinkSpeed::G100, Medium::Fibre.delay(100)).with_loss(loss_ppm, seed);
    let (la, lb) = SimPort::pair(("a", A), ("b", B), link(1), link(2), &clock);
    let mut ends = [(port("a", A, true, 0x08), la), (port("b", B, true, 0x30), lb)];
    for (p, l) in ends.iter_mut() {
        for f in &p.set_port_enabled(true, Duration::ZERO).frames {
            l.send(f).expect("simulated send");
        }
    }
    (ends, clock)
}

#[test]
fn two_ports_agree_over_a_simulated_link() {
    let (mut ends, clock) = start(0);
    run(&mut ends, &clock, Picos::from_ms(10));
    let [(a, _), (b, _)] = &ends;
    // Both willing: A has the lower MAC and adopts B's vector.
    assert_eq!(a.state().pfc.reason, PfcReason::BothWillingOurMacLower);
    assert_eq!((a.state().pfc.pfc_enable, b.state().pfc.pfc_enable), (0x30, 0x30));
    // One LLDPDU each way, then each answered the new neighbour with a fast burst.
    assert_eq!(a.agent().statistics().tx.total_frames, 2);
}

#[test]
fn a_lossy_link_still_converges() {
    // Half the frames lost in each direction.
    let (mut ends, clock) = start(500_000);
    run(&mut ends, &clock, Picos::from_ms(120_000));
    let [(a, la), (b, lb)] = &ends;
    assert!(la.frames_lost() + lb.frames_lost() > 0);
    assert_eq!((a.state().pfc.pfc_enable, b.state().pfc.pfc_enable), (0x30, 0x30));
}
