//! Headroom by the link-delay method (36.8 a), 36.8.1): the sum of our own delays, the link delay
//! both ways, the peer's delays as a PFC Receiver, and the two maximum frames in progress, laid
//! out item by item as in Annex N N.6.
//!
//! MACsec: a SecY delay counts wherever a SecY sits in the path, that is where the frames are
//! protected or where a station cannot bypass its SecY (MBC = 1):
//!
//! | item | SecY delay | counted when |
//! | --- | --- | --- |
//! | c) | B's transmit | PFC frames protected, or our MBC = 1 |
//! | g) | A's receive | PFC frames protected, or the peer's MBC = 1 |
//! | i) | A's transmit | user data protected, or the peer's MBC = 1 (Annex N: ID4) |
//! | k) | B's receive | user data protected, or our MBC = 1 (Annex N adds it to WD1) |
//!
//! With user data protected that adds 19 360 + 19 360, giving Annex N's 164 944.

use super::breakdown::{Breakdown, Item, Items, Line};
use super::inputs::{split_rtt, HeadroomInputs, PeerDelay};
use super::secy::{describe, secy_delay};
use super::units::{
    format_time_interval, frame_bits, group_digits, picos_to_bits, time_interval_to_bits,
};
use super::HeadroomError;
use crate::time::LinkSpeed;

/// The smallest IEEE 802.3 frame, FCS included.
const MIN_FRAME_OCTETS: u64 = 64;

/// A calculated headroom: the buffer that must still be free when PFC is sent (36.1.1).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Headroom {
    /// The link rate the bit times are at.
    pub speed: LinkSpeed,
    /// The headroom in bit times; always equal to `breakdown.total()`.
    pub bits: u64,
    /// Where every bit comes from.
    pub breakdown: Breakdown,
}

impl Headroom {
    /// The headroom in octets of buffer, rounded up. Counting preamble and inter-frame gap as
    /// buffer overstates it slightly (36.8 NOTE 1: by 1 % to 24 %); Annex N does the same.
    pub fn octets(&self) -> u64 {
        self.bits.div_ceil(8)
    }
}

impl std::fmt::Display for Headroom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{}", self.breakdown)?;
        write!(
            f,
            "headroom at {}: {} bit times = {} octets",
            self.speed,
            group_digits(self.bits as i128),
            group_digits(self.octets() as i128)
        )
    }
}

/// Collects lines, refusing any value that does not fit a signed 64-bit bit count.
#[derive(Default)]
pub(crate) struct Lines(Vec<Line>);

impl Lines {
    pub(crate) fn push(
        &mut self,
        items: Items,
        description: String,
        bits: i128,
        what: &'static str,
    ) -> Result<(), HeadroomError> {
        let bits = i64::try_from(bits).map_err(|_| HeadroomError::TooLarge { what })?;
        self.0.push(Line { items, description, bits });
        Ok(())
    }

    pub(crate) fn one(
        &mut self,
        item: Item,
        description: String,
        bits: u128,
        what: &'static str,
    ) -> Result<(), HeadroomError> {
        let bits = i128::try_from(bits).map_err(|_| HeadroomError::TooLarge { what })?;
        self.push(Items::one(item), description, bits, what)
    }

    /// The finished headroom; refuses a negative total.
    pub(crate) fn finish(self, speed: LinkSpeed) -> Result<Headroom, HeadroomError> {
        let breakdown = Breakdown { lines: self.0 };
        let total = breakdown.total();
        let bits = u64::try_from(total).map_err(|_| {
            if total < 0 {
                HeadroomError::NegativeTotal { bits: i64::try_from(total).unwrap_or(i64::MIN) }
            } else {
                HeadroomError::TooLarge { what: "total headroom" }
            }
        })?;
        Ok(Headroom { speed, bits, breakdown })
    }
}

/// Refuses a frame size below the IEEE 802.3 minimum.
pub(crate) fn check_frame(what: &'static str, octets: u64) -> Result<(), HeadroomError> {
    if octets < MIN_FRAME_OCTETS {
        return Err(HeadroomError::FrameTooSmall { what, octets });
    }
    Ok(())
}

