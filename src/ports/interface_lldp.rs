//! LLDP and DCBX on a real interface: our port's `lldp::port::DcbxPort` (the agent `pfc-lldp`
//! runs) over an `AF_PACKET` socket for LLDPDUs, the link's state from the interface. The
//! peer is whatever station is on the wire; what it advertises is in our agent's neighbours.

use std::sync::Arc;
use std::time::{Duration, Instant};

use dataplane::io::{FollowedLink, FramePort, PacketSocket, Seen};
use dataplane::wire::{EtherType, MacAddr};
use lldp::agent::{AdminStatus, AgentConfig};
use lldp::dcbx::{PfcAdmin, PfcOper, PfcReason};
use lldp::port::{DcbxPort, LocalSystem, PortOutput, PortSettings};
use lldp::wire::{TimeInterval, NEAREST_BRIDGE};
use pfc_logging::link;
use tracing::{info, warn};

use crate::ports::intent::PortIntent;
use crate::ports::lldp_view::{dcbx_admin, LldpView, Step};

/// LLDPDUs read per poll (a bound, so a flood cannot hold the port's thread).
const RX_BURST: usize = 64;

/// Our agent on one interface.
pub struct RealLldp {
    ours: DcbxPort,
    socket: PacketSocket,
    enabled: bool,
    start: Instant,
    buf: Vec<u8>,
    /// The interface the socket is on, followed.
    link: FollowedLink,
}

impl RealLldp {
    /// Our agent on `name`, down until [`RealLldp::apply`] configures it.
    pub fn open(name: &str, system: LocalSystem) -> Result<Self, String> {
        let link = FollowedLink::new(Seen::probe(name));
        let socket = PacketSocket::open(name, EtherType::LLDP, &[NEAREST_BRIDGE])
            .map_err(|e| e.to_string())?;
        let ours = DcbxPort::new(name, socket.mac(), system, PortSettings::default())
            .map_err(|e| e.to_string())?;
        Ok(RealLldp {
            ours,
            socket,
            enabled: false,
            start: Instant::now(),
            buf: vec![0; 65_536],
            link,
        })
    }

    fn now(&self) -> Duration {
        self.start.elapsed()
    }

    /// The port's MAC address.
    pub fn mac(&self) -> MacAddr {
        self.socket.mac()
    }

    /// New LLDP and DCBX settings, `local_delay` the Delay our PFC Local Delay TLV advertises;
    /// without an LLDP entry the agent runs with adminStatus disabled (one that ran sends its
    /// shutdown LLDPDU).
    pub fn apply(&mut self, intent: &PortIntent, local_delay: TimeInterval) -> Step {
        let now = self.now();
        let mut step = Step::default();
        let off = AgentConfig { admin_status: AdminStatus::Disabled, ..AgentConfig::default() };
        let settings = PortSettings {
            lldp: intent.lldp.clone().unwrap_or(off),
            dcbx: dcbx_admin(intent, local_delay),
        };
        match self.ours.set_settings(settings, now) {
            Ok(out) => self.send(out, &mut step),
            Err(e) => warn!(error = %e, "LLDP settings refused by the agent; the previous stay"),
        }
        self.enabled = intent.lldp.is_some();
        step.changed = true;
        step
    }

    /// Link state, received LLDPDUs and timers.
    pub fn poll(&mut self) -> Step {
        let mut step = Step::default();
        self.follow_link(&mut step);
        let up = self.link.is_up();
        if up != self.ours.agent().port_enabled() {
            let out = self.ours.set_port_enabled(up, self.now());
            self.send(out, &mut step);
        }
        for _ in 0..RX_BURST {
            let n = match self.socket.recv(&mut self.buf) {
                Ok(Some(n)) => n,
                Ok(None) => break,
                Err(e) => {
                    warn!(error = %e, "LLDP receive failed");
                    break;
                }
            };
            let now = self.now();
            let out = self.ours.receive(&self.buf[..n], now);
            // Every LLDPDU moves the receive counters (rx-statistics), a refresh that changes
            // nothing else too: the view is renewed at most once a poll, however many came.
            step.changed = true;
            self.send(out, &mut step);
        }
        let out = self.ours.poll(self.now());
        self.send(out, &mut step);
        // The summaries of log lines a flood had suppressed, once their window is over.
        pfc_logging::limit::flush();
        step
    }

