//! `dataplane::io::RawPort` on a veth pair between two namespaces: frames arrive as they were
//! sent, VLAN tag and PCP included (Linux strips the tag; the port puts it back), a port never
//! receives its own transmissions, and batches keep every frame in order.
//!
//! Needs root (namespaces); skipped loudly without it, failed in CI.

use std::time::{Duration, Instant};

use dataplane::io::{FramePort, RawOptions, RawPort, RxBatch};
use dataplane::wire::{EtherType, EthernetHeader, MacAddr, VlanTag};
use test_support::netns::{can_run, in_netns, veth, wait_up, Netns};

const MAC_A: MacAddr = MacAddr([0x02, 0, 0, 0, 0x0a, 0x01]);
const MAC_B: MacAddr = MacAddr([0x02, 0, 0, 0, 0x0b, 0x01]);
/// IEEE 802 local experimental EtherType 1: what the test frames carry, so that anything the
/// kernel sends on a new link (IPv6 router solicitations, MLD) is told apart.
const TEST_TYPE: EtherType = EtherType(0x88b5);

fn pair(tag: &str) -> (Netns, Netns, RawPort, RawPort) {
    let a = Netns::new(&format!("{tag}a"));
    let b = Netns::new(&format!("{tag}b"));
    veth(&a, "rawa", "02:00:00:00:0a:01", &b, "rawb", "02:00:00:00:0b:01");
    a.link(&["set", "rawa", "up"]);
    b.link(&["set", "rawb", "up"]);
    wait_up(&a, "rawa");
    wait_up(&b, "rawb");
    let pa = in_netns(&a, || RawPort::open("rawa", &RawOptions::default()).expect("open rawa"));
    let pb = in_netns(&b, || RawPort::open("rawb", &RawOptions::default()).expect("open rawb"));
    (a, b, pa, pb)
}

fn frame(vlan: Option<VlanTag>, n: u32, len: usize) -> Vec<u8> {
    let header = EthernetHeader { dst: MAC_B, src: MAC_A, vlan, ethertype: TEST_TYPE };
    let mut f = vec![0u8; len];
    let at = header.emit(&mut f).expect("header");
    f[at..at + 4].copy_from_slice(&n.to_be_bytes());
    f
}

fn is_test_frame(f: &[u8]) -> bool {
    EthernetHeader::parse(f).is_ok_and(|(h, _)| h.ethertype == TEST_TYPE)
}

/// Test frames `port` receives within `within`, until `want` have arrived.
fn receive(port: &mut RawPort, want: usize, within: Duration) -> Vec<Vec<u8>> {
    let mut batch = RxBatch::new(64, 1522);
    let mut got = Vec::new();
    let deadline = Instant::now() + within;
    while got.len() < want && Instant::now() < deadline {
        if port.recv_batch(&mut batch).expect("recv_batch") == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
        got.extend(batch.iter().filter(|f| is_test_frame(f)).map(<[u8]>::to_vec));
    }
    got
}

#[test]
fn tagged_frames_arrive_with_their_pcp_and_vid_and_untagged_ones_unchanged() {
    if !can_run("tagged_frames_arrive_with_their_pcp_and_vid_and_untagged_ones_unchanged") {
        return;
    }
    let (_a, _b, mut pa, mut pb) = pair("rt");
    assert_eq!(pa.mac(), MAC_A);
    let sent = [
        frame(Some(VlanTag { pcp: 5, dei: false, vid: 10 }), 1, 100),
        frame(None, 2, 60),
        // Priority-tagged (VID 0): PCP 3 must survive too.
        frame(Some(VlanTag { pcp: 3, dei: false, vid: 0 }), 3, 64),
        frame(Some(VlanTag { pcp: 7, dei: true, vid: 4094 }), 4, 1518),
    ];
    for f in &sent {
        pa.send(f).expect("send");
    }
    let got = receive(&mut pb, sent.len(), Duration::from_secs(2));
    assert_eq!(got, sent.to_vec(), "frames as they were on the wire, in order");
    assert!(pb.counters().tags_restored >= 3, "{:?}", pb.counters());
    // One at a time through FramePort::recv as well, into a buffer of exactly the frame's size.
    pa.send(&sent[0]).expect("send");
    let mut buf = vec![0u8; 100];
    let deadline = Instant::now() + Duration::from_secs(2);
    let n = loop {
        match pb.recv(&mut buf).expect("recv") {
            Some(n) if is_test_frame(&buf[..n]) => break n,
            Some(_) => {}
            None if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(1)),
            None => panic!("the frame did not arrive"),
        }
    };
    assert_eq!(&buf[..n], &sent[0][..]);
}

