//! The headroom a scenario's method gives for its link, worked out for exactly the stations the
//! simulation runs (their interface delays, PFC generation and pause entry), so that the
//! methods are compared on equal terms.

use dataplane::headroom::{calculate, measured_headroom, HeadroomInputs, WorstCase};
use dataplane::sim::{MeasurePair, StationOutcome, TwoStationConfig};
use serde::Serialize;

use super::file::HeadroomMethod;
use super::ScenarioError;

/// A headroom and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HeadroomChoice {
    pub method: HeadroomMethod,
    pub bits: u64,
    /// The measured round trip (estimate of station B, which sends the PFC frames), pause quanta.
    pub round_trip_quanta: Option<u32>,
}

/// The link-delay calculator's inputs for the simulated stations: cable, both stations' interface
/// round trips and PFC generation, the peer's pause entry, the frames A and B send (FCS added).
pub fn inputs_for(stations: &TwoStationConfig) -> Result<HeadroomInputs, ScenarioError> {
    if u32::try_from(stations.link_metres).is_err() {
        return Err(ScenarioError::TooLong(stations.link_metres));
    }
    Ok(stations.headroom_inputs()?)
}

/// The largest frame either station sends, FCS included (the simulation's lengths exclude it).
pub fn max_frame_octets(stations: &TwoStationConfig) -> u64 {
    stations.max_frame_octets_with_fcs()
}

/// Station B's round trip measured by the protocol over the stations' link, both stations
/// waiting up to 200 quanta at random before sending, eight results.
pub fn measure(stations: &TwoStationConfig) -> Result<u32, ScenarioError> {
    measure_outcome(stations)?.round_trip_quanta.ok_or(ScenarioError::NoMeasurement)
}

/// [`measure`]'s whole outcome at station B: its results one by one and its counters.
pub fn measure_outcome(stations: &TwoStationConfig) -> Result<StationOutcome, ScenarioError> {
    Ok(MeasurePair::measure_at_b(stations)?)
}

/// The headroom `method` gives.
pub fn headroom_for(
    method: HeadroomMethod,
    fixed_bits: Option<u64>,
    stations: &TwoStationConfig,
) -> Result<HeadroomChoice, ScenarioError> {
    let (bits, round_trip_quanta) = match method {
        HeadroomMethod::AnnexN => (calculate(&HeadroomInputs::default())?.bits, None),
        HeadroomMethod::Calculated => (calculate(&inputs_for(stations)?)?.bits, None),
        HeadroomMethod::Measured => {
            let quanta = measure(stations)?;
            let wd = WorstCase { max_frame_octets: max_frame_octets(stations) };
            (measured_headroom(stations.speed, u64::from(quanta), &wd)?.bits, Some(quanta))
        }
        HeadroomMethod::Fixed => (fixed_bits.ok_or(ScenarioError::FixedWithoutBits)?, None),
    };
    Ok(HeadroomChoice { method, bits, round_trip_quanta })
}
