//! One bridge port: its interface, its PFC receiver (pauses asked of us) and initiator (pauses
//! we ask of the peer), its receive buffer, its frames waiting for the socket, and what it
//! counted.

use std::collections::VecDeque;

use dataplane::headroom::measure::{MeasureConfig, Participant};
use dataplane::headroom::{BufferConfig, BufferPlanError};
use dataplane::mac::{PfcInitiator, PfcReceiver};
use dataplane::time::LinkSpeed;
use dataplane::watchdog::{Watchdog, WatchdogSetup};
use dataplane::wire::{MacAddr, PRIORITIES};

use super::ingress::IngressBuffer;
use super::reaction::ReactionTracker;

/// Measurement results a port keeps.
pub const RESULTS_KEPT: usize = 32;

/// How one port is set up (from the settings file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BridgePortSetup {
    /// The Linux interface.
    pub name: String,
    /// PFC Enable, bit n for priority n (0: PFC off; link pause then applies).
    pub pfc_enable: u8,
    /// Priority of untagged frames.
    pub default_priority: u8,
    /// VLAN of untagged and priority-tagged frames.
    pub pvid: u16,
    /// The headroom allowance, bit times: sizes the lossless buffers (until a measurement
    /// replaces it, with `measure`).
    pub headroom_bits: u64,
    /// Measure the headroom with HMPDUs (36.9, 36.10).
    pub measure: bool,
    /// Put a measurement's result in force here (the tool); pfcd selects the allowance itself
    /// (minimum, maximum, method) and hands it over with `PortControl`.
    pub follow_measurement: bool,
    /// The longest link the port may have, metres: bounds what a measurement may find.
    pub longest_link_metres: u64,
    pub buffer: BufferConfig,
    /// Octets the lossy priorities share.
    pub lossy_pool: u64,
    /// Pause time our PFC frames ask for, and the refresh threshold, in quanta.
    pub pause_quanta: u16,
    pub refresh_quanta: u16,
    /// The traffic class (the pipeline's queue) of each priority on transmit (8.6.6): entry n
    /// for priority n, 0..=7. A pause of priority n holds its whole class, the other
    /// priorities in it too (36.1).
    pub traffic_class: TrafficClasses,
    /// The PFC watchdog's settings (`dataplane::watchdog`): a peer that holds a priority paused
    /// for good does not hold the bridge's buffers with it.
    pub watchdog: WatchdogSetup,
}

/// Priority n's traffic class at index n.
pub type TrafficClasses = [u8; PRIORITIES];

/// Priority n in traffic class n.
pub const IDENTITY_CLASSES: TrafficClasses = [0, 1, 2, 3, 4, 5, 6, 7];

impl BridgePortSetup {
    /// A port with PFC on `pfc_enable` and Annex N's 126 224-bit headroom.
    pub fn new(name: &str, pfc_enable: u8) -> Self {
        BridgePortSetup {
            name: name.to_string(),
            pfc_enable,
            default_priority: 0,
            pvid: 1,
            headroom_bits: 126_224,
            measure: false,
            follow_measurement: true,
            longest_link_metres: dataplane::headroom::measure::DEFAULT_LONGEST_LINK_METRES,
            buffer: BufferConfig::default(),
            lossy_pool: 256 * 1024,
            pause_quanta: 0xffff,
            refresh_quanta: 0x7fff,
            traffic_class: IDENTITY_CLASSES,
            watchdog: WatchdogSetup::default(),
        }
    }
}

impl BridgePortSetup {
    /// The same port with its buffers planned for frames of up to `max_frame` octets (FCS not
    /// included) when its buffer configuration assumes smaller ones: the XOFF overshoot, the
    /// XON hysteresis and the measured headroom's worst case then take the bridge's largest
    /// frame, the one figure the daemon's calculation and checks use too.
    pub fn with_max_frame(mut self, max_frame: u16) -> Self {
        let octets = u64::from(max_frame) + dataplane::time::FCS_OCTETS;
        self.buffer.max_frame_octets = self.buffer.max_frame_octets.max(octets);
        self
    }
}

