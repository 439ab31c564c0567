//! Two stations with credit-based link-level flow control (seed 002, SPEC §7) instead of PFC, on
//! the same simulated links as [`TwoStation`](super::TwoStation): A sends on one data VL only
//! when B has granted credit, B drains slower than A offers. It cannot lose a frame; what its
//! buffer size decides is throughput, because credit comes back one round trip after space
//! frees — and never more than 2048 blocks (128 KiB) ahead of what B has received.
//!
//! FCPs travel as real bytes, the two words of Table 25-3 padded to a minimum frame, behind the
//! data on the same link (a transmitter's FCTBS report must not overtake the blocks it counts).

use std::collections::VecDeque;

use super::TwoStationConfig;
use super::{DataFrame, EventQueue, LinkFrame, Medium, Sample, SimLink, SimRng, StationDelays};
use crate::credit::{
    blocks_for, Count12, CreditError, Fcp, Receiver, ReceiverConfig, Transmitter, TransmitterConfig,
};
use crate::time::{LinkSpeed, Picos};
use crate::wire::MIN_FRAME_LEN;

/// The data VL used.
const VL: u8 = 0;

/// A credit run.
#[derive(Debug, Clone)]
pub struct CreditPairConfig {
    pub speed: LinkSpeed,
    pub link_metres: u64,
    pub medium: Medium,
    pub delays: StationDelays,
    /// Octets per packet A sends (FCS excluded).
    pub frame_len: u32,
    /// B's receive buffer in 64-octet blocks.
    pub capacity_blocks: u32,
    /// B drains at this share of the line rate, percent.
    pub drain_percent: u64,
    pub duration: Picos,
    pub seed: u64,
    pub record_every: Option<Picos>,
    /// Only drains from this time on count in `octets_drained`.
    pub measure_from: Picos,
}

impl CreditPairConfig {
    /// The link and traffic of a PFC run, with a buffer of `capacity_blocks`.
    pub fn like(stations: &TwoStationConfig, capacity_blocks: u32) -> Self {
        CreditPairConfig {
            speed: stations.speed,
            link_metres: stations.link_metres,
            medium: stations.medium,
            delays: stations.delays,
            frame_len: stations.frame_len,
            capacity_blocks,
            drain_percent: stations.drain_percent,
            duration: stations.duration,
            seed: stations.seed,
            record_every: stations.record_every,
            measure_from: stations.measure_from,
        }
    }

    fn one_way(&self) -> Picos {
        let mut s = TwoStationConfig::annex_n(0, self.seed);
        s.speed = self.speed;
        s.link_metres = self.link_metres;
        s.medium = self.medium;
        s.delays = self.delays;
        s.one_way()
    }
}

/// What a credit run measured.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CreditPairReport {
    pub packets_sent: u64,
    pub packets_received: u64,
    /// Packets B had no room for (0 while the transmitter honours its credit).
    pub packets_dropped: u64,
    /// Octets drained from `measure_from` on, and what the drain could have taken.
    pub octets_drained: u64,
    pub drain_capacity_octets: u64,
    pub peak_occupancy_octets: u64,
    pub buffer_octets: u64,
    /// FCPs B sent (credit) and A sent (FCTBS reports).
    pub credit_fcps: u64,
    pub fctbs_fcps: u64,
    /// Times A had a packet ready but no credit for it.
    pub credit_waits: u64,
    /// Occupancy over time; `paused` bit 0 is set while A waits for credit.
    pub series: Vec<Sample>,
}

#[derive(Debug)]
enum Event {
    ATxFree,
    BTxFree,
    BDrain,
    ArrivesAtB,
    ArrivesAtA,
}

/// FCP on the wire: word 0 of Table 25-3 (Op 0, FCTBS, VL, FCCL), word 1 zero, padded.
fn encode(fcp: &Fcp) -> Vec<u8> {
    let word = (u32::from(fcp.fctbs.get()) << 16)
        | (u32::from(fcp.vl & 0x0f) << 12)
        | u32::from(fcp.fccl.get());
    let mut bytes = vec![0u8; MIN_FRAME_LEN];
    bytes[..4].copy_from_slice(&word.to_be_bytes());
    bytes
}

