//! Two headroom measurement participants on a simulated link (36.9, 36.10): HMPDUs travel as real
//! bytes (`Hmpdu::to_vec` out, `Hmpdu::parse` in), over [`SimLink`]s with the same interface
//! delays and cable as [`TwoStation`](super::TwoStation), so what is measured here is the round
//! trip PFC has there.
//!
//! Each station's HMPDUs wait a random time for the wire (a frame in progress, a closed
//! transmission gate), and responses are handed over a random time after their request arrived:
//! the Request and Response Adjustments account for both (36.9.4). The draft bounds them: each
//! adjustment is a 16-bit signed count of quanta (36.9.4), a responder may leave out one of
//! magnitude 4 or less (36.9.6), and a participant should not delay a transmission longer than
//! its peer's maximum acceptable round trip (36.9.6). The waits are drawn within those bounds.
//!
//! Faults can be injected per station: losing its first HMPDUs, random loss, duplication,
//! reordering (a frame held back behind the next), garbage in place of HMPDUs, and silence.

use std::collections::VecDeque;

use super::{EventQueue, LinkFrame, Medium, SimLink, SimRng, StationDelays, TwoStationConfig};
use crate::headroom::measure::{
    Interface, MeasureConfig, MeasureCounters, MeasureError, Measurement, Participant,
};
use crate::time::{LinkSpeed, Picos};
use crate::wire::{Hmpdu, HmpduTuple, MacAddr, PathCode, MIN_FRAME_LEN};

/// One of the two stations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Station {
    A,
    B,
}

impl Station {
    fn index(self) -> usize {
        match self {
            Station::A => 0,
            Station::B => 1,
        }
    }

    fn peer(self) -> Station {
        match self {
            Station::A => Station::B,
            Station::B => Station::A,
        }
    }

    fn address(self) -> MacAddr {
        match self {
            Station::A => MacAddr([0x02, 0, 0, 0, 0, 0x0a]),
            Station::B => MacAddr([0x02, 0, 0, 0, 0, 0x0b]),
        }
    }
}

/// Link faults on one station's outgoing HMPDUs, in parts per million.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Faults {
    pub loss_ppm: u32,
    pub duplicate_ppm: u32,
    /// The frame is held back and sent after the next one, if that follows within two HMPDU
    /// frame times (otherwise it goes then, a little late).
    pub reorder_ppm: u32,
    /// The frame is replaced by garbage (random bytes, a truncated HMPDU, a Congestion Isolation
    /// Message, a response to no request, or an HMPDU for another path).
    pub garbage_ppm: u32,
}

/// How one station behaves.
#[derive(Debug, Clone, Copy)]
pub struct StationSetup {
    /// When hmOperUp becomes TRUE. Before that it discards what it receives.
    pub ready_at: Picos,
    /// Its first HMPDUs sent are lost on the link.
    pub lose_first: u32,
    /// Sends nothing at all: a peer that never answers.
    pub silent: bool,
    pub faults: Faults,
    /// Changes to its protocol configuration (combining, omission, limits, results wanted).
    pub configure: fn(&mut MeasureConfig),
    /// Its `n`th HMPDU carrying a response (1-based) is held this long after it was handed over
    /// before it goes on the wire, without its Response Adjustment knowing: a response stuck
    /// somewhere. Other HMPDUs are not held up behind it.
    pub hold_response: Option<(u32, Picos)>,
}

impl Default for StationSetup {
    fn default() -> Self {
        StationSetup {
            ready_at: Picos::ZERO,
            lose_first: 0,
            silent: false,
            faults: Faults::default(),
            configure: |_| {},
            hold_response: None,
        }
    }
}