/// What a port counted. Discards say why, so a test or an operator can tell a bad peer from a
/// full buffer. (The state file shows them by these names.)
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct PortCounters {
    pub rx_frames: u64,
    pub rx_octets: u64,
    pub tx_frames: u64,
    pub tx_octets: u64,
    /// Frames received per priority (data frames only).
    pub rx_per_priority: [u64; PRIORITIES],
    pub tx_per_priority: [u64; PRIORITIES],
    /// PFC frames received and acted on (PFCIndications) and sent (PFCRequests).
    pub pfc_indications: u64,
    pub pfc_requests: u64,
    /// MAC Control frames that did not parse: truncated, unknown opcode, tagged.
    pub bad_mac_control: u64,
    /// PFC frames naming a priority whose PFC is not enabled here (that part ignored).
    pub pfc_to_disabled_priority: u64,
    /// PFC frames while PFC is off on the port, PAUSE while it is on, wrong destination.
    pub mac_control_ignored: u64,
    /// HMPDUs and LLDPDUs (taken by their own agents), other link-local frames (never
    /// forwarded, 802.1Q 8.6.3).
    pub hmpdus: u64,
    pub lldpdus: u64,
    pub link_local: u64,
    /// Frames shorter than an Ethernet header, or longer than the bridge's largest frame
    /// (`max-frame`, a VLAN tag not counted).
    pub malformed: u64,
    pub oversize: u64,
    /// Frames tagged with the reserved VID 4095 (802.1Q Table 9-2): discarded.
    pub reserved_vid: u64,
    /// Frames with nowhere to go (their destination is on the port they came from, or no
    /// other port).
    pub filtered: u64,
    /// Frames dropped by the receive buffer: on a lossless priority (the peer sent past the
    /// headroom) and on a lossy one.
    pub lossless_drops: u64,
    pub lossy_drops: u64,
    /// Frames the socket refused for good (interface gone or down).
    pub tx_errors: u64,
    /// Pauses the pause keeper sent for the bridge while its thread did not run (`keeper.rs`).
    pub keeper_pauses: u64,
    /// Frames the interface dropped after the bridge handed them over (its transmit ring's
    /// frames the driver refused).
    pub tx_kernel_drops: u64,
    /// Frames the kernel dropped before the bridge read them (its socket buffers were full:
    /// the bridge fell behind its ports). Lost whatever their priority.
    pub rx_kernel_drops: u64,
    /// Times the bridge fell behind the port (its socket's receive queue an eighth full) and
    /// asked the peer to pause every PFC priority until it caught up.
    pub behind_xoffs: u64,
    /// Times the link went down or came up (carrier, administrative state, or the interface
    /// gone), as the bridge saw them (`links.rs`).
    pub link_changes: u64,
    /// Frames that were to leave on the port while its link was down: dropped.
    pub link_down_drops: u64,
    /// Times the port's socket was opened again (its interface deleted and created anew).
    pub reopened: u64,
    /// Frames toward the port discarded by the PFC watchdog's `drop` action (a storm).
    pub watchdog_drops: u64,
    /// Frames toward the port discarded because they had been in the bridge longer than the
    /// maximum bridge transit delay (802.1Q 6.5.6).
    pub transit_drops: u64,
    /// 802.3x PAUSE frames ignored because the port is set to ignore them.
    pub link_pause_ignored: u64,
}

