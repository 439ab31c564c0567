//! The edge: sockets, the clock, signals and logs around the pure `lldp` ports.
//!
//! One thread, one `poll(2)` over every port's socket, a netlink link watcher and a signalfd;
//! the timeout is the earliest deadline any agent asked for, so an idle agent sleeps until its
//! next LLDPDU is due. SIGHUP re-reads the settings file, SIGUSR1 prints the state on stdout,
//! SIGTERM and SIGINT send shutdown LLDPDUs on every port and exit. The state file, when asked
//! for, is rewritten (atomically, by rename) after every change.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use dataplane::io::link::{identity, is_up, LinkWatcher};
use dataplane::io::{FramePort, IoError, PacketSocket};
use dataplane::wire::{EtherType, MacAddr};
use lldp::agent::{AdminStatus, AgentEvent};
use lldp::dcbx::DcbxEvent;
use lldp::neighbours::NeighbourEvent;
use lldp::port::{DcbxPort, LocalSystem, PortError, PortOutput, PortSettings};
use lldp::wire::ChassisId;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::{SigSet, Signal};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use tracing::{debug, info, warn};

use super::config::{self, ConfigError, Loaded, Overrides};
use super::state;

/// Why the tool stopped.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Io(#[from] IoError),
    #[error("port {port}: {source}")]
    Port { port: String, source: PortError },
    #[error("{op}: {source}")]
    Os { op: &'static str, source: nix::errno::Errno },
    #[error("cannot write the state file {path}: {source}")]
    StateFile { path: String, source: std::io::Error },
}

pub struct Options {
    pub config: Option<PathBuf>,
    pub overrides: Overrides,
    pub state_file: Option<PathBuf>,
}

struct Port {
    socket: PacketSocket,
    port: DcbxPort,
}

/// Receive buffer: the largest frame a packet socket can hand over, so that an LLDPDU on a
/// jumbo link is never cut short (recvfrom drops what does not fit, silently).
const RX_BUFFER: usize = 65_536;

struct Agents {
    ports: Vec<Port>,
    rx_buffer: Vec<u8>,
    /// Ports whose interface does not exist (yet): opened when it appears.
    missing: Vec<(String, PortSettings)>,
    /// The system's settings, for the first port opened, which may come late.
    system_settings: (Option<MacAddr>, Option<String>, Option<String>),
    system: Option<LocalSystem>,
    start: Instant,
    state_file: Option<PathBuf>,
    dirty: bool,
}

pub fn run(opts: Options) -> Result<(), RunError> {
    let loaded = config::load(opts.config.as_deref(), &opts.overrides)?;
    let mut mask = SigSet::empty();
    for s in [Signal::SIGHUP, Signal::SIGUSR1, Signal::SIGTERM, Signal::SIGINT] {
        mask.add(s);
    }
    mask.thread_block().map_err(|source| RunError::Os { op: "block signals", source })?;
    let signals = SignalFd::with_flags(&mask, SfdFlags::SFD_NONBLOCK | SfdFlags::SFD_CLOEXEC)
        .map_err(|source| RunError::Os { op: "signalfd", source })?;
    let links = LinkWatcher::new()?;
    let mut agents = Agents {
        ports: Vec::new(),
        rx_buffer: vec![0; RX_BUFFER],
        missing: Vec::new(),
        system_settings: (None, None, None),
        system: None,
        start: Instant::now(),
        state_file: opts.state_file,
        dirty: true,
    };
    agents.apply(loaded)?;
    agents.check_links();
    agents.write_state()?;
    loop {
        let now = agents.now();
        let timeout = agents.next_deadline().map_or(PollTimeout::NONE, |t| {
            let wait = t.saturating_sub(now);
            // Round up to whole milliseconds so a deadline is never polled for before it.
            let ms = wait.as_micros().div_ceil(1000);
            PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX)
        });
        let (links_ready, signals_ready, ready) = {
            let mut fds = vec![
                PollFd::new(std::os::fd::AsFd::as_fd(&links), PollFlags::POLLIN),
                PollFd::new(std::os::fd::AsFd::as_fd(&signals), PollFlags::POLLIN),
            ];
            fds.extend(
                agents
                    .ports
                    .iter()
                    .map(|p| PollFd::new(std::os::fd::AsFd::as_fd(&p.socket), PollFlags::POLLIN)),
            );
            match poll(&mut fds, timeout) {
                Ok(_) | Err(nix::errno::Errno::EINTR) => {}
                Err(source) => return Err(RunError::Os { op: "poll", source }),
            }
            let hit = |f: &PollFd| f.revents().is_some_and(|r| !r.is_empty());
            let ready: Vec<usize> =
                fds.iter().skip(2).enumerate().filter(|(_, f)| hit(f)).map(|(i, _)| i).collect();
            (hit(&fds[0]), hit(&fds[1]), ready)
        };
        if links_ready && links.drain() {
            agents.check_links();
        }
        for i in ready {
            agents.receive(i);
        }
        if signals_ready {
            while let Ok(Some(info)) = signals.read_signal() {
                match Signal::try_from(info.ssi_signo as i32) {
                    Ok(Signal::SIGHUP) => agents.reload(opts.config.as_deref(), &opts.overrides),
                    Ok(Signal::SIGUSR1) => println!("{}", agents.state_json()),
                    Ok(Signal::SIGTERM | Signal::SIGINT) => {
                        agents.shutdown();
                        agents.write_state()?;
                        return Ok(());
                    }
                    _ => {}
                }
            }
        }
        agents.poll_timers();
        agents.write_state()?;
    }
}