#[test]
fn a_port_never_receives_what_it_sent() {
    if !can_run("a_port_never_receives_what_it_sent") {
        return;
    }
    let (_a, _b, mut pa, mut pb) = pair("ro");
    for n in 0..10 {
        pa.send(&frame(None, n, 60)).expect("send");
    }
    assert_eq!(receive(&mut pb, 10, Duration::from_secs(2)).len(), 10, "the peer got them");
    assert!(receive(&mut pa, 1, Duration::from_millis(200)).is_empty(), "the sender did not");
}

#[test]
fn a_batch_of_thousands_arrives_complete_and_in_order() {
    if !can_run("a_batch_of_thousands_arrives_complete_and_in_order") {
        return;
    }
    let (_a, _b, mut pa, mut pb) = pair("rb");
    let frames: Vec<Vec<u8>> = (0..2000)
        .map(|n| frame(Some(VlanTag { pcp: (n % 8) as u8, dei: false, vid: 5 }), n, 200))
        .collect();
    let mut got = Vec::new();
    // In rounds of 100 so that the veth's backlog (1000 frames) is never the limit.
    for round in frames.chunks(100) {
        let refs: Vec<&[u8]> = round.iter().map(Vec::as_slice).collect();
        let mut sent = 0;
        while sent < refs.len() {
            sent += pa.send_batch(&refs[sent..]).expect("send_batch");
        }
        got.extend(receive(&mut pb, round.len(), Duration::from_secs(2)));
    }
    assert_eq!(got.len(), frames.len());
    assert!(got == frames, "every frame, in order, tags intact");
}

#[test]
fn a_frame_longer_than_the_slot_is_dropped_and_counted() {
    if !can_run("a_frame_longer_than_the_slot_is_dropped_and_counted") {
        return;
    }
    let (_a, _b, mut pa, mut pb) = pair("rl");
    pa.send(&frame(None, 1, 1514)).expect("send");
    pa.send(&frame(None, 2, 100)).expect("send");
    let mut batch = RxBatch::new(8, 200);
    let mut got = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(2);
    while got.is_empty() && Instant::now() < deadline {
        pb.recv_batch(&mut batch).expect("recv");
        got.extend(batch.iter().filter(|f| is_test_frame(f)).map(<[u8]>::to_vec));
    }
    assert_eq!(got, vec![frame(None, 2, 100)]);
    assert_eq!(pb.counters().truncated, 1);
}

#[test]
fn a_port_asked_for_timestamps_gives_each_frame_its_arrival_time() {
    if !can_run("a_port_asked_for_timestamps_gives_each_frame_its_arrival_time") {
        return;
    }
    let (a, b, mut pa, _) = pair("rs");
    let options = RawOptions { timestamps: true, ..RawOptions::default() };
    let mut pb = in_netns(&b, || RawPort::open("rawb", &options).expect("open rawb"));
    let realtime = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after 1970")
            .as_nanos() as u64
    };
    // The kernel turns receive timestamps on in deferred work after the first socket asks;
    // until then a frame carries the time it was read.
    std::thread::sleep(Duration::from_millis(100));
    let before = realtime();
    pa.send(&frame(None, 1, 60)).expect("send");
    std::thread::sleep(Duration::from_millis(20));
    pa.send(&frame(None, 2, 60)).expect("send");
    let mut batch = RxBatch::new(8, 1522);
    let mut stamps = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(2);
    while stamps.len() < 2 && Instant::now() < deadline {
        pb.recv_batch(&mut batch).expect("recv");
        for i in 0..batch.len() {
            if batch.get(i).is_some_and(is_test_frame) {
                stamps.push(batch.received_ns(i).expect("a timestamp"));
            }
        }
    }
    let after = realtime();
    assert_eq!(stamps.len(), 2);
    assert!(before <= stamps[0] && stamps[1] <= after, "{before} {stamps:?} {after}");
    // The kernel's times, not the reading's: the 20 ms between the sends shows.
    let gap = stamps[1] - stamps[0];
    assert!((20_000_000..200_000_000).contains(&gap), "{gap} ns between the two arrivals");
    drop(a);
}

