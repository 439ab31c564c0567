//! What the kernel says about a received frame beside its octets: the control messages of
//! `recvmsg` read as plain bytes (no pointer arithmetic, so no `unsafe`), and the VLAN tag Linux
//! took out of the frame put back in.

/// `tpacket_auxdata.tp_status` bit: `tp_vlan_tci` holds the tag the kernel stripped.
const TP_STATUS_VLAN_VALID: u32 = 0x10;
/// `tpacket_auxdata.tp_status` bit: `tp_vlan_tpid` holds its TPID (otherwise it was 81-00).
const TP_STATUS_VLAN_TPID_VALID: u32 = 0x40;
/// `SOL_PACKET` / `PACKET_AUXDATA` as they appear in a control message header.
const SOL_PACKET: i32 = libc::SOL_PACKET;
const PACKET_AUXDATA: i32 = libc::PACKET_AUXDATA;
const TPID_8021Q: u16 = 0x8100;

/// Space a control buffer needs for one `tpacket_auxdata` (CMSG_SPACE of its 20 octets: 40) and
/// one `timespec` timestamp (32), with room to spare.
pub(super) const CONTROL_LEN: usize = 128;

/// Octets of `struct cmsghdr` before its data: `cmsg_len` (size_t), level and type (int each),
/// padded to the alignment of size_t.
const CMSG_HDR_LEN: usize = align(std::mem::size_of::<usize>() + 8);

const fn align(n: usize) -> usize {
    let a = std::mem::size_of::<usize>();
    n.div_ceil(a) * a
}

/// The tag the kernel stripped from a received frame: TPID and TCI as they were on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct StrippedTag {
    pub tpid: u16,
    pub tci: u16,
}

impl StrippedTag {
    pub fn octets(self) -> [u8; 4] {
        let [a, b] = self.tpid.to_be_bytes();
        let [c, d] = self.tci.to_be_bytes();
        [a, b, c, d]
    }
}

/// What the control messages of one received frame say.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Control {
    /// The tag the kernel stripped (`PACKET_AUXDATA`).
    pub tag: Option<StrippedTag>,
    /// When the kernel received the frame (`SO_TIMESTAMPNS`), CLOCK_REALTIME nanoseconds.
    pub received_ns: Option<u64>,
}

/// Reads the `len` octets of control data in `control`.
pub(super) fn parse_control(control: &[u8], len: usize) -> Control {
    let mut out = Control::default();
    let Some(control) = control.get(..len) else { return out };
    let mut at = 0;
    while at + CMSG_HDR_LEN <= control.len() {
        let cmsg_len = read_usize(&control[at..]);
        let level = read_i32(&control[at + std::mem::size_of::<usize>()..]);
        let kind = read_i32(&control[at + std::mem::size_of::<usize>() + 4..]);
        if cmsg_len < CMSG_HDR_LEN || at + cmsg_len > control.len() {
            break;
        }
        let data = &control[at + CMSG_HDR_LEN..at + cmsg_len];
        if level == SOL_PACKET && kind == PACKET_AUXDATA {
            out.tag = aux_tag(data);
        } else if level == libc::SOL_SOCKET && kind == libc::SCM_TIMESTAMPNS && data.len() >= 16 {
            // struct timespec: tv_sec and tv_nsec, 8 octets each on 64-bit Linux.
            let sec = read_usize(data) as u64;
            let nsec = read_usize(&data[8..]) as u64;
            out.received_ns = Some(sec * 1_000_000_000 + nsec);
        }
        at += align(cmsg_len);
    }
    out
}

/// The stripped tag alone.
#[cfg(test)]
fn stripped_tag(control: &[u8], len: usize) -> Option<StrippedTag> {
    parse_control(control, len).tag
}

/// `struct tpacket_auxdata`: tp_status, tp_len, tp_snaplen (u32 each), tp_mac, tp_net,
/// tp_vlan_tci, tp_vlan_tpid (u16 each), in host order.
fn aux_tag(data: &[u8]) -> Option<StrippedTag> {
    if data.len() < 20 {
        return None;
    }
    let status = read_u32(data);
    if status & TP_STATUS_VLAN_VALID == 0 {
        return None;
    }
    let tci = u16::from_ne_bytes([data[16], data[17]]);
    let tpid = if status & TP_STATUS_VLAN_TPID_VALID != 0 {
        u16::from_ne_bytes([data[18], data[19]])
    } else {
        TPID_8021Q
    };
    Some(StrippedTag { tpid, tci })
}

fn read_usize(b: &[u8]) -> usize {
    let mut o = [0u8; std::mem::size_of::<usize>()];
    o.copy_from_slice(&b[..std::mem::size_of::<usize>()]);
    usize::from_ne_bytes(o)
}

fn read_i32(b: &[u8]) -> i32 {
    i32::from_ne_bytes([b[0], b[1], b[2], b[3]])
}

fn read_u32(b: &[u8]) -> u32 {
    u32::from_ne_bytes([b[0], b[1], b[2], b[3]])
}

