//! LLDPDUs a test's peer sends: a plain one, and a hostile one full of malformed TLVs.

use dataplane::wire::MacAddr;
use lldp::wire::{ChassisId, LldpFrame, Lldpdu, PortId, SystemName, Tlv};

/// A station's LLDPDU: its MAC address as chassis, `port` as port, the system name `name`.
pub fn lldpdu(src: MacAddr, port: &str, name: &str) -> Vec<u8> {
    LldpFrame::new(src, pdu(src, port, name)).to_vec().expect("emits")
}

fn pdu(src: MacAddr, port: &str, name: &str) -> Lldpdu {
    let mut pdu = Lldpdu::new(ChassisId::MacAddress(src), PortId::InterfaceName(port.into()), 120);
    pdu.tlvs.push(Tlv::SystemName(SystemName::from(name)));
    pdu
}

/// The same LLDPDU with `n` zero-length System Capabilities TLVs before its End (the TLV is 4
/// octets: each is malformed and discarded, the rest of the LLDPDU used).
pub fn malformed_tlvs(src: MacAddr, port: &str, name: &str, n: usize) -> Vec<u8> {
    let octets = pdu(src, port, name).to_vec().expect("emits");
    // The Ethernet header (a short frame's padding left out), the LLDPDU without its End TLV,
    // the empty TLVs, then End.
    let mut frame = lldpdu(src, port, name)[..14].to_vec();
    frame.extend_from_slice(&octets[..octets.len() - 2]);
    for _ in 0..n {
        frame.extend_from_slice(&[0x0e, 0x00]);
    }
    frame.extend_from_slice(&[0, 0]);
    frame
}
