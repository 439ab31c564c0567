//! What the configuration asks of one port, in plain Rust: the northbound mapping builds it
//! from running's `.../bridge-port/pfc` (YANG defaults filled in), the port task carries it out.
//! Field names are the YANG leaves' (`pfc-link-delay-allowance` ↔ `link_delay_allowance_bits`).

use dataplane::headroom::allowance::AutomaticCalculation;
use dataplane::headroom::{
    HeadroomInputs, LinkDelay, LocalDelays, Macsec, Medium, PeerDelay, Sublayer,
};
use dataplane::time::{LinkSpeed, Picos, PFC_REACTION_BOUND};
use dataplane::watchdog::WatchdogSetup;
use lldp::agent::AgentConfig;
use lldp::dcbx::HeadroomMethods;

use pfc_bridge::port::{TrafficClasses, IDENTITY_CLASSES};

/// PFCLinkDelayAllowance's YANG default: Annex N's worked example.
pub const DEFAULT_LINK_DELAY_ALLOWANCE_BITS: u64 = 126_224;

/// Priorities on a port.
pub const PRIORITIES: usize = 8;

/// `headroom/method`: how the allowance is obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HeadroomMethod {
    Manual,
    Calculated,
    Measured,
    CalculatedAndMeasured,
    /// As DCBX agrees with the peer: measured when both ends advertise RTM HDRM (the
    /// measurement wins when both methods are agreed), calculated when both advertise PTP HDRM,
    /// else manual.
    #[default]
    DcbxNegotiated,
}

impl HeadroomMethod {
    /// The identity's name in ieee802-dot1q-pfc.
    pub fn as_str(self) -> &'static str {
        match self {
            HeadroomMethod::Manual => "manual",
            HeadroomMethod::Calculated => "link-delay",
            HeadroomMethod::Measured => "measurement",
            HeadroomMethod::CalculatedAndMeasured => "link-delay-and-measurement",
            HeadroomMethod::DcbxNegotiated => "dcbx-negotiated",
        }
    }

    /// From the identity's name (without prefix).
    pub fn from_identity(name: &str) -> Option<HeadroomMethod> {
        Some(match name {
            "manual" => HeadroomMethod::Manual,
            "link-delay" => HeadroomMethod::Calculated,
            "measurement" => HeadroomMethod::Measured,
            "link-delay-and-measurement" => HeadroomMethod::CalculatedAndMeasured,
            "dcbx-negotiated" => HeadroomMethod::DcbxNegotiated,
            _ => return None,
        })
    }

    /// The method in force (`method-in-force`) given what DCBX agreed: never dcbx-negotiated.
    pub fn in_force(self, agreed: HeadroomMethods) -> HeadroomMethod {
        match self {
            HeadroomMethod::DcbxNegotiated if agreed.measurement => HeadroomMethod::Measured,
            HeadroomMethod::DcbxNegotiated if agreed.link_delay => HeadroomMethod::Calculated,
            HeadroomMethod::DcbxNegotiated => HeadroomMethod::Manual,
            m => m,
        }
    }

    /// The calculation the allowance selection runs for a method in force.
    pub fn automatic(self) -> AutomaticCalculation {
        match self {
            HeadroomMethod::Calculated => AutomaticCalculation::LinkDelay,
            HeadroomMethod::Measured => AutomaticCalculation::Measurement,
            HeadroomMethod::CalculatedAndMeasured => AutomaticCalculation::Both,
            _ => AutomaticCalculation::None,
        }
    }
}

/// The PFC Configuration and Local Delay TLVs' settings of a port (ieee802-dot1q-lldp-dcbx-tlv
/// and ieee802-dot1q-lldp-pfc-tlv); PFC Enable itself is `PortIntent::pfc_enable`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DcbxIntent {
    /// `pfc-tlv-extension/willing`.
    pub willing: bool,
    /// `macsec-bypass-capable`.
    pub mbc: bool,
    /// `number-tc-capable`: PFC cap.
    pub pfc_cap: u8,
    pub macsec_capable: bool,
    pub privacy_capable: bool,
    pub rtm_hdrm: bool,
    pub ptp_hdrm: bool,
    pub legacy_tlv: bool,
    /// `pfc-local-delay-tlv-extension/tx-enable`.
    pub local_delay_tx: bool,
    /// The ETS TLVs' settings; `None`: none sent, and a NIC's ETS left as it is.
    pub ets: Option<lldp::dcbx::EtsAdmin>,
    /// The Application Priority TLV's; `None`: none sent, and a NIC's APP table left as it is.
    pub app: Option<lldp::dcbx::AppAdmin>,
}