/// A measurement run.
#[derive(Debug, Clone, Copy)]
pub struct MeasurePairConfig {
    pub speed: LinkSpeed,
    pub link_metres: u64,
    pub medium: Medium,
    /// The same station delays as [`TwoStationConfig`]: they set both the path and each
    /// station's allowances (PFC generation as requester, pause entry as responder).
    pub delays: StationDelays,
    pub path: PathCode,
    pub a: StationSetup,
    pub b: StationSetup,
    /// Most an HMPDU waits between being handed over and its first bit on the wire.
    pub wire_wait_max: Picos,
    /// Most a response waits after its request arrived before it is handed over.
    pub response_wait_max: Picos,
    /// Fixed time from an HMPDU's last bit to its processing, known to both stations.
    pub receive_fixed: Picos,
    /// One SecY's delay, transmit or receive: an HMPDU sent through a SecY's Controlled Port
    /// passes the sender's transmit SecY and the receiver's receive SecY, so it arrives twice
    /// this later. Zero models no MACsec.
    pub secy_delay: Picos,
    pub seed: u64,
    /// The run stops at this time, or earlier when nothing is left to happen.
    pub duration: Picos,
}

impl MeasurePairConfig {
    /// The link of a two-station run, with no waits, no faults and both stations ready at 0.
    pub fn for_stations(stations: &TwoStationConfig, seed: u64) -> Self {
        MeasurePairConfig {
            speed: stations.speed,
            link_metres: stations.link_metres,
            medium: stations.medium,
            delays: stations.delays,
            path: PathCode::Unprotected,
            a: StationSetup::default(),
            b: StationSetup::default(),
            wire_wait_max: Picos::ZERO,
            response_wait_max: Picos::ZERO,
            receive_fixed: Picos::ZERO,
            secy_delay: Picos::ZERO,
            seed,
            duration: Picos::from_ms(1_000),
        }
    }

    /// The same link as a [`TwoStationConfig`] (for its delay arithmetic).
    fn stations(&self) -> TwoStationConfig {
        let mut s = TwoStationConfig::annex_n(0, self.seed);
        s.speed = self.speed;
        s.link_metres = self.link_metres;
        s.medium = self.medium;
        s.delays = self.delays;
        s
    }

    /// The true PFC round trip ID + LD, which the measurement estimates.
    pub fn true_round_trip(&self) -> Picos {
        self.stations().round_trip()
    }

    fn participant(&self, station: Station) -> Result<Participant, MeasureError> {
        // The longest link each station is configured for is the simulated one: results above
        // its round trip are discarded and a lost request is repeated after it.
        let mut cfg = MeasureConfig::for_link(self.speed, station.address(), self.link_metres);
        cfg.path = self.path;
        cfg.timing.pfc_transmit = self.speed.bits_time(self.delays.pfc_generation_bits);
        cfg.timing.pause_entry = self.speed.bits_time(self.delays.pause_entry_bits);
        cfg.timing.response_receive_fixed = self.receive_fixed;
        (self.setup(station).configure)(&mut cfg);
        Participant::new(cfg)
    }

    fn setup(&self, station: Station) -> &StationSetup {
        match station {
            Station::A => &self.a,
            Station::B => &self.b,
        }
    }
}

/// What became of an HMPDU handed to the link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fate {
    Sent,
    /// Lost on the link (first-n or random loss), or never sent by a silent station.
    Lost,
    /// Replaced by garbage.
    Garbled,
}

/// One HMPDU a participant sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sent {
    /// When it was handed over.
    pub at: Picos,
    pub from: Station,
    pub request: bool,
    pub response: bool,
    pub fate: Fate,
}

/// One station at the end of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StationOutcome {
    pub counters: MeasureCounters,
    pub results: Vec<Measurement>,
    pub round_trip_quanta: Option<u32>,
    pub measuring: bool,
    /// When its first request was handed over.
    pub first_request_at: Option<Picos>,
    pub duplicated: u64,
    pub reordered: u64,
    /// HMPDUs held by `hold_response`.
    pub held_responses: u64,
}

impl StationOutcome {
    /// When its `n`th result (1-based) came.
    pub fn result_at(&self, n: usize) -> Option<Picos> {
        self.results.get(n.checked_sub(1)?).map(|m| m.at)
    }
}

