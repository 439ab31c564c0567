//! What the configuration asks of one port, in plain Rust: the northbound mapping builds it
//! from running's `.../bridge-port/pfc` (YANG defaults filled in), the port task carries it out.
//! Field names are the YANG leaves' (`pfc-link-delay-allowance` ↔ `link_delay_allowance_bits`).

use dataplane::headroom::allowance::AutomaticCalculation;
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
            HeadroomMethod::Calculated => "calculated",
            HeadroomMethod::Measured => "measured",
            HeadroomMethod::CalculatedAndMeasured => "calculated-and-measured",
            HeadroomMethod::DcbxNegotiated => "dcbx-negotiated",
        }
    }

    /// From the identity's name (without prefix).
    pub fn from_identity(name: &str) -> Option<HeadroomMethod> {
        Some(match name {
            "manual" => HeadroomMethod::Manual,
            "calculated" => HeadroomMethod::Calculated,
            "measured" => HeadroomMethod::Measured,
            "calculated-and-measured" => HeadroomMethod::CalculatedAndMeasured,
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
    /// `priority[N]/buffer-allocation`, octets.
    pub buffer_allocation_octets: [Option<u64>; PRIORITIES],
    /// `/lldp/port[name][dest-mac-address=nearest bridge]`: the LLDP agent's settings, `None`
    /// when the port has no such entry (no LLDP, so no DCBX: PFC runs on `pfc_enable`).
    pub lldp: Option<AgentConfig>,
    pub dcbx: DcbxIntent,
    /// `traffic-class/traffic-class-table` of the Bridge Port (8.6.6): priority n's traffic
    /// class at index n; the identity when the table is absent, and always on the lab.
    pub traffic_class: TrafficClasses,
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
            buffer_allocation_octets: [None; PRIORITIES],
            lldp: None,
            dcbx: DcbxIntent::default(),
            traffic_class: IDENTITY_CLASSES,
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
}