/// The headroom for `inputs` by the link-delay method, with its breakdown.
pub fn calculate(inputs: &HeadroomInputs) -> Result<Headroom, HeadroomError> {
    check_frame("maximum frame", inputs.max_frame_octets)?;
    check_frame("PFC frame", inputs.pfc_frame_octets)?;
    let speed = inputs.speed;
    let local = &inputs.local;
    let macsec = inputs.macsec;
    let secy = secy_delay(speed, inputs.max_frame_octets, inputs.secy_delay_bits);
    let secy_text = describe(&secy);
    let link = inputs.link_delay.bits(speed)?;
    let max_frame = frame_bits(inputs.max_frame_octets);
    let max_frame_text = format!("one maximum frame of {} octets", inputs.max_frame_octets);
    let (local_tx, local_rx) = split_rtt(local.interface_rtt_bits);
    let rtt_text = group_digits(local.interface_rtt_bits as i128);
    let mut lines = Lines::default();

    // Station B sends the PFC: a) to e).
    lines.one(
        Item::A,
        "B: reception processing finds the buffer short".into(),
        local.reception_processing_bits as u128,
        "reception processing delay",
    )?;
    lines.one(
        Item::B,
        "B: PFC Initiator generates the PFC frame".into(),
        local.pfc_generation_bits as u128,
        "PFC generation delay",
    )?;
    lines.one(
        Item::C,
        format!("B: transmit interface, half the {rtt_text} bit-time interface round trip"),
        local_tx as u128,
        "interface round trip",
    )?;
    if macsec.pfc_frames || local.mbc {
        let why = if macsec.pfc_frames { "PFC frames MACsec protected" } else { "our MBC = 1" };
        lines.one(Item::C, format!("B: SecY transmit ({why}; {secy_text})"), secy.bits, "SecY")?;
    }
    lines.one(
        Item::D,
        format!("B: frame in progress, {max_frame_text} (Annex N WD1)"),
        max_frame,
        "maximum frame",
    )?;
    lines.one(
        Item::E,
        format!("PFC frame transmission, {} octets", inputs.pfc_frame_octets),
        frame_bits(inputs.pfc_frame_octets),
        "PFC frame",
    )?;
    lines.one(Item::F, format!("link B to A, {}", inputs.link_delay), link, "link delay")?;

    // Station A receives the PFC and stops: g) to i).
    match inputs.peer {
        PeerDelay::LocalDelayTlv(ti) => {
            let bits = time_interval_to_bits(ti, speed);
            lines.push(
                Items::span(Item::G, Item::I),
                format!(
                    "A: receive PFC, halt, transmit interface ({} from its PFC Local Delay TLV)",
                    format_time_interval(ti)
                ),
                bits,
                "peer's PFC Local Delay",
            )?;
        }
        PeerDelay::Configured { interface_rtt_bits, .. } => {
            let (_, peer_rx) = split_rtt(interface_rtt_bits);
            lines.one(
                Item::G,
                format!(
                    "A: receive interface, half its {} bit-time interface round trip",
                    group_digits(interface_rtt_bits as i128)
                ),
                peer_rx as u128,
                "peer's interface round trip",
            )?;
        }
    }
    if macsec.pfc_frames || inputs.peer_mbc {
        let why = if macsec.pfc_frames { "PFC frames MACsec protected" } else { "peer's MBC = 1" };
        lines.one(Item::G, format!("A: SecY receive ({why}; {secy_text})"), secy.bits, "SecY")?;
    }
    if let PeerDelay::Configured { pause_entry, .. } = inputs.peer {
        lines.one(
            Item::H,
            format!("A: PFC Receiver halts transmission selection within {pause_entry}"),
            picos_to_bits(pause_entry, speed),
            "peer's pause entry delay",
        )?;
    }
    lines.one(
        Item::I,
        format!("A: frame in progress, {max_frame_text} (Annex N WD, stage 4)"),
        max_frame,
        "maximum frame",
    )?;
    if let PeerDelay::Configured { interface_rtt_bits, .. } = inputs.peer {
        let (peer_tx, _) = split_rtt(interface_rtt_bits);
        lines.one(
            Item::I,
            "A: transmit interface, the other half of its round trip (Annex N ID4)".into(),
            peer_tx as u128,
            "peer's interface round trip",
        )?;
    }
    if macsec.user_data || inputs.peer_mbc {
        let why = if macsec.user_data { "user data MACsec protected" } else { "peer's MBC = 1" };
        lines.one(
            Item::I,
            format!("A: SecY transmit ({why}; {secy_text}; Annex N ID4)"),
            secy.bits,
            "SecY",
        )?;
    }

    // The last frame A sent reaches B's buffer: j) and k).
    lines.one(Item::J, format!("link A to B, {}", inputs.link_delay), link, "link delay")?;
    lines.one(
        Item::K,
        "B: receive interface, the other half of its round trip".into(),
        local_rx as u128,
        "interface round trip",
    )?;
    if macsec.user_data || local.mbc {
        let why = if macsec.user_data { "user data MACsec protected" } else { "our MBC = 1" };
        lines.one(
            Item::K,
            format!("B: SecY receive ({why}; {secy_text}; Annex N adds it to WD1)"),
            secy.bits,
            "SecY",
        )?;
    }
    lines.one(
        Item::K,
        "B: reception processing and buffering".into(),
        local.receive_processing_bits as u128,
        "receive processing delay",
    )?;
    lines.finish(speed)
}

