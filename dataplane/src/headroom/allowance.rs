//! Which headroom allowance is in effect on a port, and why (SPEC §3.3, 12.23, 36.8).
//!
//! The draft leaves open how PFCLinkDelayAllowance (set by hand) and PFCHeadroomAllowance
//! (calculated) relate. Our answer: when automatic calculation is in effect — configured, or
//! negotiated through the DCBX RTM/PTP HDRM bits — the allowance is the calculated result
//! clamped to the configured minimum and maximum, with the configured initial value standing in
//! until the first result (the link carries traffic while measurement proceeds, 36.8). Otherwise
//! it is PFCLinkDelayAllowance. An administrator who writes PFCHeadroomAllowance pins it:
//! calculation still runs and its result is still reported, but the written value is used. The
//! answer always says where the value came from, so nobody has to guess why a port pauses early.

use std::fmt;

use super::units::group_digits;

/// Which automatic headroom calculation is in effect, as already decided from configuration and
/// DCBX (SPEC §4.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AutomaticCalculation {
    /// None: the manually set PFCLinkDelayAllowance applies.
    #[default]
    None,
    /// The link-delay method (36.8.1; both ends set PTP HDRM).
    LinkDelay,
    /// The measurement protocol (36.9; both ends set RTM HDRM).
    Measurement,
    /// Both: the measurement wins, the link-delay result is still computed and reported.
    Both,
}

/// A method that produced a calculated allowance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// The link-delay method (36.8 a), 36.8.1).
    LinkDelay,
    /// The headroom measurement protocol (36.8 b), 36.9).
    Measurement,
}

/// Whether a calculated result was moved into the configured range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Clamp {
    /// Within range, used as calculated.
    None,
    /// Below the minimum, raised to it.
    RaisedToMinimum,
    /// Above the maximum, lowered to it.
    LoweredToMaximum,
}

/// Where the effective allowance came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AllowanceSource {
    /// PFCLinkDelayAllowance, because no automatic calculation is in effect.
    LinkDelayAllowance,
    /// A calculated result, possibly clamped.
    Calculated { method: Method, clamp: Clamp },
    /// The configured initial value, because calculation is in effect but has no result yet.
    InitialValue,
    /// PFCHeadroomAllowance as written by the administrator.
    AdministrativeOverride,
}

impl fmt::Display for AllowanceSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AllowanceSource::LinkDelayAllowance => f.write_str(
                "the configured PFCLinkDelayAllowance (automatic headroom calculation is off)",
            ),
            AllowanceSource::Calculated { method, clamp } => {
                f.write_str(match method {
                    Method::LinkDelay => "calculated from link delays",
                    Method::Measurement => "calculated by the measurement protocol",
                })?;
                f.write_str(match clamp {
                    Clamp::None => "",
                    Clamp::RaisedToMinimum => ", raised to the configured minimum",
                    Clamp::LoweredToMaximum => ", lowered to the configured maximum",
                })
            }
            AllowanceSource::InitialValue => {
                f.write_str("the configured initial value (no calculated result yet)")
            }
            AllowanceSource::AdministrativeOverride => f.write_str(
                "set by the administrator (PFCHeadroomAllowance written; calculation still runs)",
            ),
        }
    }
}

/// The managed objects and limits that decide the allowance, per port; all in bit times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AllowanceConfig {
    /// PFCLinkDelayAllowance: the manually set allowance (12.23).
    pub link_delay_allowance_bits: u64,
    /// The least a calculated result may give (36.11). Default 0.
    pub minimum_bits: u64,
    /// The most a calculated result may give (36.11). Default `u64::MAX`, i.e. no limit.
    pub maximum_bits: u64,
    /// The allowance while calculation has no result yet; `None` uses PFCLinkDelayAllowance,
    /// which is also PFCHeadroomAllowance's default in 12.23. Used as configured, not clamped.
    pub initial_bits: Option<u64>,
    /// PFCHeadroomAllowance as written by the administrator, pinning the allowance while
    /// automatic calculation is in effect. Used as written, not clamped: the administrator's
    /// word is final.
    pub headroom_allowance_bits: Option<u64>,
}

impl AllowanceConfig {
    /// PFCLinkDelayAllowance alone: no limits, no initial value, no override.
    pub fn new(link_delay_allowance_bits: u64) -> Self {
        AllowanceConfig {
            link_delay_allowance_bits,
            minimum_bits: 0,
            maximum_bits: u64::MAX,
            initial_bits: None,
            headroom_allowance_bits: None,
        }
    }

    /// Refuses a minimum above the maximum, which would leave no value to clamp to.
    pub fn validate(&self) -> Result<(), AllowanceError> {
        if self.minimum_bits > self.maximum_bits {
            return Err(AllowanceError::MinimumAboveMaximum {
                minimum: self.minimum_bits,
                maximum: self.maximum_bits,
            });
        }
        Ok(())
    }
}

