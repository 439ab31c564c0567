//! What pfcd prints on stdout at every start: where it listens, who may log in and where the
//! password is, an ssh command and an ncclient snippet; then `pfcd ready`, once it accepts
//! connections (scripts and tests wait for that line).

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::Path;

use super::credentials::Admin;
use crate::ports::set::PortSet;
use crate::settings::{Ports, Settings};

pub fn print(addr: SocketAddr, settings: &Settings, admin: &Admin, set: &dyn PortSet) {
    let user = &settings.admin_user;
    let (host, port) = (addr.ip(), addr.port());
    let ports: Vec<&str> = set.ports().iter().map(|p| p.name.as_str()).collect();
    let mut text = match settings.ports {
        Ports::Lab => format!(
            "pfcd: NETCONF over SSH on {addr}; the embedded lab runs ports {} at {} simulated \
             seconds per second\n",
            ports.join(", "),
            settings.lab.time_ratio
        ),
        Ports::Interfaces => format!(
            "pfcd: NETCONF over SSH on {addr}; bridging interfaces {} at {}\n",
            ports.join(", "),
            settings.interfaces.speed.as_deref().unwrap_or("the speed they report")
        ),
    };
    match admin {
        Admin::Created { password_file } | Admin::Existing { password_file } => {
            let file = absolute(password_file);
            let made = if matches!(admin, Admin::Created { .. }) { " (made now)" } else { "" };
            text.push_str(&format!(
                "  administrator: {user}{made}; password in {file} (mode 0600)\n\
                 \x20 connect:  ssh -p {port} {user}@{host} -s netconf     (password: cat {file})\n\
                 \x20 ncclient: python3 -c \"from ncclient import manager; \
                 m = manager.connect(host='{host}', port={port}, username='{user}', \
                 password=open('{file}').read().strip(), hostkey_verify=False); \
                 print(m.get(('subtree', '<interfaces xmlns=\\\"urn:ietf:params:xml:ns:yang:ietf-interfaces\\\"/>')))\"\n"
            ));
        }
        Admin::Managed => text.push_str(&format!(
            "  users: {} (managed by you; pfcd made no password)\n\
             \x20 connect:  ssh -p {port} USER@{host} -s netconf\n",
            absolute(&settings.users_path())
        )),
    }
    text.push_str(&format!("pfcd ready on {addr}\n"));
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

fn absolute(path: &Path) -> String {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()).display().to_string()
}
