//! `struct ieee_pfc`: 802.1Q's PFC managed objects as the kernel carries them.

use crate::error::DecodeError;
use crate::kernel::EIGHT;
use crate::netlink::struct_fields;

mod field {
    use pfc_wire::Field;

    pub const PFC_CAP: usize = 0;
    pub const PFC_EN: usize = 1;
    pub const MBC: usize = 2;
    /// One octet of padding before the `__u16`.
    pub const DELAY: Field = 4..6;
    /// Two octets of padding, then the `__u64` arrays on their eight-octet boundary.
    pub const REQUESTS: usize = 8;
    pub const INDICATIONS: usize = REQUESTS + 8 * super::EIGHT;
    pub const SIZE: usize = INDICATIONS + 8 * super::EIGHT;

    /// The counter of `priority` in the array that starts at `array`.
    pub const fn counter(array: usize, priority: usize) -> Field {
        array + 8 * priority..array + 8 * (priority + 1)
    }
}

/// `sizeof(struct ieee_pfc)`.
pub const IEEE_PFC_SIZE: usize = field::SIZE;

/// The PFC objects (Table 12-1): capability, enabled priorities, MACsec bypass capability, the
/// link delay allowance and the per-priority PFC frame counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IeeePfc {
    /// PFCLinkCapability: how many priorities can be enabled at once.
    pub pfc_cap: u8,
    /// PFCEnable: bit n set enables priority n.
    pub pfc_en: u8,
    /// PFCMacsecBypassCapability.
    pub mbc: u8,
    /// The allowance for the link's round trip in bits (PFCLinkDelayAllowance): only 16 bits
    /// here, and some drivers read it as something else (see DECISIONS).
    pub delay: u16,
    /// PFCRequests per priority: PFC frames sent.
    pub requests: [u64; EIGHT],
    /// PFCIndications per priority: PFC frames received.
    pub indications: [u64; EIGHT],
}

impl IeeePfc {
    /// The struct's octets, padding zero.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = vec![0; field::SIZE];
        b[field::PFC_CAP] = self.pfc_cap;
        b[field::PFC_EN] = self.pfc_en;
        b[field::MBC] = self.mbc;
        b[field::DELAY].copy_from_slice(&self.delay.to_ne_bytes());
        for p in 0..EIGHT {
            b[field::counter(field::REQUESTS, p)].copy_from_slice(&self.requests[p].to_ne_bytes());
            b[field::counter(field::INDICATIONS, p)]
                .copy_from_slice(&self.indications[p].to_ne_bytes());
        }
        b
    }

    pub fn parse(value: &[u8]) -> Result<Self, DecodeError> {
        let f = struct_fields("struct ieee_pfc", value, field::SIZE)?;
        let counters = |array| -> Result<[u64; EIGHT], DecodeError> {
            let mut c = [0; EIGHT];
            for (p, v) in c.iter_mut().enumerate() {
                *v = u64::from_ne_bytes(f.array(field::counter(array, p))?);
            }
            Ok(c)
        };
        Ok(IeeePfc {
            pfc_cap: f.u8(field::PFC_CAP)?,
            pfc_en: f.u8(field::PFC_EN)?,
            mbc: f.u8(field::MBC)?,
            delay: u16::from_ne_bytes(f.array(field::DELAY)?),
            requests: counters(field::REQUESTS)?,
            indications: counters(field::INDICATIONS)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ieee_pfc_is_136_octets_and_reads_back() {
        let pfc = IeeePfc {
            pfc_cap: 8,
            pfc_en: 0x28,
            mbc: 1,
            delay: 0xa1b2,
            requests: [u64::MAX, 1, 2, 3, 4, 5, 6, 7],
            indications: [7, 6, 5, 4, 3, 2, 1, 0x0102_0304_0506_0708],
        };
        let b = pfc.to_bytes();
        assert_eq!(b.len(), 136);
        assert_eq!(IeeePfc::parse(&b), Ok(pfc));
        assert!(matches!(IeeePfc::parse(&b[..135]), Err(DecodeError::Truncated { .. })));
    }
}
