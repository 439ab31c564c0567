//! Application Priority TLV (subtype 0x0C, OUI 00-80-C2), IEEE 802.1Q D.2.11.
//!
//! ```text
//! +-----+----------+----------+------+----------+----------------------------------------+
//! | 127 | 5 + 3n   | 00-80-C2 | 0x0C | reserved | n application priority entries         |
//! +-----+----------+----------+------+----------+----------------------------------------+
//! each entry, 3 octets:
//! +-----------------------------------------+---------------------------+
//! | 8-6 Priority | 5-4 reserved | 3-1 Sel   |  Protocol ID (u16)         |
//! +-----------------------------------------+---------------------------+
//! Selector: 1 EtherType, 2 TCP/SCTP port, 3 UDP/DCCP port, 4 TCP/SCTP/UDP/DCCP port,
//!           5 DSCP (0, 6, 7 reserved; kept as received)
//! ```
//!
//! The reserved octet and reserved bits are ignored on receive and sent as 0. A length that is
//! not 5 + 3n is [`Error::BadLength`]. At most 168 entries fit in one TLV (emit refuses more
//! with [`Error::TlvTooLong`]).

use std::fmt;

use pfc_wire::Fields;

use super::org::{expect_org, write_org_header};
use super::tlv::{tlv_repr, Info};
use super::write::{in_range, Writer};
use super::{Error, Oui, TlvType};

/// Subtype of the Application Priority TLV.
pub const APP_PRIORITY_SUBTYPE: u8 = 0x0c;

/// Where the Application Priority TLV's fields lie (IEEE 802.1Q D.2.11), counted from the start
/// of the information string, after the OUI and subtype (`org::field`).
mod field {
    use pfc_wire::{Field, Rest};

    /// Reserved.
    pub const RESERVED: usize = 4;
    /// The Application Priority Table: three-octet entries to the end.
    pub const TABLE: Rest = 5..;
    /// Octets of one entry.
    pub const ENTRY_LEN: usize = 3;

    const fn entry(n: usize) -> Field {
        TABLE.start + ENTRY_LEN * n..TABLE.start + ENTRY_LEN * (n + 1)
    }
    /// Entry `n`'s Priority (bits 8-6), reserved bits (5-4) and Sel (3-1).
    pub const fn priority_selector(n: usize) -> usize {
        entry(n).start
    }
    /// Entry `n`'s Protocol ID.
    pub const fn protocol(n: usize) -> Field {
        entry(n).start + 1..entry(n).end
    }
    /// Octets of an information string of `entries` entries.
    pub const fn info_len(entries: usize) -> usize {
        entry(entries).start
    }
}

const _: () = assert!(field::RESERVED == super::org::ORG_HEADER_LEN);

/// What an application priority entry's Protocol ID identifies.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct AppSelector(pub u8);

impl AppSelector {
    pub const ETHERTYPE: AppSelector = AppSelector(1);
    pub const TCP_SCTP_PORT: AppSelector = AppSelector(2);
    pub const UDP_DCCP_PORT: AppSelector = AppSelector(3);
    pub const TCP_SCTP_UDP_DCCP_PORT: AppSelector = AppSelector(4);
    pub const DSCP: AppSelector = AppSelector(5);
}

impl fmt::Display for AppSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            1 => f.write_str("ethertype"),
            2 => f.write_str("tcp-sctp"),
            3 => f.write_str("udp-dccp"),
            4 => f.write_str("tcp-sctp-udp-dccp"),
            5 => f.write_str("dscp"),
            n => write!(f, "reserved-{n}"),
        }
    }
}

impl fmt::Debug for AppSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AppSelector({self})")
    }
}

/// One application priority entry: frames of `protocol` (as `selector` says) use `priority`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AppEntry {
    /// 0..=7.
    pub priority: u8,
    /// 0..=7 (3 bits).
    pub selector: AppSelector,
    pub protocol: u16,
}

/// The Application Priority TLV.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct AppPriority {
    pub entries: Vec<AppEntry>,
}

impl Info for AppPriority {
    const TLV_TYPE: TlvType = TlvType::ORG_SPECIFIC;