/// One port of the running bridge.
pub struct BridgePort<P> {
    pub setup: BridgePortSetup,
    pub io: P,
    pub mac: MacAddr,
    pub receiver: PfcReceiver,
    pub initiator: PfcInitiator,
    pub ingress: IngressBuffer,
    /// Frames (store handles) the pipeline sent that the socket has not taken yet, in order.
    pub tx_backlog: VecDeque<u32>,
    pub reaction: ReactionTracker,
    pub counters: PortCounters,
    /// The headroom measurement participant (with `measure`).
    pub measure: Option<Participant>,
    /// Measurements started (a participant made afresh): results are of the latest.
    pub measure_generation: u64,
    /// The measurement's results, oldest first (the last [`RESULTS_KEPT`]).
    pub results: VecDeque<dataplane::headroom::measure::Measurement>,
    /// The allowance in force, bit times, and whether it was measured.
    pub headroom_bits: u64,
    pub headroom_measured: bool,
    pub speed: LinkSpeed,
    /// The interface is up with carrier and the socket is bound to it (`links.rs` follows it).
    pub link_up: bool,
    /// A new priority to traffic class mapping, taken once nothing waits for the port (a
    /// frame queued in its old class could otherwise leave after a later one of its priority).
    pub pending_traffic_class: Option<TrafficClasses>,
    /// From an HMPDU's timestamp to the driver, as transmit timestamps show it.
    pub handover: super::handover::Handover,
    /// The bridge has fallen behind the port: frames wait in the kernel's receive queue, where
    /// no buffer of ours counts them, and would be dropped there when it is full.
    pub behind: bool,
    /// The frame at the front of the receive ring waits for room in its lossless priority's
    /// allocation: the ring is not read (nor waited for) until frames leave.
    pub rx_held: bool,
    /// The port's receive ring's slots, as last looked at (0: frames come through the
    /// socket's queue).
    pub rx_ring_slots: usize,
    /// Frames leave through a transmit ring (`AF_XDP`) rather than the socket alone.
    pub tx_ring: bool,
    /// The PFC watchdog of the port's transmit side.
    pub watchdog: Watchdog,
    /// Watchdog settings to take at the loop's next turn (they need its clock).
    pub pending_watchdog: Option<WatchdogSetup>,
    /// When each watchdog class's last storm was found and ended, Unix nanoseconds (kept on
    /// the wall clock: the bridge's own time starts again now and then, `epoch.rs`).
    pub storm_times: [(Option<u64>, Option<u64>); dataplane::watchdog::CLASSES],
    /// How long each priority has been paused without a break.
    pub long_pauses: super::long_pause::LongPauses,
}

impl<P> BridgePort<P> {
    pub fn new(
        setup: BridgePortSetup,
        io: P,
        mac: MacAddr,
        speed: LinkSpeed,
    ) -> Result<Self, PortError> {
        let ingress = IngressBuffer::new(
            setup.pfc_enable,
            setup.headroom_bits,
            &setup.buffer,
            setup.lossy_pool,
        )
        .map_err(PortError::Buffer)?;
        let measure = if setup.measure {
            Some(participant(speed, mac, setup.longest_link_metres)?)
        } else {
            None
        };
        let initiator = PfcInitiator::new(speed, mac, setup.pfc_enable)
            .with_quanta(setup.pause_quanta, setup.refresh_quanta);
        Ok(BridgePort {
            receiver: PfcReceiver::new(speed, mac, setup.pfc_enable),
            initiator,
            ingress,
            tx_backlog: VecDeque::new(),
            reaction: ReactionTracker::default(),
            counters: PortCounters::default(),
            measure_generation: u64::from(measure.is_some()),
            measure,
            results: VecDeque::new(),
            headroom_bits: setup.headroom_bits,
            headroom_measured: false,
            speed,
            pending_traffic_class: None,
            behind: false,
            rx_held: false,
            rx_ring_slots: 0,
            tx_ring: false,
            handover: Default::default(),
            link_up: true,
            watchdog: Watchdog::new(setup.watchdog.classes),
            pending_watchdog: None,
            storm_times: Default::default(),
            long_pauses: Default::default(),
            setup,
            io,
            mac,
        })
    }
}

