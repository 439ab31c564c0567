//! The LLDP agent of one port (IEEE 802.1AB-2016 clause 9): the transmit, transmit timer and
//! receive state machines, the port's remote systems data and its statistics.
//!
//! Pure logic: every method takes the current time (`now`, a [`Duration`] since any fixed
//! epoch the caller chooses) and returns an [`Output`] — frames to send and events to report —
//! and [`Agent::next_deadline`] says when to call [`Agent::poll`] next. Sockets, clocks and
//! logs live at the edge (the `pfc-lldp` binary, simulations, tests).
//!
//! Time is a `Duration` rather than the simulator's `Picos` because a daemon runs for longer
//! than the 213 days a `u64` of picoseconds holds; simulations convert with
//! `Duration::from_nanos(picos.as_ns())`.
//!
//! Receive (9.2.7.7): frames to another destination address are another agent's and ignored;
//! a frame [`LldpFrame::parse`] refuses is discarded and counted (total-discarded-frames and
//! error-frames); a malformed optional TLV is counted (total-discarded-tlvs) and the rest of the
//! LLDPDU used; unknown TLVs are counted (total-unrecognized-tlvs) and kept. TTL 0 deletes the
//! neighbour at once; otherwise its information lives TTL seconds unless refreshed. A port
//! that goes down, or whose receiver is disabled, forgets its neighbours.

mod config;
mod stats;
mod tx;

use std::time::Duration;

use pfc_wire::{EthernetHeader, MacAddr, ETHERNET_HEADER_LEN};

pub use config::{AdminStatus, AgentConfig, ConfigError};
pub use stats::{RemoteStatistics, RxStatistics, Statistics, TxStatistics};

use crate::neighbours::{DeleteReason, Msap, NeighbourEvent, Neighbours, UpdateOutcome};
use crate::wire::{self, ChassisId, LldpFrame, Lldpdu, PortId, Tlv};
use tx::{Transmitter, TxAction};

/// The largest LLDPDU sent: the payload of an untagged 1518-octet frame.
pub const MAX_LLDPDU_LEN: usize = 1500;

/// What this port says about itself: the two identifiers and the optional TLVs, in the order
/// they are sent (TTL and End are added by the agent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalInfo {
    pub chassis_id: ChassisId,
    pub port_id: PortId,
    pub tlvs: Vec<Tlv>,
}

/// Something the edge should log or turn into a notification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentEvent {
    Neighbour(NeighbourEvent),
    /// A received LLDPDU was discarded as a whole.
    FrameDiscarded {
        source_mac: Option<MacAddr>,
        error: wire::Error,
    },
    /// `count` optional TLVs of a received LLDPDU were discarded (`error` says why the first
    /// was); the rest was used. One event per LLDPDU, however many TLVs it spoilt.
    TlvDiscarded {
        source_mac: MacAddr,
        count: usize,
        error: wire::Error,
    },
    /// Our LLDPDU was too long for a frame: the last `left_out` optional TLVs were not sent.
    LengthError {
        left_out: usize,
    },
}

/// What one call asks the edge to do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Output {
    /// Whole Ethernet frames (FCS excluded) to send on the port, in order.
    pub frames: Vec<Vec<u8>>,
    pub events: Vec<AgentEvent>,
}

impl Output {
    /// True when the neighbour table changed (DCBX must look again).
    pub fn neighbours_changed(&self) -> bool {
        self.events.iter().any(|e| {
            matches!(e, AgentEvent::Neighbour(ev) if !matches!(ev, NeighbourEvent::Dropped { .. }))
        })
    }

    pub fn extend(&mut self, other: Output) {
        self.frames.extend(other.frames);
        self.events.extend(other.events);
    }
}

/// The LLDP agent of one port and one destination address.
#[derive(Debug, Clone)]
pub struct Agent {
    config: AgentConfig,
    port_mac: MacAddr,
    local: LocalInfo,
    port_enabled: bool,
    tx: Transmitter,
    neighbours: Neighbours,
    stats: Statistics,
}

impl Agent {
    /// An agent for a port whose MAC address is `port_mac`, with the port down until
    /// [`Agent::set_port_enabled`]. Refuses local information that cannot be encoded.
    pub fn new(
        config: AgentConfig,
        port_mac: MacAddr,
        local: LocalInfo,
    ) -> Result<Self, wire::Error> {
        check_local(&local)?;
        Ok(Agent {
            neighbours: Neighbours::new(config.max_neighbours),
            config,
            port_mac,
            local,
            port_enabled: false,
            tx: Transmitter::default(),
            stats: Statistics::default(),
        })
    }

    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    pub fn port_mac(&self) -> MacAddr {
        self.port_mac
    }

    pub fn local(&self) -> &LocalInfo {
        &self.local
    }

    pub fn port_enabled(&self) -> bool {
        self.port_enabled
    }

    pub fn neighbours(&self) -> &Neighbours {
        &self.neighbours
    }

    pub fn statistics(&self) -> &Statistics {
        &self.stats
    }

