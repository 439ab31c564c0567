//! pfcd's own settings: one TOML file, every field optional with a default, so that pfcd with
//! no file at all runs the embedded lab on 127.0.0.1:830.
//!
//! ```toml
//! listen = "127.0.0.1:830"        # NETCONF over SSH
//! state-dir = "./pfcd-state"      # host key, datastores, credentials
//! users-file = "./pfcd-state/users"
//! admin-user = "admin"            # created on first start with a random password
//! ports = "lab"                   # the embedded lab; "interfaces": the [interfaces] below
//!
//! [interfaces]                    # with ports = "interfaces": a bridge on real interfaces
//! names = ["eth1", "eth2"]        # the Linux interfaces that are pfcd's Bridge Ports
//! speed = "10G"                   # every port's speed, whatever the interfaces report; unset:
//!                                 # the speed they all report, else 10G
//! max-frame = 9216                # the largest frame forwarded, octets without FCS
//! receive-buffer = 1048576        # octets per port for the lossless priorities together
//! max-transit-ms = 1000           # frames held longer are discarded (802.1Q 6.5.6), 1..4000
//! data-plane = "bridge"           # pfcd's software bridge; "nic": the NICs' own PFC (DCB netlink)
//! nic-dcbx = "take-over"          # with "nic": pfcd runs DCBX; "leave": a NIC's firmware keeps it
//!
//! [lab]
//! time-ratio = 0.001              # simulated seconds per wall-clock second
//! tick-ms = 50                    # how often the lab's ports catch up with the clock
//! ports = 4                       # lab ports: the four kinds of link, repeated beyond four
//! traffic = true                  # the peers' traffic and the pipeline's (false: idle lab)
//! ```
//!
//! What a port's link is like (its cable's length and medium, or its one-way delay, and the
//! other inputs of calculated headroom) is configuration, not a setting: each Bridge Port's
//! `pfc/headroom/calculation-inputs` over NETCONF. The `[interfaces.cables]` table that once
//! held it is refused, so that an old file does not silently lose its cables.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The settings file's fields; names as in the file (kebab-case).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Settings {
    /// Address and port of the NETCONF server. Default `127.0.0.1:830`: the lab is for this
    /// machine only.
    pub listen: SocketAddr,
    /// Host key, datastores and the administrator's credentials. Default
    /// `$XDG_STATE_HOME/pfcd` when that is set, else `./pfcd-state`.
    pub state_dir: PathBuf,
    /// Who may log in (mgmt's users file). Default `<state-dir>/users`.
    pub users_file: Option<PathBuf>,
    /// The administrator created on first start (NACM group `admin`, random password).
    /// Default `admin`.
    pub admin_user: String,
    /// Which ports pfcd runs. Default the embedded lab.
    pub ports: Ports,
    /// The lab's settings.
    pub lab: LabSettings,
    /// The real interfaces' settings (with `ports = "interfaces"`).
    pub interfaces: InterfaceSettings,
}

/// The bridge on real interfaces.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct InterfaceSettings {
    /// The Linux interfaces that are pfcd's Bridge Ports, in port order.
    pub names: Vec<String>,
    /// The rate every port runs at (the pipeline runs one speed), whatever the interfaces
    /// report: for interfaces whose reported speed is not their rate (veth says 10G), or to
    /// pin it. Unset: the speed every interface reports, else 10G. With `data-plane = "nic"`
    /// only the fallback for an interface that reports none.
    pub speed: Option<String>,
    /// The largest frame forwarded, octets without FCS. Default 9216.
    pub max_frame: u16,
    /// Octets of receive buffer per port for the PFC-enabled priorities together: an
    /// allowance larger than this is refused. Default 1 MiB.
    pub receive_buffer: u64,
    /// The maximum bridge transit delay (802.1Q 6.5.6), milliseconds: a frame held in the
    /// bridge longer (a pause that never ends, a deadlock) is discarded and counted instead of
    /// being sent. Default 1000, at most 4000 (the standard's bound).
    pub max_transit_ms: u64,
    /// `[interfaces.cables]`, no longer read: present, it is refused ([`CABLES_MOVED`]).
    pub cables: Option<Removed>,
    /// What carries the frames and PFC of these interfaces. Default the software bridge.
    pub data_plane: DataPlane,
    /// With `data-plane = "nic"`, what pfcd does on a NIC whose firmware runs DCBX itself.
    /// Default take-over.
    pub nic_dcbx: NicDcbx,
}

