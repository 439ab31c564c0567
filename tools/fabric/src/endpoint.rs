//! The devices to read: each a name and a way to open a NETCONF session with it.

use std::time::Duration;

use netconf_client::{Auth, Client, ConnectOptions};

use crate::known_hosts::{host_id, KnownHosts};

/// Opens a session with one device; `Err` is one line saying why not.
pub type Connect = Box<dyn Fn() -> Result<Client, String> + Send + Sync>;

/// One device of the fabric.
pub struct Endpoint {
    /// The name the view gives the device.
    pub name: String,
    pub connect: Connect,
}

impl Endpoint {
    pub fn new(
        name: impl Into<String>,
        connect: impl Fn() -> Result<Client, String> + Send + Sync + 'static,
    ) -> Self {
        Endpoint { name: name.into(), connect: Box::new(connect) }
    }

    /// A device reached with these options (host key, credentials, time-out included).
    pub fn with_options(name: impl Into<String>, opts: ConnectOptions) -> Self {
        let id = host_id(&opts.host, opts.port);
        Endpoint::new(name, move || Client::connect(&opts).map_err(|e| explain(&e, &id)))
    }
}

/// `--device NAME=HOST:PORT`, as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceSpec {
    pub name: String,
    pub host: String,
    pub port: u16,
}

impl std::str::FromStr for DeviceSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let usage = || format!("{s:?}: write a device as NAME=HOST:PORT (e.g. leaf1=10.0.0.1:830)");
        let (name, address) = s.split_once('=').ok_or_else(usage)?;
        let (host, port) = address.rsplit_once(':').ok_or_else(usage)?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let port: u16 = port.parse().map_err(|_| usage())?;
        if name.is_empty() || host.is_empty() || port == 0 {
            return Err(usage());
        }
        Ok(DeviceSpec { name: name.into(), host: host.into(), port })
    }
}

/// How every device is logged into and its host key checked.
#[derive(Debug, Clone)]
pub struct Login {
    pub user: String,
    pub auth: Auth,
    pub timeout: Duration,
    /// Pinned host keys; `None` accepts any key (a lab on loopback).
    pub known_hosts: Option<KnownHosts>,
}

impl Login {
    /// The endpoint of `spec`: a device whose host key is not pinned is refused before any
    /// credential is sent, each time it is tried, with what to do about it.
    pub fn endpoint(&self, spec: &DeviceSpec) -> Endpoint {
        let mut opts =
            ConnectOptions::new(spec.host.clone(), spec.port, self.user.clone(), self.auth.clone());
        opts.timeout = self.timeout;
        let id = host_id(&spec.host, spec.port);
        match &self.known_hosts {
            None => Endpoint::with_options(spec.name.clone(), opts),
            Some(known) => match known.pinned(&id) {
                Some(digest) => {
                    opts.host_key_sha256 = Some(digest.to_vec());
                    Endpoint::with_options(spec.name.clone(), opts)
                }
                None => Endpoint::new(spec.name.clone(), move || {
                    Err(format!(
                        "the host key of {id} is not pinned: connect once with pfcsh (which \
                         pins it), or give --accept-any-host-key on a trusted network"
                    ))
                }),
            },
        }
    }
}

/// One line for a failed connection.
fn explain(e: &netconf_client::Error, id: &str) -> String {
    use netconf_client::Error;
    match e {
        Error::HostKey { .. } => format!(
            "the host key of {id} is not the one pinned: refusing to log in (if the change is \
             expected, delete its line in the known_hosts file and pin it again with pfcsh)"
        ),
        Error::Auth { method, .. } => {
            format!("login at {id} refused ({method}): check the user and its password or key")
        }
        Error::Connect { addr, source } => format!("cannot connect to {addr}: {source}"),
        Error::Timeout { stage, after } => {
            format!("{id} did not answer within {}s ({stage})", after.as_secs())
        }
        other => format!("no NETCONF session with {id}: {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_is_name_host_and_port() {
        let d: DeviceSpec = "leaf1=10.0.0.1:830".parse().expect("parses");
        assert_eq!(d, DeviceSpec { name: "leaf1".into(), host: "10.0.0.1".into(), port: 830 });
        let v6: DeviceSpec = "s=[::1]:8830".parse().expect("parses");
        assert_eq!((v6.host.as_str(), v6.port), ("::1", 8830));
        for bad in ["leaf1", "leaf1=10.0.0.1", "=h:830", "a=h:0", "a=h:x", "a=:830"] {
            let err = bad.parse::<DeviceSpec>().expect_err(bad);
            assert!(err.contains("NAME=HOST:PORT"), "{err}");
        }
    }
}