/// Why a port cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum PortError {
    #[error(transparent)]
    Buffer(BufferPlanError),
    #[error("headroom measurement: {0}")]
    Measure(dataplane::headroom::measure::MeasureError),
    #[error("traffic class {class} of priority {priority} is not one of the port's 8 (0 to 7)")]
    TrafficClass { priority: usize, class: u8 },
}

/// Every class one of the pipeline's eight.
pub fn check_classes(classes: &TrafficClasses) -> Result<(), PortError> {
    match classes.iter().position(|c| usize::from(*c) >= PRIORITIES) {
        Some(priority) => Err(PortError::TrafficClass { priority, class: classes[priority] }),
        None => Ok(()),
    }
}

impl<P> BridgePort<P> {
    /// The priorities the port asks its peer to pause: those past XOFF in its buffer, and
    /// every PFC priority while the bridge is behind the port.
    pub fn xoff(&self) -> u8 {
        self.ingress.xoff() | if self.behind { self.setup.pfc_enable } else { 0 }
    }

    /// Follows how full the port's receive queue is (octets `held` of `limit`): behind from an
    /// eighth full, caught up below a thirty-second. The seven eighths left hold what the peer
    /// sends before our XOFF takes hold. Returns whether the port just fell behind.
    pub fn follow_receive_queue(&mut self, held: u64, limit: u64) -> bool {
        let was = self.behind;
        self.behind = if was { held * 32 > limit } else { held * 8 >= limit };
        if self.behind && !was {
            self.counters.behind_xoffs += 1;
        }
        self.behind && !was
    }

    /// Follows how full the port's receive ring of `slots` is (`holds_at_least(n)`: at least
    /// `n` frames wait in it), with the same thresholds as the socket's queue: behind from an
    /// eighth full, caught up below a thirty-second. The seven eighths left hold what the peer
    /// sends until our XOFF takes hold. Returns whether the port just fell behind.
    pub fn follow_ring(&mut self, holds_at_least: impl Fn(usize) -> bool, slots: usize) -> bool {
        let was = self.behind;
        self.behind = if was {
            holds_at_least(slots / 32 + 1)
        } else {
            holds_at_least(slots.div_ceil(8).max(1))
        };
        if self.behind && !was {
            self.counters.behind_xoffs += 1;
        }
        self.behind && !was
    }

    /// Tells the port's pause keeper that the loop runs a turn, and what it pauses when
    /// behind.
    pub fn keeper_turn(&self)
    where
        P: super::BridgeIo,
    {
        let quanta = self.setup.pause_quanta;
        let pause = self.speed.quanta(u64::from(quanta));
        let pause = std::time::Duration::from_nanos(pause.as_ps() / 1_000);
        self.io.keeper_turn(self.setup.pfc_enable, quanta, pause);
    }

    /// Priority `n`'s traffic class.
    pub fn class_of(&self, n: usize) -> usize {
        usize::from(self.setup.traffic_class[n % PRIORITIES])
    }

    /// The priorities whose frames may not start now: those the peer pauses, and every other
    /// priority of a paused one's traffic class (its queue is held, 36.1).
    /// A priority the watchdog found stormed (with `drop` or `forward`) is not held.
    pub fn stopped(&self, now: dataplane::time::Picos) -> u8 {
        self.with_classmates(self.receiver.paused_vector(now) & self.watchdog.honoured())
    }

    /// `priorities` and every priority that shares a traffic class with one of them.
    pub fn with_classmates(&self, priorities: u8) -> u8 {
        let classes = (0..PRIORITIES)
            .filter(|n| priorities & (1 << n) != 0)
            .fold(0u8, |m, n| m | (1 << self.class_of(n)));
        (0..PRIORITIES)
            .filter(|n| classes & (1 << self.class_of(*n)) != 0)
            .fold(0, |m, n| m | (1 << n))
    }

