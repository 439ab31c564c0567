//! dataplane: Priority-based Flow Control and the forwarding pipeline, free of YANG and NETCONF.
//!
//! - [`wire`]: every frame the data plane sends or receives (Ethernet/802.1Q, PFC, PAUSE, HMPDU),
//!   exact to the octet, parsed with nom and never panicking on input.
//! - [`time`]: picosecond simulated time, link speeds, pause quanta, frame wire times.
//! - [`mac`]: the PFC MAC: receiver timers, initiator (XOFF, refresh, XON), link pause, counters.
//! - [`pcap`]: a pcap writer so emitted frames can be inspected in Wireshark.
//! - [`sim`]: deterministic randomness, events, simulated links, ingress buffers, two-station runs.

pub mod mac;
pub mod pcap;
pub mod sim;
pub mod time;
pub mod wire;
