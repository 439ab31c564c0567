//! `pfc-traffic recv`: counts test frames per priority and flow, and, as a slow receiver,
//! pauses the sender with PFC. The PFC frames come from the PFC MAC's initiator
//! ([`PfcInitiator`]: XOFF with the configured quanta, refresh before the pause runs out, XON),
//! fed by a [`DrainQueue`] per drained priority, or held in XOFF for ever by `--storm`.

use std::collections::BTreeMap;
use std::os::fd::AsFd;

use dataplane::io::{FramePort, RawOptions, RawPort, RxBatch};
use dataplane::mac::PfcInitiator;
use dataplane::time::{LinkSpeed, Picos};
use dataplane::wire::{EtherType, EthernetHeader, PRIORITIES};

use super::clock::{monotonic_ns, Clock, RealtimeOffset};
use super::drain::DrainQueue;
use super::event_loop::EventLoop;
use super::histogram::Histogram;
use super::payload::{read, FCS_LEN};
use super::rate::DrainSpec;
use super::reaction::Reaction;
use super::report::{DrainReport, FlowReceived, PriorityReceived, Quantiles, RecvReport};
use super::sequence::SequenceCheck;

#[derive(Debug, Clone)]
pub struct RecvConfig {
    pub interface: String,
    pub duration: Option<Picos>,
    /// Stop this long after the last test frame (once one has arrived).
    pub idle: Option<Picos>,
    pub drains: Vec<DrainSpec>,
    pub xoff_octets: u64,
    pub xon_octets: u64,
    pub buffer_octets: Option<u64>,
    pub quanta: u16,
    pub storm: Option<u8>,
    pub speed: LinkSpeed,
    pub spin: Picos,
    /// The socket's receive buffer, octets: what a burst may queue before the kernel drops.
    pub socket_buffer: usize,
}

#[derive(Default)]
struct Priority {
    frames: u64,
    octets: u64,
    first: Option<Picos>,
    last: Picos,
    mismatch: u64,
    latency: Histogram,
    flows: BTreeMap<u16, SequenceCheck>,
    drain: Option<DrainQueue>,
}

pub fn run(config: &RecvConfig) -> Result<RecvReport, String> {
    // Latency from the kernel's receive time, not from when this loop got round to the frame.
    let options = RawOptions {
        recv_buffer: Some(config.socket_buffer),
        timestamps: true,
        ..RawOptions::default()
    };
    let mut port = RawPort::open(&config.interface, &options).map_err(|e| e.to_string())?;
    let mut events = EventLoop::new(config.spin).map_err(|e| format!("signals: {e}"))?;
    let mut prios: Vec<Priority> = (0..PRIORITIES).map(|_| Priority::default()).collect();
    let mut enable = 0u8;
    for d in &config.drains {
        let rate = d.rate.octets_per_second(0);
        let mut q = DrainQueue::new(rate, config.xoff_octets, config.xon_octets);
        q.buffer_octets = config.buffer_octets;
        prios[d.priority as usize].drain = Some(q);
        enable |= 1 << d.priority;
    }
    if let Some(s) = config.storm {
        enable |= 1 << s;
    }
    let mut initiator = PfcInitiator::new(config.speed, port.mac(), enable)
        .with_quanta(config.quanta, config.quanta / 2);
    let mut rx = RxBatch::new(64, 9220);
    let clock = Clock::start();
    let mut other = 0u64;
    let mut mac_control = 0u64;
    let mut last_test_frame: Option<Picos> = None;
    let mut reaction = Reaction::default();
    let mut now = clock.now();
    loop {
        events.check_signals();
        if events.stopped()
            || config.duration.is_some_and(|d| now >= d)
            || last_test_frame.zip(config.idle).is_some_and(|(t, i)| now >= t + i)
        {
            break;
        }
        while port.recv_batch(&mut rx).map_err(|e| e.to_string())? > 0 {
            let read_ns = monotonic_ns();
            let offset = RealtimeOffset::now();
            now = clock.now();
            for (i, frame) in rx.iter().enumerate() {
                let at_ns = rx.received_ns(i).map_or(read_ns, |t| offset.monotonic(t));
                let Ok((header, payload)) = EthernetHeader::parse(frame) else {
                    other += 1;
                    continue;
                };
                if header.ethertype == EtherType::MAC_CONTROL {
                    mac_control += 1;
                    continue;
                }
                let Some(stamp) = read(&header, payload) else {
                    other += 1;
                    continue;
                };
                last_test_frame = Some(now);
                let n = header.priority(0) as usize;
                let p = &mut prios[n];
                let octets = (frame.len() + FCS_LEN) as u64;
                p.frames += 1;
                p.octets += octets;
                p.first.get_or_insert(now);
                p.last = now;
                if usize::from(stamp.priority) != n {
                    p.mismatch += 1;
                }
                p.latency.record(at_ns.saturating_sub(stamp.sent_ns));
                p.flows.entry(stamp.flow).or_default().observe(stamp.seq);
                if let Some(q) = &mut p.drain {
                    q.arrive(now, octets);
                }
                reaction.arrived(now, n);
            }
        }
        now = clock.now();
        for (n, p) in prios.iter_mut().enumerate() {
            if let Some(q) = &mut p.drain {
                initiator.set_xoff(n, q.xoff(now));
            }
        }
        if let Some(s) = config.storm {
            initiator.set_xoff(s as usize, true);
        }
        if let Some(frame) = initiator.poll(now) {
            port.send(&frame.to_vec()).map_err(|e| e.to_string())?;
            reaction.sent(now, &frame);
        }
        let xon = prios.iter().filter_map(|p| p.drain.as_ref()?.xon_at()).min();
        let deadline =
            [initiator.next_refresh(now), xon, config.duration].into_iter().flatten().min();
        events.wait(&[port.as_fd()], now, deadline);
        now = clock.now();
    }
    let mut r = report(config, &prios, &initiator, &reaction, clock.now(), other, mac_control);
    r.kernel_drops = port.take_kernel_drops().map_err(|e| e.to_string())?;
    Ok(r)
}

