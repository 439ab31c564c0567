//! The 12-bit wrapping counters of link-level flow control (FCTBS, ABR, FCCL, CL). They count
//! 64-octet blocks since link initialisation and roll over from FFFh to 000h; only differences
//! modulo 4096 mean anything, which works because the two ends are never more than 2048 blocks
//! apart.

use std::fmt;

/// A 12-bit block count, modulo 4096.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Count12(u16);

impl Count12 {
    /// 4096: the counters' modulus.
    pub const MODULUS: u32 = 1 << 12;
    const MASK: u32 = Self::MODULUS - 1;

    /// The count `value` mod 4096.
    pub const fn new(value: u32) -> Self {
        Count12((value & Self::MASK) as u16)
    }

    /// The counter's value, 0..=4095.
    pub const fn get(self) -> u16 {
        self.0
    }

    /// `self + n` mod 4096.
    pub const fn add(self, n: u32) -> Self {
        Count12::new((self.0 as u32).wrapping_add(n))
    }

    /// `self − earlier` mod 4096: how far `self` is ahead of `earlier`.
    pub const fn since(self, earlier: Count12) -> u16 {
        ((self.0 as u32).wrapping_sub(earlier.0 as u32) & Self::MASK) as u16
    }
}

impl fmt::Display for Count12 {
    /// Decimal with the 3-digit hex the seed uses for registers: `3587 (E03h)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({:03X}h)", self.0, self.0)
    }
}

impl fmt::Debug for Count12 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rolls_over_from_fff_to_000() {
        assert_eq!(Count12::new(0xfff).add(1), Count12::new(0));
        assert_eq!(Count12::new(4096).get(), 0);
        assert_eq!(Count12::new(3586).add(510).get(), 0);
    }

    #[test]
    fn differences_are_modulo_4096() {
        // The seed's rollover example: CL 000h, CR E03h, difference 1FDh = 509.
        assert_eq!(Count12::new(0).since(Count12::new(0xe03)), 509);
        assert_eq!(Count12::new(4090).since(Count12::new(3587)), 503);
        assert_eq!(Count12::new(5).since(Count12::new(5)), 0);
        assert_eq!(Count12::new(0xe03).to_string(), "3587 (E03h)");
    }
}
