//! The link-delay calculator's inputs (36.8 a), 36.8.1) for exactly the stations a
//! [`TwoStationConfig`] simulates, so that a calculated headroom and a simulated run describe
//! the same link.

use super::{Medium, StationDelays, TwoStationConfig};
use crate::headroom::{
    picos_to_bits, HeadroomError, HeadroomInputs, LinkDelay, LocalDelays, Medium as CableMedium,
    PeerDelay, Sublayer,
};
use crate::time::{LinkSpeed, PFC_REACTION_BOUND};

impl Medium {
    /// The headroom calculator's medium for this simulated one.
    pub fn cable(self) -> CableMedium {
        match self {
            Medium::Fibre => CableMedium::Fibre,
            Medium::Copper => CableMedium::Cat6,
        }
    }
}

impl StationDelays {
    /// A station with the calculator's defaults for `speed` over `medium`: the speed's default
    /// interface stack split into halves, Annex N's 200-bit PFC generation, and pause entry at
    /// the 614.4 ns bound. 10 Gb/s over copper is Annex N's station.
    pub fn for_link(speed: LinkSpeed, medium: Medium) -> Self {
        let rtt = Sublayer::default_rtt_bits(speed, medium.cable());
        let tx = rtt.div_ceil(2);
        StationDelays {
            pfc_generation_bits: 200,
            tx_interface_bits: tx,
            rx_interface_bits: rtt - tx,
            // The bound is a whole number of bit times from 10 Gb/s up; at 1 Gb/s its 614.4 bit
            // times are rounded up to 615 (the simulation counts whole bits).
            pause_entry_bits: u64::try_from(picos_to_bits(PFC_REACTION_BOUND, speed))
                .unwrap_or(u64::MAX),
        }
    }
}

impl TwoStationConfig {
    /// Cable, both stations' interface round trips and PFC generation, the peer's pause entry,
    /// the largest frame A or B sends (FCS added: the simulation's lengths exclude it). No MACsec.
    pub fn headroom_inputs(&self) -> Result<HeadroomInputs, HeadroomError> {
        let metres = u32::try_from(self.link_metres)
            .map_err(|_| HeadroomError::TooLarge { what: "link length" })?;
        let medium = self.medium.cable();
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
        assert_eq!(
            StationDelays::for_link(LinkSpeed::G10, Medium::Copper),
            StationDelays::default()
        );
    }

    #[test]
    fn stations_for_a_speed_are_the_calculator_defaults_for_it() {
        for speed in LinkSpeed::ALL {
            let mut cfg = TwoStationConfig::annex_n(0, 1);
            cfg.speed = speed;
            cfg.medium = Medium::Fibre;
            cfg.delays = StationDelays::for_link(speed, Medium::Fibre);
            let from_sim = cfg.headroom_inputs().expect("valid");
            let defaults = HeadroomInputs::for_link(speed, from_sim.link_delay);
            assert_eq!(from_sim.local, defaults.local, "{speed}");
            // The calculator's pause entry, rounded up to the whole bit times the simulation
            // counts (a change only at 1 Gb/s).
            let PeerDelay::Configured { interface_rtt_bits, pause_entry } = defaults.peer else {
                panic!("{speed}: the default peer is configured");
            };
            let whole = speed.bits_time(picos_to_bits(pause_entry, speed) as u64);
            assert!(whole >= pause_entry && whole < pause_entry + speed.bits_time(1), "{speed}");
            assert_eq!(
                from_sim.peer,
                PeerDelay::Configured { interface_rtt_bits, pause_entry: whole },
                "{speed}"
            );
        }
    }
}
