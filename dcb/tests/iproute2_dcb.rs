//! Our requests against iproute2's `dcb`: each `dcb` command runs under strace on a veth in a
//! namespace of our own (where the kernel answers EOPNOTSUPP), and what it sent must be the
//! octets our encoder makes for the same request, sequence number and port id aside.

use std::path::Path;

use pfc_dcb::{DcbApp, DcbxMode, IeeeObjects, Request};
use test_support::netns::{can_run, Netns};
use test_support::{external_tool, Scratch};

const INTERFACE: &str = "dcbt0";

/// `nlmsg_seq` and `nlmsg_pid`: `dcb` picks its own.
const SEQ_AND_PID: std::ops::Range<usize> = 8..16;

/// The datagrams `dcb ARGS` sent, read from strace's hex dump of every write.
fn sent_by_dcb(ns: &Netns, strace: &Path, scratch: &Scratch, args: &[&str]) -> Vec<Vec<u8>> {
    let log = scratch.path("strace.log");
    let out = ns
        .command(strace)
        .args(["-f", "-qq", "-e", "trace=sendto,sendmsg", "-e", "write=all", "-o"])
        .arg(&log)
        .arg("/usr/sbin/dcb")
        .args(args)
        .output()
        .expect("run strace dcb");
    let stderr = String::from_utf8_lossy(&out.stderr);
    // On veth the kernel refuses every DCB request: dcb says so and fails.
    assert!(stderr.contains("Operation not supported"), "dcb {}: {stderr}", args.join(" "));
    hex_dumps(&std::fs::read_to_string(&log).expect("strace log"))
}

/// strace's `-e write=` dumps: ` | 00000  1c 00 00 00 …  ascii |`, 16 octets a line in a fixed
/// column, a datagram starting again at offset 00000.
fn hex_dumps(log: &str) -> Vec<Vec<u8>> {
    let mut datagrams: Vec<Vec<u8>> = Vec::new();
    for line in log.lines().filter_map(|l| l.trim_start().strip_prefix("| ")) {
        let (Some(offset), Some(hex)) = (line.get(0..5), line.get(7..56)) else { continue };
        if offset == "00000" {
            datagrams.push(Vec::new());
        }
        let octets = hex.split_whitespace().map(|h| u8::from_str_radix(h, 16).expect("hex"));
        datagrams.last_mut().expect("a dump starts at 00000").extend(octets);
    }
    datagrams
}

fn without_seq_and_pid(mut message: Vec<u8>) -> String {
    message[SEQ_AND_PID].fill(0);
    hex::encode(message)
}

#[test]
fn our_requests_are_the_octets_iproute2_dcb_sends() {
    if !can_run("our_requests_are_the_octets_iproute2_dcb_sends") {
        return;
    }
    let (Some(strace), Some(_)) =
        (external_tool("/usr/bin/strace", "strace"), external_tool("/usr/sbin/dcb", "iproute2"))
    else {
        return;
    };
    let ns = Netns::new("dcb");
    ns.link(&["add", INTERFACE, "type", "veth", "peer", "name", "dcbt1"]);
    let scratch = Scratch::new("dcb-strace");
    let roce = vec![DcbApp::roce_v2(3)];
    // Every `dcb … show` reads the interface's IEEE objects, and the DCBX mode from the same
    // answer: one IEEE_GET.
    let cases: Vec<(&[&str], Request)> = vec![
        (&["pfc", "show", "dev", INTERFACE], Request::IeeeGet),
        (&["ets", "show", "dev", INTERFACE], Request::IeeeGet),
        (&["buffer", "show", "dev", INTERFACE], Request::IeeeGet),
        (&["app", "show", "dev", INTERFACE], Request::IeeeGet),
        (&["dcbx", "show", "dev", INTERFACE], Request::IeeeGet),
        (
            &["app", "add", "dev", INTERFACE, "dgram-port-prio", "4791:3"],
            Request::ieee_set(IeeeObjects { apps: roce.clone(), ..Default::default() }),
        ),
        (&["app", "del", "dev", INTERFACE, "dgram-port-prio", "4791:3"], Request::AppDelete(roce)),
        (&["dcbx", "set", "dev", INTERFACE, "host", "ieee"], Request::SetDcbx(DcbxMode::HOST_IEEE)),
    ];
    for (args, request) in cases {
        let sent = sent_by_dcb(&ns, &strace, &scratch, args);
        let [theirs] = &sent[..] else {
            panic!("dcb {} sent {} datagrams, not one", args.join(" "), sent.len())
        };
        let ours = request.encode(INTERFACE, 0, 0).expect("encode");
        assert_eq!(
            without_seq_and_pid(ours),
            without_seq_and_pid(theirs.clone()),
            "dcb {}",
            args.join(" ")
        );
    }
}
