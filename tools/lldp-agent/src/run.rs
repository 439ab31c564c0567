//! The edge: sockets, the clock, signals and logs around the pure `lldp` ports.
//!
//! One thread, one `poll(2)` over every port's socket, a netlink link watcher and a signalfd;
//! the timeout is the earliest deadline any agent (or the state file) asked for, so an idle
//! agent sleeps until its next LLDPDU is due. SIGHUP re-reads the settings file, SIGUSR1 prints
//! the state on stdout, SIGTERM and SIGINT send shutdown LLDPDUs on every port and exit. The
//! state file, when asked for, is rewritten (atomically, by rename) at once after a change a
//! reader acts on, and at most once a second for counters alone (see [`StateSchedule`]).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use dataplane::io::link::LinkWatcher;
use dataplane::io::{FollowedLink, FramePort, IoError, PacketSocket, Seen};
use dataplane::wire::{EtherType, MacAddr};
use lldp::agent::{AdminStatus, AgentEvent};
use lldp::neighbours::NeighbourEvent;
use lldp::port::{DcbxPort, LocalSystem, PortError, PortOutput, PortSettings};
use lldp::wire::{ChassisId, SystemCapabilities};
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::{SigSet, Signal};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use pfc_logging::link;
use tracing::{debug, info, warn};

use super::config::{self, ConfigError, Loaded, Overrides};
use super::state::{self, NotOpen};

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
    /// The interface the socket is on, followed.
    link: FollowedLink,
    port: DcbxPort,
}

/// A port of the settings that is not open: its interface does not exist (yet), or exists but
/// cannot be opened (say it is no Ethernet interface). Tried again on every link change and
/// SIGHUP, since either can change without the settings changing.
struct Waiting {
    name: String,
    settings: PortSettings,
    error: IoError,
}

/// Receive buffer: the largest frame a packet socket can hand over, so that an LLDPDU on a
/// jumbo link is never cut short (recvfrom drops what does not fit, silently).
const RX_BUFFER: usize = 65_536;

/// How long counters alone may wait to be written: they change with every LLDPDU sent or
/// received, and rewriting the whole state each time cost several times the agent's own work.
const COUNTERS_WRITE_INTERVAL: Duration = Duration::from_secs(1);

/// When the state file is due. A change a reader acts on (a neighbour inserted, changed,
/// deleted or aged out; DCBX's outcome or a misconfiguration; settings; link state; a port
/// opened or not) is due at once. Counters alone are due a second after the last write at the
/// latest, so they are never more than a second stale and written at most once a second.
#[derive(Debug, Default)]
struct StateSchedule {
    due: Option<Duration>,
    last_written: Option<Duration>,
}

impl StateSchedule {
    fn changed(&mut self, now: Duration) {
        self.due_by(now);
    }

    fn counters_changed(&mut self, now: Duration) {
        let at = self.last_written.map_or(now, |t| (t + COUNTERS_WRITE_INTERVAL).max(now));
        self.due_by(at);
    }

    fn due_by(&mut self, at: Duration) {
        self.due = Some(self.due.map_or(at, |d| d.min(at)));
    }

    fn is_due(&self, now: Duration) -> bool {
        self.due.is_some_and(|d| d <= now)
    }

    fn written(&mut self, now: Duration) {
        self.due = None;
        self.last_written = Some(now);
    }
}

struct Agents {
    ports: Vec<Port>,
    rx_buffer: Vec<u8>,
    /// Ports not open: opened when their interface appears or becomes usable.
    waiting: Vec<Waiting>,
    /// The system's settings, for the first port opened, which may come late.
    system_settings: (Option<MacAddr>, Option<String>, Option<String>),
    system: Option<LocalSystem>,
    /// The first port opened: with no chassis ID in the settings, its MAC address is the
    /// chassis ID, and follows that address when it changes.
    chassis_port: Option<String>,
    start: Instant,
    state_file: Option<PathBuf>,
    schedule: StateSchedule,
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
        waiting: Vec::new(),
        system_settings: (None, None, None),
        system: None,
        chassis_port: None,
        start: Instant::now(),
        state_file: opts.state_file,
        schedule: StateSchedule::default(),
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
                        agents.schedule.changed(agents.now());
                        agents.write_state()?;
                        return Ok(());
                    }
                    _ => {}
                }
            }
        }
        agents.poll_timers();
        // Summaries of log lines a flood had suppressed, once their window is over (at the
        // next wake-up: a frame, a link change or a timer).
        pfc_logging::limit::flush();
        agents.write_state()?;
    }
}

impl Agents {
    fn now(&self) -> Duration {
        self.start.elapsed()
    }

