//! The PFC watchdog on the bridge's ports: each turn, a port's watchdog takes new settings,
//! reports the storms it found and ended, and the pipeline is told of the pauses it now
//! ignores or honours again. What the watchdog is and decides is `dataplane::watchdog`'s.

use std::time::Duration;

use dataplane::time::Picos;
use dataplane::watchdog::{ClassStatus, Event, CLASSES, LINK_PAUSE};
use dataplane::wire::PRIORITIES;
use serde::Serialize;
use tracing::{info, warn};

use super::forward::Forwarder;
use super::port::BridgePort;

/// Takes port `i`'s pending settings and its detections and restorations due at `now`; the
/// bridge's time 0 was `start_unix` on the wall clock.
pub fn step<P>(
    port: &mut BridgePort<P>,
    i: usize,
    fwd: &mut Forwarder,
    now: Picos,
    start_unix: Duration,
) {
    let mut events = Vec::new();
    if let Some(setup) = port.pending_watchdog.take() {
        events.extend(port.watchdog.configure(now, setup.classes));
    }
    events.extend(port.watchdog.poll(now));
    if events.is_empty() {
        return;
    }
    let unix = |t: Picos| (start_unix + Duration::from_nanos(t.as_ns())).as_nanos() as u64;
    for e in &events {
        report(&port.setup.name, e);
        match *e {
            Event::StormDetected { class, at, .. } => {
                port.storm_times[class] = (Some(unix(at)), None);
            }
            Event::Restored { class, at, .. } => port.storm_times[class].1 = Some(unix(at)),
        }
    }
    // The pipeline holds each class for as long as the pauses the watchdog honours say: a
    // stormed class is released at once, a restored one waits for the peer's next pause.
    fwd.engine.schedule_pfc(now, i, 0xff, port.class_pauses(now, fwd.max_transit));
}

fn class_name(class: usize) -> String {
    if class == LINK_PAUSE {
        "link-pause".to_string()
    } else {
        class.to_string()
    }
}

fn report(port: &str, e: &Event) {
    match *e {
        Event::StormDetected { class, at, held_since, action } => warn!(
            port,
            class = %class_name(class),
            action = action.name(),
            held_ms = (at.saturating_sub(held_since)).as_ns() / 1_000_000,
            "PFC storm: the peer has held the priority paused while frames waited; the watchdog acts"
        ),
        Event::Restored { class, at, storm_began } => info!(
            port,
            class = %class_name(class),
            storm_ms = at.saturating_sub(storm_began).as_ns() / 1_000_000,
            "PFC storm over: no pause for the restoration time; pauses are honoured again"
        ),
    }
}

/// One class's watchdog as the state shows it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct WatchdogClassSnapshot {
    /// "0" to "7", or "link-pause".
    pub class: String,
    pub stormed: bool,
    pub action: &'static str,
    pub storms_detected: u64,
    pub restorations: u64,
    pub frames_dropped: u64,
    /// Wall-clock times (Unix nanoseconds) of the last storm's detection and end.
    pub last_storm_start_unix_ns: Option<u64>,
    pub last_storm_end_unix_ns: Option<u64>,
}

/// Port `port`'s watchdog.
pub fn snapshot<P>(port: &BridgePort<P>) -> Vec<WatchdogClassSnapshot> {
    (0..CLASSES)
        .map(|class| {
            let c = port.watchdog.counters(class);
            WatchdogClassSnapshot {
                class: class_name(class),
                stormed: matches!(port.watchdog.status(class), ClassStatus::Stormed { .. }),
                action: port.watchdog.config(class).action.name(),
                storms_detected: c.storms_detected,
                restorations: c.restorations,
                frames_dropped: c.frames_dropped,
                last_storm_start_unix_ns: port.storm_times[class].0,
                last_storm_end_unix_ns: port.storm_times[class].1,
            }
        })
        .collect()
}

/// Which priorities have frames waiting toward port `i`: held in its backlog (`held`), or in
/// the pipeline's queue or external FIFO of their traffic class.
pub fn waiting<P>(port: &BridgePort<P>, i: usize, fwd: &Forwarder, held: u8) -> u8 {
    (0..PRIORITIES)
        .filter(|n| {
            let class = port.class_of(*n);
            fwd.engine.backlog(i, class) > 0 || fwd.engine.external_depth(i, class) > 0
        })
        .fold(held, |w, n| w | (1 << n))
}
