//! The ring of 802.1Q Figure 36-7 on veth: three pfcd bridges in network namespaces, each with
//! ports `cw` (port-number 1, toward the next bridge), `ccw` (2, from the one before) and `host`
//! (3), and a host on each (`eth0`), IPv6 off so that the hosts send only what a test sends.
//! A bridge without a spanning tree floods what it does not know, and in a ring a flooded frame
//! loops for good: tests give every bridge static filtering entries ([`entry`], [`database`]).
//!
//! ```text
//!   h1 ─ host [b1] cw ─ ccw [b2] cw ─ ccw [b3] cw ─┐
//!          ccw ──────────────────────────────────┘     (b2's host ─ h2, b3's host ─ h3)
//! ```

use dataplane::io::RawPort;
use dataplane::wire::MacAddr;
use netconf_client::Client;

use crate::hosts::host_socket;
use crate::netns::{veth, Netns};
use crate::pfcd::{start_pfcd_with, Pfcd, DOT1Q_NS};
use crate::Scratch;

/// The test frames' VLAN (`crate::hosts::VID`).
const VIDS: &str = "10";

/// Host `i`'s address (1 to 3).
pub fn host_mac(i: usize) -> MacAddr {
    MacAddr([2, 0, 0, 0, i as u8, i as u8])
}

/// A filtering entry for `address` on VLAN 10, forwarding through `port` and no other.
pub fn entry(address: MacAddr, port: u32) -> String {
    let a = address.0;
    let address =
        format!("{:02X}-{:02X}-{:02X}-{:02X}-{:02X}-{:02X}", a[0], a[1], a[2], a[3], a[4], a[5]);
    format!(
        "<filtering-entry><database-id>1</database-id><vids>{VIDS}</vids>\
         <address>{address}</address><entry-type>static</entry-type><port-map>\
         <port-ref>{port}</port-ref><static-filtering-entries><control-element>forward\
         </control-element></static-filtering-entries></port-map></filtering-entry>"
    )
}

/// `entries` in the filtering database of pfcd's bridge component (br0/c0, its first start's).
pub fn database(entries: &str) -> String {
    format!(
        "<bridges xmlns=\"{DOT1Q_NS}\"><bridge><name>br0</name><component><name>c0</name>\
         <filtering-database>{entries}</filtering-database></component></bridge></bridges>"
    )
}

/// One bridge of the ring: its namespace, pfcd and a session.
pub struct RingBridge {
    /// Shared: a collector's connections enter it from their own threads.
    pub ns: std::sync::Arc<Netns>,
    pub scratch: Scratch,
    pub pfcd: Pfcd,
    pub client: Client,
}

/// Three bridges in a ring and a host on each, every link up, IPv6 off (the hosts send only
/// the test's frames).
pub struct Ring {
    pub bridges: Vec<RingBridge>,
    pub hosts: Vec<(Netns, RawPort)>,
}

/// Builds the ring; `tag` names its namespaces and scratch directories, `settings` is added to
/// each pfcd's `[interfaces]` settings (TOML lines).
pub fn ring(tag: &str, settings: &str) -> Ring {
    let bridge_ns: Vec<Netns> = (1..=3).map(|i| Netns::new(&format!("{tag}b{i}"))).collect();
    let host_ns: Vec<Netns> = (1..=3).map(|i| Netns::new(&format!("{tag}h{i}"))).collect();
    for i in 0..3 {
        let next = (i + 1) % 3;
        let mac = |b: usize, p: usize| format!("02:00:00:0b:{:02x}:{:02x}", b + 1, p);
        veth(&bridge_ns[i], "cw", &mac(i, 1), &bridge_ns[next], "ccw", &mac(next, 2));
        let host = format!("02:00:00:00:{0:02x}:{0:02x}", i + 1);
        veth(&bridge_ns[i], "host", &mac(i, 3), &host_ns[i], "eth0", &host);
    }
    for ns in bridge_ns.iter().chain(&host_ns) {
        ns.run("/usr/sbin/sysctl", &["-qw", "net.ipv6.conf.all.disable_ipv6=1"]);
        ns.run("/usr/sbin/sysctl", &["-qw", "net.ipv6.conf.default.disable_ipv6=1"]);
    }
    for ns in &bridge_ns {
        for i in ["cw", "ccw", "host"] {
            ns.link(&["set", i, "up"]);
        }
    }
    for ns in &host_ns {
        ns.link(&["set", "eth0", "up"]);
    }
    let bridges = bridge_ns
        .into_iter()
        .enumerate()
        .map(|(i, ns)| {
            let scratch = Scratch::new(&format!("{tag}-b{}", i + 1));
            let pfcd = start_pfcd_with(&ns, &scratch, &["cw", "ccw", "host"], settings);
            let client = pfcd.client(&ns);
            RingBridge { ns: std::sync::Arc::new(ns), scratch, pfcd, client }
        })
        .collect();
    let hosts = host_ns.into_iter().map(|ns| {
        let socket = host_socket(&ns);
        (ns, socket)
    });
    Ring { bridges, hosts: hosts.collect() }
}

impl Ring {
    /// Every bridge's static entries send each host's frames clockwise: its own host through
    /// `host` (port 3), the others through `cw` (port 1). Committed on each bridge.
    pub fn route_clockwise(&mut self) {
        use netconf_client::Datastore;
        for (i, b) in self.bridges.iter_mut().enumerate() {
            let entries: String =
                (0..3).map(|h| entry(host_mac(h + 1), if h == i { 3 } else { 1 })).collect();
            b.client.edit_config(Datastore::Candidate, &database(&entries), None).expect("edit");
            b.client.commit().expect("the bridge takes static entries");
        }
    }

    /// Whether, as each bridge's own state says, every clockwise egress on priority 3 is paused
    /// and every counter-clockwise ingress sends XOFF: Figure 36-7's cycle held.
    pub fn cycle_held(&mut self) -> bool {
        use crate::pfcd::{pfc_of, priority, value};
        self.bridges.iter_mut().all(|b| {
            let cw = priority(&pfc_of(&mut b.client, "cw"), 3);
            let ccw = priority(&pfc_of(&mut b.client, "ccw"), 3);
            value(&cw, "priority-paused").as_deref() == Some("true")
                && value(&ccw, "xoff").as_deref() == Some("true")
        })
    }

    /// Figure 36-7's flows: each host sends `rate` (pfc-traffic's form, e.g. `8Gbps`) of
    /// 1500-octet frames on priority 3 to the host two bridges on, clockwise, for `duration`
    /// (e.g. `2s`); each ring link carries two of them. pfc-traffic honours the PFC it gets.
    pub fn send_36_7(&self, rate: &str, duration: &str) -> Vec<std::process::Child> {
        (0..3).map(|i| self.send_flow(i, rate, duration)).collect()
    }

    /// One of them: host `i` (0 to 2) to the host two bridges on (f1 from h1, f2 from h2, f3
    /// from h3).
    pub fn send_flow(&self, i: usize, rate: &str, duration: &str) -> std::process::Child {
        let flow = format!("3:{rate}:1500");
        let to = host_mac((i + 2) % 3 + 1).to_string().replace('-', ":");
        crate::traffic::send_on_vlan_10(&self.hosts[i].0, &flow, &to, duration)
    }
}