/// Who runs DCBX on a NIC whose firmware has its own agent (DCB_CAP_DCBX_LLD_MANAGED): two
/// agents on one link would fight, so one of them is chosen.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NicDcbx {
    /// pfcd sets the DCBX mode to host and IEEE, runs LLDP/DCBX and programs PFC.
    #[default]
    TakeOver,
    /// The firmware keeps DCBX: pfcd sets nothing on that NIC, runs no LLDP on it, and reads
    /// its PFC back. A NIC whose DCBX is host-managed has nothing to leave: pfcd takes it over.
    Leave,
}

impl NicDcbx {
    /// As the settings file writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            NicDcbx::TakeOver => "take-over",
            NicDcbx::Leave => "leave",
        }
    }
}

/// What carries the frames and PFC of the interfaces.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DataPlane {
    /// pfcd's software bridge forwards between them (`pfc-bridge`, `src/real/`).
    #[default]
    Bridge,
    /// Each interface's NIC runs PFC itself, programmed through DCB netlink (`src/nic/`).
    Nic,
}

/// A table pfcd no longer reads, whatever it holds: kept only so that its presence can be
/// refused with what to do instead, rather than as an unknown field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Removed;

impl<'de> Deserialize<'de> for Removed {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d)?;
        Ok(Removed)
    }
}

/// Why `[interfaces.cables]` is refused, and what replaces it.
pub const CABLES_MOVED: &str = "[interfaces.cables] is no longer read: a port's cable is \
     configuration, set over NETCONF in its Bridge Port's pfc/headroom/calculation-inputs \
     (cable-length in metres and medium cat6, fibre or other; or one-way-link-delay), e.g. \
     pfcsh's `set interfaces interface eth1 bridge-port pfc headroom calculation-inputs \
     cable-length 100` and `... calculation-inputs medium cat6`. Remove [interfaces.cables] \
     from this file";

impl Default for InterfaceSettings {
    fn default() -> Self {
        InterfaceSettings {
            names: Vec::new(),
            speed: None,
            max_frame: 9216,
            receive_buffer: 1 << 20,
            max_transit_ms: 1_000,
            cables: None,
            data_plane: DataPlane::Bridge,
            nic_dcbx: NicDcbx::TakeOver,
        }
    }
}

impl InterfaceSettings {
    /// The configured speed, else 10G: the speed of an interface that reports none.
    pub fn link_speed(&self) -> Result<dataplane::time::LinkSpeed, String> {
        Ok(self.configured_speed()?.unwrap_or(dataplane::time::LinkSpeed::G10))
    }

    /// The speed configured, if one is.
    pub fn configured_speed(&self) -> Result<Option<dataplane::time::LinkSpeed>, String> {
        self.speed
            .as_deref()
            .map(|s| s.parse())
            .transpose()
            .map_err(|e: dataplane::time::ParseLinkSpeedError| format!("interfaces.speed: {e}"))
    }
}

/// Which ports pfcd runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ports {
    /// Four simulated ports with simulated peers (src/lab/).
    Lab,
    /// A bridge on the real interfaces of `[interfaces]` (the `pfc-bridge` crate, `src/real/`).
    Interfaces,
}

/// The embedded lab's clock.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct LabSettings {
    /// Simulated seconds per wall-clock second. Default 0.001: a 400G link at line rate is
    /// 25 million frames a second, so the lab runs slower than real time to keep its CPU use
    /// small; link delays, pauses and timers are all in simulated time.
    pub time_ratio: f64,
    /// How often, in wall-clock milliseconds, each port catches up with the clock. Default 50.
    pub tick_ms: u64,
    /// How many ports the lab has (1 to 256). Default 4: one of each kind of link; more
    /// repeat the four kinds in turn (for scale tests and benchmarks).
    pub ports: usize,
    /// The peers send traffic (congesting the lossless priority, pausing ours) and the
    /// pipeline carries its own. Default true; false leaves LLDP/DCBX and the configuration
    /// only, and an idle lab.
    pub traffic: bool,
}

impl Default for LabSettings {
    fn default() -> Self {
        LabSettings { time_ratio: 0.001, tick_ms: 50, ports: 4, traffic: true }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            listen: SocketAddr::from(([127, 0, 0, 1], mgmt::config::NETCONF_SSH_PORT)),
            state_dir: default_state_dir(),
            users_file: None,
            admin_user: "admin".to_string(),
            ports: Ports::Lab,
            lab: LabSettings::default(),
            interfaces: InterfaceSettings::default(),
        }
    }
}

