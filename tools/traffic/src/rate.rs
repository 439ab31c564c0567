//! Rates and the command-line specifications that carry them: `--flow 3:2Gbps:1500`,
//! `--flow 0:100kpps:64`, `--drain 3:500Mbps`.
//!
//! Bit rates count frame octets from destination address to FCS inclusive, as RFC 2544 does and
//! as the receiver counts them (no preamble or inter-frame gap), so that what `send` asks for and
//! what `recv` reports are the same figure.

use std::fmt;
use std::str::FromStr;

use dataplane::time::Picos;

/// A rate in bits or frames per second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rate {
    BitsPerSecond(f64),
    FramesPerSecond(f64),
}

impl Rate {
    /// Time between the starts of two frames of `size` octets at this rate.
    pub fn interval(self, size: usize) -> Picos {
        let per_second = match self {
            Rate::BitsPerSecond(bps) => bps / (size as f64 * 8.0),
            Rate::FramesPerSecond(pps) => pps,
        };
        Picos((1e12 / per_second).round() as u64)
    }

    /// Octets per second when frames are `size` octets.
    pub fn octets_per_second(self, size: usize) -> f64 {
        match self {
            Rate::BitsPerSecond(bps) => bps / 8.0,
            Rate::FramesPerSecond(pps) => pps * size as f64,
        }
    }
}

impl FromStr for Rate {
    type Err = String;

    /// `10Gbps`, `2.5G`, `500Mbps`, `64kbps`, `1000bps`; `1Mpps`, `100kpps`, `20pps`.
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
        let (number, unit) = t.split_at(split);
        let value: f64 =
            number.parse().map_err(|_| format!("'{s}': a rate starts with a number"))?;
        let (scale, frames) = match unit.to_ascii_lowercase().as_str() {
            "g" | "gbps" | "gb/s" => (1e9, false),
            "m" | "mbps" | "mb/s" => (1e6, false),
            "k" | "kbps" | "kb/s" => (1e3, false),
            "bps" | "b/s" => (1.0, false),
            "mpps" => (1e6, true),
            "kpps" => (1e3, true),
            "pps" => (1.0, true),
            _ => {
                return Err(format!("'{s}': unit must be Gbps, Mbps, kbps, bps, Mpps, kpps or pps"))
            }
        };
        let v = value * scale;
        if !(v.is_finite() && v > 0.0) {
            return Err(format!("'{s}': a rate must be above zero"));
        }
        Ok(if frames { Rate::FramesPerSecond(v) } else { Rate::BitsPerSecond(v) })
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rate::BitsPerSecond(b) => write!(f, "{}", bits(*b)),
            Rate::FramesPerSecond(p) => write!(f, "{:.0} pps", p),
        }
    }
}

/// A bit rate for people: `2.000 Gb/s`.
pub fn bits(bps: f64) -> String {
    if bps >= 1e9 {
        format!("{:.3} Gb/s", bps / 1e9)
    } else if bps >= 1e6 {
        format!("{:.3} Mb/s", bps / 1e6)
    } else {
        format!("{:.1} kb/s", bps / 1e3)
    }
}

/// `PRIORITY:RATE:SIZE`: one flow of the sender.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowSpec {
    pub priority: u8,
    pub rate: Rate,
    /// Frame size in octets, FCS included.
    pub size: usize,
}

impl FromStr for FlowSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let parts: Vec<&str> = s.split(':').collect();
        let [p, r, size] = parts[..] else {
            return Err(format!("'{s}': a flow is PRIORITY:RATE:SIZE, e.g. 3:2Gbps:1500"));
        };
        let size = size.parse().map_err(|_| format!("'{s}': frame size must be a number"))?;
        Ok(FlowSpec { priority: priority(p, s)?, rate: r.parse()?, size })
    }
}

/// `PRIORITY:RATE`: a receive queue drained at that rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DrainSpec {
    pub priority: u8,
    pub rate: Rate,
}