impl Default for DcbxIntent {
    /// The YANG defaults.
    fn default() -> Self {
        DcbxIntent {
            willing: false,
            mbc: false,
            pfc_cap: 8,
            macsec_capable: false,
            privacy_capable: false,
            rtm_hdrm: false,
            ptp_hdrm: false,
            legacy_tlv: false,
            local_delay_tx: true,
            ets: None,
            app: None,
        }
    }
}

/// `headroom/calculation-inputs`: what the link-delay calculation (36.8.1) takes from the
/// configuration. Real interfaces calculate from it; the lab from its simulated link instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CalculationInputs {
    /// The choice `link-delay`: `cable-length` in `medium` (`propagation-velocity` for
    /// `other`), or `one-way-link-delay`.
    pub link_delay: LinkDelay,
    /// `reception-processing` (item a)).
    pub reception_processing_bits: u64,
    /// `pfc-generation` (item b)).
    pub pfc_generation_bits: u64,
    /// `interface-rtt` (items c) and k)); `None`: the round trip of the default stack for the
    /// port's speed and medium (`Sublayer::default_stack`), Annex N's 37 888 bit times for
    /// 10GBASE-T.
    pub interface_rtt_bits: Option<u64>,
    /// `receive-processing` (item k)).
    pub receive_processing_bits: u64,
    /// `pause-entry`: our item h), advertised in our PFC Local Delay TLV.
    pub pause_entry: Picos,
    /// `use-peer-local-delay`.
    pub use_peer_local_delay: bool,
    /// `peer-interface-rtt`; `None` as for `interface_rtt_bits`.
    pub peer_interface_rtt_bits: Option<u64>,
    /// `peer-pause-entry`.
    pub peer_pause_entry: Picos,
    /// `max-frame`, octets with FCS (items d) and i)); `None`: the largest frame the port
    /// receives, the system's one maximum-frame figure.
    pub max_frame_octets: Option<u64>,
    /// `pfc-frame`, octets with FCS (item e)).
    pub pfc_frame_octets: u64,
    /// `macsec-user-data`.
    pub macsec_user_data: bool,
    /// `secy-delay`; `None`: 36.4.1 NOTE 1's bound.
    pub secy_delay_bits: Option<u64>,
}

impl Default for CalculationInputs {
    /// The YANG defaults: Annex N's example, 100 m of Cat6, and no `max-frame` (the port's).
    fn default() -> Self {
        let annex_n = HeadroomInputs::default();
        CalculationInputs {
            link_delay: LinkDelay::Cable {
                metres: Self::DEFAULT_CABLE_METRES,
                medium: Self::DEFAULT_MEDIUM,
            },
            reception_processing_bits: annex_n.local.reception_processing_bits,
            pfc_generation_bits: annex_n.local.pfc_generation_bits,
            interface_rtt_bits: None,
            receive_processing_bits: annex_n.local.receive_processing_bits,
            pause_entry: PFC_REACTION_BOUND,
            use_peer_local_delay: true,
            peer_interface_rtt_bits: None,
            peer_pause_entry: PFC_REACTION_BOUND,
            max_frame_octets: None,
            pfc_frame_octets: annex_n.pfc_frame_octets,
            macsec_user_data: false,
            secy_delay_bits: None,
        }
    }
}

impl CalculationInputs {
    /// `cable-length`'s and `medium`'s YANG defaults.
    pub const DEFAULT_CABLE_METRES: u32 = 100;
    pub const DEFAULT_MEDIUM: Medium = Medium::Cat6;

    /// The medium whose default interface stack applies: the cable's, or for a link given as
    /// a time twisted pair (at 10 Gb/s the slower stack, as `HeadroomInputs::for_link` has it).
    fn medium(&self) -> Medium {
        match self.link_delay {
            LinkDelay::Cable { medium, .. } => medium,
            LinkDelay::OneWay(_) => Medium::Cat6,
        }
    }

