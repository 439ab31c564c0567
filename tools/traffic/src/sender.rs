//! `pfc-traffic send`: paced, sequence-numbered flows per priority, held back by the PFC frames
//! the sender receives.
//!
//! Pacing: each flow has the time its next frame is due, advanced by the frame interval of its
//! rate after each frame (so the average rate is exact however the frames are batched); the
//! loop sends everything due in one `sendmmsg`, then sleeps or spins until the next due time.
//! A sender descheduled for a while catches up (so a busy host still gives the average rate
//! asked for), but a flow more than [`MAX_LAG`] behind (the kernel cannot take frames that
//! fast) restarts from now instead of bursting for ever. A paused priority's frames wait: its flows do
//! not catch up after the pause, as a NIC's queue does not grow past what the application
//! offered while the priority was stopped — the sender simply sends later.

use std::collections::BTreeMap;
use std::os::fd::AsFd;

use dataplane::io::{FramePort, IoError, RawOptions, RawPort, RxBatch, MAX_BATCH};
use dataplane::time::{LinkSpeed, Picos};
use dataplane::wire::{MacAddr, MacControl, PRIORITIES};
use nix::errno::Errno::ENOBUFS;

use super::clock::Clock;
use super::event_loop::EventLoop;
use super::pause::PauseState;
use super::payload::Template;
use super::rate::FlowSpec;
use super::report::{FlowSent, PrioritySent, SendReport};

/// How far a flow may fall behind its schedule before it restarts from now.
pub const MAX_LAG: Picos = Picos::from_ms(20);

#[derive(Debug, Clone)]
pub struct SendConfig {
    pub interface: String,
    pub flows: Vec<FlowSpec>,
    pub dst: MacAddr,
    /// VLAN ID of the tags (PCP is the flow's priority).
    pub vid: u16,
    /// Send priority 0 untagged instead of priority-tagged.
    pub untagged_zero: bool,
    pub duration: Option<Picos>,
    /// Frames per flow, at most.
    pub count: Option<u64>,
    /// The link speed pause quanta are timed at.
    pub speed: LinkSpeed,
    /// Spin instead of sleeping this close to a deadline.
    pub spin: Picos,
    pub qdisc_bypass: bool,
}

struct Flow {
    spec: FlowSpec,
    template: Template,
    interval: Picos,
    next_at: Picos,
    seq: u64,
    octets: u64,
}