    /// Transmit credit left (txCredit) and fast transmissions still due (txFast).
    pub fn tx_credit_and_fast(&self) -> (u8, u8) {
        (self.tx.credit(), self.tx.fast())
    }

    fn tx_enabled(&self) -> bool {
        self.port_enabled && self.config.admin_status.tx()
    }

    fn rx_enabled(&self) -> bool {
        self.port_enabled && self.config.admin_status.rx()
    }

    /// The port's operational state (portEnabled) changed.
    pub fn set_port_enabled(&mut self, enabled: bool, now: Duration) -> Output {
        let mut out = Output::default();
        if enabled == self.port_enabled {
            return out;
        }
        self.port_enabled = enabled;
        if !enabled {
            self.forget_neighbours(&mut out);
        }
        self.apply_tx_enabled(true, now, &mut out);
        out
    }

    /// New settings. Losing transmit sends a shutdown LLDPDU; losing receive forgets the
    /// neighbours; a new TTL is a local change.
    pub fn set_config(&mut self, config: AgentConfig, now: Duration) -> Output {
        let mut out = Output::default();
        let old_ttl = self.config.ttl();
        let was_rx = self.rx_enabled();
        self.neighbours.set_capacity(config.max_neighbours);
        self.config = config;
        if was_rx && !self.rx_enabled() {
            self.forget_neighbours(&mut out);
        }
        self.apply_tx_enabled(false, now, &mut out);
        if self.config.ttl() != old_ttl {
            self.tx.local_change(&self.config, now);
        }
        self.run_tx(now, &mut out);
        out
    }

    /// New local information (say the DCBX settings changed): a local change, sent at once
    /// with a fast burst. Refuses information that cannot be encoded.
    pub fn set_local(&mut self, local: LocalInfo, now: Duration) -> Result<Output, wire::Error> {
        let mut out = Output::default();
        if local == self.local {
            return Ok(out);
        }
        check_local(&local)?;
        if self.tx_enabled()
            && (local.chassis_id != self.local.chassis_id || local.port_id != self.local.port_id)
        {
            // New identifiers are a new MSAP to the peers: without a shutdown LLDPDU for the
            // old one they would keep it as a second neighbour until its TTL ran out (and
            // DCBX, seeing two peers, would fall back to the local settings meanwhile).
            let retired = self.shutdown_lldpdu();
            self.push_frame(retired, &mut out);
        }
        self.local = local;
        self.tx.local_change(&self.config, now);
        self.run_tx(now, &mut out);
        Ok(out)
    }

    /// The port's MAC address changed (or the interface was re-created with another): our
    /// LLDPDUs' source address, and what DCBX tie-breaks with, changed. A local change: sent
    /// at once.
    pub fn set_port_mac(&mut self, mac: MacAddr, now: Duration) -> Output {
        let mut out = Output::default();
        if mac == self.port_mac {
            return out;
        }
        self.port_mac = mac;
        self.tx.local_change(&self.config, now);
        self.run_tx(now, &mut out);
        out
    }

    /// Runs the timers up to `now`: neighbours age out, LLDPDUs fall due.
    pub fn poll(&mut self, now: Duration) -> Output {
        let mut out = Output::default();
        for ev in self.neighbours.age(now) {
            self.stats.rx.total_ageouts += 1;
            self.stats.remote.remote_ageouts += 1;
            out.events.push(AgentEvent::Neighbour(ev));
        }
        self.run_tx(now, &mut out);
        out
    }

    /// When [`Agent::poll`] next has something to do.
    pub fn next_deadline(&self) -> Option<Duration> {
        let tx = if self.tx_enabled() || self.tx.next_deadline().is_some() {
            self.tx.next_deadline()
        } else {
            None
        };
        [tx, self.neighbours.next_deadline()].into_iter().flatten().min()
    }

    /// One frame received on the port (an LLDP frame, by EtherType, whatever its content).
    pub fn receive(&mut self, frame: &[u8], now: Duration) -> Output {
        let mut out = Output::default();
        if !self.rx_enabled() {
            return out;
        }
        let source_mac = match EthernetHeader::parse(frame) {
            Ok((header, _)) if header.dst != self.config.dest_mac_address => return out,
            Ok((header, _)) => Some(header.src),
            Err(_) => None,
        };
        self.stats.rx.total_frames += 1;
        let parsed = match LldpFrame::parse(frame) {
            Ok(f) => f,
            Err(error) => {
                self.stats.rx.total_discarded_frames += 1;
                self.stats.rx.error_frames += 1;
                out.events.push(AgentEvent::FrameDiscarded { source_mac, error });
                return out;
            }
        };
        let src = parsed.src;
        self.count_tlvs(src, &parsed.lldpdu, &mut out);
        let pdu = parsed.lldpdu;
        if pdu.is_shutdown() {
            if let Some(ev) = self.neighbours.delete(&Msap::of(&pdu), DeleteReason::Shutdown) {
                self.stats.remote.remote_deletes += 1;
                out.events.push(AgentEvent::Neighbour(ev));
            }
            return out;
        }
        let (outcome, event) = self.neighbours.update(src, pdu, now);
        match outcome {
            UpdateOutcome::Inserted => {
                self.stats.remote.remote_inserts += 1;
                self.tx.fast_start(&self.config, now);
            }
            UpdateOutcome::Dropped => self.stats.remote.remote_drops += 1,
            UpdateOutcome::Updated | UpdateOutcome::Refreshed => {}
        }
        out.events.extend(event.map(AgentEvent::Neighbour));
        self.run_tx(now, &mut out);
        out
    }

