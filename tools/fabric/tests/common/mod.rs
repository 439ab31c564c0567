//! What the fabric view's tests against pfcd on veth share.

use std::sync::Arc;

use netconf_client::{Auth, Client, ConnectOptions};
use pfc_fabric::Endpoint;
use test_support::netns::{in_netns, Netns};
use test_support::pfcd::Pfcd;
use test_support::Scratch;

/// Device `name`, pfcd listening on its namespace's loopback, reached inside the namespace
/// (which lives as long as the collector).
pub fn endpoint(name: &str, ns: &Arc<Netns>, pfcd: &Pfcd, scratch: &Scratch) -> Endpoint {
    let password = std::fs::read_to_string(scratch.path("state/admin.password"))
        .expect("pfcd's password")
        .trim()
        .to_string();
    let opts = ConnectOptions::new("127.0.0.1", pfcd.port(), "admin", Auth::Password(password));
    let ns = ns.clone();
    Endpoint::new(name, move || {
        in_netns(&ns, || Client::connect(&opts)).map_err(|e| format!("no session: {e}"))
    })
}
