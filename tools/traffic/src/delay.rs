//! `pfc-delay`: a user-space delay line between two interfaces (this kernel has no `netem`).
//!
//! Every frame received on one interface is stamped with its arrival time (the kernel's
//! receive timestamp, so the line's own wake-up is not part of the delay), held in that
//! direction's FIFO and sent out of the other interface once `delay` has passed. A FIFO with one
//! delay per direction keeps each direction's order. One thread serves both directions: it
//! sleeps in `ppoll` until a frame arrives or the next one falls due, and spins the last few
//! microseconds before a due time (a sleeping thread wakes late). The lateness of every frame
//! (send time minus due time) is recorded, so the line reports its own accuracy.

use std::collections::VecDeque;
use std::os::fd::AsFd;

use dataplane::io::{RawOptions, RawPort, RxBatch, MAX_BATCH};
use dataplane::time::Picos;

use super::clock::{Clock, RealtimeOffset};
use super::event_loop::EventLoop;
use super::histogram::Histogram;
use super::report::{DelayReport, DirectionReport, Quantiles};

#[derive(Debug, Clone)]
pub struct DelayConfig {
    pub a: String,
    pub b: String,
    pub delay_ab: Picos,
    pub delay_ba: Picos,
    /// Frames held per direction at most; more are dropped and counted.
    pub limit: usize,
    pub spin: Picos,
    pub duration: Option<Picos>,
}

#[derive(Default)]
struct Direction {
    held: VecDeque<(Picos, Vec<u8>)>,
    spare: Vec<Vec<u8>>,
    received: u64,
    sent: u64,
    dropped: u64,
    lateness: Histogram,
}

pub fn run(config: &DelayConfig) -> Result<DelayReport, String> {
    // Promiscuous: a real NIC would otherwise drop unicast frames for the stations behind us.
    let options = RawOptions {
        promiscuous: true,
        qdisc_bypass: true,
        recv_buffer: Some(8 << 20),
        // Held from the kernel's receive time: the line's own wake-up is not added.
        timestamps: true,
        ..RawOptions::default()
    };
    let mut ports = [
        RawPort::open(&config.a, &options).map_err(|e| e.to_string())?,
        RawPort::open(&config.b, &options).map_err(|e| e.to_string())?,
    ];
    let delays = [config.delay_ab, config.delay_ba];
    let mut dirs = [Direction::default(), Direction::default()];
    let mut events = EventLoop::new(config.spin).map_err(|e| format!("signals: {e}"))?;
    let mut rx = RxBatch::new(MAX_BATCH, 9220);
    let clock = Clock::start();
    let mut now = clock.now();
    loop {
        events.check_signals();
        if events.stopped() || config.duration.is_some_and(|d| now >= d) {
            break;
        }
        for d in 0..2 {
            while ports[d].recv_batch(&mut rx).map_err(|e| e.to_string())? > 0 {
                now = clock.now();
                let offset = RealtimeOffset::now();
                let dir = &mut dirs[d];
                for (i, frame) in rx.iter().enumerate() {
                    dir.received += 1;
                    let arrived = rx
                        .received_ns(i)
                        .map_or(now, |t| clock.at_monotonic_ns(offset.monotonic(t)).min(now));
                    if dir.held.len() >= config.limit {
                        dir.dropped += 1;
                        continue;
                    }
                    let mut buf = dir.spare.pop().unwrap_or_default();
                    buf.clear();
                    buf.extend_from_slice(frame);
                    dir.held.push_back((arrived + delays[d], buf));
                }
            }
        }
        now = clock.now();
        for d in 0..2 {
            let (dir, out) = (&mut dirs[d], &mut ports[1 - d]);
            let due = dir.held.iter().take(MAX_BATCH).take_while(|(t, _)| *t <= now).count();
            if due == 0 {
                continue;
            }
            let frames: Vec<&[u8]> = dir.held.iter().take(due).map(|(_, f)| f.as_slice()).collect();
            // A full queue below us keeps the rest for the next round, in order.
            let sent = out.send_batch(&frames).unwrap_or(0);
            let at = clock.now();
            for (t, buf) in dir.held.drain(..sent) {
                dir.lateness.record((at - t).as_ns());
                dir.spare.push(buf);
            }
            dir.sent += sent as u64;
        }
        now = clock.now();
        let next = dirs.iter().filter_map(|d| d.held.front().map(|(t, _)| *t)).min();
        let deadline = [next, config.duration].into_iter().flatten().min();
        if next.is_none_or(|t| t > now) {
            events.wait(&[ports[0].as_fd(), ports[1].as_fd()], now, deadline);
            now = clock.now();
        }
    }
    let names = [config.a.clone(), config.b.clone()];
    Ok(DelayReport {
        mode: "delay",
        seconds: clock.now().as_ps() as f64 / 1e12,
        directions: (0..2)
            .map(|d| DirectionReport {
                from: names[d].clone(),
                to: names[1 - d].clone(),
                delay_ns: delays[d].as_ns(),
                frames_received: dirs[d].received,
                frames_sent: dirs[d].sent,
                dropped: dirs[d].dropped,
                lateness_ns: Quantiles::of(&dirs[d].lateness),
            })
            .collect(),
    })
}
