//! IEEE 802.3 interface delays: each sublayer's maximum round trip (the sum of its transmit and
//! receive delays at one end of the link), and the stack a port is assumed to have at each speed
//! when nothing is configured.
//!
//! The 10 Gb/s figures are Table N-1's (P802.1Qdt Annex N, from IEEE Std 802.3-2018, whose
//! Clause 44.3 collects the 10 Gb/s sublayers' constraints), checked against the draft. The figures above 10 Gb/s are from IEEE Std 802.3-2022's delay-constraint
//! tables as we know them (each cited by clause below); those tables could not be consulted
//! where this was written, so where we were unsure the larger figure was taken, and the
//! 200/400 Gb/s PCS figures are derived (see [`Sublayer::Pcs200GBaseR`]). The 1 Gb/s figures
//! are upper bounds, not the standard's (see [`Sublayer::Phy1G`]). DECISIONS.md, "Interface
//! delays per speed", says which is which. A port whose PHY's real figures are known configures
//! its own round trip; these defaults only need to be no lower than the standard's maxima.

use super::link_delay::Medium;
use crate::time::LinkSpeed;

/// A sublayer of an IEEE 802.3 interface stack and its maximum round-trip delay in bit times at
/// its own speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sublayer {
    /// 1G MAC Control, MAC and RS (GMII): 1024 bit times, two pause quanta. The 10G MAC's
    /// 819.2 ns at 1 Gb/s, rounded up to whole quanta (the 1 Gb/s reaction time of 802.3
    /// Annex 31B is counted in quanta too).
    MacControlMacRs1G,
    /// A 1 Gb/s PHY, PCS to MDI: 6000 bit times, the round trip 802.3 allows a 1000BASE-H PHY
    /// (Clause 115), the largest 1 Gb/s PHY figure we could read. 1000BASE-X and 1000BASE-T
    /// PHYs are built well under it (a few hundred nanoseconds each way); a port whose PHY's
    /// figure is known configures its own round trip.
    Phy1G,
    /// 10G MAC Control, MAC and RS: 8192 bit times (802.3 46.1.4; Table N-1).
    MacControlMacRs10G,
    /// XGXS and XAUI: 2048 (48.5; Table N-1). A XAUI has an XGXS at each end, so list it twice.
    XgxsXaui,
    /// 10GBASE-X PCS: 2048 (Table N-1 cites 49.2.15).
    Pcs10GBaseX,
    /// 10GBASE-R PCS: 3584 (Table N-1 cites 50.3.7).
    Pcs10GBaseR,
    /// LX4 PMD: 512 (53.2; Table N-1).
    PmdLx4,
    /// CX4 PMD: 512 (54.3; Table N-1).
    PmdCx4,
    /// Serial PMA and PMD: 512 (52.2; Table N-1).
    SerialPmaPmd,
    /// 10GBASE-T: 25 600 (55.11; Table N-1).
    TenGBaseT,
    /// 25G MAC, RS and MAC Control: 20 480 (802.3 Clause 105.5, the 25GBASE-R delay
    /// constraints; the 10G MAC's 819.2 ns kept in time).
    MacControlMacRs25G,
    /// 25GBASE-R PCS: 3584 (Clause 107, as the 10GBASE-R PCS it is derived from; Clause 105.5).
    Pcs25GBaseR,
    /// RS-FEC at 25 Gb/s: 24 576 (Clause 108; Clause 105.5). Counted by default: 25GBASE-CR/SR
    /// links run it.
    RsFec25G,
    /// 25GBASE-R PMA: 2048 (Clause 109; Clause 105.5).
    Pma25G,
    /// 25GBASE-R PMD (CR, KR, SR, LR): 1024 (Clauses 110–114; Clause 105.5).
    Pmd25G,
    /// 40G MAC, RS and MAC Control: 16 384 (Clause 80.4, Table 80-3).
    MacControlMacRs40G,
    /// 40GBASE-R PCS: 22 528 (Clause 82; Table 80-3).
    Pcs40GBaseR,
    /// BASE-R FEC at 40 Gb/s: 24 576 (Clause 74; Table 80-3). Counted by default.
    BaseRFec40G,
    /// 40GBASE-R PMA: 4096 (Clause 83; Table 80-3).
    Pma40G,
    /// 40GBASE-R PMD (KR4, CR4, SR4, LR4): 2048 (Clauses 84–89; Table 80-3).
    Pmd40G,
    /// 50G MAC, RS and MAC Control: 20 480 (Clause 131.4, the 50GBASE-R delay constraints).
    MacControlMacRs50G,
    /// 50GBASE-R PCS: 18 432 (Clause 133; Clause 131.4).
    Pcs50GBaseR,
    /// RS-FEC at 50 Gb/s, RS(544,514): 24 576 (Clause 134; Clause 131.4).
    RsFec50G,
    /// 50GBASE-R PMA: 9216 (Clause 135; Clause 131.4).
    Pma50G,
    /// 50GBASE-R PMD: 1024 (Clauses 136–139; Clause 131.4).
    Pmd50G,
    /// 100G MAC, RS and MAC Control: 24 576 (Clause 80.4, Table 80-3).
    MacControlMacRs100G,
    /// 100GBASE-R PCS: 35 328 (Clause 82; Table 80-3).
    Pcs100GBaseR,
    /// RS-FEC at 100 Gb/s: 24 576 (Clause 91; Table 80-3). Counted by default: 100GBASE-CR4,
    /// KR4 and SR4 require it.
    RsFec100G,
    /// 100GBASE-R PMA: 9216 (Clause 83; Table 80-3).
    Pma100G,
    /// 100GBASE-R PMD: 2048 (Clauses 84–95; Table 80-3).
    Pmd100G,
    /// 200G/400G MAC, RS and MAC Control: 24 576 (Clause 116.4, the 200GBASE-R and 400GBASE-R
    /// delay constraints; the 100G MAC's figure in bit times).
    MacControlMacRs200G400G,
    /// 200GBASE-R PCS with its RS(544,514) FEC: 81 920 bit times, 409.6 ns (Clause 119; Clause
    /// 116.4). Derived, not read: one interleaved codeword pair to collect and decode on receive
    /// and up to 180 ns of lane skew to absorb, with room to spare.
    Pcs200GBaseR,
    /// 400GBASE-R PCS with its RS(544,514) FEC: 163 840 bit times, the same 409.6 ns as at
    /// 200 Gb/s (Clause 119; Clause 116.4), derived the same way.
    Pcs400GBaseR,
    /// 200GBASE-R and 400GBASE-R PMA: 9216 (Clause 120; Clause 116.4).
    Pma200G400G,
    /// 200GBASE-R and 400GBASE-R PMD: 2048 (Clauses 121–124; Clause 116.4).
    Pmd200G400G,
}