impl HeadroomInputs {
    /// The headroom by the link-delay method; see [`calculate`].
    pub fn calculate(&self) -> Result<Headroom, HeadroomError> {
        calculate(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headroom::{LinkDelay, LocalDelays, Macsec, Medium, SecyRule, Sublayer};
    use crate::time::{Picos, PFC_REACTION_BOUND};

    /// Annex N N.6, written out from its text rather than from `Default`.
    fn annex_n() -> HeadroomInputs {
        let rtt = 8_192 + 2 * 2_048 + 25_600;
        HeadroomInputs {
            speed: LinkSpeed::G10,
            link_delay: LinkDelay::Cable { metres: 100, medium: Medium::Cat6 },
            local: LocalDelays {
                reception_processing_bits: 0,
                pfc_generation_bits: 200,
                interface_rtt_bits: rtt,
                receive_processing_bits: 0,
                pause_entry: Picos(614_400),
                mbc: false,
            },
            peer: PeerDelay::Configured { interface_rtt_bits: rtt, pause_entry: Picos(614_400) },
            peer_mbc: false,
            max_frame_octets: 2_000,
            pfc_frame_octets: 64,
            macsec: Macsec::default(),
            secy_delay_bits: None,
        }
    }

    fn items(h: &Headroom) -> Vec<i128> {
        Item::ALL.iter().map(|&i| h.breakdown.item_bits(i)).collect()
    }

    #[test]
    fn annex_n_example_is_126_224_bit_times() {
        let h = calculate(&annex_n()).expect("Annex N inputs are valid");
        assert_eq!(h.bits, 126_224);
        assert_eq!(h.breakdown.total(), 126_224);
        assert_eq!(h.octets(), 15_778);
        // 200 + 16160 + (672 + 18944) + 5556 + (18944 + 6144) + 16160 + 18944 + 5556 + 18944
        assert_eq!(
            items(&h),
            [0, 200, 18_944, 16_160, 672, 5_556, 18_944, 6_144, 16_160 + 18_944, 5_556, 18_944]
        );
    }

    #[test]
    fn annex_n_example_with_macsec_on_user_data_is_164_944_bit_times() {
        let inputs =
            HeadroomInputs { macsec: Macsec { user_data: true, pfc_frames: false }, ..annex_n() };
        let h = calculate(&inputs).expect("valid");
        assert_eq!(h.bits, 164_944);
        assert_eq!(h.breakdown.total(), 164_944);
        assert_eq!(h.bits, 126_224 + 19_360 + 19_360);
        assert_eq!(h.breakdown.item_bits(Item::I), 16_160 + 18_944 + 19_360);
        assert_eq!(h.breakdown.item_bits(Item::K), 18_944 + 19_360);
    }

    #[test]
    fn the_default_inputs_are_annex_n() {
        assert_eq!(HeadroomInputs::default(), annex_n());
        assert_eq!(HeadroomInputs::default().calculate().map(|h| h.bits), Ok(126_224));
        assert_eq!(Sublayer::stack_rtt_bits(&Sublayer::ANNEX_N_10GBASE_T), 37_888);
        assert_eq!(PFC_REACTION_BOUND, Picos(614_400));
    }

    #[test]
    fn macsec_on_pfc_frames_adds_b_transmit_and_a_receive() {
        let both = Macsec { user_data: true, pfc_frames: true };
        let pfc_only = Macsec { user_data: false, pfc_frames: true };
        let h = calculate(&HeadroomInputs { macsec: pfc_only, ..annex_n() }).expect("valid");
        assert_eq!(h.bits, 126_224 + 2 * 19_360);
        assert_eq!(h.breakdown.item_bits(Item::C), 18_944 + 19_360);
        assert_eq!(h.breakdown.item_bits(Item::G), 18_944 + 19_360);
        let h = calculate(&HeadroomInputs { macsec: both, ..annex_n() }).expect("valid");
        assert_eq!(h.bits, 126_224 + 4 * 19_360);
    }

    #[test]
    fn peer_mbc_adds_its_secy_delays_even_with_macsec_off() {
        let h = calculate(&HeadroomInputs { peer_mbc: true, ..annex_n() }).expect("valid");
        assert_eq!(h.bits, 126_224 + 2 * 19_360);
        assert_eq!(h.breakdown.item_bits(Item::G), 18_944 + 19_360);
        assert_eq!(h.breakdown.item_bits(Item::I), 16_160 + 18_944 + 19_360);
        // With user data protected A's transmit SecY is already counted: MBC adds only receive.
        let inputs = HeadroomInputs {
            peer_mbc: true,
            macsec: Macsec { user_data: true, pfc_frames: false },
            ..annex_n()
        };
        assert_eq!(calculate(&inputs).map(|h| h.bits), Ok(164_944 + 19_360));
    }

    #[test]
    fn our_own_mbc_adds_our_secy_delays() {
        let local = LocalDelays { mbc: true, ..annex_n().local };
        let h = calculate(&HeadroomInputs { local, ..annex_n() }).expect("valid");
        assert_eq!(h.bits, 126_224 + 2 * 19_360);
        assert_eq!(h.breakdown.item_bits(Item::C), 18_944 + 19_360);
        assert_eq!(h.breakdown.item_bits(Item::K), 18_944 + 19_360);
    }

    #[test]
    fn peer_delay_from_its_local_delay_tlv() {
        // The peer advertises 37 888 + 6144 = 44 032 bit times = 4403.2 ns, i.e. 288 568 115.2
        // TimeInterval units. Rounded down it converts back exactly; rounded up it costs a bit.
        let exact = HeadroomInputs { peer: PeerDelay::LocalDelayTlv(288_568_115), ..annex_n() };
        let h = calculate(&exact).expect("valid");
        assert_eq!(h.bits, 126_224);
        assert_eq!(h.breakdown.item_bits(Item::H), 44_032);
        let up = HeadroomInputs { peer: PeerDelay::LocalDelayTlv(288_568_116), ..annex_n() };
        assert_eq!(calculate(&up).map(|h| h.bits), Ok(126_225));
        // What we advertise ourselves is what the peer needs to reproduce our figure.
        let ours = annex_n().local.local_delay_tlv(LinkSpeed::G10);
        assert_eq!(ours, 288_568_116);
    }

    #[test]
    fn a_negative_peer_delay_is_honoured_but_never_below_zero() {
        // −1 us at 10G is −10 000 bit times.
        let neg = HeadroomInputs { peer: PeerDelay::LocalDelayTlv(-65_536_000), ..annex_n() };
        let h = calculate(&neg).expect("valid");
        assert_eq!(h.bits, 126_224 - 44_032 - 10_000);
        assert!(h.breakdown.to_string().contains("-1000.000 ns"));
        let absurd = HeadroomInputs { peer: PeerDelay::LocalDelayTlv(i64::MIN), ..annex_n() };
        assert!(matches!(calculate(&absurd), Err(HeadroomError::NegativeTotal { .. })));
    }

    #[test]
    fn a_1588_link_delay_replaces_the_cable() {
        // 555.6 ns one way = 5556 bit times at 10G: the same headroom as 100 m of Cat6.
        let inputs = HeadroomInputs { link_delay: LinkDelay::OneWay(Picos(555_600)), ..annex_n() };
        assert_eq!(calculate(&inputs).map(|h| h.bits), Ok(126_224));
    }

    #[test]
    fn a_100g_fibre_link_of_1_km() {
        // 36.8 NOTE 1: 1 km of fibre adds about 125 kB at 100 Gb/s counting both directions.
        let inputs = HeadroomInputs {
            speed: LinkSpeed::G100,
            link_delay: LinkDelay::Cable { metres: 1_000, medium: Medium::Fibre },
            ..annex_n()
        };
        let h = calculate(&inputs).expect("valid");
        assert_eq!(h.breakdown.item_bits(Item::F) + h.breakdown.item_bits(Item::J), 1_000_000);
        assert_eq!(h.breakdown.item_bits(Item::H), 61_440);
        assert_eq!(h.bits, 126_224 - 2 * 5_556 + 1_000_000 - 6_144 + 61_440);
    }

    #[test]
    fn above_10g_the_secy_delay_is_held_in_time_unless_configured() {
        let base = HeadroomInputs {
            speed: LinkSpeed::G100,
            macsec: Macsec { user_data: true, pfc_frames: false },
            ..annex_n()
        };
        let plain =
            calculate(&HeadroomInputs { macsec: Macsec::default(), ..base }).expect("valid").bits;
        assert_eq!(calculate(&base).map(|h| h.bits - plain), Ok(2 * 193_600));
        let fast = HeadroomInputs { secy_delay_bits: Some(19_360), ..base };
        assert_eq!(calculate(&fast).map(|h| h.bits - plain), Ok(2 * 19_360));
        assert_eq!(
            crate::headroom::secy_delay(LinkSpeed::G100, 2_000, None).rule,
            SecyRule::BoundAt10G
        );
    }

    #[test]
    fn bad_inputs_are_refused_with_a_reason() {
        let small = HeadroomInputs { max_frame_octets: 63, ..annex_n() };
        let err = calculate(&small).expect_err("63 octets is not a frame");
        assert_eq!(err, HeadroomError::FrameTooSmall { what: "maximum frame", octets: 63 });
        assert!(err.to_string().contains("configure at least 64"));
        let pfc = HeadroomInputs { pfc_frame_octets: 0, ..annex_n() };
        assert!(matches!(calculate(&pfc), Err(HeadroomError::FrameTooSmall { .. })));
        let huge = HeadroomInputs { max_frame_octets: u64::MAX, ..annex_n() };
        assert!(matches!(calculate(&huge), Err(HeadroomError::TooLarge { .. })));
        let far = HeadroomInputs {
            speed: LinkSpeed::G400,
            link_delay: LinkDelay::Cable {
                metres: u32::MAX,
                medium: Medium::Other { metres_per_second: 1 },
            },
            ..annex_n()
        };
        assert_eq!(calculate(&far), Err(HeadroomError::TooLarge { what: "link delay" }));
    }

    #[test]
    fn the_breakdown_reads_as_a_table() {
        let h = calculate(&annex_n()).expect("valid");
        let text = h.to_string();
        println!("{text}");
        let rows: Vec<&str> = text.lines().collect();
        assert!(rows[0].starts_with("item"));
        assert!(rows[0].ends_with("bit times"));
        assert!(text.contains("link B to A, 100 m of Cat6 (v = 0.6c)"));
        assert!(text.contains("126 224"));
        assert!(text.ends_with("headroom at 10G: 126 224 bit times = 15 778 octets"));
        // Every number ends in the same column.
        let table = &rows[..rows.len() - 1];
        let width = table[0].len();
        assert!(table.iter().all(|r| r.chars().count() == width), "{text}");
    }
}