/// A finished run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeasurePairReport {
    pub a: StationOutcome,
    pub b: StationOutcome,
    /// Every HMPDU handed to a link, in order.
    pub sent: Vec<Sent>,
    pub true_round_trip: Picos,
    /// An HMPDU there and back with no waits: the round trip Figure 36-14 counts in.
    pub link_round_trip: Picos,
    pub quantum: Picos,
    pub ended_at: Picos,
}

impl MeasurePairReport {
    pub fn station(&self, s: Station) -> &StationOutcome {
        match s {
            Station::A => &self.a,
            Station::B => &self.b,
        }
    }

    /// HMPDUs `from` sent that carried a request / a response.
    pub fn count(&self, from: Station, request: bool, response: bool) -> usize {
        self.sent
            .iter()
            .filter(|s| s.from == from && s.request == request && s.response == response)
            .count()
    }

    /// The estimate's error against the true round trip, picoseconds (positive: more headroom).
    pub fn error(&self, s: Station) -> Option<i64> {
        let est = self.station(s).round_trip_quanta?;
        let est_ps = i128::from(est) * i128::from(self.quantum.as_ps());
        i64::try_from(est_ps - i128::from(self.true_round_trip.as_ps())).ok()
    }

    /// A span in link round trips, in thousandths (integer, for exact assertions and tables).
    pub fn round_trips_milli(&self, span: Picos) -> u64 {
        (u128::from(span.as_ps()) * 1000 / u128::from(self.link_round_trip.as_ps().max(1))) as u64
    }
}

#[derive(Debug)]
enum Event {
    Up(Station),
    Opportunity(Station, Interface),
    Wake(Station),
    Arrive(Station),
    Deliver(Station, Interface, Vec<u8>),
    Flush(Station),
    Late(Station, Interface, Vec<u8>),
}

struct Side {
    participant: Participant,
    setup: StationSetup,
    /// Outgoing link, and the interface each frame in flight will come out of.
    link: SimLink,
    tags: VecDeque<Interface>,
    offered: Vec<Interface>,
    wake: Option<Picos>,
    lose_first: u32,
    held: Option<(Interface, Vec<u8>)>,
    results: Vec<Measurement>,
    first_request_at: Option<Picos>,
    duplicated: u64,
    reordered: u64,
    responses_handed_over: u32,
    held_responses: u64,
}

/// Runs two participants over a simulated link; build with [`MeasurePair::new`] and call
/// [`MeasurePair::run`].
pub struct MeasurePair {
    cfg: MeasurePairConfig,
    events: EventQueue<Event>,
    sides: [Side; 2],
    rng: SimRng,
    sent: Vec<Sent>,
}

impl MeasurePair {
    /// Station B's measurement over the stations' link as a port runs it: both stations wait up
    /// to 200 quanta at random before sending, eight results. B's results one by one and its
    /// counters.
    pub fn measure_at_b(stations: &TwoStationConfig) -> Result<StationOutcome, MeasureError> {
        let mut m = MeasurePairConfig::for_stations(stations, stations.seed);
        m.wire_wait_max = stations.speed.quanta(200);
        m.response_wait_max = stations.speed.quanta(200);
        let eight: fn(&mut crate::headroom::measure::MeasureConfig) = |c| c.results_wanted = 8;
        m.a.configure = eight;
        m.b.configure = eight;
        Ok(MeasurePair::new(m)?.run().station(Station::B).clone())
    }

    pub fn new(cfg: MeasurePairConfig) -> Result<Self, MeasureError> {
        let one_way = cfg.stations().one_way();
        let side = |s: Station| -> Result<Side, MeasureError> {
            let setup = *cfg.setup(s);
            Ok(Side {
                participant: cfg.participant(s)?,
                setup,
                link: SimLink::new(cfg.speed, one_way),
                tags: VecDeque::new(),
                offered: Vec::new(),
                wake: None,
                lose_first: setup.lose_first,
                held: None,
                results: Vec::new(),
                first_request_at: None,
                duplicated: 0,
                reordered: 0,
                responses_handed_over: 0,
                held_responses: 0,
            })
        };
        Ok(MeasurePair {
            sides: [side(Station::A)?, side(Station::B)?],
            events: EventQueue::new(),
            rng: SimRng::new(cfg.seed),
            sent: Vec::new(),
            cfg,
        })
    }