    fn parse_info(info: &[u8]) -> Result<Self, Error> {
        expect_org(info, Oui::IEEE_802_1, APP_PRIORITY_SUBTYPE)?;
        let bad = || Error::BadLength {
            tlv: "Application Priority",
            len: info.len(),
            expected: "5 + 3n",
        };
        let table_len = info.len().checked_sub(field::TABLE.start).ok_or_else(bad)?;
        if !table_len.is_multiple_of(field::ENTRY_LEN) {
            return Err(bad());
        }
        let fields = Fields::new(info, bad);
        let entries = (0..table_len / field::ENTRY_LEN)
            .map(|n| {
                let bits = fields.u8(field::priority_selector(n))?;
                Ok(AppEntry {
                    priority: bits >> 5,
                    selector: AppSelector(bits & 0x07),
                    protocol: fields.u16(field::protocol(n))?,
                })
            })
            .collect::<Result<_, Error>>()?;
        Ok(AppPriority { entries })
    }

    fn info_len(&self) -> usize {
        field::info_len(self.entries.len())
    }

    fn write_info(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        write_org_header(w, Oui::IEEE_802_1, APP_PRIORITY_SUBTYPE);
        w.u8(field::RESERVED, 0);
        for (n, e) in self.entries.iter().enumerate() {
            let priority = in_range("Application Priority priority", e.priority, 7, "0 to 7")?;
            let selector = in_range("Application Priority selector", e.selector.0, 7, "0 to 7")?;
            w.u8(field::priority_selector(n), (priority << 5) | selector);
            w.u16(field::protocol(n), e.protocol);
        }
        Ok(())
    }
}

tlv_repr!(AppPriority);

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        hex::decode(s.replace(' ', "")).expect("test vector is hex")
    }

    #[test]
    fn fcoe_and_rocev2_entries() {
        let bytes = hex("fe0b 0080c2 0c 00 61 8906 83 12b7");
        let expected = AppPriority {
            entries: vec![
                AppEntry { priority: 3, selector: AppSelector::ETHERTYPE, protocol: 0x8906 },
                AppEntry { priority: 4, selector: AppSelector::UDP_DCCP_PORT, protocol: 4791 },
            ],
        };
        assert_eq!(AppPriority::parse(&bytes), Ok((expected.clone(), &[][..])));
        assert_eq!(expected.to_vec(), Ok(bytes));
    }

    #[test]
    fn empty_table_and_reserved_bits() {
        let bytes = hex("fe05 0080c2 0c 00");
        assert_eq!(AppPriority::parse(&bytes), Ok((AppPriority::default(), &[][..])));
        // Reserved octet and bits 5-4 set: ignored.
        let (app, _) = AppPriority::parse(&hex("fe08 0080c2 0c ff 79 0800")).expect("parses");
        assert_eq!(
            app.entries,
            vec![AppEntry { priority: 3, selector: AppSelector::ETHERTYPE, protocol: 0x0800 }]
        );
    }

    #[test]
    fn length_not_5_plus_3n_is_bad_length() {
        let bad = |len| Error::BadLength { tlv: "Application Priority", len, expected: "5 + 3n" };
        assert_eq!(AppPriority::parse(&hex("fe07 0080c2 0c 00 61 89")), Err(bad(7)));
        assert_eq!(AppPriority::parse(&hex("fe04 0080c2 0c")), Err(bad(4)));
    }

    #[test]
    fn entry_fields_out_of_range_are_refused() {
        let app = AppPriority {
            entries: vec![AppEntry { priority: 8, selector: AppSelector::DSCP, protocol: 46 }],
        };
        assert_eq!(
            app.to_vec(),
            Err(Error::FieldOutOfRange {
                field: "Application Priority priority",
                value: 8,
                allowed: "0 to 7"
            })
        );
        let entry = AppEntry { priority: 0, selector: AppSelector(0), protocol: 0 };
        let full = AppPriority { entries: vec![entry; 169] };
        assert_eq!(
            full.to_vec(),
            Err(Error::TlvTooLong { tlv_type: TlvType::ORG_SPECIFIC, len: 512 })
        );
        assert!(AppPriority { entries: vec![entry; 168] }.to_vec().is_ok());
    }
}
