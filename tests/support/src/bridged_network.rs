//! A network of pfcd bridges on veth, as a pfcsim network scenario describes one: each bridge
//! in its namespace with the scenario's port names as interface names (port-number n is the
//! n-th), each link a veth pair, each host in its own namespace (`eth0`), IPv6 off so that the
//! hosts send only what a test sends. A network with loops (a leaf-spine) floods an unknown
//! destination for good: tests route every destination with static filtering entries
//! ([`Network::route`]) before any traffic.

use std::sync::Arc;

use dataplane::wire::MacAddr;
use netconf_client::Client;

use crate::netns::{veth, Netns};
use crate::pfcd::{start_pfcd_with, Pfcd};
use crate::ring::{database, entry};
use crate::Scratch;

/// One bridge: its namespace, pfcd, a session, and its ports in port-number order.
pub struct NetBridge {
    pub name: String,
    /// Shared: a collector's connections enter it from their own threads.
    pub ns: Arc<Netns>,
    pub scratch: Scratch,
    pub pfcd: Pfcd,
    pub client: Client,
    pub ports: Vec<String>,
}

/// One host: its namespace and address.
pub struct NetHost {
    pub name: String,
    pub ns: Netns,
    pub mac: MacAddr,
}

pub struct Network {
    pub bridges: Vec<NetBridge>,
    pub hosts: Vec<NetHost>,
}

/// `DEVICE:PORT` split.
fn port_of(text: &str) -> (&str, &str) {
    text.split_once(':').unwrap_or_else(|| panic!("{text}: expected BRIDGE:PORT"))
}

/// Host `i`'s address (from 0).
fn host_mac(i: usize) -> MacAddr {
    MacAddr([2, 0, 0, 0x0a, 0, i as u8 + 1])
}

fn colons(mac: MacAddr) -> String {
    mac.to_string().replace('-', ":")
}

/// Builds the network: `bridges` (name, ports), `links` between two `BRIDGE:PORT`s, `hosts`
/// (name, the `BRIDGE:PORT` it is attached to); `tag` names its namespaces and scratch
/// directories, `settings` is added to each pfcd's `[interfaces]` settings (TOML lines).
pub fn network(
    tag: &str,
    bridges: &[(&str, Vec<&str>)],
    links: &[(&str, &str)],
    hosts: &[(&str, &str)],
    settings: &str,
) -> Network {
    let bridge_ns: Vec<Netns> =
        (0..bridges.len()).map(|i| Netns::new(&format!("{tag}b{i}"))).collect();
    let host_ns: Vec<Netns> = (0..hosts.len()).map(|i| Netns::new(&format!("{tag}h{i}"))).collect();
    let index = |name: &str| {
        bridges.iter().position(|(b, _)| *b == name).unwrap_or_else(|| panic!("no bridge {name}"))
    };
    let port_mac = |b: usize, port: &str| {
        let p = bridges[b].1.iter().position(|q| *q == port).unwrap_or_else(|| {
            panic!("bridge {} has no port {port}", bridges[b].0);
        });
        format!("02:00:00:0b:{:02x}:{:02x}", b + 1, p + 1)
    };
    for (a, b) in links {
        let ((da, pa), (db, pb)) = (port_of(a), port_of(b));
        let (ia, ib) = (index(da), index(db));
        veth(&bridge_ns[ia], pa, &port_mac(ia, pa), &bridge_ns[ib], pb, &port_mac(ib, pb));
    }
    for (h, (_, at)) in hosts.iter().enumerate() {
        let (d, p) = port_of(at);
        let i = index(d);
        veth(&bridge_ns[i], p, &port_mac(i, p), &host_ns[h], "eth0", &colons(host_mac(h)));
    }
    for ns in bridge_ns.iter().chain(&host_ns) {
        ns.run("/usr/sbin/sysctl", &["-qw", "net.ipv6.conf.all.disable_ipv6=1"]);
        ns.run("/usr/sbin/sysctl", &["-qw", "net.ipv6.conf.default.disable_ipv6=1"]);
    }
    for (ns, (_, ports)) in bridge_ns.iter().zip(bridges) {
        for p in ports {
            ns.link(&["set", p, "up"]);
        }
    }
    for ns in &host_ns {
        ns.link(&["set", "eth0", "up"]);
    }
    let bridges = bridge_ns
        .into_iter()
        .zip(bridges)
        .map(|(ns, (name, ports))| {
            let scratch = Scratch::new(&format!("{tag}-{name}"));
            let pfcd = start_pfcd_with(&ns, &scratch, ports, settings);
            let client = pfcd.client(&ns);
            NetBridge {
                name: name.to_string(),
                ns: Arc::new(ns),
                scratch,
                pfcd,
                client,
                ports: ports.iter().map(|p| p.to_string()).collect(),
            }
        })
        .collect();
    let hosts = host_ns
        .into_iter()
        .zip(hosts)
        .enumerate()
        .map(|(i, (ns, (name, _)))| NetHost { name: name.to_string(), ns, mac: host_mac(i) })
        .collect();
    Network { bridges, hosts }
}

impl Network {
    pub fn host(&self, name: &str) -> &NetHost {
        self.hosts.iter().find(|h| h.name == name).unwrap_or_else(|| panic!("no host {name}"))
    }

    /// Commits on each bridge a static filtering entry per (bridge, destination host, port):
    /// frames to that host leave the bridge by that port alone.
    pub fn route(&mut self, routes: &[(String, String, String)]) {
        use netconf_client::Datastore;
        let macs: Vec<(String, MacAddr)> =
            self.hosts.iter().map(|h| (h.name.clone(), h.mac)).collect();
        for b in &mut self.bridges {
            let entries: String = routes
                .iter()
                .filter(|(bridge, _, _)| *bridge == b.name)
                .map(|(_, host, port)| {
                    let mac = macs.iter().find(|(h, _)| h == host).expect("a host").1;
                    let number = b.ports.iter().position(|p| p == port).expect("a port") + 1;
                    entry(mac, number as u32)
                })
                .collect();
            if entries.is_empty() {
                continue;
            }
            b.client.edit_config(Datastore::Candidate, &database(&entries), None).expect("edit");
            b.client.commit().expect("the bridge takes static entries");
        }
    }

    /// Host `from` sends `rate` (pfc-traffic's form, e.g. `140Mbps`) of 1500-octet frames on
    /// `priority` to host `to`, on VLAN 10, for `duration` (e.g. `20s`), honouring PFC.
    pub fn send(
        &self,
        from: &str,
        to: &str,
        priority: u8,
        rate: &str,
        duration: &str,
    ) -> std::process::Child {
        let flow = format!("{priority}:{rate}:1500");
        let to = colons(self.host(to).mac);
        crate::traffic::send_on_vlan_10(&self.host(from).ns, &flow, &to, duration)
    }
}
