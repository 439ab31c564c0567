//! `struct dcbnl_buffer`: which receive buffer each priority uses, and the buffers' sizes.

use crate::error::DecodeError;
use crate::kernel::EIGHT;
use crate::netlink::struct_fields;

mod field {
    use pfc_wire::Field;

    pub const PRIO2BUFFER: Field = 0..8;
    pub const BUFFER_SIZE: usize = 8;
    pub const TOTAL_SIZE: Field = 40..44;
    pub const SIZE: usize = 44;

    /// The size of buffer `n`.
    pub const fn buffer_size(n: usize) -> Field {
        BUFFER_SIZE + 4 * n..BUFFER_SIZE + 4 * (n + 1)
    }
}

/// `sizeof(struct dcbnl_buffer)`.
pub const DCBNL_BUFFER_SIZE: usize = field::SIZE;

/// The NIC's receive buffers: priority n uses buffer `prio2buffer[n]`; sizes in octets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DcbBuffer {
    pub prio2buffer: [u8; EIGHT],
    pub buffer_size: [u32; EIGHT],
    pub total_size: u32,
}

impl DcbBuffer {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = vec![0; field::SIZE];
        b[field::PRIO2BUFFER].copy_from_slice(&self.prio2buffer);
        for (n, size) in self.buffer_size.iter().enumerate() {
            b[field::buffer_size(n)].copy_from_slice(&size.to_ne_bytes());
        }
        b[field::TOTAL_SIZE].copy_from_slice(&self.total_size.to_ne_bytes());
        b
    }

    pub fn parse(value: &[u8]) -> Result<Self, DecodeError> {
        let f = struct_fields("struct dcbnl_buffer", value, field::SIZE)?;
        let mut buffer_size = [0; EIGHT];
        for (n, size) in buffer_size.iter_mut().enumerate() {
            *size = u32::from_ne_bytes(f.array(field::buffer_size(n))?);
        }
        Ok(DcbBuffer {
            prio2buffer: f.array(field::PRIO2BUFFER)?,
            buffer_size,
            total_size: u32::from_ne_bytes(f.array(field::TOTAL_SIZE)?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dcbnl_buffer_reads_back() {
        let buf = DcbBuffer {
            prio2buffer: [0, 0, 0, 1, 0, 2, 0, 0],
            buffer_size: [0x0001_2345, 0x0005_4321, 7, 0, 0, 0, 0, u32::MAX],
            total_size: 0x000a_bcde,
        };
        let b = buf.to_bytes();
        assert_eq!(b.len(), 44);
        assert_eq!(DcbBuffer::parse(&b), Ok(buf));
    }
}
