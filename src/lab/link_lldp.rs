//! LLDP and DCBX on a simulated link: our port's agent and the peer station's, both the pure
//! `lldp::port::DcbxPort` that `pfc-lldp` runs on real interfaces, exchanging LLDPDUs over
//! the link. LLDP runs on wall time (its timers are seconds: simulated time at the lab's ratio
//! would stretch a 30 s interval to hours); the link's microseconds of delay are far below its
//! resolution, so an LLDPDU arrives in the step that sent it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use dataplane::wire::MacAddr;
use lldp::agent::{AdminStatus, AgentConfig};
use lldp::dcbx::DcbxAdmin;
use lldp::port::{DcbxPort, LocalSystem, PortOutput, PortSettings};
use lldp::wire::TimeInterval;
use tracing::warn;

use crate::ports::intent::PortIntent;
use crate::ports::lldp_view::{dcbx_admin, LldpView, Step};

/// Most LLDPDUs passed back and forth in one step: two agents answer each other at most once
/// per change, so this only bounds a bug.
const MAX_EXCHANGES: usize = 16;

/// The peer station's side: who it is and what it advertises.
#[derive(Debug, Clone)]
pub struct PeerLldp {
    pub name: String,
    pub mac: MacAddr,
    pub dcbx: DcbxAdmin,
}

/// Both ends' LLDP on one link.
pub struct LinkLldp {
    ours: DcbxPort,
    peer: DcbxPort,
    /// Our agent runs (the port has an LLDP entry).
    enabled: bool,
    /// The link is up for our agent (from the first configuration on).
    link_up: bool,
    start: Instant,
    /// Our Local Delay TLV's value (from the port's speed and medium).
    local_delay: TimeInterval,
}

impl LinkLldp {
    /// Both agents, ours configured by `intent` (down until [`LinkLldp::apply`] enables it),
    /// the peer's up at once.
    pub fn new(
        name: &str,
        our_mac: MacAddr,
        system: LocalSystem,
        local_delay: TimeInterval,
        peer: &PeerLldp,
    ) -> Result<Self, lldp::port::PortError> {
        let ours = DcbxPort::new(name, our_mac, system, PortSettings::default())?;
        let peer_system = LocalSystem {
            chassis_id: lldp::wire::ChassisId::MacAddress(peer.mac),
            system_name: Some(peer.name.clone()),
            system_description: Some("pfcd lab peer station".into()),
            capabilities: lldp::wire::SystemCapabilities::STATION_ONLY,
        };
        let settings = PortSettings { lldp: Default::default(), dcbx: peer.dcbx.clone() };
        let mut peer = DcbxPort::new("eth0", peer.mac, peer_system, settings)?;
        let start = Instant::now();
        let _ = peer.set_port_enabled(true, Duration::ZERO);
        Ok(LinkLldp { ours, peer, enabled: false, link_up: false, start, local_delay })
    }

    fn now(&self) -> Duration {
        self.start.elapsed()
    }

    /// Our port's new LLDP and DCBX settings. A port without an LLDP entry runs its agent
    /// with adminStatus disabled: one that ran sends its shutdown LLDPDU, so that the peer
    /// forgets us at once. The link itself stays up.
    pub fn apply(&mut self, intent: &PortIntent) -> Step {
        let now = self.now();
        let mut step = Step::default();
        let enabled = intent.lldp.is_some();
        let off = AgentConfig { admin_status: AdminStatus::Disabled, ..AgentConfig::default() };
        let settings = PortSettings {
            lldp: intent.lldp.clone().unwrap_or(off),
            dcbx: dcbx_admin(intent, self.local_delay),
        };
        match self.ours.set_settings(settings, now) {
            Ok(out) => self.deliver(out, &mut step, now),
            // prepare checked the settings with the same rules: not reached.
            Err(e) => warn!(error = %e, "LLDP settings refused by the agent; the previous stay"),
        }
        if !self.link_up {
            let out = self.ours.set_port_enabled(true, now);
            self.deliver(out, &mut step, now);
            self.link_up = true;
        }
        self.enabled = enabled;
        step.changed = true;
        step
    }

