//! pfcd's third kind of port (`ports = "interfaces"` with `data-plane = "nic"`): the NIC runs
//! PFC itself, and pfcd programs it through DCB netlink (`pfc_dcb`). At start-up every
//! interface must answer DCB netlink (`startup_check`); then each runs LLDP/DCBX as the software
//! bridge's ports do, nothing is forwarded, and what is in force is put on the NIC
//! (`plan`: what is asked, without I/O, with `ets_app` for ETS and the APP table; `apply`:
//! sent, refusals kept; `port`: the task; `state`: what was programmed, for pfcd-nic).

pub mod apply;
pub mod buffers;
pub mod dcbx_owner;
pub mod ets_app;
pub mod plan;
pub mod port;
mod startup_check;
pub mod state;
pub mod sysfs;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use dataplane::io::link;
use dataplane::pipeline::{PipelineConfig, PipelineSnapshot};
use dataplane::time::LinkSpeed;
use lldp::port::LocalSystem;
use lldp::wire::{ChassisId, SystemCapabilities};

use crate::ports::set::PortSet;
use crate::ports::{event_channel, EventReceiver, PortHandle};
use crate::settings::InterfaceSettings;
use dcbx_owner::DcbxOwner;
use port::NicPortSetup;
use state::{NicState, SharedNicState};

pub use startup_check::{check_before_start, Found};

/// The NIC ports and what each programmed.
pub struct NicPorts {
    ports: Vec<PortHandle>,
    states: Vec<SharedNicState>,
    speeds: Vec<LinkSpeed>,
    start: Instant,
    events: Mutex<Option<EventReceiver>>,
}

impl NicPorts {
    /// A task per interface, `found` what each answered at the start-up check.
    pub fn start(settings: &InterfaceSettings, found: Vec<Found>) -> Result<NicPorts, String> {
        let configured = settings.link_speed()?;
        let mut first_mac = None;
        for name in &settings.names {
            let (_, mac) = link::identity(name)
                .ok_or_else(|| format!("interface {name} does not exist (check `ip link`)"))?;
            first_mac.get_or_insert(mac);
        }
        let system = LocalSystem {
            chassis_id: ChassisId::MacAddress(first_mac.unwrap_or_default()),
            system_name: std::fs::read_to_string("/proc/sys/kernel/hostname")
                .ok()
                .map(|s| s.trim().to_string()),
            system_description: Some(format!(
                "pfcd {}: PFC on the host's NICs",
                env!("CARGO_PKG_VERSION")
            )),
            capabilities: SystemCapabilities::STATION_ONLY,
        };
        let (events, receiver) = event_channel::channel();
        let mut ports = NicPorts {
            ports: Vec::new(),
            states: Vec::new(),
            speeds: Vec::new(),
            start: Instant::now(),
            events: Mutex::new(Some(receiver)),
        };
        for (name, (objects, dcbx)) in settings.names.iter().zip(found) {
            let speed = crate::real::reported_speed(name).unwrap_or(configured);
            let state = SharedNicState::default();
            let driver = sysfs::driver(name);
            tracing::info!(port = %name, ?driver, ?dcbx, %speed, "NIC port");
            let firmware = dcbx.is_some_and(|m| m.lld_managed());
            let owner = DcbxOwner::decide(settings.nic_dcbx, dcbx);
            let decision = owner.describe(firmware);
            if owner == DcbxOwner::TakenOver && firmware {
                tracing::warn!(port = %name, "{decision}");
            } else {
                tracing::info!(port = %name, "{decision}");
            }
            state.update(|s| {
                *s = NicState {
                    driver: driver.clone(),
                    dcbx_mode_found: dcbx,
                    nic_dcbx: settings.nic_dcbx,
                    dcbx_owner: Some(owner),
                    dcbx_decision: decision.to_string(),
                    ..NicState::default()
                };
            });
            let setup = NicPortSetup {
                name: name.clone(),
                speed,
                receive_buffer_size: settings.receive_buffer,
                system: system.clone(),
                max_frame: settings.max_frame,
                found: objects.pfc,
                found_buffer: objects.buffer,
                found_apps: objects.apps.clone(),
                driver,
                dcbx_owner: owner,
            };
            let handle = port::spawn(setup, state.clone(), events.clone())
                .map_err(|e| format!("port {name}: {e}"))?;
            ports.ports.push(handle);
            ports.states.push(state);
            ports.speeds.push(speed);
        }
        Ok(ports)
    }

    /// What each port programmed, in port order.
    pub fn states(&self) -> Vec<(String, NicState)> {
        self.ports.iter().zip(&self.states).map(|(p, s)| (p.name.clone(), s.read())).collect()
    }
}

impl PortSet for NicPorts {
    fn ports(&self) -> &[PortHandle] {
        &self.ports
    }

    fn speed(&self, i: usize) -> LinkSpeed {
        self.speeds.get(i).copied().unwrap_or(LinkSpeed::G10)
    }

    fn described(&self) -> &'static str {
        "the interfaces' NICs in pfcd's settings"
    }

    /// The NIC keeps its own priority to traffic class table (ETS), which pfcd does not set.
    fn applies_traffic_classes(&self) -> bool {
        false
    }

    /// A NIC's PFC watchdog, where it has one, is its driver's, not pfcd's.
    fn runs_watchdog(&self) -> bool {
        false
    }

    /// No pipeline runs here: the NIC transmits. An empty one is reported.
    fn pipeline(&self) -> Arc<PipelineSnapshot> {
        Arc::new(PipelineSnapshot {
            config: PipelineConfig::default(),
            stats: Default::default(),
            classes: Vec::new(),
            external_used: 0,
            reactions: Vec::new(),
            traffic_classes: Vec::new(),
        })
    }

    fn pipeline_config(&self, base: &PipelineConfig) -> PipelineConfig {
        base.clone()
    }

    fn reconfigure_pipeline(&self, _config: PipelineConfig) {}

    fn up_time_secs(&self) -> u64 {
        self.start.elapsed().as_secs()
    }

    fn take_events(&self) -> Option<EventReceiver> {
        self.events.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    fn stop(&self) {
        for p in &self.ports {
            p.stop();
        }
    }
}