pub fn run(config: &SendConfig) -> Result<SendReport, String> {
    let options = RawOptions { qdisc_bypass: config.qdisc_bypass, ..RawOptions::default() };
    let mut port = RawPort::open(&config.interface, &options).map_err(|e| e.to_string())?;
    let mut events = EventLoop::new(config.spin).map_err(|e| format!("signals: {e}"))?;
    let mut flows = config
        .flows
        .iter()
        .map(|spec| {
            let vid = (spec.priority != 0 || !config.untagged_zero).then_some(config.vid);
            let template = Template::new(config.dst, port.mac(), spec.priority, vid, spec.size)?;
            Ok(Flow {
                spec: *spec,
                interval: spec.rate.interval(template.size()),
                template,
                next_at: Picos::ZERO,
                seq: 0,
                octets: 0,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let max_frame = flows.iter().map(|f| f.template.size()).max().unwrap_or(64);
    let mut arena = vec![0u8; MAX_BATCH * max_frame];
    let mut pause = PauseState::new(config.speed, port.mac());
    let mut rx = RxBatch::new(16, 1522);
    let clock = Clock::start();
    let mut kernel_full = 0u64;
    let mut lag_restarts = 0u64;
    let mut other_frames = 0u64;
    let mut loops = 0u64;
    let mut now = clock.now();
    loop {
        loops += 1;
        if loops.is_multiple_of(256) {
            events.check_signals();
        }
        if events.stopped() || config.duration.is_some_and(|d| now >= d) || done(&flows, config) {
            break;
        }
        // PFC first, so that nothing due is sent for a priority paused meanwhile.
        while port.recv_batch(&mut rx).map_err(|e| e.to_string())? > 0 {
            now = clock.now();
            for frame in rx.iter() {
                match MacControl::parse(frame) {
                    Ok(mc) => {
                        pause.receive(now, &mc);
                    }
                    Err(_) => other_frames += 1,
                }
            }
        }
        now = clock.now();
        for flow in &mut flows {
            if pause.paused(now, flow.spec.priority as usize) {
                flow.next_at = flow.next_at.max(now);
            } else if flow.next_at + MAX_LAG < now {
                flow.next_at = now;
                lag_restarts += 1;
            }
        }
        let (built, order) = build(&mut flows, &pause, &clock, now, config, &mut arena, max_frame);
        if built > 0 {
            let frames: Vec<&[u8]> =
                order.iter().map(|&(_, at, len)| &arena[at..at + len]).collect();
            let sent = send(&mut port, &frames)?;
            if sent < built {
                kernel_full += 1;
                // Roll back what the kernel did not take: the last frames of their flows.
                for &(f, _, _) in order[sent..].iter().rev() {
                    let flow = &mut flows[f];
                    flow.seq -= 1;
                    flow.octets -= flow.template.size() as u64;
                    flow.next_at = flow.next_at - flow.interval;
                }
            }
        }
        now = clock.now();
        let deadline = next_deadline(&flows, &pause, now, config);
        if built == 0 {
            events.wait(&[port.as_fd()], now, deadline);
            now = clock.now();
        }
    }
    let end = clock.now();
    Ok(report(config, &flows, &pause, end, kernel_full, lag_restarts, other_frames))
}

fn done(flows: &[Flow], config: &SendConfig) -> bool {
    config.count.is_some_and(|c| flows.iter().all(|f| f.seq >= c))
}

/// Stamps every frame due at `now` into the arena, earliest due first, up to one batch.
/// Returns how many, with (flow, offset, length) of each in send order.
fn build(
    flows: &mut [Flow],
    pause: &PauseState,
    clock: &Clock,
    now: Picos,
    config: &SendConfig,
    arena: &mut [u8],
    slot: usize,
) -> (usize, Vec<(usize, usize, usize)>) {
    let mut order = Vec::new();
    let sent_ns = clock.monotonic_ns_at(now);
    while order.len() < MAX_BATCH {
        let due = flows
            .iter()
            .enumerate()
            .filter(|(_, f)| {
                f.next_at <= now
                    && config.count.is_none_or(|c| f.seq < c)
                    && !pause.paused(now, f.spec.priority as usize)
            })
            .min_by_key(|(_, f)| f.next_at)
            .map(|(i, _)| i);
        let Some(i) = due else { break };
        let flow = &mut flows[i];
        let frame = flow.template.stamp(i as u16, flow.seq, sent_ns);
        let at = order.len() * slot;
        arena[at..at + frame.len()].copy_from_slice(frame);
        order.push((i, at, frame.len()));
        flow.seq += 1;
        flow.octets += flow.template.size() as u64;
        flow.next_at += flow.interval;
    }
    (order.len(), order)
}

fn send(port: &mut RawPort, frames: &[&[u8]]) -> Result<usize, String> {
    match port.send_batch(frames) {
        Ok(n) => Ok(n),
        // veth's peer backlog or a NIC ring full: the frames were not taken; try again.
        Err(IoError::Os { source, .. }) if source.raw_os_error() == Some(ENOBUFS as i32) => Ok(0),
        Err(e) => Err(e.to_string()),
    }
}

fn next_deadline(
    flows: &[Flow],
    pause: &PauseState,
    now: Picos,
    config: &SendConfig,
) -> Option<Picos> {
    let flow_due = flows
        .iter()
        .filter(|f| config.count.is_none_or(|c| f.seq < c))
        .map(|f| {
            pause.paused_until(now, f.spec.priority as usize).unwrap_or(f.next_at).max(f.next_at)
        })
        .min();
    match (flow_due, config.duration) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn report(
    config: &SendConfig,
    flows: &[Flow],
    pause: &PauseState,
    end: Picos,
    kernel_full: u64,
    lag_restarts: u64,
    other_frames: u64,
) -> SendReport {
    let seconds = end.as_ps() as f64 / 1e12;
    let per_second = |x: u64| if seconds > 0.0 { x as f64 / seconds } else { 0.0 };
    let mut priorities = BTreeMap::new();
    for n in 0..PRIORITIES {
        let own: Vec<&Flow> = flows.iter().filter(|f| f.spec.priority as usize == n).collect();
        let indications = pause.indications()[n];
        if own.is_empty() && indications == 0 {
            continue;
        }
        let frames: u64 = own.iter().map(|f| f.seq).sum();
        let octets: u64 = own.iter().map(|f| f.octets).sum();
        priorities.insert(
            n.to_string(),
            PrioritySent {
                frames,
                octets,
                rate_bps: per_second(octets) * 8.0,
                pps: per_second(frames),
                pause_ns: pause.pause_time(end, n).as_ns(),
                pfc_frames: indications,
            },
        );
    }
    SendReport {
        mode: "send",
        interface: config.interface.clone(),
        seconds,
        speed_gbps: config.speed.gbps(),
        flows: flows
            .iter()
            .enumerate()
            .map(|(i, f)| FlowSent {
                flow: i as u16,
                priority: f.spec.priority,
                size: f.template.size(),
                offered: f.spec.rate.to_string(),
                frames: f.seq,
                octets: f.octets,
                rate_bps: per_second(f.octets) * 8.0,
            })
            .collect(),
        priorities,
        pfc_frames_received: pause.pfc_frames(),
        mac_control_ignored: pause.ignored(),
        other_frames_received: other_frames,
        kernel_queue_full: kernel_full,
        lag_restarts,
    }
}