    /// Our own delays at `speed`: what the calculation counts on our side, and what our PFC
    /// Local Delay TLV advertises (`LocalDelays::local_delay_tlv`).
    pub fn local_delays(&self, speed: LinkSpeed) -> LocalDelays {
        LocalDelays {
            reception_processing_bits: self.reception_processing_bits,
            pfc_generation_bits: self.pfc_generation_bits,
            interface_rtt_bits: self
                .interface_rtt_bits
                .unwrap_or_else(|| Sublayer::default_rtt_bits(speed, self.medium())),
            receive_processing_bits: self.receive_processing_bits,
            pause_entry: self.pause_entry,
            ..LocalDelays::for_link(speed, self.medium())
        }
    }

    /// The calculation's inputs at `speed`, with `peer_local_delay` the Delay of the peer's
    /// PFC Local Delay TLV when it sends one (used unless `use-peer-local-delay` is false) and
    /// `max_frame_octets` the largest frame the port receives, FCS included (unless `max-frame`
    /// is configured).
    pub fn headroom_inputs(
        &self,
        speed: LinkSpeed,
        peer_local_delay: Option<i64>,
        max_frame_octets: u64,
    ) -> HeadroomInputs {
        let peer = match peer_local_delay.filter(|_| self.use_peer_local_delay) {
            Some(delay) => PeerDelay::LocalDelayTlv(delay),
            None => PeerDelay::Configured {
                interface_rtt_bits: self
                    .peer_interface_rtt_bits
                    .unwrap_or_else(|| Sublayer::default_rtt_bits(speed, self.medium())),
                pause_entry: self.peer_pause_entry,
            },
        };
        HeadroomInputs {
            local: self.local_delays(speed),
            peer,
            max_frame_octets: self.max_frame_octets.unwrap_or(max_frame_octets),
            pfc_frame_octets: self.pfc_frame_octets,
            macsec: Macsec { user_data: self.macsec_user_data, ..Macsec::default() },
            secy_delay_bits: self.secy_delay_bits,
            ..HeadroomInputs::for_link(speed, self.link_delay)
        }
    }
}

/// One port's PFC configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortIntent {
    /// `pfc-enable`: bit n = priority n.
    pub pfc_enable: u8,
    /// `pfc-link-delay-allowance`.
    pub link_delay_allowance_bits: u64,
    /// `pfc-headroom-allowance`, when written.
    pub headroom_allowance_bits: Option<u64>,
    /// `headroom/method`.
    pub method: HeadroomMethod,
    /// `headroom/minimum-allowance`.
    pub minimum_bits: u64,
    /// `headroom/maximum-allowance`; `None`: no limit.
    pub maximum_bits: Option<u64>,
    /// `headroom/initial-allowance`.
    pub initial_bits: Option<u64>,
    /// `headroom/calculation-inputs`.
    pub calculation: CalculationInputs,
    /// `priority[N]/buffer-allocation`, octets.
    pub buffer_allocation_octets: [Option<u64>; PRIORITIES],
    /// `/lldp/port[name][dest-mac-address=nearest bridge]`: the LLDP agent's settings, `None`
    /// when the port has no such entry (no LLDP, so no DCBX: PFC runs on `pfc_enable`).
    pub lldp: Option<AgentConfig>,
    pub dcbx: DcbxIntent,
    /// `traffic-class/traffic-class-table` of the Bridge Port (8.6.6): priority n's traffic
    /// class at index n; the identity when the table is absent, and always on the lab.
    pub traffic_class: TrafficClasses,
    /// `/if:interfaces/interface/pfcd-watchdog:pfc-watchdog`: the PFC watchdog of the port's
    /// transmit side (pfcd's own module).
    pub watchdog: WatchdogSetup,
}

impl Default for PortIntent {
    /// The YANG defaults: no PFC, Annex N's allowance, dcbx-negotiated.
    fn default() -> Self {
        PortIntent {
            pfc_enable: 0,
            link_delay_allowance_bits: DEFAULT_LINK_DELAY_ALLOWANCE_BITS,
            headroom_allowance_bits: None,
            method: HeadroomMethod::default(),
            minimum_bits: 0,
            maximum_bits: None,
            initial_bits: None,
            calculation: CalculationInputs::default(),
            buffer_allocation_octets: [None; PRIORITIES],
            lldp: None,
            dcbx: DcbxIntent::default(),
            traffic_class: IDENTITY_CLASSES,
            watchdog: WatchdogSetup::default(),
        }
    }
}

