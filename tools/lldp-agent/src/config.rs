//! The settings file (TOML) and the command-line shortcuts, turned into `lldp` port settings.
//!
//! Top-level sections are defaults for every port; a `[[port]]` entry names an interface and
//! may override any field of any section. Names follow the YANG leaves
//! (`message-tx-interval`, `tx-credit-max`, ...). See README.md for an example.

use std::path::Path;

use dataplane::wire::MacAddr;
use lldp::agent::{AdminStatus, AgentConfig};
use lldp::dcbx::{AppAdmin, DcbxAdmin, EtsAdmin, PfcAdmin};
use lldp::port::PortSettings;
use lldp::wire::{AppEntry, AppSelector, EtsTables, TimeInterval, Tsa};
use serde::Deserialize;

/// A settings file that cannot be used, with what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("{path}: {source}")]
    Toml { path: String, source: Box<toml::de::Error> },
    #[error("{0}")]
    Invalid(String),
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct FileConfig {
    pub system_name: Option<String>,
    pub system_description: Option<String>,
    /// Chassis ID as a MAC address; by default the first port's address.
    pub chassis_id: Option<String>,
    #[serde(default)]
    pub lldp: LldpSection,
    #[serde(default)]
    pub pfc: PfcSection,
    pub ets: Option<EtsSection>,
    pub app: Option<AppSection>,
    /// Our PFC Local Delay, in nanoseconds (sent in the PFC Local Delay TLV when set).
    pub local_delay_ns: Option<i64>,
    #[serde(default)]
    pub port: Vec<PortEntry>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct PortEntry {
    pub name: String,
    #[serde(default)]
    pub lldp: LldpSection,
    #[serde(default)]
    pub pfc: PfcSection,
    pub ets: Option<EtsSection>,
    pub app: Option<AppSection>,
    pub local_delay_ns: Option<i64>,
}

/// Every setting of a port, each optional so that a port can override only some.
#[derive(Debug, Clone, Default)]
pub struct Sections {
    pub lldp: LldpSection,
    pub pfc: PfcSection,
    pub ets: Option<EtsSection>,
    pub app: Option<AppSection>,
    pub local_delay_ns: Option<i64>,
}

impl FileConfig {
    fn defaults(&self) -> Sections {
        Sections {
            lldp: self.lldp.clone(),
            pfc: self.pfc.clone(),
            ets: self.ets.clone(),
            app: self.app.clone(),
            local_delay_ns: self.local_delay_ns,
        }
    }
}

impl PortEntry {
    fn sections(&self) -> Sections {
        Sections {
            lldp: self.lldp.clone(),
            pfc: self.pfc.clone(),
            ets: self.ets.clone(),
            app: self.app.clone(),
            local_delay_ns: self.local_delay_ns,
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct LldpSection {
    pub admin_status: Option<String>,
    pub dest_mac_address: Option<String>,
    pub message_tx_interval: Option<u16>,
    pub message_tx_hold_multiplier: Option<u16>,
    pub message_fast_tx: Option<u16>,
    pub tx_fast_init: Option<u8>,
    pub reinit_delay: Option<u16>,
    pub tx_credit_max: Option<u8>,
    pub max_neighbours: Option<usize>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct PfcSection {
    pub willing: Option<bool>,
    pub mbc: Option<bool>,
    pub macsec_capable: Option<bool>,
    pub privacy_capable: Option<bool>,
    pub pfc_cap: Option<u8>,
    /// Priorities with PFC enabled, e.g. `[3, 4]`.
    pub enable: Option<Vec<u8>>,
    pub rtm_hdrm: Option<bool>,
    pub ptp_hdrm: Option<bool>,
    /// 7 (P802.1Qdt, the default) or 6 (IEEE 802.1Q-2018, for old peers).
    pub tlv_length: Option<u8>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct EtsSection {
    pub willing: Option<bool>,
    pub cbs: Option<bool>,
    /// Traffic classes supported, 1..=8.
    pub max_tcs: Option<u8>,
    pub priority_tc: Option<[u8; 8]>,
    pub tc_bandwidth: Option<[u8; 8]>,
    /// Per traffic class: "strict", "cbs", "ets", "vendor" or a number.
    pub tsa: Option<[String; 8]>,
    pub recommendation: Option<TablesSection>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct TablesSection {
    pub priority_tc: [u8; 8],
    pub tc_bandwidth: [u8; 8],
    pub tsa: [String; 8],
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct AppSection {
    pub willing: Option<bool>,
    #[serde(default)]
    pub entries: Vec<AppEntrySection>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct AppEntrySection {
    pub priority: u8,
    /// "ethertype", "tcp-sctp", "udp-dccp", "tcp-sctp-udp-dccp", "dscp" or a number.
    pub selector: String,
    pub protocol: u16,
}

/// What the agent runs: the system and each port's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    pub system_name: Option<String>,
    pub system_description: Option<String>,
    pub chassis_id: Option<MacAddr>,
    pub ports: Vec<(String, PortSettings)>,
}

/// Command-line shortcuts applied over the file's defaults.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub interfaces: Vec<String>,
    pub pfc_enable: Option<Vec<u8>>,
    pub willing: bool,
    pub message_tx_interval: Option<u16>,
    pub message_tx_hold_multiplier: Option<u16>,
}

pub fn load(path: Option<&Path>, overrides: &Overrides) -> Result<Loaded, ConfigError> {
    let mut file = match path {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|source| ConfigError::Read { path: p.display().to_string(), source })?;
            toml::from_str::<FileConfig>(&text).map_err(|source| ConfigError::Toml {
                path: p.display().to_string(),
                source: Box::new(source),
            })?
        }
        None => FileConfig::default(),
    };
    let d = &mut file;
    if overrides.pfc_enable.is_some() {
        d.pfc.enable.clone_from(&overrides.pfc_enable);
    }
    if overrides.willing {
        d.pfc.willing = Some(true);
    }
    d.lldp.message_tx_interval = overrides.message_tx_interval.or(d.lldp.message_tx_interval);
    d.lldp.message_tx_hold_multiplier =
        overrides.message_tx_hold_multiplier.or(d.lldp.message_tx_hold_multiplier);
    for name in &overrides.interfaces {
        if !file.port.iter().any(|p| p.name == *name) {
            file.port.push(PortEntry { name: name.clone(), ..PortEntry::default() });
        }
    }
    if file.port.is_empty() {
        return Err(ConfigError::Invalid(
            "no interface to run on: name one with --interface or a [[port]] entry".into(),
        ));
    }
    let defaults = file.defaults();
    let mut ports = Vec::new();
    for p in &file.port {
        if ports.iter().any(|(n, _)| n == &p.name) {
            return Err(ConfigError::Invalid(format!("port {} is configured twice", p.name)));
        }
        let settings = settings(&defaults, &p.sections())
            .map_err(|e| ConfigError::Invalid(format!("port {}: {e}", p.name)))?;
        ports.push((p.name.clone(), settings));
    }
    let chassis_id =
        file.chassis_id.as_deref().map(parse_mac).transpose().map_err(ConfigError::Invalid)?;
    Ok(Loaded {
        system_name: file.system_name,
        system_description: file.system_description,
        chassis_id,
        ports,
    })
}

fn parse_mac(s: &str) -> Result<MacAddr, String> {
    s.parse::<MacAddr>().map_err(|e| e.to_string())
}

/// A port's settings: its own values where it has them, the defaults elsewhere.
fn settings(d: &Sections, p: &Sections) -> Result<PortSettings, String> {
    let (dl, pl) = (&d.lldp, &p.lldp);
    let base = AgentConfig::default();
    let lldp = AgentConfig {
        admin_status: match pl.admin_status.as_ref().or(dl.admin_status.as_ref()) {
            Some(s) => s.parse::<AdminStatus>()?,
            None => base.admin_status,
        },
        dest_mac_address: match pl.dest_mac_address.as_ref().or(dl.dest_mac_address.as_ref()) {
            Some(s) => parse_mac(s)?,
            None => base.dest_mac_address,
        },
        message_tx_interval: pl
            .message_tx_interval
            .or(dl.message_tx_interval)
            .unwrap_or(base.message_tx_interval),
        message_tx_hold_multiplier: pl
            .message_tx_hold_multiplier
            .or(dl.message_tx_hold_multiplier)
            .unwrap_or(base.message_tx_hold_multiplier),
        message_fast_tx: pl.message_fast_tx.or(dl.message_fast_tx).unwrap_or(base.message_fast_tx),
        tx_fast_init: pl.tx_fast_init.or(dl.tx_fast_init).unwrap_or(base.tx_fast_init),
        reinit_delay: pl.reinit_delay.or(dl.reinit_delay).unwrap_or(base.reinit_delay),
        tx_credit_max: pl.tx_credit_max.or(dl.tx_credit_max).unwrap_or(base.tx_credit_max),
        max_neighbours: pl.max_neighbours.or(dl.max_neighbours).unwrap_or(base.max_neighbours),
    };
    lldp.validate().map_err(|e| e.to_string())?;
    let dcbx = DcbxAdmin {
        pfc: pfc(&d.pfc, &p.pfc)?,
        ets: match (&p.ets, &d.ets) {
            (None, None) => None,
            (port, default) => Some(ets(default.as_ref(), port.as_ref())?),
        },
        app: match (&p.app, &d.app) {
            (None, None) => None,
            (port, default) => Some(app(default.as_ref(), port.as_ref())?),
        },
        local_delay: p.local_delay_ns.or(d.local_delay_ns).map(TimeInterval::from_nanos),
    };
    Ok(PortSettings { lldp, dcbx })
}

fn priorities(list: &[u8]) -> Result<u8, String> {
    list.iter().try_fold(0u8, |v, &p| {
        if p > 7 {
            Err(format!("priority {p} is not 0 to 7"))
        } else {
            Ok(v | (1 << p))
        }
    })
}

fn pfc(d: &PfcSection, p: &PfcSection) -> Result<PfcAdmin, String> {
    let base = PfcAdmin::default();
    let pick = |a: Option<bool>, b: Option<bool>, z: bool| a.or(b).unwrap_or(z);
    let pfc_cap = p.pfc_cap.or(d.pfc_cap).unwrap_or(base.pfc_cap);
    if pfc_cap > 15 {
        return Err(format!("pfc-cap {pfc_cap} is not 0 to 15"));
    }
    let legacy_tlv = match p.tlv_length.or(d.tlv_length).unwrap_or(7) {
        6 => true,
        7 => false,
        n => return Err(format!("tlv-length {n} is not 6 or 7")),
    };
    Ok(PfcAdmin {
        willing: pick(p.willing, d.willing, base.willing),
        mbc: pick(p.mbc, d.mbc, base.mbc),
        macsec_capable: pick(p.macsec_capable, d.macsec_capable, base.macsec_capable),
        privacy_capable: pick(p.privacy_capable, d.privacy_capable, base.privacy_capable),
        pfc_cap,
        pfc_enable: priorities(
            p.enable.as_ref().or(d.enable.as_ref()).map_or(&[][..], |v| &v[..]),
        )?,
        rtm_hdrm: pick(p.rtm_hdrm, d.rtm_hdrm, base.rtm_hdrm),
        ptp_hdrm: pick(p.ptp_hdrm, d.ptp_hdrm, base.ptp_hdrm),
        legacy_tlv,
    })
}

fn tsa(name: &str) -> Result<Tsa, String> {
    Ok(match name {
        "strict" => Tsa::STRICT,
        "cbs" => Tsa::CREDIT_BASED_SHAPER,
        "ets" => Tsa::ETS,
        "vendor" => Tsa::VENDOR,
        n => Tsa(n
            .parse()
            .map_err(|_| format!("'{n}' is not a TSA: strict, cbs, ets, vendor or 0-255"))?),
    })
}

fn tsas(names: &[String; 8]) -> Result<[Tsa; 8], String> {
    let mut out = [Tsa::ETS; 8];
    for (o, n) in out.iter_mut().zip(names) {
        *o = tsa(n)?;
    }
    Ok(out)
}

fn check_tcs(priority_tc: &[u8; 8]) -> Result<(), String> {
    match priority_tc.iter().find(|tc| **tc > 7) {
        Some(tc) => Err(format!("traffic class {tc} is not 0 to 7")),
        None => Ok(()),
    }
}

fn ets(d: Option<&EtsSection>, p: Option<&EtsSection>) -> Result<EtsAdmin, String> {
    let mut admin = EtsAdmin::default();
    for s in [d, p].into_iter().flatten() {
        let c = &mut admin.config;
        c.willing = s.willing.unwrap_or(c.willing);
        c.cbs = s.cbs.unwrap_or(c.cbs);
        if let Some(n) = s.max_tcs {
            c.max_tcs = match n {
                1..=7 => n,
                8 => 0,
                _ => return Err(format!("max-tcs {n} is not 1 to 8")),
            };
        }
        if let Some(t) = s.priority_tc {
            check_tcs(&t)?;
            c.tables.priority_tc = t;
        }
        if let Some(b) = s.tc_bandwidth {
            c.tables.tc_bandwidth = b;
        }
        if let Some(t) = &s.tsa {
            c.tables.tsa = tsas(t)?;
        }
        if let Some(r) = &s.recommendation {
            check_tcs(&r.priority_tc)?;
            admin.recommendation = Some(EtsTables {
                priority_tc: r.priority_tc,
                tc_bandwidth: r.tc_bandwidth,
                tsa: tsas(&r.tsa)?,
            });
        }
    }
    let sum: u32 = admin.config.tables.tc_bandwidth.iter().map(|b| u32::from(*b)).sum();
    if sum != 100 {
        return Err(format!("ets tc-bandwidth adds up to {sum}, not 100"));
    }
    Ok(admin)
}

fn selector(name: &str) -> Result<AppSelector, String> {
    Ok(match name {
        "ethertype" => AppSelector::ETHERTYPE,
        "tcp-sctp" => AppSelector::TCP_SCTP_PORT,
        "udp-dccp" => AppSelector::UDP_DCCP_PORT,
        "tcp-sctp-udp-dccp" => AppSelector::TCP_SCTP_UDP_DCCP_PORT,
        "dscp" => AppSelector::DSCP,
        n => match n.parse::<u8>() {
            Ok(v) if v <= 7 => AppSelector(v),
            _ => return Err(format!("'{n}' is not an application selector")),
        },
    })
}

fn app(d: Option<&AppSection>, p: Option<&AppSection>) -> Result<AppAdmin, String> {
    let mut admin = AppAdmin::default();
    for s in [d, p].into_iter().flatten() {
        admin.willing = s.willing.unwrap_or(admin.willing);
        if !s.entries.is_empty() {
            admin.entries = s
                .entries
                .iter()
                .map(|e| {
                    if e.priority > 7 {
                        return Err(format!("application priority {} is not 0 to 7", e.priority));
                    }
                    Ok(AppEntry {
                        priority: e.priority,
                        selector: selector(&e.selector)?,
                        protocol: e.protocol,
                    })
                })
                .collect::<Result<_, _>>()?;
        }
    }
    Ok(admin)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Loaded, ConfigError> {
        let dir = std::env::temp_dir().join(format!("pfc-lldp-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join(format!("{}.toml", text.len()));
        std::fs::write(&path, text).expect("write");
        let r = load(Some(&path), &Overrides::default());
        let _ = std::fs::remove_file(&path);
        r
    }

    #[test]
    fn defaults_and_port_overrides() {
        let loaded = parse(
            r#"
            system-name = "sw1"
            local-delay-ns = 1000
            [lldp]
            message-tx-interval = 5
            [pfc]
            willing = true
            enable = [3, 4]
            rtm-hdrm = true
            [[port]]
            name = "eth0"
            [[port]]
            name = "eth1"
            lldp = { message-tx-interval = 1 }
            pfc = { enable = [1], tlv-length = 6 }
            "#,
        )
        .expect("valid");
        assert_eq!(loaded.system_name.as_deref(), Some("sw1"));
        let (n0, p0) = &loaded.ports[0];
        let (n1, p1) = &loaded.ports[1];
        assert_eq!((n0.as_str(), n1.as_str()), ("eth0", "eth1"));
        assert_eq!((p0.lldp.message_tx_interval, p1.lldp.message_tx_interval), (5, 1));
        assert_eq!((p0.dcbx.pfc.pfc_enable, p1.dcbx.pfc.pfc_enable), (0x18, 0x02));
        assert!(p1.dcbx.pfc.willing && p1.dcbx.pfc.rtm_hdrm && p1.dcbx.pfc.legacy_tlv);
        assert_eq!(p0.dcbx.local_delay, Some(TimeInterval::from_nanos(1000)));
        assert_eq!(p0.dcbx.ets, None);
    }

    #[test]
    fn mistakes_are_named() {
        let err = |t: &str| parse(t).map(|_| ()).map_err(|e| e.to_string());
        assert!(err("[[port]]\nname = \"e\"\npfc = { enable = [8] }")
            .is_err_and(|e| e.contains("priority 8")));
        assert!(err("[lldp]\ntx-credit-max = 0\n[[port]]\nname = \"e\"")
            .is_err_and(|e| e.contains("tx-credit-max")));
        assert!(err("bogus = 1").is_err());
        assert!(err("").is_err_and(|e| e.contains("no interface")));
        assert!(err("[ets]\ntc-bandwidth = [50,0,0,0,0,0,0,0]\n[[port]]\nname = \"e\"")
            .is_err_and(|e| e.contains("adds up to 50")));
    }
}
