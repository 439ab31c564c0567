//! What a headroom measurement participant is told: its link, its limits (36.11) and the local
//! delays it knows, which turn a raw response delay into the PFC round trip (36.8 b), 36.9.4).

use crate::time::{LinkSpeed, Picos, PFC_REACTION_BOUND};
use crate::wire::{MacAddr, PathCode};

/// The largest Response Adjustment the draft lets a responder leave out (36.9.6: "A Response
/// Adjustment need not be added if its value would be 4 or less").
pub const MAX_OMITTED_RESPONSE_ADJUSTMENT: u16 = 4;

/// How many recent results the estimate is the median of.
pub const ESTIMATE_WINDOW: usize = 8;

/// The longest link a port is assumed to have when nothing is configured: 100 km, beyond the
/// 60 km of distributed data centres (36.2.2). It bounds acceptable results and paces repeated
/// requests, so it is a port's configured figure wherever one is known.
pub const DEFAULT_LONGEST_LINK_METRES: u64 = 100_000;

/// A PFC frame on the wire: 64 octets with its 8 of preamble and 12 of inter-frame gap.
const PFC_FRAME_ON_WIRE_BITS: u64 = (64 + 8 + 12) * 8;

/// A round trip through the slowest medium we know, per metre of link: Cat6 at 0.6 c is 5.56 ns
/// per metre each way (fibre 5 ns), so 12 ns there and back.
const ROUND_TRIP_PER_METRE: Picos = Picos::from_ns(12);

/// The most everything but the cable adds to a round trip: both stations' interfaces (the
/// slowest, 10GBASE-T with XAUI, is 3.8 us each), four SecYs at the 36.4.1 bound (7.7 us), PFC
/// generation, pause entry (0.6 us) and the HMPDU itself, with room to spare.
const STATION_DELAYS_MAX: Picos = Picos::from_us(20);

/// The delays this station knows about itself, as times. They are what makes a measured round
/// trip the round trip of PFC, not of HMPDUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LocalTiming {
    /// As requester, items a) to c) of 36.1.1: from the receive buffer running short to a PFC
    /// frame starting on the wire. A request that takes longer than this from its timestamp to
    /// the wire carries a negative Request Adjustment (36.9.4). Default 200 bit times at 10 Gb/s
    /// (Annex N's PFC frame generation), 20 ns.
    pub pfc_transmit: Picos,
    /// As responder, item h): from a PFC frame received to transmission selection halted. A
    /// response sent later than this after its request arrived carries a negative Response
    /// Adjustment. Default 614.4 ns, the bound of 36.3.3.
    pub pause_entry: Picos,
    /// As requester, a fixed delay from taking a request's timestamp to handing the HMPDU to
    /// the interface, deducted from every response delay. Default 0.
    pub request_transmit_fixed: Picos,
    /// As requester, a fixed delay from a response's last bit at the reference plane to its
    /// processing here, deducted from every response delay. Default 0.
    pub response_receive_fixed: Picos,
}

impl Default for LocalTiming {
    fn default() -> Self {
        LocalTiming {
            pfc_transmit: LinkSpeed::G10.bits_time(200),
            pause_entry: PFC_REACTION_BOUND,
            request_transmit_fixed: Picos::ZERO,
            response_receive_fixed: Picos::ZERO,
        }
    }
}

/// A participant's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MeasureConfig {
    /// The MAC data rate: the pause quantum is 512 bit times at it.
    pub speed: LinkSpeed,
    /// Our individual address, the source of every HMPDU we send.
    pub address: MacAddr,
    /// The interface-stack path measured (from the MACsec/Privacy state, SPEC §4.4); it selects
    /// requestPath and responsePath.
    pub path: PathCode,
    /// The system-dependent minimum round trip, pause quanta (36.11): lower results are raised to
    /// it.
    pub minimum_quanta: u32,
    /// The maximum acceptable round trip, pause quanta (36.11): higher results cannot be this
    /// link's and are discarded (counted), and requests are not repeated at shorter intervals
    /// (36.9.6), so it is also what a lost request costs. Derived from the longest link the port
    /// may have ([`MeasureConfig::for_link`]).
    pub maximum_quanta: u32,
    /// Responses processed after hmOperUp before `measure` goes FALSE: the system is satisfied.
    /// At least 2 (36.10).
    pub results_wanted: u32,
    /// On a common path, send a request in the same HMPDU as each response while measuring
    /// (36.9.6 examples 2 and 3). `false` sends them separately (example 1).
    pub combine: bool,
    /// Response Adjustments of this magnitude or less are sent as zero (use code 1); 0 to 4.
    pub omit_response_adjustment_up_to: u16,
    /// The value the free-running quantum counter has at time zero, so tests can start it near
    /// its wrap.
    pub timestamp_origin: u32,
    pub timing: LocalTiming,
}