    /// Per traffic class, how long its pause has left (the longest of its priorities'), in
    /// quanta at the port's speed, 0 when not paused: what the pipeline's classes are given.
    /// A priority whose pauses the watchdog ignores gives none, nor one paused without a break
    /// for longer than `max_transit`: its frames then wait on the port's transmit queue, held
    /// there while the pause lasts, where those older than `max_transit` are discarded.
    pub fn class_pauses(
        &self,
        now: dataplane::time::Picos,
        max_transit: dataplane::time::Picos,
    ) -> [u16; PRIORITIES] {
        let quantum = self.speed.quanta(1).as_ps().max(1);
        let mut times = [0u16; PRIORITIES];
        let held = |n: &usize| {
            self.watchdog.honours_pause(*n) && !self.long_pauses.outlasted(*n, now, max_transit)
        };
        for n in (0..PRIORITIES).filter(held) {
            let left = self.receiver.paused_until(n).as_ps().saturating_sub(now.as_ps());
            let quanta = u16::try_from(left.div_ceil(quantum)).unwrap_or(u16::MAX);
            let class = &mut times[self.class_of(n)];
            *class = (*class).max(quanta);
        }
        times
    }
}

impl<P> BridgePort<P> {
    /// Puts a measured round trip in force: round trip × 512 + one maximum frame (WD), and the
    /// lossless buffers re-planned for it. Returns whether the allowance changed.
    pub fn follow_measurement(&mut self) -> bool {
        if !self.setup.follow_measurement {
            return false;
        }
        let Some(result) = self.measure.as_ref().and_then(|m| m.headroom(&self.worst_case()))
        else {
            return false;
        };
        let Ok(headroom) = result else { return false };
        if self.headroom_measured && headroom.bits == self.headroom_bits {
            return false;
        }
        match self.ingress.replan(self.setup.pfc_enable, headroom.bits, &self.setup.buffer) {
            Ok(()) => {
                self.headroom_bits = headroom.bits;
                self.headroom_measured = true;
                true
            }
            Err(e) => {
                tracing::warn!(port = %self.setup.name, error = %e, "measured headroom not put in force");
                false
            }
        }
    }

    fn worst_case(&self) -> dataplane::headroom::WorstCase {
        dataplane::headroom::WorstCase { max_frame_octets: self.setup.buffer.max_frame_octets }
    }
}

/// A measurement participant for a port, measuring from now on. Eight results: the estimate
/// is the lower median of eight, so one late reading of the software timestamps does not move
/// it.
fn participant(speed: LinkSpeed, mac: MacAddr, longest: u64) -> Result<Participant, PortError> {
    let cfg = MeasureConfig {
        results_wanted: dataplane::headroom::measure::ESTIMATE_WINDOW as u32,
        ..MeasureConfig::for_link(speed, mac, longest)
    };
    let mut participant = Participant::new(cfg).map_err(PortError::Measure)?;
    participant.begin();
    participant.set_oper_up(true);
    Ok(participant)
}

/// What pfcd asks of a port while it runs (from its configuration).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortControl {
    /// Operational PFC Enable.
    pub pfc_enable: u8,
    /// The headroom allowance in force, bit times.
    pub headroom_bits: u64,
    /// Run the measurement protocol (its results are in the state; pfcd selects from them).
    pub measure: bool,
    /// Priority to traffic class on transmit.
    pub traffic_class: TrafficClasses,
    /// The PFC watchdog's settings.
    pub watchdog: WatchdogSetup,
    /// Each priority's receive buffer allocation, octets, where one was configured; else the
    /// port's buffer settings decide (twice the allowance by default).
    pub allocations: [Option<u64>; PRIORITIES],
}