/// `$XDG_STATE_HOME/pfcd` when set, else `./pfcd-state`.
fn default_state_dir() -> PathBuf {
    match std::env::var_os("XDG_STATE_HOME") {
        Some(dir) if !dir.is_empty() => Path::new(&dir).join("pfcd"),
        _ => PathBuf::from("pfcd-state"),
    }
}

/// Where the settings come from: the file, if any, and the command line's overrides.
#[derive(Debug, Clone, Default)]
pub struct SettingsSource {
    pub file: Option<PathBuf>,
    pub listen: Option<SocketAddr>,
    pub state_dir: Option<PathBuf>,
}

impl SettingsSource {
    /// The file's settings (the defaults without one), the overrides applied.
    pub fn load(&self) -> Result<Settings, SettingsError> {
        let mut settings = match &self.file {
            Some(path) => Settings::load(path)?,
            None => Settings::default(),
        };
        if let Some(listen) = self.listen {
            settings.listen = listen;
        }
        if let Some(dir) = &self.state_dir {
            settings.state_dir = dir.clone();
        }
        Ok(settings)
    }
}

/// The settings file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("cannot read the settings file {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("the settings file {path} is wrong: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("the settings file {path} is wrong: {message}")]
    Invalid { path: PathBuf, message: String },
}

