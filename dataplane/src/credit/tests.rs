//! The seed's worked examples (seed 002, Figures 25-11 to 25-14) and a property test that no
//! pattern of packet sizes, drain rates and FCP delays or losses overruns the receiver.

use std::collections::VecDeque;

use proptest::prelude::*;

use super::*;

const VL: u8 = 0;

fn pair(capacity_blocks: u32) -> (Transmitter, Receiver) {
    let tx = Transmitter::new(TransmitterConfig::new(VL, LinkSpeed::G10)).expect("data VL");
    let rx = Receiver::new(ReceiverConfig::new(VL, capacity_blocks, LinkSpeed::G10))
        .expect("valid receiver");
    (tx, rx)
}

/// The receiver's FCP, if it has one, reaches the transmitter at once.
fn credit(tx: &mut Transmitter, rx: &mut Receiver) {
    if let Some(fcp) = rx.poll(Picos::ZERO) {
        tx.on_fcp(&fcp).expect("same VL");
    }
}

/// A packet of `np` blocks is sent and arrives.
fn transfer(tx: &mut Transmitter, rx: &mut Receiver, np: u32) {
    tx.send(np).expect("credit for the packet");
    rx.on_packet(np).expect("room for the packet");
}

/// Sends `blocks` in packets of up to 64 blocks, with credit returned between packets.
fn transfer_blocks(tx: &mut Transmitter, rx: &mut Receiver, mut blocks: u32) {
    while blocks > 0 {
        credit(tx, rx);
        let np = blocks.min(64);
        transfer(tx, rx, np);
        blocks -= np;
    }
}

#[test]
fn seed_example_fccl_starts_at_2048_with_a_3072_block_buffer() {
    // Steps 1-4: free space 3072 blocks, but FCCL = ABR (0) + 2048.
    let (mut tx, mut rx) = pair(3_072);
    assert_eq!(rx.free_blocks(), 3_072);
    assert_eq!(rx.abr().get(), 0);
    assert_eq!(rx.fccl().get(), 2_048);
    assert!(!tx.may_send(1), "no credit before the first FCP");
    credit(&mut tx, &mut rx);
    assert_eq!(tx.credit_limit().get(), 2_048);
    assert_eq!(tx.fctbs().get(), 0);
}

#[test]
fn seed_example_steps_6_to_11() {
    let (mut tx, mut rx) = pair(3_072);
    credit(&mut tx, &mut rx);
    // Step 6: CL (2048) − CR (0 + 10) = 2038.
    assert_eq!(tx.credit_limit().since(tx.fctbs().add(10)), 2_038);
    transfer(&mut tx, &mut rx, 10);
    // Steps 7-8.
    assert_eq!(tx.fctbs().get(), 10);
    assert_eq!((rx.abr().get(), rx.free_blocks(), rx.fccl().get()), (10, 3_062, 2_058));
    // Step 9: CR = 10 + 5 = 15 against CL 2048 (the seed prints 2038; 2048 − 15 is 2033).
    assert_eq!(tx.credit_limit().since(tx.fctbs().add(5)), 2_033);
    transfer(&mut tx, &mut rx, 5);
    // Steps 10-11.
    assert_eq!(tx.fctbs().get(), 15);
    assert_eq!((rx.abr().get(), rx.free_blocks(), rx.fccl().get()), (15, 3_057, 2_063));
}

#[test]
fn seed_example_fccl_is_3072_after_1024_blocks_and_then_stays() {
    // Steps 12-14: 1024 blocks received, none offloaded; the last FCP carried FCCL 3072.
    let (mut tx, mut rx) = pair(3_072);
    transfer_blocks(&mut tx, &mut rx, 1_024);
    assert_eq!((rx.abr().get(), rx.free_blocks()), (1_024, 2_048));
    assert_eq!(rx.fccl().get(), 3_072);
    credit(&mut tx, &mut rx);
    assert_eq!(tx.credit_limit().get(), 3_072);
    assert_eq!(tx.fctbs(), rx.abr());
    // Steps 15-17: 3 more blocks; free space drops below 2048 for the first time.
    transfer(&mut tx, &mut rx, 3);
    assert_eq!(tx.fctbs().get(), 1_027);
    assert_eq!((rx.abr().get(), rx.free_blocks()), (1_027, 2_045));
    assert_eq!(rx.fccl().get(), 3_072);
    // The FCCL does not move until blocks are offloaded.
    transfer(&mut tx, &mut rx, 45);
    assert_eq!(rx.fccl().get(), 3_072);
    assert_eq!(rx.poll(Picos::ZERO), None, "nothing new to report");
}

