//! A minimal pcap (libpcap classic format) writer, so frames pfcd emits can be opened in
//! Wireshark or decoded by tshark. Link type 1 (Ethernet), nanosecond timestamps.

use std::io::{self, Write};

/// Magic number of a classic pcap file with nanosecond-resolution timestamps.
const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
const LINKTYPE_ETHERNET: u32 = 1;
const SNAPLEN: u32 = 65_535;

/// Writes frames to a pcap stream.
pub struct PcapWriter<W: Write> {
    out: W,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the file header.
    pub fn new(mut out: W) -> io::Result<Self> {
        out.write_all(&MAGIC_NANOS.to_le_bytes())?;
        out.write_all(&2u16.to_le_bytes())?; // version 2.4
        out.write_all(&4u16.to_le_bytes())?;
        out.write_all(&0i32.to_le_bytes())?; // GMT offset
        out.write_all(&0u32.to_le_bytes())?; // timestamp accuracy
        out.write_all(&SNAPLEN.to_le_bytes())?;
        out.write_all(&LINKTYPE_ETHERNET.to_le_bytes())?;
        Ok(PcapWriter { out })
    }

    /// Appends one frame (without FCS) captured at `time_ns` nanoseconds.
    pub fn write_frame(&mut self, time_ns: u64, frame: &[u8]) -> io::Result<()> {
        let secs = u32::try_from(time_ns / 1_000_000_000).unwrap_or(u32::MAX);
        let nanos = (time_ns % 1_000_000_000) as u32;
        let len = u32::try_from(frame.len())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "frame over 4 GiB"))?;
        self.out.write_all(&secs.to_le_bytes())?;
        self.out.write_all(&nanos.to_le_bytes())?;
        self.out.write_all(&len.min(SNAPLEN).to_le_bytes())?;
        self.out.write_all(&len.to_le_bytes())?;
        self.out.write_all(&frame[..frame.len().min(SNAPLEN as usize)])
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_record_layout() {
        let mut w = PcapWriter::new(Vec::new()).expect("vec");
        w.write_frame(1_000_000_123, &[0xaa; 3]).expect("vec");
        let bytes = w.into_inner();
        assert_eq!(bytes.len(), 24 + 16 + 3);
        assert_eq!(&bytes[0..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(&bytes[20..24], &[1, 0, 0, 0]);
        assert_eq!(&bytes[24..28], &[1, 0, 0, 0]); // 1 s
        assert_eq!(&bytes[28..32], &123u32.to_le_bytes());
        assert_eq!(&bytes[32..40], &[3, 0, 0, 0, 3, 0, 0, 0]);
    }
}
