//! The netlink framing around every DCB message: `struct nlmsghdr`, `struct dcbmsg` and
//! `struct nlattr`, in the host's byte order as netlink carries them, each attribute padded to
//! four octets.

use pfc_wire::Fields;

use crate::error::DecodeError;
use crate::kernel::{NLA_F_NESTED, NLA_TYPE_MASK};

pub(crate) mod field {
    use pfc_wire::Field;

    /// `struct nlmsghdr`.
    pub const NLMSG_LEN: Field = 0..4;
    pub const NLMSG_TYPE: Field = 4..6;
    pub const NLMSG_FLAGS: Field = 6..8;
    pub const NLMSG_SEQ: Field = 8..12;
    pub const NLMSG_PID: Field = 12..16;
    pub const NLMSG_HDRLEN: usize = 16;

    /// `struct dcbmsg`, right after the header.
    pub const DCB_FAMILY: usize = 16;
    pub const DCB_CMD: usize = 17;
    pub const DCB_PAD: Field = 18..20;
    /// Where a DCB message's attributes start.
    pub const DCB_ATTRS: usize = 20;

    /// `struct nlmsgerr`, right after the header: the error (0 for an acknowledgement), then the
    /// request's own header.
    pub const NLMSGERR_ERROR: Field = 16..20;
    pub const NLMSGERR_SEQ: Field = 28..32;

    /// `struct nlattr`.
    pub const NLA_LEN: Field = 0..2;
    pub const NLA_TYPE: Field = 2..4;
    pub const NLA_HDRLEN: usize = 4;
}

/// `dcbmsg.dcb_family`: DCB messages name no address family.
const AF_UNSPEC: u8 = 0;

/// `NLA_ALIGN` / `NLMSG_ALIGN`: netlink pads everything to four octets.
pub(crate) const fn align(len: usize) -> usize {
    (len + 3) & !3
}

/// Builds one netlink message: the header's length is filled in by [`MessageWriter::finish`],
/// nests' lengths when they close.
pub(crate) struct MessageWriter {
    buf: Vec<u8>,
}

impl MessageWriter {
    /// A DCB message: `nlmsghdr` then `dcbmsg` (family `AF_UNSPEC`, padding zero).
    pub fn dcb(nl_type: u16, flags: u16, seq: u32, pid: u32, cmd: u8) -> Self {
        let mut buf = vec![0; field::DCB_ATTRS];
        buf[field::NLMSG_TYPE].copy_from_slice(&nl_type.to_ne_bytes());
        buf[field::NLMSG_FLAGS].copy_from_slice(&flags.to_ne_bytes());
        buf[field::NLMSG_SEQ].copy_from_slice(&seq.to_ne_bytes());
        buf[field::NLMSG_PID].copy_from_slice(&pid.to_ne_bytes());
        buf[field::DCB_FAMILY] = AF_UNSPEC;
        buf[field::DCB_CMD] = cmd;
        MessageWriter { buf }
    }

    /// An attribute holding `value`, padded with zeros.
    pub fn attr(&mut self, nla_type: u16, value: &[u8]) {
        let start = self.header(nla_type);
        self.buf.extend_from_slice(value);
        self.close(start);
    }

    /// Opens a nest (flagged `NLA_F_NESTED`, as libmnl's `mnl_attr_nest_start` does); the
    /// returned mark closes it.
    pub fn nest(&mut self, nla_type: u16) -> usize {
        self.header(nla_type | NLA_F_NESTED)
    }

    /// Closes the attribute or nest that starts at `start`: its length is what it holds,
    /// padding aside, and the padding follows.
    pub fn close(&mut self, start: usize) {
        let len = self.buf.len() - start;
        let len16 = u16::try_from(len).unwrap_or(u16::MAX);
        self.buf[start..][field::NLA_LEN].copy_from_slice(&len16.to_ne_bytes());
        self.buf.resize(start + align(len), 0);
    }