#[test]
fn seed_example_receive_buffer_full() {
    // Figure 25-13: 3072 blocks sent, nothing offloaded.
    let (mut tx, mut rx) = pair(3_072);
    transfer_blocks(&mut tx, &mut rx, 3_072);
    credit(&mut tx, &mut rx);
    assert_eq!((rx.fccl().get(), rx.free_blocks()), (3_072, 0));
    assert_eq!(tx.credit_limit().get(), 3_072);
    // CR = 3072 + 1 = 3073 > CL: the 1-block packet may not go.
    assert!(!tx.may_send(1));
    assert_eq!(tx.available(), 0);
    assert_eq!(tx.send(1), Err(CreditError::NoCredit { needed: 1, available: 0 }));
    // One block offloaded: FCCL 3073, sent at once, and the packet may go.
    assert_eq!(rx.drain(1), 1);
    assert_eq!(rx.poll(Picos::ZERO).map(|f| f.fccl.get()), Some(3_073));
    tx.on_fcp(&Fcp::credit(VL, rx.fccl())).expect("same VL");
    assert!(tx.may_send(1));
    assert!(!tx.may_send(2));
}

#[test]
fn seed_example_fccl_rollover_leaves_509_free_blocks() {
    // Figure 25-14. Reach: FCTBS = ABR = 3586, 504 blocks free, last FCP sent FCCL 4090.
    let (mut tx, mut rx) = pair(3_072);
    transfer_blocks(&mut tx, &mut rx, 2_048);
    assert_eq!(rx.drain(1_018), 1_018);
    credit(&mut tx, &mut rx);
    assert_eq!(tx.credit_limit().get(), 4_090);
    for _ in 0..1_538 {
        transfer(&mut tx, &mut rx, 1);
    }
    assert_eq!((tx.fctbs().get(), rx.abr().get(), rx.free_blocks()), (3_586, 3_586, 504));
    assert_eq!(rx.fccl().get(), 4_090);
    // Five blocks offloaded since: FCCL 4095 (that FCP is not yet delivered).
    rx.drain(5);
    assert_eq!(rx.fccl().get(), 4_095);
    // Step 1: one more: free 510, FCCL = 510 + 3586 = 4096, rolled over to 000h.
    rx.drain(1);
    assert_eq!(rx.free_blocks(), 510);
    assert_eq!(rx.fccl().get(), 0);
    // Step 2: the transmitter still has CL 4090: 4090 − 3587 = 503, a "go".
    assert_eq!(tx.credit_limit().get(), 4_090);
    assert_eq!(tx.credit_limit().since(tx.fctbs().add(1)), 503);
    // Steps 3-4: sent and received; the FCCL does not change.
    transfer(&mut tx, &mut rx, 1);
    assert_eq!(tx.fctbs().get(), 3_587);
    assert_eq!(rx.fccl().get(), 0);
    // Steps 5-7: the FCP sets CL to 000h; CL − FCTBS = 000h − E03h = 1FDh = 509 blocks.
    credit(&mut tx, &mut rx);
    assert_eq!(tx.credit_limit().get(), 0);
    assert_eq!(tx.fctbs().get(), 0xe03);
    assert_eq!(tx.available(), 509);
    assert_eq!(rx.free_blocks(), 509);
    assert!(tx.may_send(509));
    assert!(!tx.may_send(510));
}

#[test]
fn a_lost_packet_is_repaired_by_the_fctbs_report() {
    let (mut tx, mut rx) = pair(100);
    credit(&mut tx, &mut rx);
    assert_eq!(tx.poll(Picos::ZERO).map(|f| f.fctbs.get()), Some(0));
    tx.send(10).expect("credit");
    // The packet is corrupted and discarded: ABR lags, the FCCL is 10 short (safe, but lost).
    assert_eq!(rx.fccl().get(), 100);
    assert_eq!(tx.poll(Picos::ZERO), None, "the next report is an interval away");
    let report = tx.poll(fcp_interval(LinkSpeed::G10)).expect("report due");
    assert_eq!(report.fctbs.get(), 10);
    rx.on_fcp(&report).expect("same VL");
    assert_eq!(rx.abr().get(), 10);
    assert_eq!(rx.abr_corrections(), 1);
    assert_eq!(rx.fccl().get(), 110);
}