    fn count_tlvs(&mut self, source_mac: MacAddr, pdu: &Lldpdu, out: &mut Output) {
        let mut discarded: Option<AgentEvent> = None;
        for tlv in &pdu.tlvs {
            match tlv {
                Tlv::Malformed { error, .. } => {
                    self.stats.rx.total_discarded_tlvs += 1;
                    match &mut discarded {
                        Some(AgentEvent::TlvDiscarded { count, .. }) => *count += 1,
                        _ => {
                            let error = error.clone();
                            discarded =
                                Some(AgentEvent::TlvDiscarded { source_mac, count: 1, error })
                        }
                    }
                }
                Tlv::Unknown(_) | Tlv::Org(_) => self.stats.rx.total_unrecognized_tlvs += 1,
                _ => {}
            }
        }
        out.events.extend(discarded);
    }

    fn forget_neighbours(&mut self, out: &mut Output) {
        for ev in self.neighbours.clear(DeleteReason::PortDisabled) {
            self.stats.remote.remote_deletes += 1;
            out.events.push(AgentEvent::Neighbour(ev));
        }
    }

    /// Tells the transmitter whether it may run; `link_change` is true when the port's state
    /// is what changed (no shutdown LLDPDU then, nor reinitDelay: see `Transmitter`).
    fn apply_tx_enabled(&mut self, link_change: bool, now: Duration, out: &mut Output) {
        let mut actions = Vec::new();
        let port_up = !link_change && self.port_enabled;
        self.tx.set_enabled(self.tx_enabled(), port_up, &self.config, now, &mut actions);
        self.send(actions, out);
    }

    fn run_tx(&mut self, now: Duration, out: &mut Output) {
        let mut actions = Vec::new();
        self.tx.poll(self.tx_enabled(), &self.config, now, &mut actions);
        self.send(actions, out);
    }

    fn send(&mut self, actions: Vec<TxAction>, out: &mut Output) {
        for action in actions {
            let pdu = match action {
                TxAction::Info => self.info_lldpdu(out),
                TxAction::Shutdown => self.shutdown_lldpdu(),
            };
            self.push_frame(pdu, out);
        }
    }

    /// A shutdown LLDPDU (TTL 0) for the identifiers in use.
    fn shutdown_lldpdu(&self) -> Lldpdu {
        Lldpdu::new(self.local.chassis_id.clone(), self.local.port_id.clone(), 0)
    }

    fn push_frame(&mut self, lldpdu: Lldpdu, out: &mut Output) {
        let frame = LldpFrame { dst: self.config.dest_mac_address, src: self.port_mac, lldpdu };
        // check_local made sure the information encodes; this cannot fail.
        if let Ok(bytes) = frame.to_vec() {
            self.stats.tx.total_frames += 1;
            out.frames.push(bytes);
        }
    }

    /// The LLDPDU with our information, optional TLVs left out from the end when it would not
    /// fit a frame (lldpduLengthErrors).
    fn info_lldpdu(&mut self, out: &mut Output) -> Lldpdu {
        let mut pdu = Lldpdu {
            chassis_id: self.local.chassis_id.clone(),
            port_id: self.local.port_id.clone(),
            ttl: self.config.ttl(),
            tlvs: self.local.tlvs.clone(),
        };
        let mut left_out = 0;
        while pdu.buffer_len() > MAX_LLDPDU_LEN && pdu.tlvs.pop().is_some() {
            left_out += 1;
        }
        if left_out > 0 {
            self.stats.tx.total_length_errors += 1;
            out.events.push(AgentEvent::LengthError { left_out });
        }
        pdu
    }
}

/// Checks that the local information encodes (every field fits its bits).
fn check_local(local: &LocalInfo) -> Result<(), wire::Error> {
    let pdu = Lldpdu {
        chassis_id: local.chassis_id.clone(),
        port_id: local.port_id.clone(),
        ttl: 0,
        tlvs: local.tlvs.clone(),
    };
    pdu.to_vec().map(|_| ())
}

const _: () = assert!(ETHERNET_HEADER_LEN + MAX_LLDPDU_LEN == 1514);
// What a receiver accepts is what a sender's frame can hold: TLVs of 2 octets at least.
const _: () = assert!(wire::MAX_TLVS == MAX_LLDPDU_LEN / 2);

#[cfg(test)]
mod tests;
