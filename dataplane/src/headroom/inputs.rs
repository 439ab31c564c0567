//! What the link-delay headroom calculation (36.8 a), 36.8.1) needs to know, with the Annex N
//! worked example as the default: a 10GBASE-T link over 100 m of Cat6, no MACsec — the worst
//! case Annex N N.6 chooses, so an unconfigured port errs towards too much headroom.
//!
//! Every delay is an integer: bit times at the link rate where IEEE 802.3 states it in bit
//! times (interface delays, frame sizes), picoseconds where it is a time (the 614.4 ns reaction
//! bound, an IEEE 1588 link delay), and an IEEE 1588 TimeInterval where the peer advertises it.

use super::interfaces::Sublayer;
use super::link_delay::{LinkDelay, Medium};
use super::units::{bits_to_time_interval, picos_to_bits};
use crate::time::{LinkSpeed, Picos, PFC_REACTION_BOUND};
use crate::wire::PathCode;

/// Splits an interface round trip into its transmit and receive halves. Table N-1 gives only
/// round trips and Annex N halves them; an odd round trip gives the extra bit to the transmit
/// half so the two halves still add up to the stated round trip.
pub(crate) const fn split_rtt(rtt_bits: u64) -> (u64, u64) {
    let tx = rtt_bits.div_ceil(2);
    (tx, rtt_bits - tx)
}

/// This station's own delays — station B of 36.1.1, the one that sends PFC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LocalDelays {
    /// a) Reception processing to calculate the remaining buffering, bit times. Default 0:
    /// Annex N folds it into the PFC frame generation figure.
    pub reception_processing_bits: u64,
    /// b) PFC frame generation, bit times. Default 200 (Annex N N.6).
    pub pfc_generation_bits: u64,
    /// c) and k): the interface stack's round trip, bit times, half of it counted on transmit
    /// and half on receive. Default 37 888 = 8192 + 2 × 2048 + 25 600 (Annex N N.6).
    pub interface_rtt_bits: u64,
    /// k) Reception processing and buffering above the interface, bit times. Default 0 (Annex N
    /// has none).
    pub receive_processing_bits: u64,
    /// h) as a PFC Receiver: how long this station takes to halt transmission selection after a
    /// PFC arrives. Not part of our own headroom; it is what we advertise to the peer in our PFC
    /// Local Delay TLV. Default 614.4 ns, the bound of 36.3.3.
    pub pause_entry: Picos,
    /// Our MACsec Bypass Capability bit (D.2.10.4): `true` (1) when our SecY stays in the path
    /// even with MACsec off, so its delays count on our side too. Default `false`.
    pub mbc: bool,
}

impl Default for LocalDelays {
    fn default() -> Self {
        LocalDelays {
            reception_processing_bits: 0,
            pfc_generation_bits: 200,
            interface_rtt_bits: Sublayer::stack_rtt_bits(&Sublayer::ANNEX_N_10GBASE_T),
            receive_processing_bits: 0,
            pause_entry: PFC_REACTION_BOUND,
            mbc: false,
        }
    }
}

impl LocalDelays {
    /// Our delays when nothing is configured, for a port at `speed` over `medium`: Annex N's
    /// figures, with the interface round trip of the speed's default stack
    /// ([`Sublayer::default_stack`]) — so the PFC Local Delay TLV we advertise follows the speed.
    pub fn for_link(speed: LinkSpeed, medium: Medium) -> Self {
        LocalDelays {
            interface_rtt_bits: Sublayer::default_rtt_bits(speed, medium),
            ..LocalDelays::default()
        }
    }

    /// The Delay to advertise in our PFC Local Delay TLV (D.2.19), as an IEEE 1588 TimeInterval
    /// (ns × 2^16, rounded up): our delays as a PFC Receiver, items g), h) and the interface part
    /// of i) — receive interface, halting transmission selection, transmit interface. The
    /// maximum frame in progress and any SecY delay are left out: the peer adds those from the
    /// maximum frame size and the MACsec state it knows (see DECISIONS.md, "Headroom").
    pub fn local_delay_tlv(&self, speed: LinkSpeed) -> i64 {
        let halt = picos_to_bits(self.pause_entry, speed);
        let bits = (self.interface_rtt_bits as u128).saturating_add(halt);
        bits_to_time_interval(u64::try_from(bits).unwrap_or(u64::MAX), speed)
    }
}

