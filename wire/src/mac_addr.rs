use std::fmt;
use std::str::FromStr;

/// A 48-bit IEEE 802 MAC address, shown as `02-00-00-00-00-01` (the IEEE form); `:` is accepted
/// on input too.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct MacAddr(pub [u8; 6]);

impl MacAddr {
    pub const fn new(octets: [u8; 6]) -> Self {
        MacAddr(octets)
    }

    /// Group (multicast) address: the I/G bit, least significant bit of the first octet.
    pub fn is_group(&self) -> bool {
        self.0[0] & 1 == 1
    }

    /// Numeric value, as DCBX compares addresses (most significant octet first).
    pub fn as_u64(&self) -> u64 {
        self.0.iter().fold(0u64, |acc, o| (acc << 8) | u64::from(*o))
    }
}

impl fmt::Display for MacAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let o = self.0;
        write!(f, "{:02x}-{:02x}-{:02x}-{:02x}-{:02x}-{:02x}", o[0], o[1], o[2], o[3], o[4], o[5])
    }
}

impl fmt::Debug for MacAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The text was not six two-digit hexadecimal octets separated by `-` or `:`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a MAC address: write six hex octets like 02-00-00-00-00-01")]
pub struct ParseMacAddrError(pub String);

impl FromStr for MacAddr {
    type Err = ParseMacAddrError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || ParseMacAddrError(s.to_string());
        let mut octets = [0u8; 6];
        let mut parts = s.split(['-', ':']);
        for octet in octets.iter_mut() {
            let part = parts.next().ok_or_else(bad)?;
            if part.len() != 2 {
                return Err(bad());
            }
            *octet = u8::from_str_radix(part, 16).map_err(|_| bad())?;
        }
        if parts.next().is_some() {
            return Err(bad());
        }
        Ok(MacAddr(octets))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_parse_agree() {
        let mac: MacAddr = "02:00:5e:10:00:ff".parse().expect("valid");
        assert_eq!(mac.to_string(), "02-00-5e-10-00-ff");
        assert_eq!(mac.to_string().parse::<MacAddr>(), Ok(mac));
        assert!("02-00-5e-10-00".parse::<MacAddr>().is_err());
        assert!("02-00-5e-10-00-ff-01".parse::<MacAddr>().is_err());
        assert!("2-00-5e-10-00-ff".parse::<MacAddr>().is_err());
    }

    #[test]
    fn numeric_order_is_octet_order() {
        let low = MacAddr([0x00, 0xff, 0xff, 0xff, 0xff, 0xff]);
        let high = MacAddr([0x01, 0, 0, 0, 0, 0]);
        assert!(low.as_u64() < high.as_u64());
        assert!(low < high);
    }
}