impl Agents {
    fn now(&self) -> Duration {
        self.start.elapsed()
    }

    fn next_deadline(&self) -> Option<Duration> {
        self.ports.iter().filter_map(|p| p.port.next_deadline()).min()
    }

    /// Brings the ports to `loaded`: new ones opened, changed ones updated, missing ones shut.
    fn apply(&mut self, loaded: Loaded) -> Result<(), RunError> {
        let now = self.now();
        self.ports.retain_mut(|p| {
            if loaded.ports.iter().any(|(n, _)| n == p.port.name()) {
                return true;
            }
            info!(port = p.port.name(), "port removed from the settings: shutting LLDP down on it");
            let mut off = PortSettings {
                lldp: p.port.agent().config().clone(),
                dcbx: p.port.admin().clone(),
            };
            off.lldp.admin_status = AdminStatus::Disabled;
            if let Ok(out) = p.port.set_settings(off, now) {
                send(&mut p.socket, p.port.name(), &out);
            }
            false
        });
        self.missing.retain(|(n, _)| loaded.ports.iter().any(|(m, _)| m == n));
        self.system_settings =
            (loaded.chassis_id, loaded.system_name.clone(), loaded.system_description.clone());
        self.apply_system(now)?;
        for (name, settings) in loaded.ports.clone() {
            if let Some(p) = self.ports.iter_mut().find(|p| p.port.name() == name) {
                let out = p
                    .port
                    .set_settings(settings, now)
                    .map_err(|source| RunError::Port { port: name.clone(), source })?;
                info!(port = %name, "settings applied");
                Self::handle(p, out, &mut self.dirty);
                continue;
            }
            self.missing.retain(|(n, _)| *n != name);
            self.open(name, settings)?;
        }
        self.dirty = true;
        Ok(())
    }

    /// Gives every open port the system the settings now describe (a SIGHUP that changed the
    /// chassis ID, system name or description); an unset chassis ID keeps the one in use.
    fn apply_system(&mut self, now: Duration) -> Result<(), RunError> {
        let Some(current) = &self.system else { return Ok(()) };
        let (chassis_id, system_name, system_description) = &self.system_settings;
        let wanted = LocalSystem {
            chassis_id: chassis_id.map_or(current.chassis_id.clone(), ChassisId::MacAddress),
            system_name: Some(system_name.clone().unwrap_or_else(hostname)),
            system_description: Some(
                system_description.clone().unwrap_or_else(default_description),
            ),
        };
        if wanted == *current {
            return Ok(());
        }
        info!(system = ?wanted, "system identity changed");
        for p in &mut self.ports {
            let out = p
                .port
                .set_system(wanted.clone(), now)
                .map_err(|source| RunError::Port { port: p.port.name().to_string(), source })?;
            Self::handle(p, out, &mut self.dirty);
        }
        self.system = Some(wanted);
        Ok(())
    }