#[test]
fn fcps_go_out_when_credit_moves_and_at_least_every_65_536_symbol_times() {
    let interval = fcp_interval(LinkSpeed::G10);
    assert_eq!(interval, Picos(52_428_800), "65 536 × 8 bit times at 10G = 52.4288 us");
    let (mut tx, mut rx) = pair(3_072);
    assert_eq!(rx.next_deadline(), Picos::ZERO);
    assert!(rx.poll(Picos::ZERO).is_some(), "the first FCP goes at once");
    assert_eq!(rx.next_deadline(), interval);
    assert_eq!(rx.poll(interval - Picos(1)), None);
    assert!(rx.poll(interval).is_some(), "periodic, even with nothing new");
    // Credit freed: an FCP is due at once.
    let t = interval + Picos(1_000);
    tx.on_fcp(&Fcp::credit(VL, rx.fccl())).expect("same VL");
    transfer(&mut tx, &mut rx, 64);
    assert_eq!(rx.poll(t).map(|f| f.fccl.get()), Some(64 + 2_048));
    assert_eq!(rx.poll(t), None);
    rx.drain(64);
    // Free space never fell below 2048, so draining moves nothing: the next FCP is periodic.
    assert_eq!(rx.fccl().get(), 64 + 2_048);
    assert_eq!(rx.next_deadline(), t + interval);
    let (mut tx, mut rx) = pair(100);
    credit(&mut tx, &mut rx);
    let t = Picos(1_000);
    transfer(&mut tx, &mut rx, 50);
    assert_eq!(rx.poll(t), None, "receiving below the cap does not move the FCCL");
    rx.drain(20);
    assert_eq!(rx.poll(t).map(|f| f.fccl.get()), Some(120));
}

#[test]
fn misuse_is_refused_without_changing_state() {
    assert_eq!(
        Transmitter::new(TransmitterConfig::new(15, LinkSpeed::G10)).err(),
        Some(CreditError::NotADataVl(15))
    );
    assert_eq!(
        Receiver::new(ReceiverConfig::new(0, 0, LinkSpeed::G10)).err(),
        Some(CreditError::ZeroCapacity)
    );
    let (mut tx, mut rx) = pair(3_072);
    assert_eq!(
        tx.on_fcp(&Fcp::credit(1, Count12::new(5))),
        Err(CreditError::WrongVl { expected: 0, got: 1 })
    );
    assert_eq!(
        rx.on_fcp(&Fcp::blocks_sent(2, Count12::new(5))),
        Err(CreditError::WrongVl { expected: 0, got: 2 })
    );
    credit(&mut tx, &mut rx);
    assert_eq!(tx.send(0), Err(CreditError::PacketSize(0)));
    assert_eq!(tx.send(2_049), Err(CreditError::PacketSize(2_049)));
    assert_eq!(tx.fctbs().get(), 0);
    tx.send(2_048).expect("exactly the window");
    let err = rx.on_packet(3_073).expect_err("more than the buffer");
    assert_eq!(err, CreditError::Overrun { needed: 3_073, free: 3_072 });
    assert!(err.to_string().contains("dropped"));
    assert_eq!(rx.dropped_packets(), 1);
    assert_eq!(rx.blocks_in_use(), 0);
}

#[test]
fn blocks_round_up_to_64_octets() {
    assert_eq!(blocks_for(640), 10);
    assert_eq!(blocks_for(641), 11);
    assert_eq!(blocks_for(1), 1);
    assert_eq!(blocks_for(0), 0);
}

/// What travels from transmitter to receiver, in order.
enum Forward {
    Data(u32),
    Fcp(Fcp),
}

/// A random link: packet sizes, the consumer's drain per tick (cycled), FCP delays and losses
/// on the way back (cycled), and the forward delay. A tick is one block time (51.2 ns at 10G).
#[derive(Debug, Clone)]
struct Scenario {
    capacity: u32,
    packets: Vec<u32>,
    drains: Vec<u32>,
    fcp_delays: Vec<u64>,
    fcp_lost: Vec<bool>,
    forward_delay: u64,
}

fn scenario() -> impl Strategy<Value = Scenario> {
    (
        prop::collection::vec(1u32..=128, 20..150),
        prop_oneof![128u32..=600, 128u32..=6_000],
        // A consumer faster than the link, or slower (so the buffer fills and credit runs out).
        prop_oneof![prop::collection::vec(0u32..=3, 1..32), prop::collection::vec(0u32..=1, 1..32)],
        // Short links, and links long enough that credit, not the consumer, limits the rate.
        prop_oneof![
            prop::collection::vec(0u64..=10, 1..30),
            prop::collection::vec(0u64..=200, 1..30)
        ],
        prop::collection::vec(prop::bool::weighted(0.1), 1..8),
        prop_oneof![0u64..=10, 0u64..=200],
    )
        .prop_map(
            |(packets, capacity, mut drains, fcp_delays, mut fcp_lost, forward_delay)| {
                // The consumer may be slower than the link (so the buffer fills and credit runs
                // out), but not by more than half, or the run takes too long to finish.
                let n = drains.len() as u32;
                if drains.iter().sum::<u32>() * 2 < n {
                    drains[0] += n / 2 + 1;
                }
                // Likewise some FCPs must get through: losing every one starves the link for ever.
                fcp_lost[0] = false;
                Scenario { capacity, packets, drains, fcp_delays, fcp_lost, forward_delay }
            },
        )
}