    /// The earliest of the agents' deadlines and, with a state file, its write.
    fn next_deadline(&self) -> Option<Duration> {
        let state = self.state_file.as_ref().and(self.schedule.due);
        self.ports.iter().filter_map(|p| p.port.next_deadline()).chain(state).min()
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
        self.waiting.retain(|w| loaded.ports.iter().any(|(m, _)| *m == w.name));
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
                Self::handle(p, out, &mut self.schedule, now);
                continue;
            }
            let previous = self.waiting.iter().position(|w| w.name == name);
            let previous = previous.map(|i| self.waiting.remove(i).error);
            self.open(name, settings, previous.as_ref())?;
        }
        self.schedule.changed(now);
        Ok(())
    }

    /// The system the settings describe now. A chassis ID left unset is the MAC address the
    /// first opened port has now (so it follows that interface's address), or the one in use
    /// when that port is gone.
    fn wanted_system(&self, current: &LocalSystem) -> LocalSystem {
        let (chassis_id, system_name, system_description) = &self.system_settings;
        let chassis_mac = chassis_id.or_else(|| self.chassis_port_mac());
        LocalSystem {
            chassis_id: chassis_mac.map_or(current.chassis_id.clone(), ChassisId::MacAddress),
            system_name: Some(system_name.clone().unwrap_or_else(hostname)),
            system_description: Some(
                system_description.clone().unwrap_or_else(default_description),
            ),
            // pfc-lldp is a host's agent: it relays nothing.
            capabilities: SystemCapabilities::STATION_ONLY,
        }
    }

    fn chassis_port_mac(&self) -> Option<MacAddr> {
        let name = self.chassis_port.as_deref()?;
        self.ports.iter().find(|p| p.port.name() == name).map(|p| p.socket.mac())
    }

    /// Gives every open port the system the settings and interfaces now describe (a SIGHUP
    /// that changed the chassis ID, system name or description; a new address on the port
    /// the chassis ID comes from).
    fn apply_system(&mut self, now: Duration) -> Result<(), RunError> {
        let Some(current) = &self.system else { return Ok(()) };
        let wanted = self.wanted_system(current);
        if wanted == *current {
            return Ok(());
        }
        info!(system = ?wanted, "system identity changed");
        for p in &mut self.ports {
            let out = p
                .port
                .set_system(wanted.clone(), now)
                .map_err(|source| RunError::Port { port: p.port.name().to_string(), source })?;
            Self::handle(p, out, &mut self.schedule, now);
        }
        self.system = Some(wanted);
        self.schedule.changed(now);
        Ok(())
    }

    /// Opens a port. One that cannot be opened, whatever the reason, is logged (when the
    /// reason is new: it is tried again on every link change) and waits in `waiting`, so that
    /// it stops neither the other ports nor the agent. Only settings the port refuses are an
    /// error.
    fn open(
        &mut self,
        name: String,
        settings: PortSettings,
        previous: Option<&IoError>,
    ) -> Result<(), RunError> {
        let groups = [settings.lldp.dest_mac_address];
        let link = FollowedLink::new(Seen::probe(&name));
        let socket = match PacketSocket::open(&name, EtherType::LLDP, &groups) {
            Ok(s) => s,
            Err(error) => {
                log_not_opened(&name, &error, previous);
                self.waiting.push(Waiting { name, settings, error });
                return Ok(());
            }
        };
        let system = match &self.system {
            Some(s) => s.clone(),
            None => self.first_system(&name, socket.mac()),
        };
        let port = DcbxPort::new(&name, socket.mac(), system, settings)
            .map_err(|source| RunError::Port { port: name.clone(), source })?;
        info!(port = %name, mac = %socket.mac(), ifindex = socket.ifindex(), "port opened");
        self.ports.push(Port { socket, link, port });
        self.schedule.changed(self.now());
        Ok(())
    }

    /// The system of the first port opened, `name` with address `mac`: the chassis ID is
    /// that address unless the settings give one.
    fn first_system(&mut self, name: &str, mac: MacAddr) -> LocalSystem {
        let (chassis_id, system_name, system_description) = &self.system_settings;
        let system = LocalSystem {
            chassis_id: ChassisId::MacAddress(chassis_id.unwrap_or(mac)),
            system_name: Some(system_name.clone().unwrap_or_else(hostname)),
            system_description: Some(
                system_description.clone().unwrap_or_else(default_description),
            ),
            capabilities: SystemCapabilities::STATION_ONLY,
        };
        self.chassis_port = Some(name.to_string());
        self.system = Some(system.clone());
        system
    }

    /// Tries the waiting ports again: an interface may have appeared, or become usable.
    fn open_waiting(&mut self) {
        let before = self.waiting.len();
        for w in std::mem::take(&mut self.waiting) {
            if let Err(e) = self.open(w.name.clone(), w.settings, Some(&w.error)) {
                warn!(port = %w.name, error = %e, "port not opened");
            }
        }
        if self.waiting.len() != before {
            self.schedule.changed(self.now());
        }
    }

    /// A port's interface deleted and created again has a new index, which the old socket
    /// is not bound to; its MAC address may have changed too. Either way: a new socket, and
    /// the agent told of the address.
    fn follow_link(p: &mut Port, now: Duration, schedule: &mut StateSchedule) {
        let name = p.port.name().to_string();
        let look = p.link.look(Seen::probe(&name));
        let renewed = look.reopen.or(look.readdressed.map(|mac| (p.socket.ifindex(), mac)));
        if let Some((ifindex, mac)) = renewed {
            let groups = [p.port.agent().config().dest_mac_address];
            match PacketSocket::open(&name, EtherType::LLDP, &groups) {
                Ok(socket) => {
                    info!(port = %name, socket = "LLDP", ifindex, %mac, "{}", link::REOPENED);
                    p.link.reopened(socket.ifindex(), socket.mac());
                    p.socket = socket;
                    let out = p.port.set_port_mac(p.socket.mac(), now);
                    schedule.changed(now);
                    Self::handle(p, out, schedule, now);
                }
                Err(e) => {
                    if p.link.reopen_failed() {
                        warn!(port = %name, socket = "LLDP", error = %e, "{}", link::REOPEN_FAILED);
                    }
                }
            }
        }
        // Settles the link's state after a reopen: `is_up` reads it.
        let _ = p.link.link();
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
        self.open_waiting();
        let now = self.now();
        for p in &mut self.ports {
            Self::follow_link(p, now, &mut self.schedule);
            let up = p.link.is_up();
            if up != p.port.agent().port_enabled() {
                info!(port = p.port.name(), up, "link state");
                let out = p.port.set_port_enabled(up, now);
                self.schedule.changed(now);
                Self::handle(p, out, &mut self.schedule, now);
            }
        }
        // The chassis ID follows the address of the port it comes from.
        if let Err(e) = self.apply_system(now) {
            warn!(error = %e, "system identity not applied");
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
                    // Every frame received is counted, a refresh that changes nothing else too.
                    self.schedule.counters_changed(now);
                    Self::handle(p, out, &mut self.schedule, now);
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
                Self::handle(p, out, &mut self.schedule, now);
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
                Self::handle(p, out, &mut self.schedule, now);
            }
        }
    }

    /// Sends a port's frames, logs its events, and says when the state file is due.
    fn handle(p: &mut Port, out: PortOutput, schedule: &mut StateSchedule, now: Duration) {
        send(&mut p.socket, p.port.name(), &out);
        let name = p.port.name();
        for e in &out.agent_events {
            pfc_logging::lldp::agent_event(name, e);
        }
        for e in &out.dcbx_events {
            pfc_logging::lldp::dcbx_event(name, e);
        }
        if matters_to_a_reader(&out) {
            schedule.changed(now);
        } else if out.changed() || !out.frames.is_empty() {
            schedule.counters_changed(now);
        }
    }

    fn state_json(&self) -> String {
        let not_open = self.waiting.iter().map(|w| NotOpen { name: &w.name, error: &w.error });
        let v = state::all(self.ports.iter().map(|p| &p.port), not_open, self.now());
        serde_json::to_string_pretty(&v).unwrap_or_default()
    }

    fn write_state(&mut self) -> Result<(), RunError> {
        let now = self.now();
        if !self.schedule.is_due(now) {
            return Ok(());
        }
        self.schedule.written(now);
        let Some(path) = &self.state_file else { return Ok(()) };
        let err = |source| RunError::StateFile { path: path.display().to_string(), source };
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, self.state_json()).map_err(err)?;
        std::fs::rename(&tmp, path).map_err(err)?;
        debug!("state file written");
        Ok(())
    }
}

