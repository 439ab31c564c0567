//! `struct ieee_ets`: 802.1Q's ETS managed objects (configuration and recommendation).

use crate::error::DecodeError;
use crate::kernel::EIGHT;
use crate::netlink::struct_fields;

mod field {
    use pfc_wire::Field;

    pub const WILLING: usize = 0;
    pub const ETS_CAP: usize = 1;
    pub const CBS: usize = 2;
    pub const TC_TX_BW: Field = 3..11;
    pub const TC_RX_BW: Field = 11..19;
    pub const TC_TSA: Field = 19..27;
    pub const PRIO_TC: Field = 27..35;
    pub const TC_RECO_BW: Field = 35..43;
    pub const TC_RECO_TSA: Field = 43..51;
    pub const RECO_PRIO_TC: Field = 51..59;
    pub const SIZE: usize = 59;
}

/// `sizeof(struct ieee_ets)`: octets only, no padding.
pub const IEEE_ETS_SIZE: usize = field::SIZE;

/// `IEEE_8021QAZ_TSA_*`: a traffic class's transmission selection algorithm.
pub const TSA_STRICT: u8 = 0;
pub const TSA_CB_SHAPER: u8 = 1;
pub const TSA_ETS: u8 = 2;
pub const TSA_VENDOR: u8 = 255;

/// ETS: the configuration in force and the recommendation to the peer, per traffic class
/// (bandwidth %, algorithm) and per priority (its traffic class).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IeeeEts {
    pub willing: u8,
    pub ets_cap: u8,
    pub cbs: u8,
    pub tc_tx_bw: [u8; EIGHT],
    pub tc_rx_bw: [u8; EIGHT],
    pub tc_tsa: [u8; EIGHT],
    pub prio_tc: [u8; EIGHT],
    pub tc_reco_bw: [u8; EIGHT],
    pub tc_reco_tsa: [u8; EIGHT],
    pub reco_prio_tc: [u8; EIGHT],
}

impl IeeeEts {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = vec![0; field::SIZE];
        b[field::WILLING] = self.willing;
        b[field::ETS_CAP] = self.ets_cap;
        b[field::CBS] = self.cbs;
        b[field::TC_TX_BW].copy_from_slice(&self.tc_tx_bw);
        b[field::TC_RX_BW].copy_from_slice(&self.tc_rx_bw);
        b[field::TC_TSA].copy_from_slice(&self.tc_tsa);
        b[field::PRIO_TC].copy_from_slice(&self.prio_tc);
        b[field::TC_RECO_BW].copy_from_slice(&self.tc_reco_bw);
        b[field::TC_RECO_TSA].copy_from_slice(&self.tc_reco_tsa);
        b[field::RECO_PRIO_TC].copy_from_slice(&self.reco_prio_tc);
        b
    }

    pub fn parse(value: &[u8]) -> Result<Self, DecodeError> {
        let f = struct_fields("struct ieee_ets", value, field::SIZE)?;
        Ok(IeeeEts {
            willing: f.u8(field::WILLING)?,
            ets_cap: f.u8(field::ETS_CAP)?,
            cbs: f.u8(field::CBS)?,
            tc_tx_bw: f.array(field::TC_TX_BW)?,
            tc_rx_bw: f.array(field::TC_RX_BW)?,
            tc_tsa: f.array(field::TC_TSA)?,
            prio_tc: f.array(field::PRIO_TC)?,
            tc_reco_bw: f.array(field::TC_RECO_BW)?,
            tc_reco_tsa: f.array(field::TC_RECO_TSA)?,
            reco_prio_tc: f.array(field::RECO_PRIO_TC)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ieee_ets_reads_back() {
        let ets = IeeeEts {
            willing: 1,
            ets_cap: 8,
            cbs: 0,
            tc_tx_bw: [10, 20, 30, 40, 0, 0, 0, 0],
            tc_rx_bw: [40, 30, 20, 10, 0, 0, 0, 0],
            tc_tsa: [TSA_ETS, TSA_ETS, TSA_ETS, TSA_ETS, TSA_STRICT, 0, 0, TSA_VENDOR],
            prio_tc: [0, 1, 2, 3, 4, 5, 6, 7],
            tc_reco_bw: [25, 25, 25, 25, 0, 0, 0, 0],
            tc_reco_tsa: [TSA_CB_SHAPER; 8],
            reco_prio_tc: [7, 6, 5, 4, 3, 2, 1, 0],
        };
        assert_eq!(IeeeEts::parse(&ets.to_bytes()), Ok(ets));
    }
}