    pub fn run(mut self) -> MeasurePairReport {
        for s in [Station::A, Station::B] {
            self.events.schedule(self.cfg.setup(s).ready_at, Event::Up(s));
        }
        let mut ended_at = Picos::ZERO;
        while let Some((now, event)) = self.events.pop() {
            if now > self.cfg.duration {
                break;
            }
            ended_at = now;
            let station = match event {
                Event::Up(s) => {
                    self.side(s).participant.set_oper_up(true);
                    s
                }
                Event::Opportunity(s, via) => {
                    self.opportunity(now, s, via);
                    s
                }
                Event::Wake(s) => {
                    self.side(s).wake = None;
                    s
                }
                Event::Arrive(s) => {
                    self.arrive(now, s);
                    s
                }
                Event::Deliver(s, via, bytes) => {
                    let side = self.side(s);
                    side.participant.receive(now, via, &bytes);
                    let results = side.participant.take_results();
                    side.results.extend(results);
                    s
                }
                Event::Flush(s) => {
                    if let Some((via, bytes)) = self.side(s).held.take() {
                        self.transmit(now, s, via, bytes);
                    }
                    s
                }
                Event::Late(s, via, bytes) => {
                    let start = now.max(self.side(s).link.idle_at());
                    self.transmit(start, s, via, bytes);
                    s
                }
            };
            self.kick(now, station);
        }
        let outcome = |side: &Side| StationOutcome {
            counters: *side.participant.counters(),
            results: side.results.clone(),
            round_trip_quanta: side.participant.round_trip_quanta(),
            measuring: side.participant.measuring(),
            first_request_at: side.first_request_at,
            duplicated: side.duplicated,
            reordered: side.reordered,
            held_responses: side.held_responses,
        };
        let link_round_trip = (self.cfg.stations().one_way() + self.hmpdu_time()) * 2;
        MeasurePairReport {
            a: outcome(&self.sides[0]),
            b: outcome(&self.sides[1]),
            sent: self.sent,
            true_round_trip: self.cfg.true_round_trip(),
            link_round_trip,
            quantum: self.cfg.speed.quantum(),
            ended_at,
        }
    }

    fn hmpdu_time(&self) -> Picos {
        self.cfg.speed.frame_time(MIN_FRAME_LEN as u64)
    }

    fn side(&mut self, s: Station) -> &mut Side {
        &mut self.sides[s.index()]
    }

    /// Offers transmit opportunities the participant wants and sets its repeat timer.
    fn kick(&mut self, now: Picos, s: Station) {
        let response_wait = self.cfg.response_wait_max;
        for via in [Interface::Unprotected, Interface::Secy, Interface::ExpressPrivacy] {
            let side = &self.sides[s.index()];
            if side.offered.contains(&via) || !side.participant.wants_transmit(now, via) {
                continue;
            }
            let wait = if side.participant.response_pending() {
                Picos(self.rng.below(response_wait.as_ps() + 1))
            } else {
                Picos::ZERO
            };
            self.side(s).offered.push(via);
            self.events.schedule(now + wait, Event::Opportunity(s, via));
        }
        let side = self.side(s);
        if let Some(deadline) = side.participant.next_deadline() {
            if deadline > now && side.wake != Some(deadline) {
                side.wake = Some(deadline);
                self.events.schedule(deadline, Event::Wake(s));
            }
        }
    }