fn run(s: &Scenario) -> Result<u64, TestCaseError> {
    let speed = LinkSpeed::G10;
    let tick = speed.bits_time(BLOCK_OCTETS as u64 * 8);
    let (mut tx, mut rx) = (
        Transmitter::new(TransmitterConfig::new(VL, speed)).expect("data VL"),
        Receiver::new(ReceiverConfig::new(VL, s.capacity, speed)).expect("capacity"),
    );
    let total: u64 = s.packets.iter().map(|&p| p as u64).sum();
    let limit = total * 8 + 200_000;
    let mut forward: VecDeque<(u64, Forward)> = VecDeque::new();
    let mut reverse: VecDeque<(u64, Fcp)> = VecDeque::new();
    let (mut last_forward, mut last_reverse) = (0u64, 0u64);
    let (mut next_packet, mut busy_until, mut fcps, mut in_flight) = (0usize, 0u64, 0usize, 0u32);
    let mut t = 0u64;
    loop {
        let now = Picos(t * tick.0);
        while forward.front().is_some_and(|(at, _)| *at <= t) {
            match forward.pop_front() {
                Some((_, Forward::Data(np))) => {
                    in_flight -= np;
                    let arrived = rx.on_packet(np);
                    prop_assert!(arrived.is_ok(), "overrun at tick {}: {:?}", t, arrived);
                }
                Some((_, Forward::Fcp(fcp))) => rx.on_fcp(&fcp).expect("same VL"),
                None => {}
            }
        }
        while reverse.front().is_some_and(|(at, _)| *at <= t) {
            if let Some((_, fcp)) = reverse.pop_front() {
                tx.on_fcp(&fcp).expect("same VL");
            }
        }
        rx.drain(s.drains[t as usize % s.drains.len()]);
        // Safety, the strong form: what the transmitter may still send plus what is on the
        // wire always fits in the free space.
        prop_assert!(rx.blocks_in_use() <= s.capacity);
        prop_assert!(
            tx.available() as u32 + in_flight <= rx.free_blocks(),
            "credit {} + in flight {} > free {} at tick {}",
            tx.available(),
            in_flight,
            rx.free_blocks(),
            t
        );
        if let Some(fcp) = rx.poll(now) {
            fcps += 1;
            if !s.fcp_lost[fcps % s.fcp_lost.len()] {
                last_reverse = last_reverse.max(t + s.fcp_delays[fcps % s.fcp_delays.len()]);
                reverse.push_back((last_reverse, fcp));
            }
        }
        // The FCTBS report queues behind the data already on the wire.
        if let Some(fcp) = tx.poll(now) {
            last_forward = last_forward.max(t + s.forward_delay);
            forward.push_back((last_forward, Forward::Fcp(fcp)));
        }
        if t >= busy_until {
            if let Some(&np) = s.packets.get(next_packet) {
                if tx.may_send(np) {
                    tx.send(np).expect("may_send said yes");
                    busy_until = t + np as u64;
                    last_forward = last_forward.max(busy_until + s.forward_delay);
                    forward.push_back((last_forward, Forward::Data(np)));
                    in_flight += np;
                    next_packet += 1;
                }
            }
        }
        if next_packet == s.packets.len() && in_flight == 0 {
            break;
        }
        t += 1;
        prop_assert!(
            t < limit,
            "stalled: {} of {} packets sent by tick {}",
            next_packet,
            s.packets.len(),
            t
        );
    }
    prop_assert_eq!(rx.blocks_received(), total, "every block arrived");
    prop_assert_eq!(tx.blocks_sent(), total);
    prop_assert_eq!(rx.dropped_packets(), 0);
    prop_assert_eq!(rx.abr_corrections(), 0, "in-order FCTBS reports never disagree");
    prop_assert_eq!(tx.fctbs(), rx.abr());
    Ok(total)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 5_000, ..ProptestConfig::default() })]

    #[test]
    fn the_receiver_is_never_overrun_and_nothing_is_lost(s in scenario()) {
        run(&s)?;
    }
}

#[test]
fn a_long_run_wraps_the_counters_many_times() {
    let s = Scenario {
        capacity: 200,
        packets: (0..2_000).map(|i| 1 + (i * 37) % 128).collect(),
        drains: vec![3, 0, 1],
        fcp_delays: vec![0, 150, 7],
        fcp_lost: vec![false, false, true],
        forward_delay: 90,
    };
    let total = run(&s).expect("lossless");
    assert!(total > 30 * 4_096, "{total} blocks");
}