impl FromStr for DrainSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let (p, r) = s
            .split_once(':')
            .ok_or_else(|| format!("'{s}': a drain is PRIORITY:RATE, e.g. 3:500Mbps"))?;
        let rate: Rate = r.parse()?;
        if matches!(rate, Rate::FramesPerSecond(_)) {
            return Err(format!("'{s}': a drain rate is in bits per second"));
        }
        Ok(DrainSpec { priority: priority(p, s)?, rate })
    }
}

fn priority(p: &str, whole: &str) -> Result<u8, String> {
    match p.parse::<u8>() {
        Ok(n) if n < 8 => Ok(n),
        _ => Err(format!("'{whole}': priority must be 0 to 7")),
    }
}

/// An octet count with a unit: `64KB`, `1MB`, `1500` (decimal units, as link rates are).
pub fn parse_octets(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: u64 = number.parse().map_err(|_| format!("'{s}': octets start with a number"))?;
    let scale = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" => 1_000,
        "m" | "mb" => 1_000_000,
        "kib" => 1_024,
        "mib" => 1_048_576,
        _ => return Err(format!("'{s}': unit must be B, KB, MB, KiB or MiB")),
    };
    Ok(n * scale)
}

/// A duration: `50us`, `1.5ms`, `10s`, `0`.
pub fn parse_duration(s: &str) -> Result<Picos, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let v: f64 = number.parse().map_err(|_| format!("'{s}': a duration starts with a number"))?;
    let ps_per = match unit {
        "ns" => 1e3,
        "us" | "µs" => 1e6,
        "ms" => 1e9,
        "s" => 1e12,
        "" if v == 0.0 => 1.0,
        _ => return Err(format!("'{s}': unit must be ns, us, ms or s")),
    };
    if !(v.is_finite() && v >= 0.0) {
        return Err(format!("'{s}': a duration is zero or more"));
    }
    Ok(Picos((v * ps_per).round() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_their_frame_intervals() {
        let r: Rate = "2Gbps".parse().expect("rate");
        assert_eq!(r, Rate::BitsPerSecond(2e9));
        // 1500 octets at 2 Gb/s: 6 µs apart.
        assert_eq!(r.interval(1500), Picos::from_us(6));
        assert_eq!("2.5G".parse::<Rate>(), Ok(Rate::BitsPerSecond(2.5e9)));
        let p: Rate = "100kpps".parse().expect("rate");
        assert_eq!(p.interval(64), Picos::from_us(10));
        assert_eq!(p.octets_per_second(64), 6.4e6);
        assert!("0Gbps".parse::<Rate>().is_err());
        assert!("fast".parse::<Rate>().is_err());
        assert!("10Gbit".parse::<Rate>().is_err());
    }

    #[test]
    fn flows_and_drains_name_a_priority_from_0_to_7() {
        assert_eq!(
            "3:2Gbps:1500".parse::<FlowSpec>(),
            Ok(FlowSpec { priority: 3, rate: Rate::BitsPerSecond(2e9), size: 1500 })
        );
        assert!("8:1Gbps:64".parse::<FlowSpec>().is_err());
        assert!("3:1Gbps".parse::<FlowSpec>().is_err());
        assert_eq!(
            "3:500Mbps".parse::<DrainSpec>(),
            Ok(DrainSpec { priority: 3, rate: Rate::BitsPerSecond(5e8) })
        );
        assert!("3:5kpps".parse::<DrainSpec>().is_err());
    }

    #[test]
    fn octets_and_durations_with_units() {
        assert_eq!(parse_octets("64KB"), Ok(64_000));
        assert_eq!(parse_octets("1500"), Ok(1500));
        assert_eq!(parse_octets("1MiB"), Ok(1_048_576));
        assert!(parse_octets("12 parsecs").is_err());
        assert_eq!(parse_duration("50us"), Ok(Picos::from_us(50)));
        assert_eq!(parse_duration("1.5ms"), Ok(Picos(1_500_000_000)));
        assert_eq!(parse_duration("0"), Ok(Picos::ZERO));
        assert!(parse_duration("5").is_err());
    }
}
