//! Two pfc-lldp agents on a veth pair between two network namespaces: convergence from link
//! up, every willing combination of SPEC §5, fast transmission of an admin change, shutdown on
//! admin disable, fall-back after the TTL, and malformed LLDPDUs from a raw socket.
//!
//! Needs root (namespaces); skipped loudly without it, failed in CI.

use std::time::{Duration, Instant};

use dataplane::io::{FramePort, PacketSocket};
use dataplane::wire::{EtherType, MacAddr};
use lldp::wire::{
    ChassisId, LldpFrame, Lldpdu, PfcConfig, PortId, SystemName, Tlv, NEAREST_BRIDGE,
};
use serde_json::Value;
use test_support::netns::{can_run, veth, wait_for, Netns};
use test_support::pfc_lldp::Agent;
use test_support::Scratch;

const MAC_LOW: &str = "02:00:00:00:00:0a";
const MAC_HIGH: &str = "02:00:00:00:00:0b";

/// Two namespaces joined by veth `lldpa` (in a) and `lldpb` (in b), links down.
fn pair(tag: &str, a_mac: &str, b_mac: &str) -> (Netns, Netns) {
    let a = Netns::new(&format!("{tag}a"));
    let b = Netns::new(&format!("{tag}b"));
    veth(&a, "lldpa", a_mac, &b, "lldpb", b_mac);
    (a, b)
}

fn up(a: &Netns, b: &Netns) {
    a.link(&["set", "lldpa", "up"]);
    b.link(&["set", "lldpb", "up"]);
}

fn settings(port: &str, willing: bool, enable: &[u8], lldp: &str) -> String {
    format!(
        "[lldp]\n{lldp}\n[pfc]\nwilling = {willing}\nenable = {enable:?}\n[[port]]\nname = \"{port}\"\n"
    )
}

/// Waits until A (on lldpa) and B (on lldpb) both run PFC Enable `enable` and A has a peer
/// (A may keep its own setting with or without one); returns the source MAC of A's peer.
fn agreed_with_a_peer((agent_a, agent_b): (&Agent, &Agent), enable: &[u8], what: &str) -> Value {
    wait_for(Duration::from_secs(3), what, || {
        let peer_mac = agent_a.port("lldpa")?["dcbx"]["peer"]["source-mac"].clone();
        (agent_a.oper_enable("lldpa")? == list(enable)
            && agent_b.oper_enable("lldpb")? == list(enable)
            && !peer_mac.is_null())
        .then_some(peer_mac)
    })
}

fn pfc_oper(agent: &Agent, port: &str) -> Value {
    agent.port(port).map(|p| p["dcbx"]["oper"]["pfc"].clone()).unwrap_or(Value::Null)
}

fn list(v: &[u8]) -> Vec<u64> {
    v.iter().map(|p| u64::from(*p)).collect()
}

#[test]
fn two_agents_agree_on_pfc_within_2s_of_link_up() {
    if !can_run("two_agents_agree_on_pfc_within_2s_of_link_up") {
        return;
    }
    let scratch = Scratch::new("lldp-agree");
    let (a, b) = pair("ag", MAC_LOW, MAC_HIGH);
    let agent_a = Agent::start(&a, &scratch, "a", &settings("lldpa", true, &[3], ""));
    let agent_b = Agent::start(&b, &scratch, "b", &settings("lldpb", false, &[3, 4], ""));
    let start = Instant::now();
    up(&a, &b);
    let want = list(&[3, 4]);
    wait_for(Duration::from_secs(2), "both ends on PFC priorities 3 and 4", || {
        (agent_a.oper_enable("lldpa")? == want && agent_b.oper_enable("lldpb")? == want)
            .then_some(())
    });
    eprintln!("agreed {:?} after link up", start.elapsed());
    assert_eq!(pfc_oper(&agent_a, "lldpa")["source"], "peer");
    assert_eq!(pfc_oper(&agent_b, "lldpb")["source"], "local");
}

/// (A willing, B willing, A's MAC, B's MAC) -> (A's enable, B's enable, A's reason, B's reason,
/// misconfigured), with A's admin enable [3] and B's [4].
#[test]
fn every_willing_combination_gives_the_operational_values_of_spec_5() {
    if !can_run("every_willing_combination_gives_the_operational_values_of_spec_5") {
        return;
    }
    let scratch = Scratch::new("lldp-willing");
    let (a, b) = pair("wc", MAC_LOW, MAC_HIGH);
    up(&a, &b);
    type Case = (
        bool,
        bool,
        &'static str,
        &'static str,
        [u8; 1],
        [u8; 1],
        &'static str,
        &'static str,
        bool,
    );
    let cases: [Case; 5] = [
        (false, false, MAC_LOW, MAC_HIGH, [3], [4], "neither-willing", "neither-willing", true),
        (true, false, MAC_LOW, MAC_HIGH, [4], [4], "peer-not-willing", "peer-adopts-ours", false),
        (false, true, MAC_LOW, MAC_HIGH, [3], [3], "peer-adopts-ours", "peer-not-willing", false),
        (
            true,
            true,
            MAC_LOW,
            MAC_HIGH,
            [4],
            [4],
            "both-willing-our-mac-lower",
            "both-willing-our-mac-higher",
            false,
        ),
        (
            true,
            true,
            MAC_HIGH,
            MAC_LOW,
            [3],
            [3],
            "both-willing-our-mac-higher",
            "both-willing-our-mac-lower",
            false,
        ),
    ];
    for (i, (wa, wb, ma, mb, ea, eb, ra, rb, misconfigured)) in cases.into_iter().enumerate() {
        a.link(&["set", "lldpa", "address", ma]);
        b.link(&["set", "lldpb", "address", mb]);
        let agent_a =
            Agent::start(&a, &scratch, &format!("a{i}"), &settings("lldpa", wa, &[3], ""));
        let agent_b =
            Agent::start(&b, &scratch, &format!("b{i}"), &settings("lldpb", wb, &[4], ""));
        let what = format!("case {i}: willing A {wa} B {wb}, MAC A {ma} B {mb}");
        wait_for(Duration::from_secs(3), &what, || {
            let (pa, pb) = (pfc_oper(&agent_a, "lldpa"), pfc_oper(&agent_b, "lldpb"));
            (pa["reason"] == ra && pb["reason"] == rb).then_some(())
        });
        let (pa, pb) = (pfc_oper(&agent_a, "lldpa"), pfc_oper(&agent_b, "lldpb"));
        assert_eq!(agent_a.oper_enable("lldpa"), Some(list(&ea)), "{what}: A {pa}");
        assert_eq!(agent_b.oper_enable("lldpb"), Some(list(&eb)), "{what}: B {pb}");
        assert_eq!(pa["misconfigured"], misconfigured, "{what}: A {pa}");
        assert_eq!(pb["misconfigured"], misconfigured, "{what}: B {pb}");
    }
}