    /// An interface deleted and created again under its name has a new index, which the socket
    /// is not bound to (it would never receive or send again), and maybe a new address; one
    /// given another address keeps its index. Either way a new socket, and the agent takes the
    /// address (the source of its LLDPDUs, what DCBX tie-breaks with; sent at once), as
    /// `pfc-lldp` does. The bridge port follows the interface on its own (`pfc_bridge::links`).
    fn follow_link(&mut self, step: &mut Step) {
        let name = self.ours.name().to_string();
        let look = self.link.look(Seen::probe(&name));
        let renewed = look.reopen.or(look.readdressed.map(|mac| (self.socket.ifindex(), mac)));
        if let Some((ifindex, mac)) = renewed {
            match PacketSocket::open(&name, EtherType::LLDP, &[NEAREST_BRIDGE]) {
                Ok(socket) => {
                    info!(socket = "LLDP", ifindex, %mac, "{}", link::REOPENED);
                    self.link.reopened(socket.ifindex(), socket.mac());
                    self.socket = socket;
                    let out = self.ours.set_port_mac(self.socket.mac(), self.now());
                    self.send(out, step);
                }
                Err(e) => {
                    if self.link.reopen_failed() {
                        warn!(socket = "LLDP", error = %e, "{}", link::REOPEN_FAILED);
                    }
                }
            }
        }
        // Settles the link's state after a reopen: `is_up` reads it.
        let _ = self.link.link();
    }

    /// adminStatus disabled: a shutdown LLDPDU (TTL 0) so that the peer forgets us at once.
    /// Returns whether one was sent.
    pub fn shutdown(&mut self) -> bool {
        if !self.enabled {
            return false;
        }
        let mut off = PortSettings {
            lldp: self.ours.agent().config().clone(),
            dcbx: self.ours.admin().clone(),
        };
        off.lldp.admin_status = AdminStatus::Disabled;
        let Ok(out) = self.ours.set_settings(off, self.now()) else { return false };
        let sent = !out.frames.is_empty();
        self.send(out, &mut Step::default());
        self.enabled = false;
        sent
    }

    fn send(&mut self, out: PortOutput, step: &mut Step) {
        step.changed |= !out.frames.is_empty() || out.changed();
        step.agent_events.extend(out.agent_events);
        step.dcbx_events.extend(out.dcbx_events);
        for frame in &out.frames {
            if let Err(e) = self.socket.send(frame) {
                warn!(error = %e, "LLDPDU not sent");
            }
        }
    }

    /// Operational PFC Enable: DCBX's when our agent runs, else the configuration's.
    pub fn oper_pfc_enable(&self, configured: u8) -> u8 {
        if self.enabled {
            self.ours.state().pfc.pfc_enable
        } else {
            configured
        }
    }

    pub fn remote_statistics(&self) -> lldp::agent::RemoteStatistics {
        self.ours.agent().statistics().remote
    }

    /// The view the northbound side reads. The peer's own outcome is not known here (it is
    /// another station's): only what it advertises, in our neighbours.
    pub fn view(&self) -> Arc<LldpView> {
        Arc::new(LldpView {
            ours: self.ours.clone(),
            peer_oper: PfcOper::local_only(&PfcAdmin::default(), PfcReason::NoPeer),
            peer_admin: PfcAdmin::default(),
            enabled: self.enabled,
            now: self.now(),
            taken: std::time::Instant::now(),
        })
    }
}