fn decode(bytes: &[u8]) -> Option<Fcp> {
    let word = u32::from_be_bytes(bytes.get(..4)?.try_into().ok()?);
    Some(Fcp {
        vl: ((word >> 12) & 0x0f) as u8,
        fctbs: Count12::new((word >> 16) & 0xfff),
        fccl: Count12::new(word & 0xfff),
    })
}

/// The credit scenario; build it and call [`CreditPair::run`].
pub struct CreditPair {
    cfg: CreditPairConfig,
    events: EventQueue<Event>,
    a_to_b: SimLink,
    b_to_a: SimLink,
    tx: Transmitter,
    rx: Receiver,
    queue: VecDeque<u32>,
    rng: SimRng,
    waiting: bool,
    report: CreditPairReport,
    next_sample: Picos,
    interval_peak: u64,
}

impl CreditPair {
    pub fn new(cfg: CreditPairConfig) -> Result<Self, CreditError> {
        let one_way = cfg.one_way();
        Ok(CreditPair {
            events: EventQueue::new(),
            a_to_b: SimLink::new(cfg.speed, one_way),
            b_to_a: SimLink::new(cfg.speed, one_way),
            tx: Transmitter::new(TransmitterConfig::new(VL, cfg.speed))?,
            rx: Receiver::new(ReceiverConfig::new(VL, cfg.capacity_blocks, cfg.speed))?,
            queue: VecDeque::new(),
            rng: SimRng::new(cfg.seed),
            waiting: false,
            report: CreditPairReport {
                buffer_octets: u64::from(cfg.capacity_blocks) * 64,
                ..CreditPairReport::default()
            },
            next_sample: Picos::ZERO,
            interval_peak: 0,
            cfg,
        })
    }

    pub fn run(mut self) -> CreditPairReport {
        let frame_time = self.cfg.speed.frame_time(u64::from(self.cfg.frame_len));
        let a_start = Picos(self.rng.below(frame_time.as_ps().max(1)));
        let drain_start = Picos(self.rng.below(frame_time.as_ps().max(1)));
        self.events.schedule(a_start, Event::ATxFree);
        self.events.schedule(Picos::ZERO, Event::BTxFree);
        self.events.schedule(drain_start, Event::BDrain);
        while let Some((now, event)) = self.events.pop() {
            if now > self.cfg.duration {
                break;
            }
            match event {
                Event::ATxFree => self.a_tx_free(now),
                Event::BTxFree => self.b_tx_free(now),
                Event::BDrain => self.b_drain(now),
                Event::ArrivesAtB => self.arrives_at_b(now),
                Event::ArrivesAtA => self.arrives_at_a(now),
            }
            self.record(now);
        }
        self.report.packets_dropped = self.rx.dropped_packets();
        self.report
    }

    fn blocks(&self) -> u32 {
        blocks_for(self.cfg.frame_len)
    }

    /// A: an FCTBS report when due, else a packet if the credit allows, else wait for an FCP.
    fn a_tx_free(&mut self, now: Picos) {
        if self.a_to_b.idle_at() > now {
            return;
        }
        let frame = if let Some(fcp) = self.tx.poll(now) {
            self.report.fctbs_fcps += 1;
            LinkFrame::Bytes(encode(&fcp))
        } else if self.tx.send(self.blocks()).is_ok() {
            self.waiting = false;
            self.report.packets_sent += 1;
            let seq = self.report.packets_sent;
            LinkFrame::Data(DataFrame { priority: VL, len: self.cfg.frame_len, seq })
        } else {
            if !self.waiting {
                self.waiting = true;
                self.report.credit_waits += 1;
            }
            // An FCP arriving wakes A; so does the next FCTBS report.
            self.events.schedule(self.tx.next_deadline().max(now), Event::ATxFree);
            return;
        };
        let end = self.a_to_b.transmit(now, frame);
        self.events.schedule(end, Event::ATxFree);
        if let Some(at) = self.a_to_b.last_arrival() {
            self.events.schedule(at, Event::ArrivesAtB);
        }
    }