    fn header(&mut self, nla_type: u16) -> usize {
        let start = self.buf.len();
        self.buf.extend_from_slice(&[0; field::NLA_HDRLEN]);
        self.buf[start..][field::NLA_TYPE].copy_from_slice(&nla_type.to_ne_bytes());
        start
    }

    pub fn finish(mut self) -> Vec<u8> {
        let len = u32::try_from(self.buf.len()).unwrap_or(u32::MAX);
        self.buf[field::NLMSG_LEN].copy_from_slice(&len.to_ne_bytes());
        self.buf
    }
}

/// One attribute read: its type (flags removed) and its value (padding removed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Attr<'a> {
    pub nla_type: u16,
    pub value: &'a [u8],
}

/// The attributes in `data`, in order; the first one that does not fit is an error.
pub(crate) fn attrs(data: &[u8]) -> impl Iterator<Item = Result<Attr<'_>, DecodeError>> {
    let mut rest = data;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let short = || DecodeError::Truncated {
            what: "netlink attribute",
            needed: field::NLA_HDRLEN,
            got: rest.len(),
        };
        let f = Fields::new(rest, short);
        let parsed = (|| {
            let len = usize::from(f.array(field::NLA_LEN).map(u16::from_ne_bytes)?);
            let nla_type = f.array(field::NLA_TYPE).map(u16::from_ne_bytes)? & NLA_TYPE_MASK;
            if len < field::NLA_HDRLEN || len > rest.len() {
                return Err(DecodeError::BadLength {
                    what: "netlink attribute",
                    length: len,
                    room: rest.len(),
                });
            }
            Ok((len, Attr { nla_type, value: &rest[field::NLA_HDRLEN..len] }))
        })();
        match parsed {
            Ok((len, attr)) => {
                rest = rest.get(align(len)..).unwrap_or_default();
                Some(Ok(attr))
            }
            Err(e) => {
                rest = &[];
                Some(Err(e))
            }
        }
    })
}

/// A `struct`'s octets inside an attribute: at least `size` of them (a newer kernel's longer
/// struct is read by its known prefix).
pub(crate) fn struct_fields<'a>(
    what: &'static str,
    value: &'a [u8],
    size: usize,
) -> Result<Fields<'a, impl Fn() -> DecodeError>, DecodeError> {
    let got = value.len();
    if got < size {
        return Err(DecodeError::Truncated { what, needed: size, got });
    }
    Ok(Fields::new(value, move || DecodeError::Truncated { what, needed: size, got }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_are_padded_to_four_octets_and_read_back_without_the_padding() {
        let mut w = MessageWriter::dcb(78, 5, 0, 0, 21);
        w.attr(14, &[9]);
        let nest = w.nest(13);
        w.attr(2, &[1, 2, 3, 4, 5, 6]);
        w.close(nest);
        let msg = w.finish();
        assert_eq!(msg.len(), 20 + 8 + 4 + 12);
        let top: Vec<_> =
            attrs(&msg[field::DCB_ATTRS..]).collect::<Result<_, _>>().expect("attributes");
        assert_eq!(top[0], Attr { nla_type: 14, value: &[9] });
        assert_eq!(top[1].nla_type, 13, "the nested flag is not part of the type");
        let inner: Vec<_> = attrs(top[1].value).collect::<Result<_, _>>().expect("attributes");
        assert_eq!(inner, [Attr { nla_type: 2, value: &[1, 2, 3, 4, 5, 6] }]);
    }

    #[test]
    fn an_attribute_longer_than_its_message_is_an_error_not_a_panic() {
        let data = [0xff, 0x00, 0x01, 0x00, 0, 0, 0, 0];
        let got: Vec<_> = attrs(&data).collect();
        assert!(matches!(got[..], [Err(DecodeError::BadLength { .. })]), "{got:?}");
        assert!(matches!(
            attrs(&[1, 0]).collect::<Vec<_>>()[..],
            [Err(DecodeError::Truncated { .. })]
        ));
    }
}