impl MeasureConfig {
    /// Defaults for `speed` with no link length known: [`MeasureConfig::for_link`] with
    /// [`DEFAULT_LONGEST_LINK_METRES`].
    pub fn new(speed: LinkSpeed, address: MacAddr) -> Self {
        Self::for_link(speed, address, DEFAULT_LONGEST_LINK_METRES)
    }

    /// Defaults for a port whose link is at most `longest_metres` long: unprotected path,
    /// minimum our own known delays ([`MeasureConfig::own_delays_quanta`]), maximum the round trip such a link can have ([`maximum_round_trip`]), two
    /// results, requests combined with responses, every non-zero Response Adjustment sent.
    ///
    /// [`maximum_round_trip`]: MeasureConfig::maximum_round_trip
    pub fn for_link(speed: LinkSpeed, address: MacAddr, longest_metres: u64) -> Self {
        MeasureConfig {
            speed,
            address,
            path: PathCode::Unprotected,
            minimum_quanta: Self::own_delays_quanta(speed, &LocalTiming::default()),
            maximum_quanta: Self::maximum_round_trip(speed, longest_metres),
            results_wanted: 2,
            combine: true,
            omit_response_adjustment_up_to: 0,
            timestamp_origin: 0,
            timing: LocalTiming::default(),
        }
    }

    /// The shortest round trip this station can have at `speed` with `timing`, in quanta
    /// rounded up: what it knows of its own share of every PFC round trip, its PFC transmit
    /// delay (items a) to c) of 36.1.1, `timing.pfc_transmit`) and the PFC frame's 64 octets
    /// on the wire with preamble and gap (item e)). A result below it is not this link's (a
    /// peer's negative adjustments, a fault) and is raised to it (36.11), never to 0.
    pub fn own_delays_quanta(speed: LinkSpeed, timing: &LocalTiming) -> u32 {
        let own = timing.pfc_transmit + speed.bits_time(PFC_FRAME_ON_WIRE_BITS);
        u32::try_from(speed.quanta_in_ceil(own)).unwrap_or(u32::MAX)
    }

    /// The longest round trip a link of `metres` can have, in quanta rounded up: the slowest
    /// medium both ways plus the most the stations' own delays can add.
    pub fn maximum_round_trip(speed: LinkSpeed, metres: u64) -> u32 {
        let time = ROUND_TRIP_PER_METRE * metres + STATION_DELAYS_MAX;
        u32::try_from(speed.quanta_in_ceil(time)).unwrap_or(u32::MAX)
    }

    /// Refuses limits the protocol cannot run with.
    pub fn validate(&self) -> Result<(), MeasureError> {
        if self.maximum_quanta == 0 {
            return Err(MeasureError::ZeroMaximum);
        }
        if self.minimum_quanta > self.maximum_quanta {
            return Err(MeasureError::MinimumAboveMaximum {
                minimum: self.minimum_quanta,
                maximum: self.maximum_quanta,
            });
        }
        if self.results_wanted < 2 {
            return Err(MeasureError::TooFewResults(self.results_wanted));
        }
        if self.omit_response_adjustment_up_to > MAX_OMITTED_RESPONSE_ADJUSTMENT {
            return Err(MeasureError::OmitTooLarge(self.omit_response_adjustment_up_to));
        }
        Ok(())
    }

    /// The maximum acceptable round trip as a time: the shortest interval between repeated
    /// requests.
    pub fn repeat_interval(&self) -> Picos {
        self.speed.quanta(u64::from(self.maximum_quanta))
    }
}

/// A configuration the measurement protocol cannot run with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MeasureError {
    #[error(
        "the minimum round trip ({minimum} quanta) is above the maximum ({maximum} quanta): \
         lower the minimum or raise the maximum"
    )]
    MinimumAboveMaximum { minimum: u32, maximum: u32 },
    #[error(
        "a maximum acceptable round trip of 0 quanta would repeat requests without pause and \
         discard every result: configure the longest round trip the link can have"
    )]
    ZeroMaximum,
    #[error(
        "results wanted is {0}, but measurement continues until at least two responses have \
         been processed (36.10): configure 2 or more"
    )]
    TooFewResults(u32),
    #[error(
        "Response Adjustments up to {0} quanta cannot be left out: the draft allows it only for \
         4 or less (36.9.6); configure 0 to 4"
    )]
    OmitTooLarge(u16),
}