/// The peer's delays as a PFC Receiver — station A of 36.1.1, items g), h) and the interface
/// part of i) (36.8 a) 3)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PeerDelay {
    /// The Delay from the peer's PFC Local Delay TLV (D.2.19): an IEEE 1588 TimeInterval,
    /// nanoseconds × 2^16, possibly negative. Covers g) to i) less the maximum frame and SecY
    /// delays, which this calculator adds itself.
    LocalDelayTlv(i64),
    /// Configured, itemised as Annex N does: the peer's interface round trip (its receive half is
    /// g), its transmit half part of i)) and its time to enter the paused state (h).
    Configured { interface_rtt_bits: u64, pause_entry: Picos },
}

impl Default for PeerDelay {
    /// Annex N's assumption: the peer uses the same technology as we do (ID_s1 = ID_s2) and
    /// pauses within the 614.4 ns bound.
    fn default() -> Self {
        PeerDelay::Configured {
            interface_rtt_bits: Sublayer::stack_rtt_bits(&Sublayer::ANNEX_N_10GBASE_T),
            pause_entry: PFC_REACTION_BOUND,
        }
    }
}

impl PeerDelay {
    /// The peer's delays when it advertises none and nothing is configured: the same stack as
    /// ours at this speed and medium (Annex N's ID_s1 = ID_s2), pausing within 614.4 ns.
    pub fn for_link(speed: LinkSpeed, medium: Medium) -> Self {
        PeerDelay::Configured {
            interface_rtt_bits: Sublayer::default_rtt_bits(speed, medium),
            pause_entry: PFC_REACTION_BOUND,
        }
    }
}

/// Which frames are MACsec protected on this link (36.4, 36.5), as DCBX negotiated it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Macsec {
    /// User data frames pass through both SecYs: A's transmit and B's receive delays count.
    pub user_data: bool,
    /// PFC frames pass through both SecYs: B's transmit and A's receive delays count.
    pub pfc_frames: bool,
}

impl From<PathCode> for Macsec {
    /// The protection an HMPDU path code names (SPEC §2.3). The Privacy Channel rides on MACsec,
    /// so code 3 counts as both protected; any extra MAC Privacy delay is not modelled.
    fn from(path: PathCode) -> Self {
        match path {
            PathCode::Unprotected => Macsec { user_data: false, pfc_frames: false },
            PathCode::DataProtected => Macsec { user_data: true, pfc_frames: false },
            PathCode::Protected | PathCode::Privacy => Macsec { user_data: true, pfc_frames: true },
        }
    }
}

/// Everything the link-delay headroom calculation needs for one port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HeadroomInputs {
    /// The MAC data rate: bit times are at this rate.
    pub speed: LinkSpeed,
    /// The one-way link delay, counted once each way (f) and j)).
    pub link_delay: LinkDelay,
    /// Our own delays (a) to e), k)).
    pub local: LocalDelays,
    /// The peer's delays as a PFC Receiver (g) to i)).
    pub peer: PeerDelay,
    /// The peer's MBC bit from its PFC Configuration TLV: when `true` (1) the peer cannot bypass
    /// its SecY, so its transmit and receive SecY delays count even with MACsec off (36.4.1).
    pub peer_mbc: bool,
    /// The largest frame either station may have in progress, octets including FCS (d) and i)).
    /// Default 2000, the IEEE 802.3 envelope frame Annex N uses.
    pub max_frame_octets: u64,
    /// The PFC frame, octets including FCS (e)). Default 64.
    pub pfc_frame_octets: u64,
    /// Which frames are MACsec protected.
    pub macsec: Macsec,
    /// One SecY delay (transmit or receive) in bit times, when the SecY's real figure is known.
    /// `None` uses 36.4.1 NOTE 1's bound (see [`super::secy_delay`]).
    pub secy_delay_bits: Option<u64>,
}