/// Puts `tag` back into a frame received at `buf[HEADROOM..HEADROOM + len]`, where the
/// caller left [`HEADROOM`] octets free in front of it: the two addresses move 4 octets towards
/// the start and the tag goes after them. Returns where the frame now starts and its length.
pub(super) fn reinsert_tag(buf: &mut [u8], len: usize, tag: StrippedTag) -> (usize, usize) {
    if len < 12 {
        return (HEADROOM, len);
    }
    buf.copy_within(HEADROOM..HEADROOM + 12, 0);
    buf[12..16].copy_from_slice(&tag.octets());
    (0, len + HEADROOM)
}

/// Octets left free in front of each received frame, for the tag.
pub(super) const HEADROOM: usize = 4;

#[cfg(test)]
mod tests {
    use super::*;

    /// A control buffer as the kernel writes it: one cmsghdr with a tpacket_auxdata.
    fn control(status: u32, tci: u16, tpid: u16) -> Vec<u8> {
        let mut aux = Vec::new();
        aux.extend_from_slice(&status.to_ne_bytes());
        aux.extend_from_slice(&1500u32.to_ne_bytes()); // tp_len
        aux.extend_from_slice(&1500u32.to_ne_bytes()); // tp_snaplen
        aux.extend_from_slice(&0u16.to_ne_bytes()); // tp_mac
        aux.extend_from_slice(&14u16.to_ne_bytes()); // tp_net
        aux.extend_from_slice(&tci.to_ne_bytes());
        aux.extend_from_slice(&tpid.to_ne_bytes());
        let mut c = Vec::new();
        c.extend_from_slice(&(CMSG_HDR_LEN + aux.len()).to_ne_bytes());
        c.extend_from_slice(&SOL_PACKET.to_ne_bytes());
        c.extend_from_slice(&PACKET_AUXDATA.to_ne_bytes());
        c.resize(CMSG_HDR_LEN, 0);
        c.extend_from_slice(&aux);
        c.resize(align(c.len()), 0);
        c
    }

    #[test]
    fn a_valid_vlan_gives_its_tci_and_tpid() {
        let c = control(TP_STATUS_VLAN_VALID, 0x6005, 0);
        assert_eq!(stripped_tag(&c, c.len()), Some(StrippedTag { tpid: 0x8100, tci: 0x6005 }));
        let c = control(TP_STATUS_VLAN_VALID | TP_STATUS_VLAN_TPID_VALID, 0x2001, 0x88a8);
        assert_eq!(stripped_tag(&c, c.len()), Some(StrippedTag { tpid: 0x88a8, tci: 0x2001 }));
    }

    #[test]
    fn no_tag_without_the_status_bit_or_the_message() {
        let c = control(0x1, 0x6005, 0x8100);
        assert_eq!(stripped_tag(&c, c.len()), None);
        assert_eq!(stripped_tag(&c, 0), None);
        // A cmsg_len running past the buffer is not read.
        let mut bad = control(TP_STATUS_VLAN_VALID, 5, 0);
        bad[..std::mem::size_of::<usize>()].copy_from_slice(&4096usize.to_ne_bytes());
        assert_eq!(stripped_tag(&bad, bad.len()), None);
    }

    #[test]
    fn a_timestamp_beside_the_auxdata_is_read_too() {
        let mut c = control(TP_STATUS_VLAN_VALID, 0x6005, 0);
        let mut ts = Vec::new();
        ts.extend_from_slice(&(CMSG_HDR_LEN + 16).to_ne_bytes());
        ts.extend_from_slice(&libc::SOL_SOCKET.to_ne_bytes());
        ts.extend_from_slice(&libc::SCM_TIMESTAMPNS.to_ne_bytes());
        ts.resize(CMSG_HDR_LEN, 0);
        ts.extend_from_slice(&1_700_000_000u64.to_ne_bytes());
        ts.extend_from_slice(&123_456_789u64.to_ne_bytes());
        c.extend_from_slice(&ts);
        let parsed = parse_control(&c, c.len());
        assert_eq!(parsed.tag, Some(StrippedTag { tpid: 0x8100, tci: 0x6005 }));
        assert_eq!(parsed.received_ns, Some(1_700_000_000_123_456_789));
    }

    #[test]
    fn the_tag_goes_back_after_the_source_address() {
        let frame: Vec<u8> = (1..=20).collect();
        let mut buf = vec![0u8; HEADROOM + frame.len()];
        buf[HEADROOM..].copy_from_slice(&frame);
        let (start, len) =
            reinsert_tag(&mut buf, frame.len(), StrippedTag { tpid: 0x8100, tci: 0x6005 });
        assert_eq!((start, len), (0, 24));
        assert_eq!(&buf[..12], &frame[..12]);
        assert_eq!(&buf[12..16], &[0x81, 0x00, 0x60, 0x05]);
        assert_eq!(&buf[16..24], &frame[12..]);
    }
}
