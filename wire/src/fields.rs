//! Named field ranges, and the helpers parsers and emitters use with them.
//!
//! Every format declares where its fields lie once, in a `mod field` beside its parser:
//! `pub const DESTINATION: Field = 0..6;` for a fixed field, a `usize` for a one-octet field, a
//! [`Rest`] for what runs to the end, and a `const fn` for a field whose place depends on a count
//! or a length (the n-th pause time, an address of the length its length field gives). Parse and
//! emit both name the field, so no offset is written twice.

use std::ops::{Range, RangeFrom};

use crate::Error;

/// The octets of one field, counted from the start of its format.
pub type Field = Range<usize>;

/// A field that runs from its start to the end of its format: a payload, or a string whose length
/// is whatever is left.
pub type Rest = RangeFrom<usize>;

/// Reads named fields out of a format's octets. A field the octets do not hold entirely gives
/// the error `short` makes, never a panic, so a parser reads each field it needs and the first
/// one missing reports the format as truncated (or too short, in the format's own words).
#[derive(Debug, Clone, Copy)]
pub struct Fields<'a, S> {
    data: &'a [u8],
    short: S,
}

impl<'a, E, S: Fn() -> E> Fields<'a, S> {
    /// The fields of `data`; `short` makes the error of a field past its end.
    pub fn new(data: &'a [u8], short: S) -> Self {
        Fields { data, short }
    }

    /// The octets of `field`.
    pub fn octets(&self, field: Field) -> Result<&'a [u8], E> {
        self.data.get(field).ok_or_else(&self.short)
    }

    /// The octets from `field`'s start to the end (empty when the data ends right there).
    pub fn rest(&self, field: Rest) -> Result<&'a [u8], E> {
        self.data.get(field).ok_or_else(&self.short)
    }

    /// The octets of `field` as an array of its width.
    pub fn array<const N: usize>(&self, field: Field) -> Result<[u8; N], E> {
        self.octets(field)?.try_into().map_err(|_| (self.short)())
    }

    /// The octet at `at`.
    pub fn u8(&self, at: usize) -> Result<u8, E> {
        self.data.get(at).copied().ok_or_else(&self.short)
    }

    /// A two-octet field, most significant octet first.
    pub fn u16(&self, field: Field) -> Result<u16, E> {
        self.array(field).map(u16::from_be_bytes)
    }

    /// A two-octet two's complement field, most significant octet first.
    pub fn i16(&self, field: Field) -> Result<i16, E> {
        self.array(field).map(i16::from_be_bytes)
    }

    /// A four-octet field, most significant octet first.
    pub fn u32(&self, field: Field) -> Result<u32, E> {
        self.array(field).map(u32::from_be_bytes)
    }

    /// An eight-octet two's complement field, most significant octet first.
    pub fn i64(&self, field: Field) -> Result<i64, E> {
        self.array(field).map(i64::from_be_bytes)
    }
}

/// Checks an output buffer before an emitter writes `needed` octets into it.
pub fn check_out(buf: &[u8], needed: usize) -> Result<(), Error> {
    if buf.len() < needed {
        return Err(Error::BufferTooSmall { needed, got: buf.len() });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHORT: Error = Error::Truncated { what: "test", needed: 4, got: 3 };

    #[test]
    fn a_field_past_the_end_is_the_formats_error_not_a_panic() {
        let f = Fields::new(&[1, 2, 3], || SHORT);
        assert_eq!(f.u16(0..2), Ok(0x0102));
        assert_eq!(f.u8(2), Ok(3));
        assert_eq!(f.u16(2..4), Err(SHORT));
        assert_eq!(f.u8(3), Err(SHORT));
        assert_eq!(f.rest(3..), Ok(&[][..]));
        assert_eq!(f.rest(4..), Err(SHORT));
        // A field declared wider than the value read from it is refused, not truncated.
        assert_eq!(f.u16(0..3), Err(SHORT));
    }

    #[test]
    fn fields_are_read_most_significant_octet_first() {
        let data = [0xff, 0xfe, 0x00, 0x00, 0x00, 0x01, 0x80, 0x00];
        let f = Fields::new(&data, || SHORT);
        assert_eq!(f.i16(0..2), Ok(-2));
        assert_eq!(f.u32(2..6), Ok(1));
        assert_eq!(f.i64(0..8), Ok(-0x0001_ffff_fffe_8000));
    }

    #[test]
    fn a_short_buffer_is_refused_before_writing() {
        assert_eq!(check_out(&[0; 3], 4), Err(Error::BufferTooSmall { needed: 4, got: 3 }));
        assert_eq!(check_out(&[0; 4], 4), Ok(()));
    }
}