impl<P> BridgePort<P> {
    /// Takes a new configuration: PFC Enable on both MAC halves, buffers re-planned (what is
    /// stored stays), the measurement started or stopped. From then on the allowance is the
    /// one given, not a measurement's own.
    pub fn reconfigure(&mut self, c: PortControl, speed: LinkSpeed) -> Result<(), PortError> {
        check_classes(&c.traffic_class)?;
        self.pending_traffic_class =
            (c.traffic_class != self.setup.traffic_class).then_some(c.traffic_class);
        self.ingress
            .reconfigure(c.pfc_enable, c.headroom_bits, c.allocations, &self.setup.buffer)
            .map_err(PortError::Buffer)?;
        self.setup.pfc_enable = c.pfc_enable;
        self.receiver.set_pfc_enable(c.pfc_enable);
        self.initiator.set_pfc_enable(c.pfc_enable);
        self.headroom_bits = c.headroom_bits;
        self.headroom_measured = false;
        self.setup.follow_measurement = false;
        match (c.measure, self.measure.is_some()) {
            (true, false) => {
                self.measure = Some(participant(speed, self.mac, self.setup.longest_link_metres)?);
                self.measure_generation += 1;
            }
            (false, true) => self.measure = None,
            _ => {}
        }
        self.setup.measure = c.measure;
        if !c.measure {
            self.results.clear();
        }
        if c.watchdog != self.setup.watchdog {
            self.setup.watchdog = c.watchdog;
            self.pending_watchdog = Some(c.watchdog);
        }
        Ok(())
    }

    /// The port's link speed (what its MAC halves time pauses with).
    pub fn initiator_speed(&self) -> LinkSpeed {
        self.speed
    }

    /// Measures again from scratch (the measure-headroom RPC).
    pub fn remeasure(&mut self, speed: LinkSpeed) -> Result<(), PortError> {
        if self.measure.is_some() {
            self.measure = Some(participant(speed, self.mac, self.setup.longest_link_metres)?);
            self.results.clear();
            self.measure_generation += 1;
        }
        Ok(())
    }
}