impl Default for HeadroomInputs {
    /// The Annex N N.6 example: 10GBASE-T, 100 m of Cat6, 2000-octet frames, no MACsec.
    fn default() -> Self {
        HeadroomInputs {
            speed: LinkSpeed::G10,
            link_delay: LinkDelay::Cable { metres: 100, medium: Medium::Cat6 },
            local: LocalDelays::default(),
            peer: PeerDelay::default(),
            peer_mbc: false,
            max_frame_octets: 2_000,
            pfc_frame_octets: 64,
            macsec: Macsec::default(),
            secy_delay_bits: None,
        }
    }
}

impl HeadroomInputs {
    /// The inputs for a port at `speed` whose link delay is `link_delay`, everything else at its
    /// default, with both stations' interface delays those of the speed's default stack. A
    /// link given as a time says nothing of its medium: at 10 Gb/s 10GBASE-T, the slower, is
    /// assumed.
    pub fn for_link(speed: LinkSpeed, link_delay: LinkDelay) -> Self {
        let medium = match link_delay {
            LinkDelay::Cable { medium, .. } => medium,
            LinkDelay::OneWay(_) => Medium::Cat6,
        };
        HeadroomInputs {
            speed,
            link_delay,
            local: LocalDelays::for_link(speed, medium),
            peer: PeerDelay::for_link(speed, medium),
            ..HeadroomInputs::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annex_n_interface_round_trip() {
        assert_eq!(split_rtt(37_888), (18_944, 18_944));
        assert_eq!(split_rtt(3_585), (1_793, 1_792));
    }

    #[test]
    fn advertised_local_delay_covers_g_h_and_the_interface_part_of_i() {
        // 37 888 + 6144 = 44 032 bit times = 4403.2 ns = 288 568 115.2 TimeInterval, rounded up.
        assert_eq!(LocalDelays::default().local_delay_tlv(LinkSpeed::G10), 288_568_116);
    }

    #[test]
    fn the_advertised_local_delay_follows_the_speed() {
        // 400GBASE-R: 199 680 + 245 760 (614.4 ns) = 445 440 bit times = 1113.6 ns, where the
        // 10GBASE-T figures gave 709 ns.
        let tlv =
            LocalDelays::for_link(LinkSpeed::G400, Medium::Fibre).local_delay_tlv(LinkSpeed::G400);
        assert_eq!(tlv, 72_980_890);
        let old = LocalDelays::default().local_delay_tlv(LinkSpeed::G400);
        assert_eq!(old / 65_536, 709, "709.1 ns");
        // 10G over twisted pair is still Annex N's 10GBASE-T station.
        assert_eq!(LocalDelays::for_link(LinkSpeed::G10, Medium::Cat6), LocalDelays::default());
    }

    #[test]
    fn inputs_for_a_link_use_the_speed_stack_at_both_ends() {
        let cable = LinkDelay::Cable { metres: 100, medium: Medium::Cat6 };
        assert_eq!(HeadroomInputs::for_link(LinkSpeed::G10, cable), HeadroomInputs::default());
        let fibre = LinkDelay::Cable { metres: 100, medium: Medium::Fibre };
        let i = HeadroomInputs::for_link(LinkSpeed::G100, fibre);
        assert_eq!(i.local.interface_rtt_bits, 95_744);
        assert_eq!(
            i.peer,
            PeerDelay::Configured { interface_rtt_bits: 95_744, pause_entry: PFC_REACTION_BOUND }
        );
    }

    #[test]
    fn path_codes_name_the_protected_frames() {
        assert_eq!(Macsec::from(PathCode::Unprotected), Macsec::default());
        assert_eq!(
            Macsec::from(PathCode::DataProtected),
            Macsec { user_data: true, pfc_frames: false }
        );
        assert_eq!(Macsec::from(PathCode::Protected), Macsec { user_data: true, pfc_frames: true });
        assert_eq!(Macsec::from(PathCode::Privacy), Macsec { user_data: true, pfc_frames: true });
    }
}
