//! pfcd's ports on real interfaces (`ports = "interfaces"`): the software bridge
//! (`pfc_bridge`) over the interfaces the settings name, and one port task per interface
//! (`port`) that runs LLDP/DCBX on it, selects its allowance and tells the bridge port
//! what to run. The northbound side sees them as it sees the lab's ports.

pub mod port;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use dataplane::io::{link, RawOptions};
use dataplane::pipeline::{PauseMode, PipelineConfig};
use dataplane::time::LinkSpeed;
use lldp::port::LocalSystem;
use lldp::wire::ChassisId;

use crate::ports::set::PortSet;
use crate::ports::{event_channel, EventReceiver, PortHandle};
use crate::settings::InterfaceSettings;
use dataplane::pipeline::PipelineSnapshot;
use pfc_bridge::control::Control;
use pfc_bridge::{pipeline_config, Bridge, BridgePortSetup, BridgeSetup, PortSockets};
use port::RealPortSetup;

/// The bridge on real interfaces and its port tasks.
pub struct RealPorts {
    ports: Vec<PortHandle>,
    bridge: Arc<Bridge>,
    speed: LinkSpeed,
    max_frame: u16,
    start: Instant,
    events: Mutex<Option<EventReceiver>>,
}

impl RealPorts {
    /// Opens every interface, starts the bridge and a task per port. An interface that does
    /// not exist or cannot be opened stops the start, with its name and why.
    pub fn start(settings: &InterfaceSettings) -> Result<RealPorts, String> {
        let speed = port_speed(&settings.names, settings.configured_speed()?);
        let mut first_mac = None;
        for name in &settings.names {
            let (_, mac) = link::identity(name)
                .ok_or_else(|| format!("interface {name} does not exist (check `ip link`)"))?;
            first_mac.get_or_insert(mac);
        }
        let ports = settings
            .names
            .iter()
            .map(|name| BridgePortSetup {
                follow_measurement: false,
                ..BridgePortSetup::new(name, 0)
            })
            .collect();
        let setup = BridgeSetup {
            ports,
            mode: PauseMode::External,
            speed,
            max_frame: settings.max_frame,
            max_transit: std::time::Duration::from_millis(settings.max_transit_ms),
        };
        let options = RawOptions {
            promiscuous: true,
            timestamps: true,
            recv_buffer: Some(4 << 20),
            send_buffer: Some(4 << 20),
            ..RawOptions::default()
        };
        let bridge = Arc::new(
            Bridge::start(&setup, move |name| PortSockets::open(name, &options))
                .map_err(|e| e.to_string())?,
        );
        let system = LocalSystem {
            chassis_id: ChassisId::MacAddress(first_mac.unwrap_or_default()),
            system_name: Some(hostname()),
            system_description: Some(format!(
                "pfcd {} software PFC bridge",
                env!("CARGO_PKG_VERSION")
            )),
            capabilities: crate::lab::BRIDGE_CAPABILITIES,
        };
        let (events, receiver) = event_channel::channel();
        let mut handles = Vec::new();
        for (index, name) in settings.names.iter().enumerate() {
            let setup = RealPortSetup {
                name: name.clone(),
                index,
                speed,
                receive_buffer_size: settings.receive_buffer,
                system: system.clone(),
                max_frame: settings.max_frame,
            };
            let handle = port::spawn(setup, bridge.clone(), events.clone())
                .map_err(|e| format!("port {name}: {e}"))?;
            handles.push(handle);
        }
        Ok(RealPorts {
            ports: handles,
            bridge,
            speed,
            max_frame: settings.max_frame,
            start: Instant::now(),
            events: Mutex::new(Some(receiver)),
        })
    }

    /// The bridge's own state (the tool's JSON view), for tests and logs.
    pub fn bridge(&self) -> &Bridge {
        &self.bridge
    }
}

impl PortSet for RealPorts {
    fn ports(&self) -> &[PortHandle] {
        &self.ports
    }

    fn speed(&self, _i: usize) -> LinkSpeed {
        self.speed
    }

