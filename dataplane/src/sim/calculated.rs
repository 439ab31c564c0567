//! The link-delay calculator's inputs (36.8 a), 36.8.1) for exactly the stations a
//! [`TwoStationConfig`] simulates, so that a calculated headroom and a simulated run describe
//! the same link.

use super::{Medium, TwoStationConfig};
use crate::headroom::{
    HeadroomError, HeadroomInputs, LinkDelay, LocalDelays, Medium as CableMedium, PeerDelay,
};

impl TwoStationConfig {
    /// Cable, both stations' interface round trips and PFC generation, the peer's pause entry,
    /// the largest frame A or B sends (FCS added: the simulation's lengths exclude it). No MACsec.
    pub fn headroom_inputs(&self) -> Result<HeadroomInputs, HeadroomError> {
        let metres = u32::try_from(self.link_metres)
            .map_err(|_| HeadroomError::TooLarge { what: "link length" })?;
        let medium = match self.medium {
            Medium::Fibre => CableMedium::Fibre,
            Medium::Copper => CableMedium::Cat6,
        };
        let d = self.delays;
        let rtt = d.tx_interface_bits + d.rx_interface_bits;
        Ok(HeadroomInputs {
            speed: self.speed,
            link_delay: LinkDelay::Cable { metres, medium },
            local: LocalDelays {
                pfc_generation_bits: d.pfc_generation_bits,
                interface_rtt_bits: rtt,
                ..LocalDelays::default()
            },
            peer: PeerDelay::Configured {
                interface_rtt_bits: rtt,
                pause_entry: self.speed.bits_time(d.pause_entry_bits),
            },
            max_frame_octets: self.max_frame_octets() + crate::time::FCS_OCTETS,
            ..HeadroomInputs::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headroom::calculate;

    #[test]
    fn the_annex_n_stations_give_the_annex_n_headroom() {
        let cfg = TwoStationConfig::annex_n(0, 1);
        let inputs = cfg.headroom_inputs().expect("valid");
        // The simulation's 2000-octet frames exclude the FCS: 2004-octet frames, 32 more bits
        // each for d) and i).
        assert_eq!(calculate(&inputs).map(|h| h.bits), Ok(126_224 + 2 * 32));
    }
}