/// True when the output changes what a reader of the state acts on: a neighbour came, changed
/// or went, or DCBX's outcome changed. Frames sent, discarded and dropped LLDPDUs (which a
/// peer can send as fast as it likes) only move counters.
fn matters_to_a_reader(out: &PortOutput) -> bool {
    !out.dcbx_events.is_empty()
        || out.agent_events.iter().any(|e| {
            matches!(
                e,
                AgentEvent::Neighbour(
                    NeighbourEvent::Inserted { .. }
                        | NeighbourEvent::Updated { .. }
                        | NeighbourEvent::Deleted { .. }
                        | NeighbourEvent::AgedOut { .. }
                )
            )
        })
}

/// Logs a port that could not be opened: a warning when the reason is new, quietly when the
/// retry on a link change failed the same way.
fn log_not_opened(name: &str, error: &IoError, previous: Option<&IoError>) {
    if previous.is_some_and(|p| p.to_string() == error.to_string()) {
        debug!(port = %name, error = %error, "port still not opened");
        return;
    }
    match error {
        IoError::NoSuchInterface(_) => {
            warn!(port = %name, error = %error, "port not opened: waiting for the interface")
        }
        IoError::Os { .. } => warn!(
            port = %name,
            error = %error,
            "port not opened: tried again when a link changes and on SIGHUP"
        ),
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

/// The System Description sent when the settings give none.
fn default_description() -> String {
    format!("pfcd pfc-lldp {}", env!("CARGO_PKG_VERSION"))
}