impl PortIntent {
    /// Whether PFC is enabled on `priority`.
    pub fn enabled(&self, priority: usize) -> bool {
        priority < PRIORITIES && self.pfc_enable & (1 << priority) != 0
    }
}

/// A traffic class that holds priorities with PFC and without: a pause of one of the first
/// holds the class, the second too (36.1), so lossy frames wait on a lossless one's pause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MixedClass {
    pub class: u8,
    /// The class's priorities with PFC enabled, bit n = priority n.
    pub lossless: u8,
    /// Its priorities without PFC.
    pub lossy: u8,
}

/// The traffic classes of `classes` that mix priorities of `pfc_enable` with others.
pub fn mixed_classes(pfc_enable: u8, classes: &TrafficClasses) -> Vec<MixedClass> {
    let mut mixed: Vec<MixedClass> = Vec::new();
    for class in 0..PRIORITIES as u8 {
        let members =
            (0..PRIORITIES).filter(|n| classes[*n] == class).fold(0u8, |m, n| m | (1 << n));
        let (lossless, lossy) = (members & pfc_enable, members & !pfc_enable);
        if lossless != 0 && lossy != 0 {
            mixed.push(MixedClass { class, lossless, lossy });
        }
    }
    mixed
}

/// The priorities of a mask as a list ("3, 4").
pub fn priority_list(mask: u8) -> String {
    (0..PRIORITIES)
        .filter(|n| mask & (1 << n) != 0)
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_classes_mixing_pfc_and_lossy_priorities_are_mixed() {
        assert_eq!(mixed_classes(1 << 3, &IDENTITY_CLASSES), []);
        let four_in_three = [0, 1, 2, 3, 3, 5, 6, 7];
        assert_eq!(
            mixed_classes(1 << 3, &four_in_three),
            [MixedClass { class: 3, lossless: 1 << 3, lossy: 1 << 4 }]
        );
        // Both lossless, or both lossy: nothing held that would not be anyway.
        assert_eq!(mixed_classes(0b1_1000, &four_in_three), []);
        assert_eq!(mixed_classes(1 << 0, &four_in_three), []);
        assert_eq!(priority_list(0b1_1001), "0, 3, 4");
    }

    #[test]
    fn the_yang_defaults_are_annex_n_s_example_at_10g_with_2000_octet_frames() {
        let defaults = CalculationInputs::default();
        assert_eq!(
            defaults.headroom_inputs(LinkSpeed::G10, None, 2_000),
            HeadroomInputs::default()
        );
        // The port's largest frame unless max-frame is configured.
        assert_eq!(defaults.headroom_inputs(LinkSpeed::G10, None, 9_220).max_frame_octets, 9_220);
        let configured = CalculationInputs { max_frame_octets: Some(1_522), ..defaults };
        assert_eq!(configured.headroom_inputs(LinkSpeed::G10, None, 9_220).max_frame_octets, 1_522);
        assert_eq!(defaults.local_delays(LinkSpeed::G10), LocalDelays::default());
    }

    #[test]
    fn absent_interface_round_trips_follow_the_speed_and_medium() {
        let fibre = CalculationInputs {
            link_delay: LinkDelay::Cable { metres: 100, medium: Medium::Fibre },
            ..CalculationInputs::default()
        };
        assert_eq!(
            fibre.headroom_inputs(LinkSpeed::G100, None, 2_000),
            HeadroomInputs::for_link(LinkSpeed::G100, fibre.link_delay)
        );
        let configured = CalculationInputs { interface_rtt_bits: Some(1_000), ..fibre };
        assert_eq!(configured.local_delays(LinkSpeed::G100).interface_rtt_bits, 1_000);
    }

    #[test]
    fn the_peer_s_local_delay_is_used_unless_configured_not_to_be() {
        let inputs = CalculationInputs::default();
        let with_tlv = inputs.headroom_inputs(LinkSpeed::G10, Some(5), 2_000);
        assert_eq!(with_tlv.peer, PeerDelay::LocalDelayTlv(5));
        let without = CalculationInputs {
            use_peer_local_delay: false,
            peer_interface_rtt_bits: Some(10),
            peer_pause_entry: Picos(20),
            ..inputs
        };
        assert_eq!(
            without.headroom_inputs(LinkSpeed::G10, Some(5), 2_000).peer,
            PeerDelay::Configured { interface_rtt_bits: 10, pause_entry: Picos(20) }
        );
    }
}