    /// B: its FCP whenever one is due.
    fn b_tx_free(&mut self, now: Picos) {
        if self.b_to_a.idle_at() > now {
            self.events.schedule(self.b_to_a.idle_at(), Event::BTxFree);
            return;
        }
        match self.rx.poll(now) {
            Some(fcp) => {
                self.report.credit_fcps += 1;
                let end = self.b_to_a.transmit(now, LinkFrame::Bytes(encode(&fcp)));
                if let Some(at) = self.b_to_a.last_arrival() {
                    self.events.schedule(at, Event::ArrivesAtA);
                }
                self.events.schedule(end, Event::BTxFree);
            }
            None => self.events.schedule(self.rx.next_deadline().max(now), Event::BTxFree),
        }
    }

    fn arrives_at_b(&mut self, now: Picos) {
        while let Some((_, frame)) = self.a_to_b.receive(now) {
            match frame {
                LinkFrame::Data(d) => {
                    if self.rx.on_packet(blocks_for(d.len)).is_ok() {
                        self.report.packets_received += 1;
                        self.queue.push_back(d.len);
                    }
                }
                LinkFrame::Bytes(bytes) => {
                    if let Some(fcp) = decode(&bytes) {
                        let _ = self.rx.on_fcp(&fcp);
                    }
                }
            }
        }
        self.b_tx_free(now);
    }

    fn arrives_at_a(&mut self, now: Picos) {
        while let Some((_, frame)) = self.b_to_a.receive(now) {
            if let LinkFrame::Bytes(bytes) = frame {
                if let Some(fcp) = decode(&bytes) {
                    let _ = self.tx.on_fcp(&fcp);
                }
            }
        }
        self.a_tx_free(now);
    }

    fn b_drain(&mut self, now: Picos) {
        let len = self.queue.pop_front();
        if let Some(len) = len {
            self.rx.drain(blocks_for(len));
            if now >= self.cfg.measure_from {
                self.report.octets_drained += u64::from(len);
            }
            self.b_tx_free(now);
        }
        let len = len.unwrap_or(self.cfg.frame_len);
        if now >= self.cfg.measure_from {
            self.report.drain_capacity_octets += u64::from(len);
        }
        let per_frame =
            self.cfg.speed.frame_time(u64::from(len)).as_ps() * 100 / self.cfg.drain_percent.max(1);
        self.events.schedule(now + Picos(per_frame), Event::BDrain);
    }

    fn occupancy(&self) -> u64 {
        u64::from(self.rx.blocks_in_use()) * 64
    }

    fn record(&mut self, now: Picos) {
        let occupancy = self.occupancy();
        self.report.peak_occupancy_octets = self.report.peak_occupancy_octets.max(occupancy);
        let Some(every) = self.cfg.record_every.filter(|e| *e > Picos::ZERO) else {
            return;
        };
        self.interval_peak = self.interval_peak.max(occupancy);
        while self.next_sample <= now {
            self.report.series.push(Sample {
                at: self.next_sample,
                occupancy_octets: self.interval_peak,
                xoff: false,
                paused: u8::from(self.waiting),
            });
            self.interval_peak = occupancy;
            self.next_sample += every;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fcps_cross_the_wire_unchanged() {
        let fcp = Fcp { vl: 3, fctbs: Count12::new(4095), fccl: Count12::new(2048) };
        assert_eq!(decode(&encode(&fcp)), Some(fcp));
        // Op 0 | FCTBS 0xfff | VL 3 | FCCL 0x800.
        assert_eq!(&encode(&fcp)[..4], &[0x0f, 0xff, 0x38, 0x00]);
    }

    #[test]
    fn credit_never_overruns_and_a_small_buffer_costs_throughput() {
        let mut base = TwoStationConfig::annex_n(0, 3);
        base.duration = Picos::from_us(2_000);
        base.drain_percent = 50;
        let small = CreditPair::new(CreditPairConfig::like(&base, 64)).expect("valid").run();
        let large = CreditPair::new(CreditPairConfig::like(&base, 2048)).expect("valid").run();
        for r in [&small, &large] {
            assert_eq!(r.packets_dropped, 0, "{r:?}");
            assert!(r.peak_occupancy_octets <= r.buffer_octets);
        }
        assert!(small.credit_waits > 0);
        assert!(large.octets_drained > small.octets_drained, "{small:?} {large:?}");
    }
}