#[test]
fn admin_change_propagates_with_fast_transmission() {
    if !can_run("admin_change_propagates_with_fast_transmission") {
        return;
    }
    let scratch = Scratch::new("lldp-change");
    let (a, b) = pair("ch", MAC_LOW, MAC_HIGH);
    up(&a, &b);
    // msgTxInterval 30 s: only fast transmission can carry the change within a second.
    let lldp = "message-tx-interval = 30";
    let agent_a = Agent::start(&a, &scratch, "a", &settings("lldpa", false, &[3], lldp));
    let agent_b = Agent::start(&b, &scratch, "b", &settings("lldpb", true, &[], lldp));
    wait_for(Duration::from_secs(3), "B adopts [3]", || {
        (agent_b.oper_enable("lldpb")? == list(&[3])).then_some(())
    });
    // Let the new-neighbour burst finish so what follows is the local change's own.
    std::thread::sleep(Duration::from_millis(3500));
    let sent_before = agent_a.port("lldpa").map(|p| p["tx-statistics"]["total-frames"].clone());
    let start = Instant::now();
    agent_a.reconfigure(&settings("lldpa", false, &[3, 5], lldp));
    wait_for(Duration::from_secs(1), "B adopts [3, 5]", || {
        (agent_b.oper_enable("lldpb")? == list(&[3, 5])).then_some(())
    });
    eprintln!("admin change adopted by the peer after {:?}", start.elapsed());
    // A's own count of frames sent shows the transmission too, once A has written its state
    // file after the loop turn that sent it (under load the peer can be read first).
    wait_for(Duration::from_secs(1), "A counts the frame that carried the change", || {
        let sent = agent_a.port("lldpa").map(|p| p["tx-statistics"]["total-frames"].clone());
        (sent != sent_before).then_some(())
    });
}

#[test]
fn admin_disable_sends_a_shutdown_lldpdu_and_the_peer_falls_back_at_once() {
    if !can_run("admin_disable_sends_a_shutdown_lldpdu_and_the_peer_falls_back_at_once") {
        return;
    }
    let scratch = Scratch::new("lldp-disable");
    let (a, b) = pair("di", MAC_LOW, MAC_HIGH);
    up(&a, &b);
    let agent_a = Agent::start(&a, &scratch, "a", &settings("lldpa", false, &[3], ""));
    let agent_b = Agent::start(&b, &scratch, "b", &settings("lldpb", true, &[6], ""));
    wait_for(Duration::from_secs(3), "B adopts [3]", || {
        (agent_b.oper_enable("lldpb")? == list(&[3])).then_some(())
    });
    let start = Instant::now();
    agent_a.reconfigure(&settings("lldpa", false, &[3], "admin-status = \"disabled\""));
    // The TTL is 121 s: only the shutdown LLDPDU can make B fall back this quickly.
    wait_for(Duration::from_secs(1), "B back on its own [6]", || {
        (agent_b.oper_enable("lldpb")? == list(&[6])).then_some(())
    });
    eprintln!("peer fell back {:?} after admin disable", start.elapsed());
    let pb = agent_b.port("lldpb").expect("state");
    assert_eq!(pb["remote-statistics"]["remote-deletes"], 1);
    assert_eq!(pb["rx-statistics"]["total-ageouts"], 0);
    assert_eq!(pb["dcbx"]["peer"]["status"], "none");
    assert_eq!(pb["dcbx"]["oper"]["pfc"]["reason"], "no-peer");
}

