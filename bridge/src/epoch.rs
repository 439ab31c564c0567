//! The bridge's time base: the pipeline, the PFC receivers and initiators and the measurement
//! run on picoseconds since an epoch, in a u64 that holds 213.5 days. Once the bridge has run
//! [`REBASE_AFTER`] since its epoch, the first moment nothing in it holds a time (no frame
//! stored, no port paused by its peer or pausing it) it starts its time again from 0: the
//! engine is made anew (its statistics start from zero, as for a change of pause mode) and each
//! port's receiver, initiator and measurement are made again with their counters kept (as for
//! a new MAC address). So the bridge runs for any length of time, and its time never runs
//! backwards while anything depends on it.

use std::time::{Duration, Instant};

use dataplane::pipeline::Pipeline;
use dataplane::time::Picos;
use tracing::{info, warn};

use super::forward::Forwarder;
use super::port::BridgePort;

/// How long the bridge runs on one epoch before it starts its time again at an idle moment:
/// 100 days, half of what the time holds, so there are 113 days to find one.
pub const REBASE_AFTER: Picos = Picos(100 * 86_400 * 1_000_000_000_000);

/// When the bridge's time is 0: on the monotonic clock, and on the clock the kernel stamps
/// received frames with (CLOCK_REALTIME, since the Unix epoch).
#[derive(Debug, Clone, Copy)]
pub struct Epoch {
    pub start: Instant,
    pub start_unix: Duration,
}

impl Epoch {
    /// Now.
    pub fn now() -> Self {
        let start_unix =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        Epoch { start: Instant::now(), start_unix }
    }

    /// The bridge's time at `wall`.
    pub fn at(&self, wall: Instant) -> Picos {
        Picos::from_duration(wall.saturating_duration_since(self.start))
    }

    /// The epoch moved to `wall`, on both clocks.
    fn moved_to(&self, wall: Instant) -> Epoch {
        let by = wall.saturating_duration_since(self.start);
        Epoch { start: wall, start_unix: self.start_unix + by }
    }
}

/// Starts the bridge's time again from 0 at `wall` (the bridge's time `now`) if it has run
/// [`REBASE_AFTER`] and nothing in it holds a time. Returns whether it did.
pub fn rebase_when_idle<P>(
    epoch: &mut Epoch,
    wall: Instant,
    now: Picos,
    ports: &mut [BridgePort<P>],
    fwd: &mut Forwarder,
) -> bool {
    if now < REBASE_AFTER || !idle(now, ports, fwd) {
        return false;
    }
    let mut engine = match Pipeline::new(fwd.engine.config().clone()) {
        Ok(engine) => engine,
        Err(e) => {
            warn!(error = %e, "cannot start the bridge's time again; trying later");
            return false;
        }
    };
    engine.record_departures();
    fwd.engine = engine;
    for port in ports.iter_mut() {
        let mac = port.mac;
        if let Err(e) = port.readdress(mac) {
            // Its parts keep the old epoch's deadlines, none of them due (the port is idle).
            warn!(port = %port.setup.name, error = %e, "port not moved to the new epoch");
        }
        port.watchdog.restart_time();
    }
    *epoch = epoch.moved_to(wall);
    info!(after = %now, "the bridge's time starts again from 0 (its statistics too)");
    true
}

/// Nothing in the bridge depends on the present epoch: no frame stored (so none queued or
/// paused in the pipeline), no port paused by its peer, none asking its peer to pause, no
/// watchdog awaiting a detection or a restoration.
fn idle<P>(now: Picos, ports: &[BridgePort<P>], fwd: &Forwarder) -> bool {
    fwd.store.in_use() == 0
        && ports.iter().all(|p| {
            p.tx_backlog.is_empty()
                && p.receiver.next_resume(now).is_none()
                && p.initiator.next_refresh(now).is_none()
                && p.xoff() == 0
                && p.watchdog.next_deadline().is_none()
        })
}

