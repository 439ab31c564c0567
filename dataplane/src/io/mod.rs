//! Ports: where frames leave and enter a station. The protocol code (LLDP agents, the PFC MAC,
//! the headroom measurement protocol) is pure and never sees which kind of port it runs on:
//!
//! - [`PacketSocket`]: a real interface, through an `AF_PACKET` socket bound to it for one
//!   EtherType — LLDP (88-CC, group 01-80-C2-00-00-0E), MAC Control for PFC (88-08) or HMPDUs
//!   (89-A2, both to 01-80-C2-00-00-01) — with the group addresses it needs joined;
//! - [`RawPort`]: a real interface for every frame (`ETH_P_ALL`), VLAN tags as on the wire, in
//!   batches: what a bridge port, the traffic tool and the delay line use;
//! - [`SimPort`]: one end of a simulated link ([`crate::sim::SimLink`] in each direction), in
//!   simulated time;
//! - [`link`]: whether an interface is up, and a netlink watcher that says when that may have
//!   changed; [`FollowedLink`]: one interface followed by whoever holds a socket on it (link
//!   down and up, the interface made anew, a new address).

mod af_packet;
mod followed_link;
pub mod link;
mod packet;
mod raw;
mod sim_port;
mod stale_down;

use crate::wire::MacAddr;

pub use followed_link::{FollowedLink, Look, Seen};
pub use packet::PacketSocket;
pub use raw::{RawCounters, RawOptions, RawPort, RxBatch, MAX_BATCH};
pub use sim_port::{SimClock, SimPort};

/// Why a port could not be opened or used.
#[derive(Debug, thiserror::Error)]
pub enum IoError {
    #[error("interface {0} does not exist (check `ip link`)")]
    NoSuchInterface(String),
    #[error("{op} on {interface}: {source}")]
    Os {
        op: &'static str,
        interface: String,
        #[source]
        source: std::io::Error,
    },
}

/// A port frames are sent and received on, whatever is behind it.
pub trait FramePort {
    /// The interface name.
    fn name(&self) -> &str;
    /// The port's own MAC address (the source address of what it sends).
    fn mac(&self) -> MacAddr;
    /// Sends one whole Ethernet frame (FCS excluded).
    fn send(&mut self, frame: &[u8]) -> Result<(), IoError>;
    /// Takes the next received frame into `buf`; `Ok(None)` when none is waiting.
    fn recv(&mut self, buf: &mut [u8]) -> Result<Option<usize>, IoError>;
}