#[test]
fn silent_loss_of_the_peer_falls_back_after_the_ttl() {
    if !can_run("silent_loss_of_the_peer_falls_back_after_the_ttl") {
        return;
    }
    let scratch = Scratch::new("lldp-ttl");
    let (a, b) = pair("tt", MAC_LOW, MAC_HIGH);
    up(&a, &b);
    // TTL = 1 × 2 + 1 = 3 s.
    let lldp = "message-tx-interval = 1\nmessage-tx-hold-multiplier = 2";
    let mut agent_a = Agent::start(&a, &scratch, "a", &settings("lldpa", false, &[3], lldp));
    let agent_b = Agent::start(&b, &scratch, "b", &settings("lldpb", true, &[6], lldp));
    wait_for(Duration::from_secs(3), "B adopts [3]", || {
        (agent_b.oper_enable("lldpb")? == list(&[3])).then_some(())
    });
    assert_eq!(
        agent_b.port("lldpb").map(|p| p["neighbours"][0]["ttl"].clone()),
        Some(Value::from(3))
    );
    // SIGKILL: no shutdown LLDPDU, the peer just goes quiet.
    agent_a.daemon.signal(nix::sys::signal::Signal::SIGKILL);
    let _ = agent_a.daemon.child.wait();
    let start = Instant::now();
    wait_for(Duration::from_secs(5), "B back on its own [6]", || {
        (agent_b.oper_enable("lldpb")? == list(&[6])).then_some(())
    });
    let took = start.elapsed();
    eprintln!("peer aged out {took:?} after going silent");
    assert!(
        took >= Duration::from_millis(1900),
        "fell back after {took:?}, before the TTL ran out"
    );
    let pb = agent_b.port("lldpb").expect("state");
    assert_eq!(pb["rx-statistics"]["total-ageouts"], 1);
    assert_eq!(pb["remote-statistics"]["remote-ageouts"], 1);
}