#[cfg(test)]
mod tests {
    use dataplane::pipeline::PauseMode;
    use dataplane::time::LinkSpeed;
    use dataplane::wire::{MacAddr, MacControl, PfcFrame};

    use super::*;
    use crate::port::BridgePortSetup;

    const DAY: Duration = Duration::from_secs(86_400);

    fn bridge() -> (Forwarder, Vec<BridgePort<()>>) {
        let speed = LinkSpeed::G10;
        let ports = ["p1", "p2"]
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let mac = MacAddr([2, 0, 0, 0, 0x0f, i as u8]);
                BridgePort::new(BridgePortSetup::new(name, 1 << 3), (), mac, speed).expect("port")
            })
            .collect();
        let config = crate::pipeline_config(2, PauseMode::External, speed, 1522);
        let mut engine = Pipeline::new(config).expect("engine");
        engine.record_departures();
        let fwd = Forwarder {
            engine,
            fdb: crate::fdb::Fdb::new(crate::fdb::DEFAULT_AGEING),
            store: crate::store::FrameStore::default(),
            max_len: 1522,
            pending_mode: None,
            max_transit: Picos::from_ms(1_000),
            out: Vec::new(),
        };
        (fwd, ports)
    }

    /// Day by day for 600 days of an idle bridge: its time never reaches the end of the u64
    /// (213.5 days) and runs backwards only at a rebase, where everything holding a time is
    /// made anew; the counters go on.
    #[test]
    fn the_bridge_keeps_time_past_214_days_and_beyond() {
        let (mut fwd, mut ports) = bridge();
        ports[0].receiver.counters.pfc_indications = 7;
        let t0 = Instant::now();
        let mut epoch = Epoch { start: t0, start_unix: Duration::from_secs(1_700_000_000) };
        let mut rebases = 0;
        let mut last = Picos::ZERO;
        for day in 1..=600u32 {
            let wall = t0 + DAY * day;
            let now = epoch.at(wall);
            assert!(now < Picos::MAX, "day {day}: the time is not at its end");
            assert!(now > last, "day {day}: time moves on between rebases");
            if rebase_when_idle(&mut epoch, wall, now, &mut ports, &mut fwd) {
                rebases += 1;
                assert_eq!(epoch.at(wall), Picos::ZERO);
                assert_eq!(fwd.engine.now(), Picos::ZERO, "the engine starts again");
                let unix = Duration::from_secs(1_700_000_000) + DAY * day;
                assert_eq!(epoch.start_unix, unix, "the kernel's clock follows");
                last = Picos::ZERO;
            } else {
                last = now;
            }
        }
        assert_eq!(rebases, 6, "every 100 days");
        assert_eq!(ports[0].receiver.counters.pfc_indications, 7, "counters go on");
    }

    /// A port paused by its peer, or a frame in the bridge, holds the rebase off until it ends.
    #[test]
    fn no_rebase_while_a_pause_or_a_frame_holds_a_time() {
        let (mut fwd, mut ports) = bridge();
        let t0 = Instant::now();
        let mut epoch = Epoch { start: t0, start_unix: Duration::ZERO };
        let wall = t0 + DAY * 101;
        let now = epoch.at(wall);
        let pause = MacControl::Pfc(PfcFrame::pause(MacAddr([2, 0, 0, 0, 0, 9]), 1 << 3, 0xffff));
        ports[1].receiver.receive(now, &pause, Picos::ZERO);
        assert!(!rebase_when_idle(&mut epoch, wall, now, &mut ports, &mut fwd), "paused");
        let later = now + Picos::from_ms(100);
        let handle = fwd.store.put(&[0u8; 64], (0, 0, Picos::ZERO), 1);
        assert!(!rebase_when_idle(&mut epoch, wall, later, &mut ports, &mut fwd), "a frame");
        fwd.store.release(handle);
        assert!(rebase_when_idle(&mut epoch, wall, later, &mut ports, &mut fwd), "idle");
    }
}
