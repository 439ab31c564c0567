//! Static filtering entries (802.1Q 8.8.1) written in ieee802-dot1q-bridge's filtering
//! database: refused on the lab, whose ports forward nothing between them; on real interfaces
//! they make a ring of three pfcd loop-free. The ring (as 802.1Q Figure 36-7's):
//!
//! ```text
//!   h1 ─ host [b1] cw ─ ccw [b2] cw ─ ccw [b3] cw ─┐
//!          ccw ──────────────────────────────────┘     (b2's host ─ h2, b3's host ─ h3)
//! ```
//!
//! Each bridge's ports are numbered cw 1, ccw 2, host 3 (`test_support::ring`); every bridge
//! holds a static entry for every host's address: its own host through port 3, the others
//! clockwise through port 1. A bridge without a spanning tree floods what it does not know, and
//! in a ring a flooded frame loops for good; with the entries no frame to a host is flooded.
//!
//! The ring needs root (namespaces); skipped loudly without it, failed in CI.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use dataplane::wire::{EthernetHeader, MacAddr};
use netconf_client::{Client, Datastore};
use test_support::hosts::{data_between, drain, parse_data, send};
use test_support::lab::LabPfcd;
use test_support::netns::can_run;
use test_support::pfcd::{value, DOT1Q_NS, IF_NS, PIPE_NS};
use test_support::ring::{database, entry, host_mac, ring};

/// Frames each host sends to each other host.
const EACH: u32 = 40;

#[test]
fn on_the_lab_a_static_filtering_entry_is_refused_and_running_unchanged() {
    let mut pfcd = LabPfcd::start("static-fdb-lab");
    let mut c = pfcd.client();
    let before = c.get_config(Datastore::Running, None).expect("running");
    c.edit_config(Datastore::Candidate, &database(&entry(host_mac(1), 1)), None)
        .expect("the candidate takes it");
    let err = c.commit().expect_err("the lab forwards nothing");
    let errors = err.reply().map(|r| r.errors().to_vec()).unwrap_or_default();
    assert!(
        errors.iter().any(|e| e
            .error_path
            .as_deref()
            .is_some_and(|p| p.contains("filtering-entry"))
            && e.error_message.as_deref().is_some_and(|m| m.contains("ports = \"interfaces\""))),
        "{errors:?}"
    );
    c.discard_changes().expect("discard");
    let after = c.get_config(Datastore::Running, None).expect("running");
    assert_eq!(after.data(), before.data(), "running unchanged");
    assert!(pfcd.alive(), "{}", pfcd.log_text());
}

/// Frames port `port` of a bridge sent of priority 0 (pfcd-pipeline's `departed`).
fn departed(c: &mut Client, port: &str) -> u64 {
    let filter = format!(
        "<interfaces xmlns=\"{IF_NS}\"><interface><name>{port}</name>\
         <bridge-port xmlns=\"{DOT1Q_NS}\"><pipeline xmlns=\"{PIPE_NS}\"/></bridge-port>\
         </interface></interfaces>"
    );
    let reply = c.get(Some(&filter)).expect("get");
    let xml = reply.data().unwrap_or_default().to_string();
    let at = xml.find("<priority>0</priority>").unwrap_or_else(|| panic!("priority 0 in {xml}"));
    value(&xml[at..], "departed").and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{xml}"))
}

/// The test frames among `frames`: (source, destination, sequence number).
fn test_frames(frames: &[Vec<u8>]) -> Vec<(MacAddr, MacAddr, u32)> {
    frames
        .iter()
        .filter_map(|f| {
            let (_, seq) = parse_data(f)?;
            let (header, _) = EthernetHeader::parse(f).ok()?;
            Some((header.src, header.dst, seq))
        })
        .collect()
}

#[test]
fn a_ring_of_three_pfcd_with_static_entries_delivers_clockwise_and_floods_nothing() {
    if !can_run("a_ring_of_three_pfcd_with_static_entries_delivers_clockwise_and_floods_nothing") {
        return;
    }
    let mut ring = ring("sf", "");
    ring.route_clockwise();
    // The bridge takes the entries at its next turn, woken by them.
    std::thread::sleep(Duration::from_millis(300));
    for seq in 0..EACH {
        for i in 0..3 {
            for j in (0..3).filter(|j| *j != i) {
                let frame = data_between(host_mac(i + 1), host_mac(j + 1), 0, seq);
                send(&mut ring.hosts[i].1, &frame);
            }
        }
        // Paced: the test is about where frames go, not how many the bridges take at once.
        std::thread::sleep(Duration::from_millis(2));
    }
    // Each host gets 2 × EACH frames; a busy machine may forward late, so read until they
    // have come (or 10 s), then a second more: a frame still circling would come then.
    let mut got: Vec<Vec<(MacAddr, MacAddr, u32)>> = vec![Vec::new(); 3];
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10)
        && got.iter().any(|g| g.len() < 2 * EACH as usize)
    {
        for (h, (_, socket)) in ring.hosts.iter_mut().enumerate() {
            got[h].extend(test_frames(&drain(socket, Duration::from_millis(5))));
        }
    }
    for (h, (_, socket)) in ring.hosts.iter_mut().enumerate() {
        got[h].extend(test_frames(&drain(socket, Duration::from_secs(1))));
    }
    for (h, frames) in got.iter().enumerate() {
        let me = host_mac(h + 1);
        let mut per_source: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        for (src, dst, seq) in frames {
            assert_eq!(*dst, me, "host h{} got a frame for {dst}: flooded", h + 1);
            per_source.entry(src.to_string()).or_default().push(*seq);
        }
        let want: Vec<u32> = (0..EACH).collect();
        for (src, seqs) in &per_source {
            assert_eq!(seqs, &want, "h{} from {src}: each frame once, in order", h + 1);
        }
        assert_eq!(per_source.len(), 2, "h{} heard from both other hosts", h + 1);
    }
    // Nothing circles: a further second brings no test frame anywhere.
    for (h, (_, socket)) in ring.hosts.iter_mut().enumerate() {
        let late = test_frames(&drain(socket, Duration::from_secs(1)));
        assert!(late.is_empty(), "h{}: {} frames still arriving", h + 1, late.len());
    }
    // The configured path: every frame clockwise. Into a bridge come its own host's frames
    // to the two others, and the frames of the host behind it to the host ahead of it; so
    // each ring port clockwise sends 3 × EACH, each counter-clockwise port none, each host
    // port 2 × EACH.
    for (i, b) in ring.bridges.iter_mut().enumerate() {
        let sent = ["cw", "ccw", "host"].map(|p| departed(&mut b.client, p));
        assert_eq!(sent, [3 * EACH as u64, 0, 2 * EACH as u64], "b{}: cw, ccw, host", i + 1);
    }
}
