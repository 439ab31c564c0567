//! One port running LLDP with DCBX: the [`Agent`] that exchanges LLDPDUs and the DCBX
//! negotiation that reads its neighbour table. This is what the `pfc-lldp` binary, the daemon
//! and simulations drive; like the agent it is pure (time in, frames and events out).

use std::time::Duration;

use pfc_wire::MacAddr;

use crate::agent::{Agent, AgentConfig, AgentEvent, ConfigError, LocalInfo, Output};
use crate::dcbx::{self, DcbxAdmin, DcbxEvent, DcbxState};
use crate::wire::{
    self, ChassisId, Lldpdu, PortDescription, PortId, SystemCapabilities, SystemDescription,
    SystemName, Tlv,
};

/// Who we are, the same on every port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalSystem {
    pub chassis_id: ChassisId,
    pub system_name: Option<String>,
    pub system_description: Option<String>,
    /// The System Capabilities TLV's map, supported and enabled alike (e.g.
    /// `SystemCapabilities::STATION_ONLY` for a host agent, `MAC_BRIDGE | C_VLAN_COMPONENT`
    /// for a bridge's ports).
    pub capabilities: u16,
}

/// A port's settings: LLDP and DCBX.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PortSettings {
    pub lldp: AgentConfig,
    pub dcbx: DcbxAdmin,
}

/// Settings that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PortError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("the LLDPDU cannot be encoded: {0}")]
    Encode(#[from] wire::Error),
}

/// What one call asks the edge to do and report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PortOutput {
    /// Whole Ethernet frames to send, in order.
    pub frames: Vec<Vec<u8>>,
    pub agent_events: Vec<AgentEvent>,
    pub dcbx_events: Vec<DcbxEvent>,
}

impl PortOutput {
    /// True when state worth showing changed (neighbours, counters of discards, DCBX).
    pub fn changed(&self) -> bool {
        !self.agent_events.is_empty() || !self.dcbx_events.is_empty()
    }
}

/// One port: LLDP agent and DCBX.
#[derive(Debug, Clone)]
pub struct DcbxPort {
    name: String,
    system: LocalSystem,
    agent: Agent,
    admin: DcbxAdmin,
    state: DcbxState,
}

impl DcbxPort {
    /// A port named `name` (sent as its Port ID, interface name subtype, and Port Description),
    /// down until [`DcbxPort::set_port_enabled`].
    pub fn new(
        name: &str,
        port_mac: MacAddr,
        system: LocalSystem,
        settings: PortSettings,
    ) -> Result<Self, PortError> {
        settings.lldp.validate()?;
        let local = local_info(name, &system, &settings.dcbx);
        let agent = Agent::new(settings.lldp, port_mac, local)?;
        let state = dcbx::negotiate(&settings.dcbx, port_mac, agent.neighbours());
        Ok(DcbxPort { name: name.to_string(), system, agent, admin: settings.dcbx, state })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn agent(&self) -> &Agent {
        &self.agent
    }

    pub fn admin(&self) -> &DcbxAdmin {
        &self.admin
    }

    pub fn state(&self) -> &DcbxState {
        &self.state
    }

    pub fn next_deadline(&self) -> Option<Duration> {
        self.agent.next_deadline()
    }

    pub fn set_port_enabled(&mut self, enabled: bool, now: Duration) -> PortOutput {
        let out = self.agent.set_port_enabled(enabled, now);
        self.finish(out)
    }

    /// New settings: LLDP changes apply as [`Agent::set_config`] says; a DCBX change is a local
    /// change, advertised at once with a fast burst, and renegotiated.
    pub fn set_settings(
        &mut self,
        settings: PortSettings,
        now: Duration,
    ) -> Result<PortOutput, PortError> {
        settings.lldp.validate()?;
        let local = local_info(&self.name, &self.system, &settings.dcbx);
        // Refuse what cannot be encoded before changing anything.
        Lldpdu {
            chassis_id: local.chassis_id.clone(),
            port_id: local.port_id.clone(),
            ttl: 0,
            tlvs: local.tlvs.clone(),
        }
        .to_vec()?;
        let mut out = Output::default();
        if *self.agent.config() != settings.lldp {
            // First, so that a transmitter being disabled sends its shutdown LLDPDU and no
            // burst of new information before it.
            out = self.agent.set_config(settings.lldp, now);
        }
        out.extend(self.agent.set_local(local, now)?);
        self.admin = settings.dcbx;
        let mut port_out = self.finish(out);
        port_out.dcbx_events.extend(self.renegotiate());
        Ok(port_out)
    }

    /// The interface's MAC address changed: the new one is sent, and DCBX tie-breaks with it.
    pub fn set_port_mac(&mut self, mac: MacAddr, now: Duration) -> PortOutput {
        let out = self.agent.set_port_mac(mac, now);
        let mut port_out = self.finish(out);
        port_out.dcbx_events.extend(self.renegotiate());
        port_out
    }

    /// A new system identity (chassis ID, system name or description): a local change,
    /// advertised at once.
    pub fn set_system(
        &mut self,
        system: LocalSystem,
        now: Duration,
    ) -> Result<PortOutput, PortError> {
        let local = local_info(&self.name, &system, &self.admin);
        let out = self.agent.set_local(local, now)?;
        self.system = system;
        Ok(self.finish(out))
    }

    pub fn receive(&mut self, frame: &[u8], now: Duration) -> PortOutput {
        let out = self.agent.receive(frame, now);
        self.finish(out)
    }

    pub fn poll(&mut self, now: Duration) -> PortOutput {
        let out = self.agent.poll(now);
        self.finish(out)
    }

    fn finish(&mut self, out: Output) -> PortOutput {
        let dcbx_events = if out.neighbours_changed() { self.renegotiate() } else { Vec::new() };
        PortOutput { frames: out.frames, agent_events: out.events, dcbx_events }
    }

    fn renegotiate(&mut self) -> Vec<DcbxEvent> {
        let new = dcbx::negotiate(&self.admin, self.agent.port_mac(), self.agent.neighbours());
        let events = dcbx::changes(&self.state, &new);
        self.state = new;
        events
    }
}

/// Our LLDPDU's content: Port Description, System Name and Description, System Capabilities,
/// then the DCBX TLVs.
fn local_info(name: &str, system: &LocalSystem, dcbx: &DcbxAdmin) -> LocalInfo {
    let mut tlvs = vec![Tlv::PortDescription(PortDescription::from(name))];
    if let Some(n) = &system.system_name {
        tlvs.push(Tlv::SystemName(SystemName::from(n.as_str())));
    }
    if let Some(d) = &system.system_description {
        tlvs.push(Tlv::SystemDescription(SystemDescription::from(d.as_str())));
    }
    tlvs.push(Tlv::SystemCapabilities(SystemCapabilities {
        capabilities: system.capabilities,
        enabled: system.capabilities,
    }));
    tlvs.extend(dcbx.tlvs());
    LocalInfo {
        chassis_id: system.chassis_id.clone(),
        port_id: PortId::InterfaceName(name.into()),
        tlvs,
    }
}