/// Sends `frames` on `iface` of namespace `ns` from a thread that joins it, and returns the
/// first LLDP frame that socket receives within `listen`.
fn inject(ns: &Netns, iface: &str, frames: Vec<Vec<u8>>, listen: Duration) -> Option<Vec<u8>> {
    let path = format!("/run/netns/{}", ns.name);
    let iface = iface.to_string();
    std::thread::spawn(move || {
        let netns = std::fs::File::open(path).expect("namespace file");
        nix::sched::setns(netns, nix::sched::CloneFlags::CLONE_NEWNET).expect("setns");
        let mut socket =
            PacketSocket::open(&iface, EtherType::LLDP, &[NEAREST_BRIDGE]).expect("open");
        for f in &frames {
            socket.send(f).expect("send");
            std::thread::sleep(Duration::from_millis(20));
        }
        let deadline = Instant::now() + listen;
        let mut buf = [0u8; 2048];
        while Instant::now() < deadline {
            if let Ok(Some(n)) = socket.recv(&mut buf) {
                return Some(buf[..n].to_vec());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    })
    .join()
    .expect("injector thread")
}

fn hex(s: &str) -> Vec<u8> {
    hex::decode(s.split_whitespace().collect::<String>()).expect("hex")
}

#[test]
fn malformed_lldpdus_are_discarded_and_counted_and_good_entries_stay() {
    if !can_run("malformed_lldpdus_are_discarded_and_counted_and_good_entries_stay") {
        return;
    }
    let scratch = Scratch::new("lldp-malformed");
    let (a, b) = pair("mf", MAC_LOW, MAC_HIGH);
    up(&a, &b);
    let agent_b = Agent::start(&b, &scratch, "b", &settings("lldpb", true, &[1], ""));
    wait_for(Duration::from_secs(3), "B's port up", || {
        agent_b.port("lldpb").filter(|p| p["port-enabled"] == true)
    });
    let src = MacAddr([0x02, 0, 0, 0, 0, 0x0a]);
    let mut good =
        Lldpdu::new(ChassisId::MacAddress(src), PortId::InterfaceName("inj0".into()), 120);
    good.tlvs.push(Tlv::SystemName(SystemName::from("injector")));
    good.tlvs.push(Tlv::PfcConfig(PfcConfig {
        pfc_cap: 8,
        pfc_enable: 0x30,
        ..PfcConfig::default()
    }));
    let good = LldpFrame::new(src, good).to_vec().expect("emits");
    let header = "0180c200000e 02000000000a 88cc";
    let chassis = "0207 04 02000000000a";
    let port = "0405 05 696e6a30"; // "inj0"
    let frames = vec![
        good,
        // Mandatory TLV missing: no TTL.
        hex(&format!("{header} {chassis} {port} 0000")),
        // Out of order: Port ID first.
        hex(&format!("{header} {port} {chassis} 0602 0078 0000")),
        // A System Name claiming 64 octets with 3 left.
        hex(&format!("{header} {chassis} {port} 0602 0078 0a40 616263")),
        // A 5-octet PFC TLV: the TLV is discarded, the LLDPDU (now without PFC) used.
        hex(&format!(
            "{header} {chassis} {port} 0602 0078 0a08 696e6a6563746f72 fe05 0080c2 0b 08 0000"
        )),
    ];
    let heard = inject(&a, "lldpa", frames, Duration::from_secs(2));
    let heard = heard.expect("the raw socket (multicast joined) receives pfc-lldp's LLDPDUs");
    let frame = LldpFrame::parse(&heard).expect("a valid LLDP frame");
    assert_eq!(frame.lldpdu.port_id, PortId::InterfaceName("lldpb".into()));

    let p = wait_for(Duration::from_secs(2), "every injected frame counted", || {
        agent_b.port("lldpb").filter(|p| p["rx-statistics"]["total-frames"] == 5)
    });
    let rx = &p["rx-statistics"];
    assert_eq!(rx["total-discarded-frames"], 3, "{rx}");
    assert_eq!(rx["error-frames"], 3, "{rx}");
    assert_eq!(rx["total-discarded-tlvs"], 1, "{rx}");
    let neighbours = p["neighbours"].as_array().expect("list");
    assert_eq!(neighbours.len(), 1, "the good entry stays");
    assert_eq!(neighbours[0]["system-name"], "injector");
    // The last good LLDPDU had its PFC TLV discarded: no PFC from the peer now.
    assert_eq!(p["dcbx"]["peer"]["pfc-tlv-discarded"], true);
    assert_eq!(p["dcbx"]["oper"]["pfc"]["reason"], "peer-sent-no-pfc-tlv");
    assert!(agent_b.log().contains("LLDPDU discarded"));
}

#[test]
fn vlan_tagged_lldpdus_are_refused_and_counted_not_taken_as_the_peer() {
    if !can_run("vlan_tagged_lldpdus_are_refused_and_counted_not_taken_as_the_peer") {
        return;
    }
    let scratch = Scratch::new("lldp-vlan");
    let (a, b) = pair("vl", MAC_LOW, MAC_HIGH);
    up(&a, &b);
    let agent_b = Agent::start(&b, &scratch, "b", &settings("lldpb", true, &[1], ""));
    wait_for(Duration::from_secs(3), "B's port up", || {
        agent_b.port("lldpb").filter(|p| p["port-enabled"] == true)
    });
    let src = MacAddr([0x02, 0, 0, 0, 0, 0x0a]);
    let mut pdu =
        Lldpdu::new(ChassisId::MacAddress(src), PortId::InterfaceName("vlan5".into()), 120);
    pdu.tlvs.push(Tlv::PfcConfig(PfcConfig {
        willing: false,
        pfc_cap: 8,
        pfc_enable: 0x30,
        ..PfcConfig::default()
    }));
    let untagged = LldpFrame::new(src, pdu).to_vec().expect("emits");
    // The same LLDPDU from a station on VLAN 5 (this kernel has no 8021q module for a VLAN
    // interface, so the tag is written by hand; the receiving kernel strips it all the same).
    let mut tagged = untagged.clone();
    tagged.splice(12..12, [0x81, 0x00, 0x00, 0x05]);
    inject(&a, "lldpa", vec![tagged.clone(), tagged], Duration::ZERO);
    let p = wait_for(Duration::from_secs(2), "both tagged frames counted", || {
        agent_b.port("lldpb").filter(|p| p["rx-statistics"]["total-frames"] == 2)
    });
    assert_eq!(p["rx-statistics"]["total-discarded-frames"], 2, "{}", p["rx-statistics"]);
    assert_eq!(p["neighbours"].as_array().map(Vec::len), Some(0), "not a neighbour");
    assert_eq!(agent_b.oper_enable("lldpb"), Some(list(&[1])), "B keeps its own PFC");
    assert!(agent_b.log().contains("LLDPDU discarded"));
    // Untagged, the same LLDPDU is the peer: the refusal was the tag's doing.
    inject(&a, "lldpa", vec![untagged], Duration::ZERO);
    wait_for(Duration::from_secs(2), "B adopts the untagged peer's [4, 5]", || {
        (agent_b.oper_enable("lldpb")? == list(&[4, 5])).then_some(())
    });
}

#[test]
fn an_interface_deleted_and_created_again_is_reopened_with_its_new_address() {
    if !can_run("an_interface_deleted_and_created_again_is_reopened_with_its_new_address") {
        return;
    }
    let scratch = Scratch::new("lldp-recreate");
    let (a, b) = pair("rc", MAC_LOW, MAC_HIGH);
    up(&a, &b);
    let agent_a = Agent::start(&a, &scratch, "a", &settings("lldpa", true, &[3], ""));
    let agent_b = Agent::start(&b, &scratch, "b", &settings("lldpb", true, &[4], ""));
    // Both willing: the end with the lower MAC address (A) adopts the other's.
    wait_for(Duration::from_secs(3), "both on B's [4]", || {
        (agent_a.oper_enable("lldpa")? == list(&[4]) && agent_b.oper_enable("lldpb")? == list(&[4]))
            .then_some(())
    });
    // Deleting one end deletes the pair; created again, B's end now has the lower address.
    a.link(&["del", "lldpa"]);
    wait_for(Duration::from_secs(2), "B's port down", || {
        agent_b.port("lldpb").filter(|p| p["port-enabled"] == false)
    });
    let mac_lowest = "02:00:00:00:00:09";
    veth(&a, "lldpa", MAC_LOW, &b, "lldpb", mac_lowest);
    let start = Instant::now();
    up(&a, &b);
    let b_mac = agreed_with_a_peer(
        (&agent_a, &agent_b),
        &[3],
        "both on A's [3], B tie-breaking with its new MAC",
    );
    eprintln!("re-agreed {:?} after the interfaces came back", start.elapsed());
    assert_eq!(b_mac, mac_lowest.replace(':', "-"), "B sends from its new address");
    assert!(!agent_b.log().contains("LLDPDU not sent"), "{}", agent_b.log());
}

#[test]
fn a_missing_interface_does_not_stop_the_others_and_opens_when_it_appears() {
    if !can_run("a_missing_interface_does_not_stop_the_others_and_opens_when_it_appears") {
        return;
    }
    let scratch = Scratch::new("lldp-missing");
    let (a, b) = pair("mi", MAC_LOW, MAC_HIGH);
    up(&a, &b);
    let agent_a = Agent::start(&a, &scratch, "a", &settings("lldpa", false, &[3], ""));
    // The missing interface comes first in B's port list.
    let config = "[pfc]\nwilling = true\nenable = [6]\n[[port]]\nname = \"later0\"\n\
                  [[port]]\nname = \"lldpb\"\n";
    let agent_b = Agent::start(&b, &scratch, "b", config);
    wait_for(Duration::from_secs(3), "B's other port adopts A's [3]", || {
        (agent_b.oper_enable("lldpb")? == list(&[3])).then_some(())
    });
    assert!(agent_a.port("lldpa").is_some());
    assert!(agent_b.log().contains("later0"), "the missing interface is logged");
    // The interface appears: the agent opens it and runs LLDP on it.
    b.link(&["add", "later0", "type", "veth", "peer", "name", "later1"]);
    b.link(&["set", "later1", "up"]);
    b.link(&["set", "later0", "up"]);
    let p = wait_for(Duration::from_secs(3), "later0 opened and up", || {
        agent_b.port("later0").filter(|p| p["port-enabled"] == true)
    });
    let sent = p["tx-statistics"]["total-frames"].as_u64().unwrap_or(0);
    assert!(sent >= 1, "later0 transmits: {p}");
}

#[test]
fn a_new_mac_address_is_sent_and_tie_broken_with_at_once() {
    if !can_run("a_new_mac_address_is_sent_and_tie_broken_with_at_once") {
        return;
    }
    let scratch = Scratch::new("lldp-newmac");
    let (a, b) = pair("nm", MAC_LOW, MAC_HIGH);
    up(&a, &b);
    // msgTxInterval 30 s: only the change itself can carry the new address within seconds.
    let lldp = "message-tx-interval = 30";
    let agent_a = Agent::start(&a, &scratch, "a", &settings("lldpa", true, &[3], lldp));
    let agent_b = Agent::start(&b, &scratch, "b", &settings("lldpb", true, &[4], lldp));
    wait_for(Duration::from_secs(3), "both on B's [4] (A has the lower MAC)", || {
        (agent_a.oper_enable("lldpa")? == list(&[4]) && agent_b.oper_enable("lldpb")? == list(&[4]))
            .then_some(())
    });
    // B's interface gets an address below A's, link up all along.
    b.link(&["set", "lldpb", "address", "02:00:00:00:00:09"]);
    // B's change of chassis ID has A forget B for a moment (a shutdown LLDPDU for the old one).
    agreed_with_a_peer((&agent_a, &agent_b), &[3], "both on A's [3], B now the lower MAC");
    // Both can be on [3] a moment before A has read B's new LLDPDU (B, the lower now, adopts
    // A's at once; A keeps its own while it still sees B's old, higher address): A hears B's
    // new address too, within the same few seconds, and they stay agreed.
    wait_for(Duration::from_secs(3), "A hears B's new address", || {
        let peer = agent_a.port("lldpa")?["dcbx"]["peer"]["source-mac"].clone();
        (peer == "02-00-00-00-00-09").then_some(())
    });
    assert_eq!(agent_a.oper_enable("lldpa"), Some(list(&[3])));
    assert_eq!(agent_b.oper_enable("lldpb"), Some(list(&[3])));
}

#[test]
fn a_short_link_flap_re_agrees_as_soon_as_the_link_is_back() {
    if !can_run("a_short_link_flap_re_agrees_as_soon_as_the_link_is_back") {
        return;
    }
    let scratch = Scratch::new("lldp-flap");
    let (a, b) = pair("fl", MAC_LOW, MAC_HIGH);
    up(&a, &b);
    let _agent_a = Agent::start(&a, &scratch, "a", &settings("lldpa", false, &[3], ""));
    let agent_b = Agent::start(&b, &scratch, "b", &settings("lldpb", true, &[6], ""));
    wait_for(Duration::from_secs(3), "B adopts [3]", || {
        (agent_b.oper_enable("lldpb")? == list(&[3])).then_some(())
    });
    let mut took = Vec::new();
    for _ in 0..3 {
        a.link(&["set", "lldpa", "down"]);
        wait_for(Duration::from_secs(2), "B back on its own [6]", || {
            (agent_b.oper_enable("lldpb")? == list(&[6])).then_some(())
        });
        std::thread::sleep(Duration::from_millis(200));
        let start = Instant::now();
        a.link(&["set", "lldpa", "up"]);
        // reinitDelay (2 s) must not hold the first LLDPDU back after a flap.
        wait_for(Duration::from_secs(1), "B adopts [3] again", || {
            (agent_b.oper_enable("lldpb")? == list(&[3])).then_some(())
        });
        took.push(start.elapsed());
    }
    eprintln!("re-agreed after link up, three 200 ms flaps: {took:?}");
}

/// An LLDPDU longer than 2048 octets (a jumbo link) is read whole: its last TLV, the PFC
/// Configuration, is used, and nothing is counted as an error.
#[test]
fn an_lldpdu_longer_than_2048_octets_is_read_whole() {
    if !can_run("an_lldpdu_longer_than_2048_octets_is_read_whole") {
        return;
    }
    let scratch = Scratch::new("lldp-jumbo");
    let (a, b) = pair("jb", MAC_LOW, MAC_HIGH);
    a.link(&["set", "lldpa", "mtu", "9000"]);
    b.link(&["set", "lldpb", "mtu", "9000"]);
    up(&a, &b);
    let agent_b = Agent::start(&b, &scratch, "b", &settings("lldpb", true, &[1], ""));
    wait_for(Duration::from_secs(3), "B's port up", || {
        agent_b.port("lldpb").filter(|p| p["port-enabled"] == true)
    });
    let src = MacAddr([0x02, 0, 0, 0, 0, 0x0a]);
    let mut pdu =
        Lldpdu::new(ChassisId::MacAddress(src), PortId::InterfaceName("jumbo".into()), 120);
    // Seven organizationally specific TLVs of an OUI nobody interprets, 500 octets each.
    for subtype in 0..7 {
        pdu.tlvs.push(Tlv::Org(lldp::wire::OrgTlv {
            oui: lldp::wire::Oui([0x02, 0x12, 0x34]),
            subtype,
            info: vec![0x5a; 496],
        }));
    }
    pdu.tlvs.push(Tlv::PfcConfig(PfcConfig {
        willing: false,
        pfc_cap: 8,
        pfc_enable: 0x30,
        ..PfcConfig::default()
    }));
    let frame = LldpFrame::new(src, pdu).to_vec().expect("emits");
    assert!(frame.len() > 3500, "a jumbo LLDPDU: {} octets", frame.len());
    inject(&a, "lldpa", vec![frame], Duration::ZERO);
    wait_for(Duration::from_secs(2), "B adopts the jumbo peer's [4, 5]", || {
        (agent_b.oper_enable("lldpb")? == list(&[4, 5])).then_some(())
    });
    let p = agent_b.port("lldpb").expect("state");
    assert_eq!(p["rx-statistics"]["error-frames"], 0, "{}", p["rx-statistics"]);
    assert_eq!(p["rx-statistics"]["total-unrecognized-tlvs"], 7, "{}", p["rx-statistics"]);
}

/// SIGHUP applies a new system name and description: the peer sees them at once.
#[test]
fn sighup_applies_a_new_system_name_and_description() {
    if !can_run("sighup_applies_a_new_system_name_and_description") {
        return;
    }
    let scratch = Scratch::new("lldp-sysname");
    let (a, b) = pair("sn", MAC_LOW, MAC_HIGH);
    up(&a, &b);
    let config = |name: &str| {
        format!(
            "system-name = \"{name}\"\nsystem-description = \"{name} desc\"\n{}",
            settings("lldpa", false, &[3], "")
        )
    };
    let agent_a = Agent::start(&a, &scratch, "a", &config("one"));
    let agent_b = Agent::start(&b, &scratch, "b", &settings("lldpb", true, &[4], ""));
    let neighbour = |agent: &Agent| agent.port("lldpb")?["neighbours"].get(0).cloned();
    wait_for(Duration::from_secs(3), "B sees A as 'one'", || {
        neighbour(&agent_b).filter(|n| n["system-name"] == "one")
    });
    agent_a.reconfigure(&config("two"));
    let n = wait_for(Duration::from_secs(2), "B sees A as 'two'", || {
        neighbour(&agent_b).filter(|n| n["system-name"] == "two")
    });
    let tlvs = n["tlvs"].to_string();
    assert!(tlvs.contains(&hex::encode("two desc")), "the new description is sent: {tlvs}");
    assert!(agent_a.log().contains("system identity changed"), "{}", agent_a.log());
}

/// A good LLDPDU from `src` whose System Name is `name`, as a whole frame.
fn injected_lldpdu(src: MacAddr, name: &str) -> Vec<u8> {
    let mut pdu =
        Lldpdu::new(ChassisId::MacAddress(src), PortId::InterfaceName("inj0".into()), 120);
    pdu.tlvs.push(Tlv::SystemName(SystemName::from(name)));
    LldpFrame::new(src, pdu).to_vec().expect("emits")
}

/// A refresh (the same LLDPDU again) changes only counters; they reach the state file within
/// a second even when nothing else happens (no transmission due for 30 s).
#[test]
fn a_received_refresh_reaches_the_state_file_within_a_second() {
    if !can_run("a_received_refresh_reaches_the_state_file_within_a_second") {
        return;
    }
    let scratch = Scratch::new("lldp-refresh");
    let (a, b) = pair("rf", MAC_LOW, MAC_HIGH);
    up(&a, &b);
    let lldp = "message-tx-interval = 30";
    let agent_b = Agent::start(&b, &scratch, "b", &settings("lldpb", true, &[1], lldp));
    wait_for(Duration::from_secs(3), "B's port up", || {
        agent_b.port("lldpb").filter(|p| p["port-enabled"] == true)
    });
    let frame = injected_lldpdu(MacAddr([0x02, 0, 0, 0, 0, 0x0a]), "injector");
    inject(&a, "lldpa", vec![frame.clone()], Duration::ZERO);
    wait_for(Duration::from_secs(2), "the neighbour inserted", || {
        agent_b.port("lldpb").filter(|p| p["rx-statistics"]["total-frames"] == 1)
    });
    // The new neighbour's fast burst (four LLDPDUs a second apart) is over: B has nothing
    // to send for 30 s, so no transmission carries the counters to the file.
    // The file may lag a frame by a second: the count is taken once it has held for 1.5 s.
    std::thread::sleep(Duration::from_millis(4500));
    let tx = || agent_b.port("lldpb").map(|p| p["tx-statistics"]["total-frames"].clone());
    let mut sent = tx();
    let settled_by = Instant::now() + Duration::from_secs(10);
    loop {
        std::thread::sleep(Duration::from_millis(1500));
        let again = tx();
        if again == sent || Instant::now() > settled_by {
            break;
        }
        sent = again;
    }
    let start = Instant::now();
    inject(&a, "lldpa", vec![frame], Duration::ZERO);
    let p = wait_for(Duration::from_millis(1500), "the refresh counted in the file", || {
        agent_b.port("lldpb").filter(|p| p["rx-statistics"]["total-frames"] == 2)
    });
    eprintln!("refresh in the state file after {:?}", start.elapsed());
    assert_eq!(Some(p["tx-statistics"]["total-frames"].clone()), sent, "B sent nothing since");
    assert_eq!(p["remote-statistics"]["remote-inserts"], 1, "a refresh, not a new neighbour");
}

/// How many times `path` was replaced during `time`: its (inode, mtime) sampled every 2 ms.
fn count_rewrites(path: &std::path::Path, time: Duration) -> u32 {
    use std::os::unix::fs::MetadataExt;
    let identity = || std::fs::metadata(path).ok().map(|m| (m.ino(), m.mtime(), m.mtime_nsec()));
    let end = Instant::now() + time;
    let mut last = identity();
    let mut rewrites = 0;
    while Instant::now() < end {
        std::thread::sleep(Duration::from_millis(2));
        let now = identity();
        if now.is_some() && now != last {
            rewrites += 1;
            last = now;
        }
    }
    rewrites
}

/// Four ports a side, one LLDPDU a second each way on each: A writes a state file, B does not.
/// Counters change several times a second, and the file is rewritten once a second at most;
/// what that costs, against B, is printed and bounded.
#[test]
fn the_state_file_is_rewritten_at_most_once_a_second_and_costs_little_cpu() {
    if !can_run("the_state_file_is_rewritten_at_most_once_a_second_and_costs_little_cpu") {
        return;
    }
    const PORTS: usize = 4;
    // In memory, as under /run: on ext4 each rename over the old file also writes its data
    // to the disk at once (auto_da_alloc), and that, not the agent, would be measured.
    let scratch = Scratch::in_memory("lldp-cpu");
    let a = Netns::new("cpa");
    let b = Netns::new("cpb");
    let ports = |side: &str| -> String {
        let list: String =
            (0..PORTS).map(|i| format!("[[port]]\nname = \"lldp{side}{i}\"\n")).collect();
        format!("[lldp]\nmessage-tx-interval = 1\n[pfc]\nenable = [3]\n{list}")
    };
    for i in 0..PORTS {
        let (ia, ib) = (format!("lldpa{i}"), format!("lldpb{i}"));
        veth(&a, &ia, &format!("02:00:00:00:0a:0{i}"), &b, &ib, &format!("02:00:00:00:0b:0{i}"));
    }
    let agent_a = Agent::start(&a, &scratch, "a", &ports("a"));
    let agent_b = Agent::start_without_state_file(&b, &scratch, "b", &ports("b"));
    // Links up a quarter second apart: each port transmits at its own moment of the second,
    // as ports brought up at different times do, so counters change at 8 moments a second.
    for i in 0..PORTS {
        a.link(&["set", &format!("lldpa{i}"), "up"]);
        b.link(&["set", &format!("lldpb{i}"), "up"]);
        std::thread::sleep(Duration::from_millis(250));
    }
    wait_for(Duration::from_secs(3), "A hears B on every port", || {
        (0..PORTS)
            .all(|i| {
                agent_a.port(&format!("lldpa{i}")).is_some_and(|p| p["neighbours"][0].is_object())
            })
            .then_some(())
    });
    // The new-neighbour bursts are over: from now on only counters change.
    std::thread::sleep(Duration::from_secs(5));
    let (a0, b0) = (agent_a.cpu_time(), agent_b.cpu_time());
    let measured = Duration::from_secs(20);
    let rewrites = count_rewrites(&agent_a.state_file, measured);
    let (a1, b1) = (agent_a.cpu_time(), agent_b.cpu_time());
    let ticks = (a1.0 - a0.0, b1.0 - b0.0);
    let on_cpu =
        a1.1.zip(a0.1).zip(b1.1.zip(b0.1)).map(|((a1, a0), (b1, b0))| {
            (Duration::from_nanos(a1 - a0), Duration::from_nanos(b1 - b0))
        });
    eprintln!(
        "{measured:?}, {PORTS} ports, 1 s tx interval: state file rewritten {rewrites} times; \
         CPU with the state file {} ticks {:?}, without {} ticks {:?}",
        ticks.0,
        on_cpu.map(|c| c.0),
        ticks.1,
        on_cpu.map(|c| c.1),
    );
    // Counters change 8 times a second (4 sent, 4 received): one write a second at most,
    // one at least (so they are never more than a second stale).
    assert!((15..=22).contains(&rewrites), "{rewrites} rewrites in {measured:?}");
    let (with, without) = on_cpu
        .unwrap_or((Duration::from_millis(10 * ticks.0), Duration::from_millis(10 * ticks.1)));
    // Measured in the test build with the state file in memory: 1.8 to 3.4 times the bare
    // agent's CPU (13.5 ms against 7.6 ms in 20 s; 9.7 against 2.9). Before, with a write
    // per transmission: 80 writes and 5 times (34.4 ms against 6.9 ms). A few milliseconds
    // of CPU are noisy on a busy machine: the bound leaves room for that and still fails the
    // write per transmission.
    assert!(
        with < without * 3 + Duration::from_millis(8),
        "the state file costs {with:?} of CPU against {without:?} without it"
    );
}

/// Every port of the settings is in the state file with its status: open, or waiting for
/// its interface until that appears.
#[test]
fn the_state_file_shows_ports_open_and_waiting_for_their_interface() {
    if !can_run("the_state_file_shows_ports_open_and_waiting_for_their_interface") {
        return;
    }
    let scratch = Scratch::new("lldp-status");
    let (a, b) = pair("st", MAC_LOW, MAC_HIGH);
    up(&a, &b);
    let config = "[[port]]\nname = \"later0\"\n[[port]]\nname = \"lldpb\"\n";
    let agent_b = Agent::start(&b, &scratch, "b", config);
    let waiting =
        wait_for(Duration::from_secs(2), "later0 in the state file", || agent_b.port("later0"));
    assert_eq!(waiting["status"], "waiting for the interface", "{waiting}");
    assert!(waiting["error"].as_str().is_some_and(|e| e.contains("later0")), "{waiting}");
    assert_eq!(agent_b.port("lldpb").map(|p| p["status"].clone()), Some("open".into()));
    b.link(&["add", "later0", "type", "veth", "peer", "name", "later1"]);
    wait_for(Duration::from_secs(2), "later0 open", || {
        agent_b.port("later0").filter(|p| p["status"] == "open")
    });
}

/// With no chassis ID in the settings, the chassis ID is the first port's MAC address, and
/// follows it: the peer sees the new one, as its only neighbour (the old identity is retired
/// with a shutdown LLDPDU, not left to age out).
#[test]
fn the_chassis_id_follows_a_new_mac_address_of_the_first_port() {
    if !can_run("the_chassis_id_follows_a_new_mac_address_of_the_first_port") {
        return;
    }
    let scratch = Scratch::new("lldp-chassis");
    let (a, b) = pair("cm", MAC_LOW, MAC_HIGH);
    up(&a, &b);
    let lldp = "message-tx-interval = 30";
    let agent_a = Agent::start(&a, &scratch, "a", &settings("lldpa", false, &[3], lldp));
    let agent_b = Agent::start(&b, &scratch, "b", &settings("lldpb", true, &[4], lldp));
    let chassis = |agent: &Agent| -> Option<Vec<Value>> {
        let p = agent.port("lldpb")?;
        Some(p["neighbours"].as_array()?.iter().map(|n| n["chassis-id"]["id"].clone()).collect())
    };
    wait_for(Duration::from_secs(3), "B sees A's chassis ID, its MAC address", || {
        (chassis(&agent_b)? == [Value::from(MAC_LOW.replace(':', "-"))]).then_some(())
    });
    let new_mac = "02:00:00:00:00:0c";
    a.link(&["set", "lldpa", "address", new_mac]);
    let start = Instant::now();
    wait_for(Duration::from_secs(2), "B sees A's new chassis ID, and no other", || {
        (chassis(&agent_b)? == [Value::from(new_mac.replace(':', "-"))]).then_some(())
    });
    eprintln!("new chassis ID seen by the peer after {:?}", start.elapsed());
    assert_eq!(agent_b.oper_enable("lldpb"), Some(list(&[3])), "B keeps A's PFC");
    let own = agent_a.log();
    assert!(own.contains("system identity changed"), "{own}");
}

/// A port whose interface exists but cannot be opened (a tun device has no MAC address for
/// a packet socket to join the LLDP group with) is logged with the reason, waits with it in
/// the state file, and stops neither the agent nor the ports after it; it is opened once the
/// name is a usable interface.
#[test]
fn a_port_that_cannot_be_opened_waits_with_its_reason_and_the_others_run() {
    if !can_run("a_port_that_cannot_be_opened_waits_with_its_reason_and_the_others_run") {
        return;
    }
    let scratch = Scratch::new("lldp-unusable");
    let (a, b) = pair("un", MAC_LOW, MAC_HIGH);
    up(&a, &b);
    test_support::netns::ip(&["-n", &b.name, "tuntap", "add", "dev", "odd0", "mode", "tun"]);
    let _agent_a = Agent::start(&a, &scratch, "a", &settings("lldpa", false, &[3], ""));
    // The unusable interface comes first in B's port list.
    let config = "[pfc]\nwilling = true\nenable = [6]\n[[port]]\nname = \"odd0\"\n\
                  [[port]]\nname = \"lldpb\"\n";
    let mut agent_b = Agent::start(&b, &scratch, "b", config);
    wait_for(Duration::from_secs(3), "B's other port adopts A's [3]", || {
        (agent_b.oper_enable("lldpb")? == list(&[3])).then_some(())
    });
    assert!(agent_b.daemon.child.try_wait().expect("wait").is_none(), "the agent runs");
    let odd = agent_b.port("odd0").expect("odd0 in the state file");
    assert_eq!(odd["status"], "cannot be opened", "{odd}");
    let reason = odd["error"].as_str().unwrap_or_default().to_string();
    assert!(reason.contains("not an Ethernet interface"), "{odd}");
    assert!(agent_b.log().contains(&reason), "the reason is logged: {}", agent_b.log());
    // The name becomes a usable interface: tried again on the link change, and opened.
    test_support::netns::ip(&["-n", &b.name, "tuntap", "del", "dev", "odd0", "mode", "tun"]);
    b.link(&["add", "odd0", "type", "veth", "peer", "name", "odd1"]);
    wait_for(Duration::from_secs(2), "odd0 open", || {
        agent_b.port("odd0").filter(|p| p["status"] == "open")
    });
}