impl Sublayer {
    /// A 1 Gb/s port: GMII MAC/RS and a PHY at [`Sublayer::Phy1G`]'s bound (7024).
    pub const ONE_G: [Sublayer; 2] = [Sublayer::MacControlMacRs1G, Sublayer::Phy1G];

    /// The Annex N N.6 stack: XGMII MAC/RS, XAUI (two XGXS) and a 10GBASE-T PHY, 37 888 bit
    /// times round trip.
    pub const ANNEX_N_10GBASE_T: [Sublayer; 4] =
        [Sublayer::MacControlMacRs10G, Sublayer::XgxsXaui, Sublayer::XgxsXaui, Sublayer::TenGBaseT];

    /// 10GBASE-SR/LR on an SFP+ port: MAC/RS, 10GBASE-R PCS, serial PMA/PMD (12 288).
    pub const TEN_G_BASE_R: [Sublayer; 3] =
        [Sublayer::MacControlMacRs10G, Sublayer::Pcs10GBaseR, Sublayer::SerialPmaPmd];

    /// 25GBASE-R with RS-FEC (51 712).
    pub const TWENTY_FIVE_G: [Sublayer; 5] = [
        Sublayer::MacControlMacRs25G,
        Sublayer::Pcs25GBaseR,
        Sublayer::RsFec25G,
        Sublayer::Pma25G,
        Sublayer::Pmd25G,
    ];

    /// 40GBASE-R with BASE-R FEC (69 632).
    pub const FORTY_G: [Sublayer; 5] = [
        Sublayer::MacControlMacRs40G,
        Sublayer::Pcs40GBaseR,
        Sublayer::BaseRFec40G,
        Sublayer::Pma40G,
        Sublayer::Pmd40G,
    ];

    /// 50GBASE-R with RS-FEC (73 728).
    pub const FIFTY_G: [Sublayer; 5] = [
        Sublayer::MacControlMacRs50G,
        Sublayer::Pcs50GBaseR,
        Sublayer::RsFec50G,
        Sublayer::Pma50G,
        Sublayer::Pmd50G,
    ];

    /// 100GBASE-R with RS-FEC (95 744).
    pub const HUNDRED_G: [Sublayer; 5] = [
        Sublayer::MacControlMacRs100G,
        Sublayer::Pcs100GBaseR,
        Sublayer::RsFec100G,
        Sublayer::Pma100G,
        Sublayer::Pmd100G,
    ];

    /// 200GBASE-R (117 760).
    pub const TWO_HUNDRED_G: [Sublayer; 4] = [
        Sublayer::MacControlMacRs200G400G,
        Sublayer::Pcs200GBaseR,
        Sublayer::Pma200G400G,
        Sublayer::Pmd200G400G,
    ];

    /// 400GBASE-R (199 680).
    pub const FOUR_HUNDRED_G: [Sublayer; 4] = [
        Sublayer::MacControlMacRs200G400G,
        Sublayer::Pcs400GBaseR,
        Sublayer::Pma200G400G,
        Sublayer::Pmd200G400G,
    ];

