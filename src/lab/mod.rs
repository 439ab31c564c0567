//! The embedded lab, pfcd's default: four simulated ports, each linked to an in-process peer
//! station by a simulated link ([`links::LINKS`]), following one simulated clock that runs at
//! a fixed ratio of wall time so that the lab's CPU use stays bounded.

pub mod links;

use std::sync::{mpsc, Mutex, PoisonError};
use std::time::Duration;

use dataplane::time::Picos;

use crate::ports::{PortEvent, PortHandle, SimClock, SimPortSetup};
use crate::settings::LabSettings;
use links::LabLink;

/// A port's simulated time may run at most this many ticks' worth ahead in one step, when it
/// has fallen behind the clock.
const CATCH_UP_TICKS: u64 = 4;

/// The running lab: its clock, its ports and what each port's link is.
#[derive(Debug)]
pub struct Lab {
    pub clock: SimClock,
    pub ports: Vec<PortHandle>,
    pub links: Vec<LabLink>,
    /// The ports' events, until the northbound side takes them.
    events: Mutex<Option<mpsc::Receiver<PortEvent>>>,
}

impl Lab {
    /// Starts every port's task.
    pub fn start(settings: &LabSettings) -> std::io::Result<Lab> {
        let clock = SimClock::start(settings.time_ratio);
        let tick = Duration::from_millis(settings.tick_ms);
        let mut ports = Vec::new();
        let (events, receiver) = mpsc::channel();
        for (i, link) in links::LINKS.iter().enumerate() {
            let setup = SimPortSetup {
                name: link.name.to_string(),
                stations: link.stations(i as u64 + 1),
                receive_buffer_size: link.receive_buffer_size,
                catch_up: CATCH_UP_TICKS,
            };
            ports.push(PortHandle::spawn(setup, clock, tick, events.clone())?);
        }
        Ok(Lab { clock, ports, links: links::LINKS.to_vec(), events: Mutex::new(Some(receiver)) })
    }

    /// The ports' events (once: there is one reader).
    pub fn take_events(&self) -> Option<mpsc::Receiver<PortEvent>> {
        self.events.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    /// Stops every port.
    pub fn stop(&self) {
        for p in &self.ports {
            p.stop();
        }
    }
}

/// The truth about a link that a user checks the port's headroom against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkTruth {
    pub one_way: Picos,
    pub round_trip: Picos,
    pub round_trip_quanta: u64,
    /// Round trip in bit times plus two maximum frames in progress.
    pub headroom_bits: u64,
}

impl LabLink {
    pub fn truth(&self) -> LinkTruth {
        let s = self.stations(0);
        let round_trip = s.round_trip();
        let frame =
            dataplane::headroom::frame_bits(s.max_frame_octets() + dataplane::time::FCS_OCTETS);
        let bits = dataplane::headroom::picos_to_bits(round_trip, self.speed) + 2 * frame;
        LinkTruth {
            one_way: s.one_way(),
            round_trip,
            round_trip_quanta: self.speed.quanta_in_ceil(round_trip),
            headroom_bits: u64::try_from(bits).unwrap_or(u64::MAX),
        }
    }
}