    fn opportunity(&mut self, now: Picos, s: Station, via: Interface) {
        let wait = Picos(self.rng.below(self.cfg.wire_wait_max.as_ps() + 1));
        let side = self.side(s);
        side.offered.retain(|&v| v != via);
        let start = (now + wait).max(side.link.idle_at());
        let Some(pdu) = side.participant.poll_transmit(now, via, start - now) else {
            return;
        };
        let is = |t: Option<HmpduTuple>, req: bool| t.is_some_and(|t| t.is_request() == req);
        let request = is(pdu.tuple1, true) || is(pdu.tuple2, true);
        let response = is(pdu.tuple1, false) || is(pdu.tuple2, false);
        if request && side.first_request_at.is_none() {
            side.first_request_at = Some(now);
        }
        let mut fate = Fate::Sent;
        let mut bytes = pdu.to_vec();
        let faults = side.setup.faults;
        if side.setup.silent {
            fate = Fate::Lost;
        } else if side.lose_first > 0 {
            side.lose_first -= 1;
            fate = Fate::Lost;
        } else if self.rng.chance_ppm(faults.loss_ppm) {
            fate = Fate::Lost;
        } else if self.rng.chance_ppm(faults.garbage_ppm) {
            bytes = self.garbage(s);
            fate = Fate::Garbled;
        }
        self.sent.push(Sent { at: now, from: s, request, response, fate });
        if fate == Fate::Lost {
            return;
        }
        if response {
            let side = self.side(s);
            side.responses_handed_over += 1;
            if let Some((n, hold)) = side.setup.hold_response {
                if n == side.responses_handed_over {
                    side.held_responses += 1;
                    self.events.schedule(start + hold, Event::Late(s, via, bytes));
                    return;
                }
            }
        }
        if self.rng.chance_ppm(faults.duplicate_ppm) {
            self.side(s).duplicated += 1;
            self.transmit(start, s, via, bytes.clone());
        }
        if self.side(s).held.is_none() && self.rng.chance_ppm(faults.reorder_ppm) {
            // Held back behind the next HMPDU, or sent a little late if none follows soon.
            let late = start + self.hmpdu_time() * 2;
            let side = self.side(s);
            side.reordered += 1;
            side.held = Some((via, bytes));
            self.events.schedule(late, Event::Flush(s));
            return;
        }
        self.transmit(start, s, via, bytes);
        if let Some((held_via, held)) = self.side(s).held.take() {
            self.transmit(start, s, held_via, held);
        }
    }

    fn transmit(&mut self, start: Picos, s: Station, via: Interface, bytes: Vec<u8>) {
        let side = self.side(s);
        side.link.transmit(start, LinkFrame::Bytes(bytes));
        side.tags.push_back(via);
        if let Some(at) = side.link.last_arrival() {
            self.events.schedule(at, Event::Arrive(s.peer()));
        }
    }

    fn arrive(&mut self, now: Picos, s: Station) {
        let fixed = self.cfg.receive_fixed;
        let secy = self.cfg.secy_delay * 2;
        let from = self.side(s.peer());
        let mut delivered = Vec::new();
        while let Some((_, frame)) = from.link.receive(now) {
            let via = from.tags.pop_front().unwrap_or(Interface::Unprotected);
            if let LinkFrame::Bytes(bytes) = frame {
                delivered.push((via, bytes));
            }
        }
        for (via, bytes) in delivered {
            let through_secy = if via == Interface::Secy { secy } else { Picos::ZERO };
            self.events.schedule(now + fixed + through_secy, Event::Deliver(s, via, bytes));
        }
    }

    /// Something that is not a usable HMPDU from `s`, of one of five kinds.
    fn garbage(&mut self, s: Station) -> Vec<u8> {
        let good = |t| Hmpdu::new(s.address(), self.cfg.path, Some(t), None).to_vec();
        let random_ts = self.rng.next_u64() as u32;
        match self.rng.below(5) {
            0 => {
                let len = self.rng.below(MIN_FRAME_LEN as u64 + 20) as usize;
                (0..len).map(|_| self.rng.next_u64() as u8).collect()
            }
            1 => {
                let mut cim = good(HmpduTuple::request(random_ts, 0));
                cim[14] = 0x02;
                cim
            }
            2 => good(HmpduTuple::request(random_ts, 0))[..19].to_vec(),
            3 => good(HmpduTuple::request(random_ts, 0).respond(3)),
            _ => {
                let other = PathCode::from_code(self.cfg.path.code() + 1);
                let t = HmpduTuple::request(random_ts, 0).respond(0);
                Hmpdu::new(s.address(), other, Some(t), None).to_vec()
            }
        }
    }
}