    /// Maximum round-trip delay in bit times at the sublayer's speed.
    pub const fn rtt_bits(self) -> u64 {
        match self {
            Sublayer::MacControlMacRs1G => 1_024,
            Sublayer::Phy1G => 6_000,
            Sublayer::MacControlMacRs10G => 8_192,
            Sublayer::XgxsXaui | Sublayer::Pcs10GBaseX => 2_048,
            Sublayer::Pcs10GBaseR | Sublayer::Pcs25GBaseR => 3_584,
            Sublayer::PmdLx4 | Sublayer::PmdCx4 | Sublayer::SerialPmaPmd => 512,
            Sublayer::TenGBaseT => 25_600,
            Sublayer::MacControlMacRs25G | Sublayer::MacControlMacRs50G => 20_480,
            Sublayer::RsFec25G
            | Sublayer::BaseRFec40G
            | Sublayer::RsFec50G
            | Sublayer::MacControlMacRs100G
            | Sublayer::RsFec100G
            | Sublayer::MacControlMacRs200G400G => 24_576,
            Sublayer::Pma25G | Sublayer::Pmd40G | Sublayer::Pmd100G | Sublayer::Pmd200G400G => {
                2_048
            }
            Sublayer::Pmd25G | Sublayer::Pmd50G => 1_024,
            Sublayer::MacControlMacRs40G => 16_384,
            Sublayer::Pcs40GBaseR => 22_528,
            Sublayer::Pma40G => 4_096,
            Sublayer::Pcs50GBaseR => 18_432,
            Sublayer::Pma50G | Sublayer::Pma100G | Sublayer::Pma200G400G => 9_216,
            Sublayer::Pcs100GBaseR => 35_328,
            Sublayer::Pcs200GBaseR => 81_920,
            Sublayer::Pcs400GBaseR => 163_840,
        }
    }

    /// The round trip through a whole stack: the sum of its sublayers'.
    pub fn stack_rtt_bits(stack: &[Sublayer]) -> u64 {
        stack.iter().map(|s| s.rtt_bits()).sum()
    }

    /// The stack a port at `speed` over `medium` is assumed to have: 10GBASE-T (Annex N's) on
    /// twisted pair at 10 Gb/s, otherwise the BASE-R stack of the speed with the FEC its common
    /// PHYs run.
    pub fn default_stack(speed: LinkSpeed, medium: Medium) -> &'static [Sublayer] {
        match speed {
            LinkSpeed::G1 => &Sublayer::ONE_G,
            LinkSpeed::G10 if medium == Medium::Cat6 => &Sublayer::ANNEX_N_10GBASE_T,
            LinkSpeed::G10 => &Sublayer::TEN_G_BASE_R,
            LinkSpeed::G25 => &Sublayer::TWENTY_FIVE_G,
            LinkSpeed::G40 => &Sublayer::FORTY_G,
            LinkSpeed::G50 => &Sublayer::FIFTY_G,
            LinkSpeed::G100 => &Sublayer::HUNDRED_G,
            LinkSpeed::G200 => &Sublayer::TWO_HUNDRED_G,
            LinkSpeed::G400 => &Sublayer::FOUR_HUNDRED_G,
        }
    }

    /// [`Sublayer::default_stack`]'s round trip in bit times at `speed`.
    pub fn default_rtt_bits(speed: LinkSpeed, medium: Medium) -> u64 {
        Self::stack_rtt_bits(Self::default_stack(speed, medium))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annex_n_and_the_10g_stacks() {
        assert_eq!(Sublayer::stack_rtt_bits(&Sublayer::ANNEX_N_10GBASE_T), 37_888);
        assert_eq!(Sublayer::default_rtt_bits(LinkSpeed::G10, Medium::Cat6), 37_888);
        assert_eq!(Sublayer::default_rtt_bits(LinkSpeed::G10, Medium::Fibre), 12_288);
    }

    #[test]
    fn every_speed_has_its_own_stack() {
        let totals: Vec<u64> =
            LinkSpeed::ALL.iter().map(|&s| Sublayer::default_rtt_bits(s, Medium::Fibre)).collect();
        assert_eq!(totals, [7_024, 12_288, 51_712, 69_632, 73_728, 95_744, 117_760, 199_680]);
        // In time: 400GBASE-R is 499.2 ns, where 10GBASE-T's bit count at 400 Gb/s was 94.7 ns.
        let ps = |s: LinkSpeed| Sublayer::default_rtt_bits(s, Medium::Fibre) * 1000 / s.gbps();
        assert_eq!(ps(LinkSpeed::G400), 499_200);
        assert_eq!(ps(LinkSpeed::G25), 2_068_480);
        assert_eq!(ps(LinkSpeed::G1), 7_024_000, "7 µs at 1 Gb/s, on twisted pair too");
        assert_eq!(Sublayer::default_rtt_bits(LinkSpeed::G1, Medium::Cat6), 7_024);
    }
}