impl<P> BridgePort<P> {
    /// The interface has a new MAC address (created anew, or given another): the PFC
    /// receiver (which accepts PFC sent to it), the initiator (the source of our PFC frames)
    /// and the measurement participant (the source of our HMPDUs) take the address when they
    /// are made, so they are made again with it. Their counters are kept; the pause timers
    /// start from nothing, as on a new link (the engine keeps its own copy of the pauses in
    /// force until they end), and the measurement starts again (a new generation).
    pub fn readdress(&mut self, mac: MacAddr) -> Result<(), PortError> {
        let measure = match &self.measure {
            Some(old) => {
                let mut m = participant(self.speed, mac, self.setup.longest_link_metres)?;
                m.set_oper_up(old.oper_up());
                Some(m)
            }
            None => None,
        };
        let received = std::mem::take(&mut self.receiver.counters);
        self.receiver = PfcReceiver::new(self.speed, mac, self.setup.pfc_enable);
        self.receiver.counters = received;
        let sent = std::mem::take(&mut self.initiator.counters);
        self.initiator = PfcInitiator::new(self.speed, mac, self.setup.pfc_enable)
            .with_quanta(self.setup.pause_quanta, self.setup.refresh_quanta);
        self.initiator.counters = sent;
        if measure.is_some() {
            self.measure = measure;
            self.results.clear();
            self.measure_generation += 1;
        }
        self.mac = mac;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dataplane::time::Picos;
    use dataplane::wire::{MacControl, PfcFrame};

    fn port(classes: TrafficClasses) -> BridgePort<()> {
        let setup = BridgePortSetup { traffic_class: classes, ..BridgePortSetup::new("p", 1 << 3) };
        BridgePort::new(setup, (), MacAddr([2, 0, 0, 0, 0, 1]), LinkSpeed::G10).expect("port")
    }

    fn pfc(p: &mut BridgePort<()>, now: Picos, quanta: u16) {
        let frame = MacControl::Pfc(PfcFrame::pause(MacAddr([2, 0, 0, 0, 0, 2]), 1 << 3, quanta));
        p.receiver.receive(now, &frame, Picos::ZERO);
    }

    #[test]
    fn a_paused_priority_stops_its_whole_class_for_its_time() {
        let mut p = port([0, 1, 2, 3, 3, 5, 6, 7]);
        assert_eq!(p.with_classmates(1 << 3), 0b0001_1000);
        let now = Picos::from_ns(1_000);
        pfc(&mut p, now, 100);
        assert_eq!(p.stopped(now), 0b0001_1000, "3 and 4, one class");
        let transit = Picos::from_ms(1_000);
        let times = p.class_pauses(now, transit);
        assert_eq!(times[3], 100);
        assert_eq!(times.iter().filter(|t| **t != 0).count(), 1);
        // Half the time later half is left; XON ends it.
        assert_eq!(p.class_pauses(now + LinkSpeed::G10.quanta(50), transit)[3], 50);
        pfc(&mut p, now, 0);
        assert_eq!((p.stopped(now), p.class_pauses(now, transit)[3]), (0, 0));
    }

    #[test]
    fn a_pause_past_the_maximum_transit_delay_stops_the_wire_but_no_longer_the_pipeline() {
        let mut p = port([0, 1, 2, 3, 4, 5, 6, 7]);
        let transit = Picos::from_ms(100);
        // Refreshed every 2 ms for 120 ms (65 535 quanta last 3.4 ms at 10G).
        let mut now = Picos::ZERO;
        while now < Picos::from_ms(120) {
            pfc(&mut p, now, u16::MAX);
            p.long_pauses.note(3, now, p.receiver.paused_until(3));
            now += Picos::from_ms(2);
        }
        assert_eq!(p.stopped(now), 1 << 3, "the wire still stops priority 3");
        assert_eq!(p.class_pauses(now, transit)[3], 0, "the pipeline holds it no longer");
        assert!(p.class_pauses(now, Picos::from_ms(1_000))[3] > 0, "within a longer delay");
    }

    #[test]
    fn a_port_the_bridge_falls_behind_pauses_every_pfc_priority_until_it_catches_up() {
        let mut p = port(IDENTITY_CLASSES);
        let limit = 8 << 20;
        assert!(!p.follow_receive_queue(limit / 9, limit));
        assert_eq!(p.xoff(), 0);
        assert!(p.follow_receive_queue(limit / 8, limit), "an eighth full: behind");
        assert_eq!(p.xoff(), 1 << 3, "PFC priority 3 paused");
        assert!(!p.follow_receive_queue(limit / 16, limit), "still behind, not again");
        assert_eq!(p.xoff(), 1 << 3);
        p.follow_receive_queue(limit / 32, limit);
        assert_eq!(p.xoff(), 0, "caught up");
        assert_eq!(p.counters.behind_xoffs, 1);
    }

    #[test]
    fn a_ring_an_eighth_full_pauses_every_pfc_priority_until_under_a_thirty_second() {
        let mut p = port(IDENTITY_CLASSES);
        let slots = 8192;
        let waiting = |n: usize| move |k: usize| k <= n;
        assert!(!p.follow_ring(waiting(1023), slots), "one frame short of an eighth");
        assert_eq!(p.xoff(), 0);
        assert!(p.follow_ring(waiting(1024), slots), "an eighth: behind");
        assert_eq!(p.xoff(), 1 << 3, "PFC priority 3 paused");
        assert!(!p.follow_ring(waiting(257), slots), "above a thirty-second: still behind");
        assert_eq!(p.xoff(), 1 << 3);
        p.follow_ring(waiting(256), slots);
        assert_eq!(p.xoff(), 0, "a thirty-second: caught up");
        assert_eq!(p.counters.behind_xoffs, 1);
    }

    #[test]
    fn with_its_own_class_a_priority_stops_alone() {
        let mut p = port(IDENTITY_CLASSES);
        let now = Picos::from_ns(1_000);
        pfc(&mut p, now, 100);
        assert_eq!(p.stopped(now), 1 << 3);
        assert!(check_classes(&[0, 1, 2, 3, 4, 5, 6, 8]).is_err());
    }
}