    /// Our agent stops: a running one sends its shutdown LLDPDU (TTL 0), so that the peer
    /// forgets us at once rather than after the TTL. Returns whether one was sent.
    pub fn shutdown(&mut self) -> bool {
        if !self.enabled {
            return false;
        }
        let now = self.now();
        // adminStatus disabled, not the port down: a port that goes down cannot send.
        let mut off = PortSettings {
            lldp: self.ours.agent().config().clone(),
            dcbx: self.ours.admin().clone(),
        };
        off.lldp.admin_status = AdminStatus::Disabled;
        let Ok(out) = self.ours.set_settings(off, now) else { return false };
        let sent = !out.frames.is_empty();
        let mut step = Step::default();
        self.deliver(out, &mut step, now);
        self.enabled = false;
        sent
    }

    /// How long until either agent's next deadline (at most a minute).
    pub fn next_wait(&self) -> Duration {
        let now = self.now();
        [self.ours.next_deadline(), self.peer.next_deadline()]
            .into_iter()
            .flatten()
            .map(|d| d.saturating_sub(now))
            .min()
            .unwrap_or(Duration::from_secs(60))
            .clamp(Duration::from_millis(1), Duration::from_secs(60))
    }

    /// Runs both agents' timers.
    pub fn poll(&mut self) -> Step {
        let now = self.now();
        let mut step = Step::default();
        let peer_out = self.peer.poll(now);
        self.receive_from_peer(peer_out.frames, &mut step, now);
        let out = self.ours.poll(now);
        self.deliver(out, &mut step, now);
        step
    }

    /// Takes our agent's output: its events, and its frames to the peer (whose answers come
    /// back to us, and so on).
    fn deliver(&mut self, out: PortOutput, step: &mut Step, now: Duration) {
        let mut frames = self.take(out, step);
        for _ in 0..MAX_EXCHANGES {
            if frames.is_empty() {
                return;
            }
            let mut back = Vec::new();
            for f in frames {
                back.extend(self.peer.receive(&f, now).frames);
            }
            frames = Vec::new();
            for f in back {
                let out = self.ours.receive(&f, now);
                frames.extend(self.take(out, step));
            }
        }
    }

    /// Frames from the peer to our agent.
    fn receive_from_peer(&mut self, frames: Vec<Vec<u8>>, step: &mut Step, now: Duration) {
        for f in frames {
            let out = self.ours.receive(&f, now);
            let more = self.take(out, step);
            for m in more {
                let _ = self.peer.receive(&m, now);
            }
        }
    }

    fn take(&self, out: PortOutput, step: &mut Step) -> Vec<Vec<u8>> {
        step.changed |= !out.frames.is_empty() || out.changed();
        step.agent_events.extend(out.agent_events);
        step.dcbx_events.extend(out.dcbx_events);
        out.frames
    }

    /// Our operational PFC Enable: DCBX's when our agent runs, else the configuration's.
    pub fn oper_pfc_enable(&self, configured: u8) -> u8 {
        if self.enabled {
            self.ours.state().pfc.pfc_enable
        } else {
            configured
        }
    }

    /// The peer's operational PFC Enable.
    pub fn peer_oper_pfc_enable(&self) -> u8 {
        self.peer.state().pfc.pfc_enable
    }

    /// The headroom methods both ends agreed (none without our agent).
    pub fn agreed_headroom(&self) -> lldp::dcbx::HeadroomMethods {
        if self.enabled {
            self.ours.state().pfc.headroom
        } else {
            Default::default()
        }
    }

    /// Our port's remote-table counters.
    pub fn remote_statistics(&self) -> lldp::agent::RemoteStatistics {
        self.ours.agent().statistics().remote
    }

    pub fn view(&self) -> Arc<LldpView> {
        Arc::new(LldpView {
            ours: self.ours.clone(),
            peer_oper: self.peer.state().pfc.clone(),
            peer_admin: self.peer.admin().pfc.clone(),
            enabled: self.enabled,
            now: self.now(),
            taken: std::time::Instant::now(),
        })
    }
}