fn report(
    config: &RecvConfig,
    prios: &[Priority],
    initiator: &PfcInitiator,
    reaction: &Reaction,
    end: Picos,
    other: u64,
    mac_control: u64,
) -> RecvReport {
    let c = &initiator.counters;
    let mut priorities = BTreeMap::new();
    for (n, p) in prios.iter().enumerate() {
        if p.frames == 0 && p.drain.is_none() && c.pfc_requests_per_priority[n] == 0 {
            continue;
        }
        let span = p.first.map_or(0.0, |f| (p.last - f).as_ps() as f64 / 1e12);
        let per_second = |x: u64| if span > 0.0 { x as f64 / span } else { 0.0 };
        let flows: Vec<FlowReceived> = p
            .flows
            .iter()
            .map(|(id, s)| FlowReceived {
                flow: *id,
                frames: s.received,
                highest_seq_plus_one: s.highest_plus_one(),
                lost: s.lost(),
                reordered: s.reordered,
                duplicates: s.duplicates,
            })
            .collect();
        priorities.insert(
            n.to_string(),
            PriorityReceived {
                frames: p.frames,
                octets: p.octets,
                rate_bps: per_second(p.octets) * 8.0,
                pps: per_second(p.frames),
                lost: flows.iter().map(|f| f.lost).sum(),
                reordered: flows.iter().map(|f| f.reordered).sum(),
                duplicates: flows.iter().map(|f| f.duplicates).sum(),
                priority_mismatch: p.mismatch,
                latency_ns: Quantiles::of(&p.latency),
                flows,
                drain: p.drain.as_ref().map(|q| DrainReport {
                    rate_bps: q.octets_per_second() * 8.0,
                    xoff_octets: q.xoff_octets,
                    xon_octets: q.xon_octets,
                    peak_octets: q.peak as u64,
                    overflow_frames: q.overflow_frames,
                }),
                pause_reaction_ns: Quantiles::of(&reaction.per_priority[n]),
                frames_in_pause: reaction.frames_in_pause[n],
                pfc_sent: c.pfc_requests_per_priority[n],
                xon_sent: c.xon_sent_per_priority[n],
            },
        );
    }
    RecvReport {
        mode: "recv",
        interface: config.interface.clone(),
        seconds: end.as_ps() as f64 / 1e12,
        priorities,
        pfc_frames_sent: c.pfc_requests,
        pfc_frames_received: mac_control,
        other_frames: other,
        kernel_drops: 0,
    }
}
