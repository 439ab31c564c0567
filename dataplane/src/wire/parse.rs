//! Small helpers that turn nom's generic failures into our typed errors.

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

/// Checks an output buffer before an emitter writes `needed` octets into it.
pub(crate) fn check_out(buf: &[u8], needed: usize) -> Result<(), Error> {
    if buf.len() < needed {
        return Err(Error::BufferTooSmall { needed, got: buf.len() });
    }
    Ok(())
}
