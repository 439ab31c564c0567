//! dataplane: Priority-based Flow Control and the forwarding pipeline, free of YANG and NETCONF.
//!
//! - [`wire`]: every frame the data plane sends or receives (Ethernet/802.1Q, PFC, PAUSE, HMPDU),
//!   exact to the octet, each field's octets named once and never panicking on input; the
//!   Ethernet header, MAC addresses and EtherTypes are the shared `pfc-wire` crate's.
//! - [`time`]: picosecond simulated time, link speeds, pause quanta, frame wire times.
//! - [`mac`]: the PFC MAC: receiver timers, initiator (XOFF, refresh, XON), link pause, counters.
//! - [`credit`]: InfiniBand-style credit-based link-level flow control (FCTBS, ABR, FCCL), as pure
//!   transmitter and receiver state machines.
//! - [`headroom`]: PFC headroom by link delays or measurement, with a readable breakdown; the
//!   effective allowance and its source; buffer allocation and XOFF/XON thresholds.
//! - [`io`]: ports — `AF_PACKET` sockets on real interfaces, simulated links — behind one trait.
//! - [`pcap`]: a pcap writer so emitted frames can be inspected in Wireshark.
//! - [`pipeline`]: QMAN → QMI → BMI → NTI → MAC with the external-memory pause mechanism (and `stall`/`fifo` for comparison).
//! - [`watchdog`]: the PFC watchdog: a class held paused for good while frames wait is found
//!   within the detection time, dropped or forwarded, and restored once the pauses stop.
//! - [`sim`]: deterministic randomness, events, simulated links, ingress buffers, two-station runs.

pub mod credit;
pub mod headroom;
pub mod io;
pub mod mac;
pub mod pcap;
pub mod pipeline;
pub mod sim;
pub mod time;
pub mod watchdog;
pub mod wire;
