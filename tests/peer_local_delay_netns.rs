//! A hostile peer's PFC Local Delay TLV on real interfaces: h1 eth0 — p1 [pfcd] p2 — eth0 h2,
//! each a network namespace, a pfc-lldp agent on h1 as p1's peer, p1's cable configured and
//! headroom calculated, 1 MiB of receive buffer per port.
//!
//! A Delay within the 1 ms bound but more than the buffer holds (900 µs) puts at most what the
//! receive buffer honours in force, with the clamp, its reason and the limit in pfcd-headroom's
//! state and an `allowance-clamped` notification. A Delay of 0x7fff_ffff_ffff_ffff is refused and
//! counted: the calculation takes the configured peer delays. Either way a later, unrelated
//! commit (a port's description) is accepted.
//!
//! Needs root (namespaces); skipped loudly without it, failed in CI.

use std::time::{Duration, Instant};

use netconf_client::{Client, Datastore};
use test_support::hosts::*;
use test_support::netns::can_run;
use test_support::pfc_lldp::Agent;
use test_support::pfcd::*;
use test_support::Scratch;

const HEADROOM_NS: &str = pfc_yang_names::pfcd_headroom::NAMESPACE;

/// The most 1 MiB of receive buffer honours for one priority with PFC: half of it (each
/// priority's allocation is twice the allowance), 524 288 octets.
const LIMIT_BITS: u64 = (1 << 20) / 2 * 8;

/// h1's agent: PFC on priority 3, and our Local Delay TLV with `delay_ns`.
fn peer(delay_ns: i64) -> String {
    format!("local-delay-ns = {delay_ns}\n[pfc]\nenable = [3]\n[[port]]\nname = \"eth0\"\n")
}

/// A commit no peer has any say in: p1's description.
fn describe_p1(c: &mut Client, text: &str) -> Result<(), String> {
    let config = format!(
        "<interfaces xmlns=\"{IF_NS}\"><interface><name>p1</name>\
         <description>{text}</description></interface></interfaces>"
    );
    c.edit_config(Datastore::Candidate, &config, None).map_err(|e| e.to_string())?;
    c.commit().map_err(|e| e.to_string())
}

/// The next `allowance-clamped` notification within 10 s.
fn clamped_notification(sub: &mut Client) -> String {
    let end = Instant::now() + Duration::from_secs(10);
    while Instant::now() < end {
        if let Some(n) = sub.next_notification(Duration::from_millis(500)).expect("notification") {
            if n.contains("allowance-clamped") {
                return n;
            }
        }
    }
    panic!("no allowance-clamped notification within 10 s");
}

#[test]
fn a_peers_local_delay_never_puts_more_in_force_than_the_receive_buffer_holds() {
    if !can_run("a_peers_local_delay_never_puts_more_in_force_than_the_receive_buffer_holds") {
        return;
    }
    let scratch = Scratch::new("pfcd-peer-delay");
    let Hosts { h1_ns, sw, h2_ns: _h2_ns, .. } = hosts("bpld");
    let pfcd = start_pfcd_with(&sw, &scratch, &["p1", "p2"], "speed = \"10G\"\n");
    let mut c = pfcd.client(&sw);
    let mut sub = pfcd.client(&sw);
    sub.create_subscription(None).expect("subscribed");
    commit_pfc(
        &mut c,
        &["p1"],
        &format!(
            "<pfc-enable>p3</pfc-enable><headroom><method xmlns:pfc=\"{PFC_NS}\">pfc:link-delay\
             </method><calculation-inputs><cable-length>100</cable-length><medium>cat6</medium>\
             <max-frame>2000</max-frame></calculation-inputs></headroom>"
        ),
    );

    // 900 µs: within the bound, taken, and far more than 1 MiB holds at 10 Gb/s (9 Mbit).
    let agent = Agent::start(&h1_ns, &scratch, "h1", &peer(900_000));
    let p1 = wait_state(&mut c, "p1", "the clamp to the receive buffer", |p| {
        value(p, "clamp-reason").as_deref() == Some("receive-buffer")
    });
    assert_eq!(number(&p1, "allowance-in-force"), LIMIT_BITS, "{p1}");
    assert_eq!(number(&p1, "receive-buffer-limit"), LIMIT_BITS, "{p1}");
    assert!(number(&p1, "calculated-allowance") <= LIMIT_BITS, "{p1}");
    assert_eq!(number(&p1, "peer-local-delays-refused"), 0, "{p1}");
    // The calculation says where the peer's delays came from (36.8 a) 3)).
    assert_eq!(value(&p1, "peer-delay-source").as_deref(), Some("local-delay-tlv"), "{p1}");
    assert!(p1.contains(HEADROOM_NS), "pfcd's own namespace: {p1}");
    let priority3 = priority(&p1, 3);
    assert!(number(&priority3, "allocation") <= 1 << 20, "{priority3}");
    let note = clamped_notification(&mut sub);
    assert_eq!(value(&note, "reason").as_deref(), Some("receive-buffer"), "{note}");
    assert_eq!(number(&note, "allowance-in-force"), LIMIT_BITS, "{note}");
    assert!(number(&note, "selected-allowance") > 9_000_000, "{note}");
    describe_p1(&mut c, "to h1").expect("a description is committed whatever the peer sent");

    // 0x7fff_ffff_ffff_ffff as a TimeInterval: 2^47 ns saturates to it. Refused, counted once,
    // and the configured peer delays (Annex N's) are calculated with instead.
    agent.reconfigure(&peer(1 << 47));
    let p1 = wait_state(&mut c, "p1", "the refused Local Delay", |p| {
        value(p, "peer-local-delays-refused").as_deref() == Some("1")
            && value(p, "clamp-reason").as_deref() == Some("none")
    });
    assert_eq!(number(&p1, "allowance-in-force"), 126_224, "Annex N's figure: {p1}");
    assert_eq!(value(&p1, "peer-delay-source").as_deref(), Some("configured"), "{p1}");
    assert!(number(&p1, "allowance-in-force") <= LIMIT_BITS, "{p1}");
    let log = std::fs::read_to_string(scratch.path("pfcd.log")).unwrap_or_default();
    assert!(log.contains("beyond 1 ms: refused"), "a warning: {log}");
    describe_p1(&mut c, "to h1, hostile").expect("a description is committed");
    let p1 = pfc_of(&mut c, "p1");
    assert_eq!(number(&p1, "peer-local-delays-refused"), 1, "counted once: {p1}");

    // clear-pfc-counters starts it again, as every counter under the port's pfc.
    // (The port's task takes the action; its state follows at its next step.) The peer still
    // sends the same Delay: not counted again.
    assert!(c.rpc(&pfc_action("p1", "clear-pfc-counters")).expect("action").is_ok());
    wait_state(&mut c, "p1", "peer-local-delays-refused cleared", |p| {
        value(p, "peer-local-delays-refused").as_deref() == Some("0")
    });
    std::thread::sleep(Duration::from_millis(300));
    let p1 = pfc_of(&mut c, "p1");
    assert_eq!(number(&p1, "peer-local-delays-refused"), 0, "not counted again: {p1}");
}