    /// Opens a port; an interface that does not exist is logged and waits in `missing`, so
    /// that it stops neither the other ports nor the agent.
    fn open(&mut self, name: String, settings: PortSettings) -> Result<(), RunError> {
        let socket =
            match PacketSocket::open(&name, EtherType::LLDP, &[settings.lldp.dest_mac_address]) {
                Ok(s) => s,
                Err(e @ IoError::NoSuchInterface(_)) => {
                    warn!(port = %name, error = %e, "port not opened: waiting for the interface");
                    self.missing.push((name, settings));
                    return Ok(());
                }
                Err(e) => return Err(e.into()),
            };
        let (chassis_id, system_name, system_description) = &self.system_settings;
        let system = self.system.get_or_insert_with(|| LocalSystem {
            chassis_id: ChassisId::MacAddress(chassis_id.unwrap_or(socket.mac())),
            system_name: Some(system_name.clone().unwrap_or_else(hostname)),
            system_description: Some(
                system_description.clone().unwrap_or_else(default_description),
            ),
        });
        let port = DcbxPort::new(&name, socket.mac(), system.clone(), settings)
            .map_err(|source| RunError::Port { port: name.clone(), source })?;
        info!(port = %name, mac = %socket.mac(), ifindex = socket.ifindex(), "port opened");
        self.ports.push(Port { socket, port });
        self.dirty = true;
        Ok(())
    }

    /// Opens the ports whose interface has appeared since.
    fn open_missing(&mut self) {
        for (name, settings) in std::mem::take(&mut self.missing) {
            if let Err(e) = self.open(name.clone(), settings) {
                warn!(port = %name, error = %e, "port not opened");
            }
        }
    }

    /// A port's interface deleted and created again has a new index, which the old socket
    /// is not bound to; its MAC address may have changed too. Either way: a new socket, and
    /// the agent told of the address.
    fn reopen_if_changed(p: &mut Port, now: Duration, dirty: &mut bool) {
        let name = p.port.name();
        let Some((ifindex, mac)) = identity(name) else { return };
        if ifindex == p.socket.ifindex() && mac == p.socket.mac() {
            return;
        }
        let groups = [p.port.agent().config().dest_mac_address];
        match PacketSocket::open(name, EtherType::LLDP, &groups) {
            Ok(socket) => {
                info!(port = name, ifindex, mac = %mac, "interface re-created or re-addressed: socket reopened");
                p.socket = socket;
                let out = p.port.set_port_mac(p.socket.mac(), now);
                *dirty = true;
                Self::handle(p, out, dirty);
            }
            Err(e) => warn!(port = name, error = %e, "cannot reopen the port"),
        }
    }

    fn reload(&mut self, path: Option<&Path>, overrides: &Overrides) {
        info!("SIGHUP: reloading the settings");
        match config::load(path, overrides) {
            Ok(loaded) => {
                if let Err(e) = self.apply(loaded) {
                    warn!(error = %e, "settings not fully applied");
                }
                self.check_links();
            }
            Err(e) => warn!(error = %e, "settings not reloaded; the previous ones stay in force"),
        }
    }

    fn check_links(&mut self) {
        self.open_missing();
        let now = self.now();
        for p in &mut self.ports {
            Self::reopen_if_changed(p, now, &mut self.dirty);
            let up = is_up(p.port.name());
            if up != p.port.agent().port_enabled() {
                info!(port = p.port.name(), up, "link state");
                let out = p.port.set_port_enabled(up, now);
                self.dirty = true;
                Self::handle(p, out, &mut self.dirty);
            }
        }
    }

    fn receive(&mut self, i: usize) {
        let Some(p) = self.ports.get_mut(i) else { return };
        let buf = &mut self.rx_buffer;
        // A bounded batch, so one busy port cannot starve the others.
        for _ in 0..64 {
            match p.socket.recv(buf) {
                Ok(Some(n)) => {
                    let now = self.start.elapsed();
                    let out = p.port.receive(buf.get(..n).unwrap_or_default(), now);
                    Self::handle(p, out, &mut self.dirty);
                }
                Ok(None) => break,
                // A socket on an interface that went down reports it once; the link watcher
                // has the news already.
                Err(IoError::Os { source, .. })
                    if source.raw_os_error() == Some(nix::errno::Errno::ENETDOWN as i32) =>
                {
                    debug!(port = p.port.name(), "receive: interface down");
                    break;
                }
                Err(e) => {
                    warn!(port = p.port.name(), error = %e, "receive failed");
                    break;
                }
            }
        }
    }

    fn poll_timers(&mut self) {
        let now = self.now();
        for p in &mut self.ports {
            if p.port.next_deadline().is_some_and(|t| t <= now) {
                let out = p.port.poll(now);
                Self::handle(p, out, &mut self.dirty);
            }
        }
    }

