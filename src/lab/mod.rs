//! The embedded lab, pfcd's default: four simulated ports, each linked to an in-process peer
//! station by a simulated link ([`links::links`]), following one simulated clock that runs at
//! a fixed ratio of wall time so that the lab's CPU use stays bounded.

pub mod clock;
pub mod headroom;
pub mod link_lldp;
pub mod links;
pub mod pipeline;
pub mod port;
pub mod storm;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use dataplane::headroom::LocalDelays;
use dataplane::time::Picos;
use dataplane::wire::MacAddr;
use lldp::dcbx::{DcbxAdmin, PfcAdmin};
use lldp::port::LocalSystem;
use lldp::wire::{ChassisId, SystemCapabilities, TimeInterval};

use crate::ports::{event_channel, EventReceiver, PortHandle};
use crate::settings::LabSettings;
use clock::SimClock;
use link_lldp::PeerLldp;
use links::LabLink;
use port::SimPortSetup;

/// A port's simulated time may run at most this many ticks' worth ahead in one step, when it
/// has fallen behind the clock.
const CATCH_UP_TICKS: u64 = 4;

/// The running lab: its clock, its ports and what each port's link is.
#[derive(Debug)]
pub struct Lab {
    pub clock: SimClock,
    pub ports: Vec<PortHandle>,
    pub links: Vec<LabLink>,
    /// The bridge's transmit pipeline, paused as the ports' peers pause them.
    pub pipeline: pipeline::PipelineHandle,
    /// Each port's peer storm, as pfcd-lab's `peer-storms` asks.
    pub storms: Vec<Arc<storm::PeerStorm>>,
    /// Whether the peers send traffic (without, a storm holds no frames).
    pub traffic: bool,
    /// The ports' events, until the northbound side takes them.
    events: Mutex<Option<EventReceiver>>,
}

impl Lab {
    /// Starts every port's task.
    pub fn start(settings: &LabSettings) -> std::io::Result<Lab> {
        let clock = SimClock::start(settings.time_ratio);
        let tick = Duration::from_millis(settings.tick_ms);
        let mut ports = Vec::new();
        let (events, receiver) = event_channel::channel();
        let links = links::links(settings.ports);
        let storms: Vec<_> = links.iter().map(|_| Arc::new(storm::PeerStorm::default())).collect();
        for (i, link) in links.iter().enumerate() {
            let setup = SimPortSetup {
                name: link.name.to_string(),
                stations: link.stations(i as u64 + 1),
                receive_buffer_size: link.receive_buffer_size,
                catch_up: CATCH_UP_TICKS,
                mac: link.mac,
                system: system(),
                local_delay: link.local_delay(),
                peer: link.peer_lldp(),
                traffic: settings.traffic,
                storm: storms[i].clone(),
            };
            ports.push(port::spawn(setup, clock, tick, events.clone())?);
        }
        let published = ports.iter().map(PortHandle::published).collect();
        let config = pipeline::lab_config(ports.len(), &Default::default());
        let pipeline =
            pipeline::PipelineHandle::spawn(config, published, clock, tick, settings.traffic)?;
        Ok(Lab {
            clock,
            ports,
            links,
            pipeline,
            storms,
            traffic: settings.traffic,
            events: Mutex::new(Some(receiver)),
        })
    }

    /// The ports' events (once: there is one reader).
    pub fn take_events(&self) -> Option<EventReceiver> {
        self.events.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    /// Stops every port.
    pub fn stop(&self) {
        self.pipeline.stop();
        for p in &self.ports {
            p.stop();
        }
    }
}

/// pfcd's system as LLDP describes it: the bridge's address as chassis ID.
fn system() -> LocalSystem {
    LocalSystem {
        chassis_id: ChassisId::MacAddress(BRIDGE_ADDRESS),
        system_name: Some("pfcd".into()),
        system_description: Some(format!("pfcd {} lab bridge", env!("CARGO_PKG_VERSION"))),
        capabilities: BRIDGE_CAPABILITIES,
    }
}

/// What a bridge's ports advertise in System Capabilities: a MAC Bridge with a C-VLAN
/// component (802.1AB Table 8-4), supported and enabled.
pub const BRIDGE_CAPABILITIES: u16 =
    SystemCapabilities::MAC_BRIDGE | SystemCapabilities::C_VLAN_COMPONENT;

/// The bridge's address (`bridges/bridge/address`), the lab's chassis ID.
pub const BRIDGE_ADDRESS: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);

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
    /// The Delay a station on this link advertises in its PFC Local Delay TLV: Annex N's
    /// figures with the speed's interface delays (both ends run the same stack).
    pub fn local_delay(&self) -> TimeInterval {
        TimeInterval(
            LocalDelays::for_link(self.speed, self.medium.cable()).local_delay_tlv(self.speed),
        )
    }

    /// The peer station's LLDP/DCBX: willing or not, PFC on the lab's first-start priorities,
    /// both headroom methods supported, its Local Delay TLV sent.
    pub fn peer_lldp(&self) -> PeerLldp {
        let pfc = PfcAdmin {
            willing: self.peer_willing,
            pfc_enable: self.first_pfc_mask(),
            rtm_hdrm: true,
            ptp_hdrm: true,
            ..PfcAdmin::default()
        };
        PeerLldp {
            name: self.peer.to_string(),
            mac: self.peer_mac,
            dcbx: DcbxAdmin { pfc, local_delay: Some(self.local_delay()), ..DcbxAdmin::default() },
        }
    }

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

impl crate::ports::set::PortSet for Lab {
    fn ports(&self) -> &[PortHandle] {
        &self.ports
    }

    fn speed(&self, i: usize) -> dataplane::time::LinkSpeed {
        self.links.get(i).map_or(dataplane::time::LinkSpeed::G100, |l| l.speed)
    }

    fn described(&self) -> &'static str {
        "the lab's ports"
    }

    /// The simulated pipeline puts priority n in traffic class n.
    fn applies_traffic_classes(&self) -> bool {
        false
    }

    /// Each simulated port runs the watchdog on its link, in simulated time.
    fn runs_watchdog(&self) -> bool {
        true
    }

    fn pipeline(&self) -> std::sync::Arc<dataplane::pipeline::PipelineSnapshot> {
        self.pipeline.snapshot()
    }

    fn pipeline_config(
        &self,
        base: &dataplane::pipeline::PipelineConfig,
    ) -> dataplane::pipeline::PipelineConfig {
        pipeline::lab_config(self.ports.len(), base)
    }

    fn reconfigure_pipeline(&self, config: dataplane::pipeline::PipelineConfig) {
        self.pipeline.reconfigure(config);
    }

    fn up_time_secs(&self) -> u64 {
        self.clock.elapsed().as_secs()
    }

    fn take_events(&self) -> Option<EventReceiver> {
        Lab::take_events(self)
    }

    fn stop(&self) {
        Lab::stop(self)
    }

    /// A port's thread, or the pipeline's, died.
    fn failure(&self) -> Option<String> {
        crate::ports::set::port_failure(&self.ports).or_else(|| self.pipeline.failure())
    }
}
