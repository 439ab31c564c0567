//! What emitters share beyond `pfc-wire`'s helpers: a writer that puts each field at its named
//! place without any indexing that could panic, and the range check of a field's value.

use pfc_wire::{Field, Rest};

use super::Error;

/// Writes a format's fields into a buffer at the places its `mod field` names. Writing past the
/// end never panics: it is recorded and reported by [`Writer::finish`] as
/// [`Error::BufferTooSmall`].
pub(crate) struct Writer<'a> {
    buf: &'a mut [u8],
    /// The end of the furthest field written: the octets the format took.
    end: usize,
    overflow: bool,
}

impl<'a> Writer<'a> {
    pub(crate) fn new(buf: &'a mut [u8]) -> Self {
        Writer { buf, end: 0, overflow: false }
    }

    /// Writes `bytes` as `field`, which must be as wide.
    pub(crate) fn put(&mut self, field: Field, bytes: &[u8]) {
        debug_assert_eq!(field.len(), bytes.len(), "a field written with a value of another width");
        self.end = self.end.max(field.end);
        match self.buf.get_mut(field) {
            Some(out) if out.len() == bytes.len() => out.copy_from_slice(bytes),
            _ => self.overflow = true,
        }
    }

    /// Writes `bytes` from the start of `field`: a field whose width is the value's.
    pub(crate) fn put_rest(&mut self, field: Rest, bytes: &[u8]) {
        let start = field.start;
        self.put(start..start.saturating_add(bytes.len()), bytes);
    }

    /// Writes `bytes` as everything this writer covers (an information string that is one
    /// field: a name, an uninterpreted TLV).
    pub(crate) fn put_whole(&mut self, bytes: &[u8]) {
        self.put_rest(0.., bytes);
    }

    pub(crate) fn u8(&mut self, at: usize, v: u8) {
        self.put(at..at.saturating_add(1), &[v]);
    }

    pub(crate) fn u16(&mut self, field: Field, v: u16) {
        self.put(field, &v.to_be_bytes());
    }

    pub(crate) fn u32(&mut self, field: Field, v: u32) {
        self.put(field, &v.to_be_bytes());
    }

    pub(crate) fn i64(&mut self, field: Field, v: i64) {
        self.put(field, &v.to_be_bytes());
    }

    /// Runs `write` on a writer of `field` alone, whose own fields count from `field`'s start
    /// (a TLV's information string, an address inside it).
    pub(crate) fn nested<T>(
        &mut self,
        field: Field,
        write: impl FnOnce(&mut Writer<'_>) -> T,
    ) -> T {
        let len = self.buf.len();
        let end = field.end.min(len);
        let start = field.start.min(end);
        let mut inner = Writer::new(self.buf.get_mut(start..end).unwrap_or_default());
        let out = write(&mut inner);
        self.end = self.end.max(field.start.saturating_add(inner.end));
        self.overflow |= inner.overflow;
        out
    }

    /// The octets written (up to the end of the furthest field), or the shortfall if the
    /// buffer was too small.
    pub(crate) fn finish(self) -> Result<usize, Error> {
        if self.overflow {
            return Err(Error::BufferTooSmall { needed: self.end, got: self.buf.len() });
        }
        Ok(self.end)
    }
}

/// Checks that `value` fits in `max` (inclusive) for an emitter; `allowed` is said in the error.
pub(crate) fn in_range(
    field: &'static str,
    value: u8,
    max: u8,
    allowed: &'static str,
) -> Result<u8, Error> {
    if value > max {
        return Err(Error::FieldOutOfRange { field, value: u32::from(value), allowed });
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writer_reports_overflow_instead_of_panicking() {
        let mut buf = [0u8; 3];
        let mut w = Writer::new(&mut buf);
        w.u16(0..2, 0x0102);
        w.u16(2..4, 0x0304);
        assert_eq!(w.finish(), Err(Error::BufferTooSmall { needed: 4, got: 3 }));
    }

    #[test]
    fn a_nested_writer_counts_from_its_field_and_stays_inside_it() {
        let mut buf = [0u8; 6];
        let mut w = Writer::new(&mut buf);
        w.u8(0, 0xaa);
        w.nested(2..4, |inner| inner.u16(0..2, 0x0102));
        assert_eq!(w.finish(), Ok(4));
        assert_eq!(buf, [0xaa, 0, 1, 2, 0, 0]);

        let mut short = [0u8; 3];
        let mut w = Writer::new(&mut short);
        w.nested(2..4, |inner| inner.u16(0..2, 0x0102));
        assert_eq!(w.finish(), Err(Error::BufferTooSmall { needed: 4, got: 3 }));
    }
}