    fn shutdown(&mut self) {
        info!("stopping: shutdown LLDPDUs on every port");
        let now = self.now();
        for p in &mut self.ports {
            let mut off = PortSettings {
                lldp: p.port.agent().config().clone(),
                dcbx: p.port.admin().clone(),
            };
            off.lldp.admin_status = AdminStatus::Disabled;
            if let Ok(out) = p.port.set_settings(off, now) {
                Self::handle(p, out, &mut self.dirty);
            }
        }
    }

    fn handle(p: &mut Port, out: PortOutput, dirty: &mut bool) {
        send(&mut p.socket, p.port.name(), &out);
        let name = p.port.name();
        for e in &out.agent_events {
            log_agent_event(name, e);
        }
        for e in &out.dcbx_events {
            log_dcbx_event(name, e);
        }
        // Counters change with every frame: the state is worth rewriting after any output.
        *dirty |= out.changed() || !out.frames.is_empty();
    }

    fn state_json(&self) -> String {
        let v = state::all(self.ports.iter().map(|p| &p.port), self.now());
        serde_json::to_string_pretty(&v).unwrap_or_default()
    }

    fn write_state(&mut self) -> Result<(), RunError> {
        if !std::mem::take(&mut self.dirty) {
            return Ok(());
        }
        let Some(path) = &self.state_file else { return Ok(()) };
        let err = |source| RunError::StateFile { path: path.display().to_string(), source };
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, self.state_json()).map_err(err)?;
        std::fs::rename(&tmp, path).map_err(err)
    }
}

fn send(socket: &mut PacketSocket, port: &str, out: &PortOutput) {
    for frame in &out.frames {
        if let Err(e) = socket.send(frame) {
            warn!(port, error = %e, "LLDPDU not sent");
        }
    }
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "pfcd".into())
}

fn log_agent_event(port: &str, e: &AgentEvent) {
    match e {
        AgentEvent::Neighbour(n) => match n {
            NeighbourEvent::Inserted { remote_index, msap } => {
                info!(port, remote_index, chassis = ?msap.chassis_id, port_id = ?msap.port_id, "neighbour inserted")
            }
            NeighbourEvent::Updated { remote_index, .. } => {
                debug!(port, remote_index, "neighbour updated")
            }
            NeighbourEvent::Deleted { remote_index, reason, .. } => {
                info!(port, remote_index, ?reason, "neighbour deleted")
            }
            NeighbourEvent::AgedOut { remote_index, .. } => {
                info!(port, remote_index, "neighbour aged out")
            }
            NeighbourEvent::Dropped { msap } => {
                warn!(port, chassis = ?msap.chassis_id, "too many neighbours: LLDPDU dropped")
            }
        },
        AgentEvent::FrameDiscarded { source_mac, error } => {
            warn!(port, source_mac = ?source_mac, error = %error, "LLDPDU discarded")
        }
        AgentEvent::TlvDiscarded { source_mac, error } => {
            warn!(port, source_mac = %source_mac, error = %error, "TLV discarded")
        }
        AgentEvent::LengthError { left_out } => {
            warn!(port, left_out, "our LLDPDU is too long for a frame: optional TLVs left out")
        }
    }
}

fn log_dcbx_event(port: &str, e: &DcbxEvent) {
    match e {
        DcbxEvent::PfcChanged { from, to, source, reason } => info!(
            port,
            from = format!("{from:#04x}"),
            to = format!("{to:#04x}"),
            source = source.as_str(),
            reason = reason.as_str(),
            "operational PFC enable"
        ),
        DcbxEvent::QdtChanged { macsec, privacy, headroom } => info!(
            port,
            macsec,
            privacy,
            measurement = headroom.measurement,
            link_delay = headroom.link_delay,
            "P802.1Qdt operational"
        ),
        DcbxEvent::EtsChanged => info!(port, "operational ETS changed"),
        DcbxEvent::AppChanged => info!(port, "operational application priorities changed"),
        DcbxEvent::MisconfigurationRaised(m) => {
            warn!(port, misconfiguration = %m, "DCBX PFC misconfigured")
        }
        DcbxEvent::MisconfigurationCleared => info!(port, "DCBX PFC misconfiguration cleared"),
    }
}

/// The System Description sent when the settings give none.
fn default_description() -> String {
    format!("pfcd pfc-lldp {}", env!("CARGO_PKG_VERSION"))
}
