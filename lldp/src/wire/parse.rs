//! Small helpers: nom's generic failures turned into our typed errors, and a writer that lets
//! emitters fill a buffer without any indexing that could panic.

use super::Error;

/// Runs a nom parser over input that must hold at least `needed` octets for `what`; any nom
/// failure on such fixed layouts can only mean the input ended early.
pub(crate) fn fixed<'a, O>(
    what: &'static str,
    needed: usize,
    input: &'a [u8],
    mut parser: impl FnMut(&'a [u8]) -> nom::IResult<&'a [u8], O>,
) -> Result<(&'a [u8], O), Error> {
    if input.len() < needed {
        return Err(Error::Truncated { what, needed, got: input.len() });
    }
    parser(input).map_err(|_| Error::Truncated { what, needed, got: input.len() })
}

/// Runs a nom parser over input whose length was already checked; a failure (which the check
/// should have made impossible) becomes `err` rather than a panic.
pub(crate) fn run<'a, O>(
    input: &'a [u8],
    mut parser: impl FnMut(&'a [u8]) -> nom::IResult<&'a [u8], O>,
    err: impl FnOnce() -> Error,
) -> Result<(&'a [u8], O), Error> {
    parser(input).map_err(|_| err())
}

/// Checks an output buffer before an emitter writes `needed` octets into it.
pub(crate) fn check_out(buf: &[u8], needed: usize) -> Result<(), Error> {
    if buf.len() < needed {
        return Err(Error::BufferTooSmall { needed, got: buf.len() });
    }
    Ok(())
}

/// Appends octets to a buffer front to back. Writing past the end never panics: it is recorded
/// and reported by [`Writer::finish`] as [`Error::BufferTooSmall`].
pub(crate) struct Writer<'a> {
    buf: &'a mut [u8],
    at: usize,
    overflow: bool,
}

impl<'a> Writer<'a> {
    pub(crate) fn new(buf: &'a mut [u8]) -> Self {
        Writer { buf, at: 0, overflow: false }
    }

    pub(crate) fn put(&mut self, bytes: &[u8]) {
        let end = self.at.saturating_add(bytes.len());
        match self.buf.get_mut(self.at..end) {
            Some(out) => out.copy_from_slice(bytes),
            None => self.overflow = true,
        }
        self.at = end;
    }

    pub(crate) fn u8(&mut self, v: u8) {
        self.put(&[v]);
    }

    pub(crate) fn u16(&mut self, v: u16) {
        self.put(&v.to_be_bytes());
    }

    pub(crate) fn u32(&mut self, v: u32) {
        self.put(&v.to_be_bytes());
    }

    pub(crate) fn i64(&mut self, v: i64) {
        self.put(&v.to_be_bytes());
    }

    /// The number of octets written, or the shortfall if the buffer was too small.
    pub(crate) fn finish(self) -> Result<usize, Error> {
        if self.overflow {
            return Err(Error::BufferTooSmall { needed: self.at, got: self.buf.len() });
        }
        Ok(self.at)
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
        w.u16(0x0102);
        w.u16(0x0304);
        assert_eq!(w.finish(), Err(Error::BufferTooSmall { needed: 4, got: 3 }));
    }
}