    fn described(&self) -> &'static str {
        "the interfaces in pfcd's settings"
    }

    /// The bridge holds each port's table (`PortControl::traffic_class`).
    fn applies_traffic_classes(&self) -> bool {
        true
    }

    /// Each bridge port runs its watchdog (`PortControl::watchdog`).
    fn runs_watchdog(&self) -> bool {
        true
    }

    /// The bridge forwards between the interfaces, through its filtering database.
    fn forwards_frames(&self) -> bool {
        true
    }

    fn apply_static_entries(&self, entries: Vec<pfc_bridge::static_entries::StaticEntry>) {
        self.bridge.control(Control::StaticEntries(entries));
    }

    fn pipeline(&self) -> Arc<PipelineSnapshot> {
        self.bridge.snapshot().pipeline.unwrap_or_else(|| {
            Arc::new(PipelineSnapshot {
                config: self.pipeline_config(&PipelineConfig::default()),
                stats: Default::default(),
                classes: Vec::new(),
                external_used: 0,
                reactions: Vec::new(),
                traffic_classes: Vec::new(),
            })
        })
    }

    /// The bridge's pipeline with the pause mode of `base`: its clock, widths and memory are
    /// the software bridge's own (`bridge::pipeline_config`).
    fn pipeline_config(&self, base: &PipelineConfig) -> PipelineConfig {
        pipeline_config(self.ports.len(), base.mode, self.speed, self.max_frame)
    }

    fn reconfigure_pipeline(&self, config: PipelineConfig) {
        self.bridge.control(Control::Mode(config.mode));
    }

    fn up_time_secs(&self) -> u64 {
        self.start.elapsed().as_secs()
    }

    fn take_events(&self) -> Option<EventReceiver> {
        self.events.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    fn failure(&self) -> Option<String> {
        crate::ports::set::port_failure(&self.ports).or_else(|| {
            self.bridge.failed().then(|| {
                "the bridge's forwarding thread stopped (see the log above): nothing is forwarded"
                    .to_string()
            })
        })
    }

    fn stop(&self) {
        for p in &self.ports {
            p.stop();
        }
        self.bridge.stop();
    }
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "pfcd".into())
}

/// The speed the bridge runs: `configured` when there is one, else the one every interface
/// reports (the ethtool speed Linux shows in /sys/class/net/IF/speed) when they agree on one
/// the pipeline models, else 10G (the pipeline runs one speed for all ports). Logged either
/// way, with a warning when the configured speed is not the one the interfaces report.
fn port_speed(names: &[String], configured: Option<LinkSpeed>) -> LinkSpeed {
    let reported: Vec<Option<LinkSpeed>> = names.iter().map(|n| reported_speed(n)).collect();
    let common = match reported.first().copied().flatten() {
        Some(s) if reported.iter().all(|r| *r == Some(s)) => Some(s),
        _ => None,
    };
    match (configured, common) {
        (Some(c), Some(r)) if c != r => {
            tracing::warn!(speed = %c, reported = %r, "the interfaces report another speed: the settings' is used, as configured");
            c
        }
        (Some(c), _) => {
            tracing::info!(speed = %c, "the settings' speed");
            c
        }
        (None, Some(r)) => {
            tracing::info!(speed = %r, "every interface reports this speed: the bridge runs it");
            r
        }
        (None, None) => {
            tracing::info!(speed = %LinkSpeed::G10, ?reported, "interfaces report no common speed: 10G");
            LinkSpeed::G10
        }
    }
}

/// An interface's speed as Linux reports it (Mb/s in /sys/class/net/IF/speed), if it is one
/// of the pipeline's.
pub(crate) fn reported_speed(name: &str) -> Option<LinkSpeed> {
    let text = std::fs::read_to_string(format!("/sys/class/net/{name}/speed")).ok()?;
    let mbps: u64 = text.trim().parse().ok()?;
    LinkSpeed::ALL.into_iter().find(|s| s.gbps() * 1000 == mbps)
}