/// Latest results of the two calculation methods, in bit times, `None` until each has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CalculatedResults {
    pub link_delay_bits: Option<u64>,
    pub measurement_bits: Option<u64>,
}

/// The effective allowance, where it came from, and the calculated result to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Allowance {
    /// The allowance in effect, bit times.
    pub bits: u64,
    /// Why this value.
    pub source: AllowanceSource,
    /// The calculated result (clamped) while automatic calculation is in effect, reported even
    /// when the administrator's value is in force.
    pub calculated: Option<(Method, u64)>,
}

impl fmt::Display for Allowance {
    /// `126 224 bits, calculated by the measurement protocol`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} bits, {}", group_digits(self.bits as i128), self.source)
    }
}

/// The allowance configuration cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AllowanceError {
    #[error(
        "the minimum headroom allowance ({minimum} bits) is above the maximum ({maximum} bits): \
         lower the minimum or raise the maximum"
    )]
    MinimumAboveMaximum { minimum: u64, maximum: u64 },
}

/// The effective allowance for a port (SPEC §3.3).
pub fn select(
    config: &AllowanceConfig,
    automatic: AutomaticCalculation,
    results: &CalculatedResults,
) -> Result<Allowance, AllowanceError> {
    config.validate()?;
    let chosen = match automatic {
        AutomaticCalculation::None => {
            return Ok(Allowance {
                bits: config.link_delay_allowance_bits,
                source: AllowanceSource::LinkDelayAllowance,
                calculated: None,
            });
        }
        AutomaticCalculation::LinkDelay => results.link_delay_bits.map(|b| (Method::LinkDelay, b)),
        AutomaticCalculation::Measurement => {
            results.measurement_bits.map(|b| (Method::Measurement, b))
        }
        // The measurement wins; until it has a result the link-delay one, which is a real
        // calculation for this link, beats the initial value.
        AutomaticCalculation::Both => results
            .measurement_bits
            .map(|b| (Method::Measurement, b))
            .or(results.link_delay_bits.map(|b| (Method::LinkDelay, b))),
    };
    let clamped = chosen.map(|(method, bits)| {
        let (bits, clamp) = if bits < config.minimum_bits {
            (config.minimum_bits, Clamp::RaisedToMinimum)
        } else if bits > config.maximum_bits {
            (config.maximum_bits, Clamp::LoweredToMaximum)
        } else {
            (bits, Clamp::None)
        };
        (method, bits, clamp)
    });
    let calculated = clamped.map(|(method, bits, _)| (method, bits));
    let (bits, source) = match (config.headroom_allowance_bits, clamped) {
        (Some(pinned), _) => (pinned, AllowanceSource::AdministrativeOverride),
        (None, Some((method, bits, clamp))) => {
            (bits, AllowanceSource::Calculated { method, clamp })
        }
        (None, None) => (
            config.initial_bits.unwrap_or(config.link_delay_allowance_bits),
            AllowanceSource::InitialValue,
        ),
    };
    Ok(Allowance { bits, source, calculated })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> AllowanceConfig {
        AllowanceConfig {
            link_delay_allowance_bits: 100_000,
            minimum_bits: 50_000,
            maximum_bits: 200_000,
            initial_bits: Some(150_000),
            headroom_allowance_bits: None,
        }
    }

    fn results(link_delay: Option<u64>, measurement: Option<u64>) -> CalculatedResults {
        CalculatedResults { link_delay_bits: link_delay, measurement_bits: measurement }
    }

    #[test]
    fn without_automatic_calculation_the_link_delay_allowance_applies() {
        // Results and an administrator's PFCHeadroomAllowance are both ignored when off.
        let pinned = AllowanceConfig { headroom_allowance_bits: Some(1), ..config() };
        let a = select(&pinned, AutomaticCalculation::None, &results(Some(126_224), Some(7)));
        let a = a.expect("valid");
        assert_eq!(a.bits, 100_000);
        assert_eq!(a.source, AllowanceSource::LinkDelayAllowance);
        assert_eq!(a.calculated, None);
        assert_eq!(
            a.to_string(),
            "100 000 bits, the configured PFCLinkDelayAllowance (automatic headroom calculation is off)"
        );
    }

    #[test]
    fn link_delay_result_is_used_when_that_method_is_in_effect() {
        let a =
            select(&config(), AutomaticCalculation::LinkDelay, &results(Some(126_224), Some(1)));
        let a = a.expect("valid");
        assert_eq!(a.bits, 126_224);
        assert_eq!(
            a.source,
            AllowanceSource::Calculated { method: Method::LinkDelay, clamp: Clamp::None }
        );
        assert_eq!(a.calculated, Some((Method::LinkDelay, 126_224)));
        assert_eq!(a.to_string(), "126 224 bits, calculated from link delays");
    }

    #[test]
    fn measurement_result_is_used_when_that_method_is_in_effect() {
        let a =
            select(&config(), AutomaticCalculation::Measurement, &results(Some(1), Some(126_528)));
        let a = a.expect("valid");
        assert_eq!(a.bits, 126_528);
        assert_eq!(a.to_string(), "126 528 bits, calculated by the measurement protocol");
    }

    #[test]
    fn with_both_methods_the_measurement_wins() {
        let a =
            select(&config(), AutomaticCalculation::Both, &results(Some(126_224), Some(126_528)));
        let a = a.expect("valid");
        assert_eq!(a.bits, 126_528);
        assert_eq!(a.calculated, Some((Method::Measurement, 126_528)));
    }

    #[test]
    fn with_both_methods_the_link_delay_result_stands_in_until_a_measurement() {
        let a = select(&config(), AutomaticCalculation::Both, &results(Some(126_224), None));
        let a = a.expect("valid");
        assert_eq!(a.bits, 126_224);
        assert_eq!(
            a.source,
            AllowanceSource::Calculated { method: Method::LinkDelay, clamp: Clamp::None }
        );
    }

    #[test]
    fn results_are_clamped_to_the_configured_range() {
        let low = select(&config(), AutomaticCalculation::Measurement, &results(None, Some(10)));
        let low = low.expect("valid");
        assert_eq!(low.bits, 50_000);
        assert_eq!(low.calculated, Some((Method::Measurement, 50_000)));
        assert_eq!(
            low.to_string(),
            "50 000 bits, calculated by the measurement protocol, raised to the configured minimum"
        );
        let high =
            select(&config(), AutomaticCalculation::LinkDelay, &results(Some(900_000), None));
        let high = high.expect("valid");
        assert_eq!(high.bits, 200_000);
        assert_eq!(
            high.source,
            AllowanceSource::Calculated {
                method: Method::LinkDelay,
                clamp: Clamp::LoweredToMaximum
            }
        );
        assert!(high.to_string().ends_with("lowered to the configured maximum"));
        let edge =
            select(&config(), AutomaticCalculation::LinkDelay, &results(Some(200_000), None));
        assert_eq!(
            edge.map(|a| a.source),
            Ok(AllowanceSource::Calculated { method: Method::LinkDelay, clamp: Clamp::None })
        );
    }

    #[test]
    fn the_initial_value_applies_until_the_first_result() {
        let a = select(&config(), AutomaticCalculation::Measurement, &results(Some(126_224), None));
        let a = a.expect("valid");
        assert_eq!(a.bits, 150_000);
        assert_eq!(a.source, AllowanceSource::InitialValue);
        assert_eq!(a.calculated, None);
        assert_eq!(
            a.to_string(),
            "150 000 bits, the configured initial value (no calculated result yet)"
        );
    }

    #[test]
    fn without_an_initial_value_the_link_delay_allowance_stands_in() {
        let no_initial = AllowanceConfig { initial_bits: None, ..config() };
        let a = select(&no_initial, AutomaticCalculation::Both, &CalculatedResults::default());
        let a = a.expect("valid");
        assert_eq!(a.bits, 100_000);
        assert_eq!(a.source, AllowanceSource::InitialValue);
    }

    #[test]
    fn an_administrative_override_pins_the_value_and_the_result_is_still_reported() {
        let pinned = AllowanceConfig { headroom_allowance_bits: Some(300_000), ..config() };
        let a = select(&pinned, AutomaticCalculation::LinkDelay, &results(Some(126_224), None));
        let a = a.expect("valid");
        assert_eq!(a.bits, 300_000, "not clamped to the 200 000 maximum");
        assert_eq!(a.source, AllowanceSource::AdministrativeOverride);
        assert_eq!(a.calculated, Some((Method::LinkDelay, 126_224)));
        assert_eq!(
            a.to_string(),
            "300 000 bits, set by the administrator (PFCHeadroomAllowance written; calculation still runs)"
        );
        // Before any result, the override still wins over the initial value.
        let early =
            select(&pinned, AutomaticCalculation::Measurement, &CalculatedResults::default());
        let early = early.expect("valid");
        assert_eq!((early.bits, early.calculated), (300_000, None));
    }

    #[test]
    fn a_minimum_above_the_maximum_is_refused() {
        let bad = AllowanceConfig { minimum_bits: 3, maximum_bits: 2, ..config() };
        let err = select(&bad, AutomaticCalculation::None, &CalculatedResults::default());
        let err = err.expect_err("no range");
        assert_eq!(err, AllowanceError::MinimumAboveMaximum { minimum: 3, maximum: 2 });
        assert!(err.to_string().contains("lower the minimum or raise the maximum"));
        assert_eq!(AllowanceConfig::new(5).validate(), Ok(()));
    }
}