#[test]
fn a_port_tells_how_full_its_receive_queue_is_and_what_the_kernel_dropped() {
    if !can_run("a_port_tells_how_full_its_receive_queue_is_and_what_the_kernel_dropped") {
        return;
    }
    let (a, b, mut pa, _) = pair("rq");
    // A small receive buffer (the kernel's least is a few KiB): 200 frames overflow it.
    let options = RawOptions { recv_buffer: Some(16 << 10), ..RawOptions::default() };
    let mut pb = in_netns(&b, || RawPort::open("rawb", &options).expect("open rawb"));
    let (empty, limit) = pb.receive_queue().expect("SO_MEMINFO");
    assert_eq!(empty, 0, "nothing queued yet");
    assert!(
        limit >= 16 << 10,
        "the limit is the buffer asked for (the kernel doubles it): {limit}"
    );
    for seq in 0..200 {
        pa.send(&frame(None, seq, 1000)).expect("send");
    }
    let (held, _) = pb.receive_queue().expect("SO_MEMINFO");
    // The kernel takes a frame while the queue is below the limit: one frame may pass it.
    assert!(held > 0 && held <= limit + 4096, "{held} of {limit} octets held");
    let mut batch = RxBatch::new(64, 1522);
    let mut got = 0;
    while pb.recv_batch(&mut batch).expect("recv") > 0 {
        got += batch.iter().filter(|f| is_test_frame(f)).count() as u64;
    }
    assert_eq!(pb.receive_queue().expect("SO_MEMINFO").0, 0, "drained");
    let dropped = pb.take_kernel_drops().expect("PACKET_STATISTICS");
    assert!(dropped > 0, "200 frames of 1000 octets do not fit 16 KiB");
    assert!(got + dropped >= 200, "every frame received or counted: {got} + {dropped}");
    assert_eq!(pb.take_kernel_drops().expect("PACKET_STATISTICS"), 0, "reading resets it");
    drop(a);
}

#[test]
fn a_port_asked_for_transmit_timestamps_says_when_a_frame_reached_the_driver() {
    if !can_run("a_port_asked_for_transmit_timestamps_says_when_a_frame_reached_the_driver") {
        return;
    }
    let (a, _b, _, _) = pair("ts");
    let options = RawOptions { tx_timestamps: true, ethertype: Some(0), ..RawOptions::default() };
    let mut pa = in_netns(&a, || RawPort::open("rawa", &options).expect("open rawa"));
    let realtime = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after 1970")
            .as_nanos() as u64
    };
    let mut stamps = Vec::new();
    for seq in 0..5 {
        let before = realtime();
        let sent = pa.send_stamped(&frame(None, seq, 60)).expect("send");
        let after = realtime();
        let sent = sent.expect("veth gives software transmit timestamps");
        assert!(before <= sent && sent <= after, "{before} <= {sent} <= {after}");
        stamps.push(sent);
    }
    assert!(stamps.windows(2).all(|w| w[0] < w[1]), "one per frame, in order: {stamps:?}");
    // Without asking, none.
    let mut plain = in_netns(&a, || {
        RawPort::open("rawa", &RawOptions { ethertype: Some(0), ..RawOptions::default() })
            .expect("open rawa")
    });
    assert_eq!(plain.send_stamped(&frame(None, 9, 60)).expect("send"), None);
}

/// Opened while its interface is down (a port configured before its link comes up, or reopened
/// after its interface was made anew), or after a flap, a socket's first send once the link is
/// up goes out: the kernel's "interface down" report is old news by then.
#[test]
fn sockets_opened_on_a_down_interface_send_as_soon_as_it_is_up() {
    if !can_run("sockets_opened_on_a_down_interface_send_as_soon_as_it_is_up") {
        return;
    }
    let a = Netns::new("downa");
    let b = Netns::new("downb");
    veth(&a, "rawa", "02:00:00:00:0a:01", &b, "rawb", "02:00:00:00:0b:01");
    let mut lldp = in_netns(&a, || {
        dataplane::io::PacketSocket::open("rawa", EtherType::LLDP, &[]).expect("open packet")
    });
    let mut raw = in_netns(&a, || RawPort::open("rawa", &RawOptions::default()).expect("open raw"));
    a.link(&["set", "rawa", "up"]);
    b.link(&["set", "rawb", "up"]);
    wait_up(&a, "rawa");
    wait_up(&b, "rawb");
    let mut pb = in_netns(&b, || RawPort::open("rawb", &RawOptions::default()).expect("open rawb"));
    lldp.send(&frame(None, 1, 64)).expect("the packet socket's first send after the link came up");
    raw.send(&frame(None, 2, 64)).expect("the raw port's first send after the link came up");
    // A flap leaves the same old news behind, for the first call after the link is back.
    a.link(&["set", "rawa", "down"]);
    a.link(&["set", "rawa", "up"]);
    wait_up(&a, "rawa");
    lldp.send(&frame(None, 3, 64)).expect("the packet socket's first send after a flap");
    raw.send(&frame(None, 4, 64)).expect("the raw port's first send after a flap");
    let got = receive(&mut pb, 4, Duration::from_secs(2));
    let numbers: Vec<u8> = got.iter().map(|f| f[17]).collect();
    assert_eq!(numbers, vec![1, 2, 3, 4], "every frame arrives");
}