impl Settings {
    /// Reads `path`; fields it leaves out keep their defaults.
    pub fn load(path: &Path) -> Result<Settings, SettingsError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| SettingsError::Read { path: path.to_path_buf(), source })?;
        let settings: Settings = toml::from_str(&text).map_err(|e| SettingsError::Parse {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        settings
            .check()
            .map_err(|message| SettingsError::Invalid { path: path.to_path_buf(), message })?;
        Ok(settings)
    }

    /// The names of the fields that differ from `other` (as the file names them).
    pub fn differences(&self, other: &Settings) -> Vec<&'static str> {
        let mut changed = Vec::new();
        let mut note = |name, differs| {
            if differs {
                changed.push(name);
            }
        };
        note("listen", self.listen != other.listen);
        note("state-dir", self.state_dir != other.state_dir);
        note("users-file", self.users_file != other.users_file);
        note("admin-user", self.admin_user != other.admin_user);
        note("ports", self.ports != other.ports);
        note("lab.time-ratio", self.lab.time_ratio != other.lab.time_ratio);
        note("lab.tick-ms", self.lab.tick_ms != other.lab.tick_ms);
        note("lab.ports", self.lab.ports != other.lab.ports);
        note("lab.traffic", self.lab.traffic != other.lab.traffic);
        note("interfaces", self.interfaces != other.interfaces);
        changed
    }

    /// Refuses values that would not work, with what to write instead.
    pub fn check(&self) -> Result<(), String> {
        // Refused whatever the ports: the file is the operator's old one either way.
        if self.interfaces.cables.is_some() {
            return Err(CABLES_MOVED.to_string());
        }
        let ratio = self.lab.time_ratio;
        if !(ratio > 0.0 && ratio <= 1.0) {
            return Err(format!(
                "lab.time-ratio is {ratio}: it must be above 0 and at most 1 (simulated seconds \
                 per wall-clock second)"
            ));
        }
        if !(1..=256).contains(&self.lab.ports) {
            return Err(format!("lab.ports is {}: use 1 to 256", self.lab.ports));
        }
        if !(1..=10_000).contains(&self.lab.tick_ms) {
            return Err(format!("lab.tick-ms is {}: use 1 to 10000", self.lab.tick_ms));
        }
        if self.ports == Ports::Interfaces {
            let names = &self.interfaces.names;
            if names.is_empty() || names.len() > 256 {
                return Err(format!(
                    "ports = \"interfaces\" needs 1 to 256 names in [interfaces] names, not {}",
                    names.len()
                ));
            }
            if let Some(dup) = names.iter().enumerate().find(|(i, n)| names[..*i].contains(n)) {
                return Err(format!("interfaces.names lists {} twice", dup.1));
            }
            self.interfaces.link_speed()?;
            if self.interfaces.max_frame < 60 {
                return Err("interfaces.max-frame must be at least 60 octets".into());
            }
            let transit = self.interfaces.max_transit_ms;
            if !(1..=4_000).contains(&transit) {
                return Err(format!(
                    "interfaces.max-transit-ms is {transit}: use 1 to 4000 (802.1Q 6.5.6 bounds \
                     the maximum bridge transit delay at 4 s; 1000 is its recommended value)"
                ));
            }
        }
        Ok(())
    }

    /// The users file actually used.
    pub fn users_path(&self) -> PathBuf {
        self.users_file.clone().unwrap_or_else(|| self.state_dir.join("users"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_file_gives_the_defaults_and_a_partial_one_keeps_the_rest() {
        let empty: Settings = toml::from_str("").expect("parses");
        assert_eq!(empty, Settings::default());
        assert_eq!(empty.listen.to_string(), "127.0.0.1:830");
        let some: Settings =
            toml::from_str("listen = \"127.0.0.1:8830\"\n[lab]\ntime-ratio = 0.01\n").expect("ok");
        assert_eq!(some.listen.port(), 8830);
        assert_eq!(some.lab.time_ratio, 0.01);
        assert_eq!(some.lab.tick_ms, 50);
        assert_eq!(some.admin_user, "admin");
    }

    #[test]
    fn unknown_fields_and_bad_ratios_are_refused() {
        assert!(toml::from_str::<Settings>("listen-address = \"x\"").is_err());
        let mut s = Settings::default();
        s.lab.time_ratio = 2.0;
        assert!(s.check().expect_err("refused").contains("time-ratio"));
    }

    #[test]
    fn a_maximum_transit_delay_beyond_the_standards_bound_is_refused() {
        let text = "ports = \"interfaces\"\n[interfaces]\nnames = [\"p1\"]\nmax-transit-ms = 300\n";
        let mut s: Settings = toml::from_str(text).expect("parses");
        assert_eq!(s.interfaces.max_transit_ms, 300);
        assert_eq!(s.check(), Ok(()));
        for refused in [0, 4_001, u64::MAX] {
            s.interfaces.max_transit_ms = refused;
            let e = s.check().expect_err("refused");
            assert!(e.contains("max-transit-ms") && e.contains("1 to 4000"), "{e}");
        }
    }

    #[test]
    fn the_data_plane_is_the_bridge_unless_the_nic_is_asked_for() {
        let text = "ports = \"interfaces\"\n[interfaces]\nnames = [\"p1\"]\n";
        let s: Settings = toml::from_str(text).expect("parses");
        assert_eq!(s.interfaces.data_plane, DataPlane::Bridge);
        let s: Settings = toml::from_str(&format!("{text}data-plane = \"nic\"\n")).expect("parses");
        assert_eq!(s.interfaces.data_plane, DataPlane::Nic);
        let e = toml::from_str::<Settings>(&format!("{text}data-plane = \"switch\"\n"))
            .expect_err("refused")
            .to_string();
        assert!(e.contains("data-plane") && e.contains("`bridge` or `nic`"), "{e}");
    }

    #[test]
    fn a_nics_firmware_dcbx_is_taken_over_unless_left_and_a_misspelling_is_refused() {
        let text = "ports = \"interfaces\"\n[interfaces]\nnames = [\"p1\"]\ndata-plane = \"nic\"\n";
        let s: Settings = toml::from_str(text).expect("parses");
        assert_eq!(s.interfaces.nic_dcbx, NicDcbx::TakeOver);
        let s: Settings = toml::from_str(&format!("{text}nic-dcbx = \"leave\"\n")).expect("parses");
        assert_eq!(s.interfaces.nic_dcbx, NicDcbx::Leave);
        assert_eq!(s.check(), Ok(()));
        let e = toml::from_str::<Settings>(&format!("{text}nic-dcbx = \"leve\"\n"))
            .expect_err("refused")
            .to_string();
        assert!(e.contains("nic-dcbx") && e.contains("`take-over` or `leave`"), "{e}");
    }

    #[test]
    fn a_file_with_the_old_cables_is_refused_with_where_they_went() {
        let dir = std::env::temp_dir().join(format!("pfcd-settings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("pfcd.toml");
        let old = "ports = \"interfaces\"\n[interfaces]\nnames = [\"p1\"]\n\
                   [interfaces.cables]\np1 = { medium = \"copper\", metres = 100 }\n";
        // On the lab too, and empty: the table itself is what the operator must move.
        for text in [old, "[interfaces.cables]\n"] {
            std::fs::write(&path, text).expect("write");
            let e = Settings::load(&path).expect_err("refused").to_string();
            assert!(e.contains("[interfaces.cables] is no longer read"), "{e}");
            assert!(e.contains("headroom/calculation-inputs"), "{e}");
            assert!(e.contains("cable-length") && e.contains("medium"), "{e}");
        }
        let without = old.split("[interfaces.cables]").next().expect("the rest");
        std::fs::write(&path, without).expect("write");
        assert!(Settings::load(&path).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
