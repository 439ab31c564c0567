//! Runs the NETCONF server until interrupted, for trying it by hand:
//!
//! ```text
//! cargo run -p mgmt --example serve -- STATE_DIR [PORT]
//! ssh -p PORT -s alice@127.0.0.1 netconf
//! ```
//!
//! STATE_DIR must hold a `users` file (see `mgmt::users`); the host key is created there.

use std::time::Duration;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let state_dir = args.next().ok_or("usage: serve STATE_DIR [PORT]")?;
    let port: u16 = args.next().map(|p| p.parse()).transpose()?.unwrap_or(8300);
    let config = mgmt::config::Config {
        listen: std::net::SocketAddr::from(([127, 0, 0, 1], port)),
        state_dir: state_dir.into(),
        auth_rejection_time: Duration::from_millis(500),
        ..Default::default()
    };
    let server = mgmt::ssh::Server::start(config).await?;
    println!("NETCONF over SSH on {}; Ctrl-C stops", server.local_addr());
    tokio::signal::ctrl_c().await?;
    server.shutdown().await;
    Ok(())
}
