//! ieee802-dot1q-pfc-bridge's configuration: a Bridge Port's `pfc` container into the port's
//! [`PortIntent`] (with `headroom/calculation-inputs`, YANG defaults filled in), and what YANG
//! cannot refuse: allowances and buffer allocations that do not fit the port's receive buffer.

use dataplane::headroom::{BufferPlan, LinkDelay, Medium};
use dataplane::time::Picos;
use mgmt::backend::BackendError;
use netconf_proto::xml::Element;
use pfc_yang_names::{ieee802_dot1q_pfc as ieee, pfcd_pfc as pfcd};

#[cfg(test)]
use crate::northbound::namespaces::PFC_NS;
use crate::northbound::namespaces::{PFCD_PFC_NS, PFC_BRIDGE_NS};
use crate::northbound::xml::{
    child_text, child_u64, identity_name, pfc_enable_bits, pfc_enable_mask, pfc_path,
};
use crate::ports::headroom::ReceiveBuffer;
use crate::ports::intent::CalculationInputs;
use crate::ports::{HeadroomMethod, PortIntent, PRIORITIES};

/// A port's intent from its `pfc` container (absent: the YANG defaults).
pub fn intent_from(name: &str, pfc: Option<&Element>) -> Result<PortIntent, BackendError> {
    let mut intent = PortIntent::default();
    let Some(pfc) = pfc else { return Ok(intent) };
    let number = |e: &Element, leaf: &str, path: &str| {
        child_u64(e, PFC_BRIDGE_NS, leaf).map_err(|t| {
            BackendError::new(format!("'{t}' is not a number of bits or octets."))
                .at(pfc_path(name, path))
        })
    };
    if let Some(v) = number(pfc, ieee::PFC_LINK_DELAY_ALLOWANCE, ieee::PFC_LINK_DELAY_ALLOWANCE)? {
        intent.link_delay_allowance_bits = v;
    }
    intent.headroom_allowance_bits =
        number(pfc, ieee::PFC_HEADROOM_ALLOWANCE, ieee::PFC_HEADROOM_ALLOWANCE)?;
    if let Some(bits) = child_text(pfc, PFC_BRIDGE_NS, ieee::PFC_ENABLE) {
        intent.pfc_enable = pfc_enable_mask(&bits);
    }
    if let Some(h) = pfc.child(PFC_BRIDGE_NS, ieee::HEADROOM) {
        if let Some(m) = child_text(h, PFC_BRIDGE_NS, ieee::METHOD) {
            intent.method = HeadroomMethod::from_identity(identity_name(&m)).ok_or_else(|| {
                BackendError::new(format!("pfcd does not know the headroom method '{m}'."))
                    .at(pfc_path(name, "headroom/method"))
            })?;
        }
        intent.minimum_bits =
            number(h, ieee::MINIMUM_ALLOWANCE, "headroom/minimum-allowance")?.unwrap_or(0);
        intent.maximum_bits = number(h, ieee::MAXIMUM_ALLOWANCE, "headroom/maximum-allowance")?;
        intent.initial_bits = number(h, ieee::INITIAL_ALLOWANCE, "headroom/initial-allowance")?;
        if let Some(c) = h.child(PFC_BRIDGE_NS, ieee::CALCULATION_INPUTS) {
            intent.calculation = calculation_inputs(name, c)?;
        }
    }
    for p in pfc.elements().filter(|e| e.is(PFC_BRIDGE_NS, ieee::PRIORITY)) {
        let n = child_u64(p, PFC_BRIDGE_NS, ieee::PRIORITY).ok().flatten().unwrap_or(u64::MAX);
        let path = format!("priority[priority='{n}']/pfcd-pfc:buffer-allocation");
        let allocation = child_u64(p, PFCD_PFC_NS, pfcd::BUFFER_ALLOCATION).map_err(|t| {
            BackendError::new(format!("'{t}' is not a number of octets.")).at(pfc_path(name, &path))
        })?;
        if let Some(slot) =
            usize::try_from(n).ok().and_then(|n| intent.buffer_allocation_octets.get_mut(n))
        {
            *slot = allocation;
        }
    }
    Ok(intent)
}

/// `headroom/calculation-inputs` (`c`), each leaf absent taking its YANG default.
fn calculation_inputs(name: &str, c: &Element) -> Result<CalculationInputs, BackendError> {
    let d = CalculationInputs::default();
    let mut inputs = d;
    let number = |leaf: &str| {
        child_u64(c, PFC_BRIDGE_NS, leaf).map_err(|t| {
            BackendError::new(format!("'{t}' is not a number pfcd can use."))
                .at(pfc_path(name, &format!("headroom/calculation-inputs/{leaf}")))
        })
    };
    let flag = |leaf: &str| child_text(c, PFC_BRIDGE_NS, leaf).map(|t| t == "true");
    if let Some(ps) = number(ieee::ONE_WAY_LINK_DELAY)? {
        inputs.link_delay = LinkDelay::OneWay(Picos(ps));
    } else {
        let length = match number(ieee::CABLE_LENGTH)? {
            None => CalculationInputs::DEFAULT_CABLE_METRES,
            // YANG's uint32 keeps it in range; a larger text was refused above.
            Some(m) => u32::try_from(m).unwrap_or(u32::MAX),
        };
        let medium = match child_text(c, PFC_BRIDGE_NS, ieee::MEDIUM).as_deref() {
            None => CalculationInputs::DEFAULT_MEDIUM,
            Some("cat6") => Medium::Cat6,
            Some("fibre") => Medium::Fibre,
            Some("other") => Medium::Other {
                // YANG's must makes it present with `other`.
                metres_per_second: number(ieee::PROPAGATION_VELOCITY)?.unwrap_or(0),
            },
            Some(other) => {
                return Err(BackendError::new(format!("pfcd does not know the medium '{other}'."))
                    .at(pfc_path(name, "headroom/calculation-inputs/medium")))
            }
        };
        inputs.link_delay = LinkDelay::Cable { metres: length, medium };
    }
    inputs.reception_processing_bits =
        number(ieee::RECEPTION_PROCESSING)?.unwrap_or(d.reception_processing_bits);
    inputs.pfc_generation_bits = number(ieee::PFC_GENERATION)?.unwrap_or(d.pfc_generation_bits);
    inputs.interface_rtt_bits = number(ieee::INTERFACE_RTT)?;
    inputs.receive_processing_bits =
        number(ieee::RECEIVE_PROCESSING)?.unwrap_or(d.receive_processing_bits);
    inputs.pause_entry = number(ieee::PAUSE_ENTRY)?.map_or(d.pause_entry, Picos);
    inputs.use_peer_local_delay =
        flag(ieee::USE_PEER_LOCAL_DELAY).unwrap_or(d.use_peer_local_delay);
    inputs.peer_interface_rtt_bits = number(ieee::PEER_INTERFACE_RTT)?;
    inputs.peer_pause_entry = number(ieee::PEER_PAUSE_ENTRY)?.map_or(d.peer_pause_entry, Picos);
    inputs.max_frame_octets = number(ieee::MAX_FRAME)?;
    inputs.pfc_frame_octets = number(ieee::PFC_FRAME)?.unwrap_or(d.pfc_frame_octets);
    inputs.macsec_user_data = flag(ieee::MACSEC_USER_DATA).unwrap_or(d.macsec_user_data);
    inputs.secy_delay_bits = number(ieee::SECY_DELAY)?;
    Ok(inputs)
}

/// What YANG cannot refuse: allowances and allocations that do not fit the port's receive
/// buffer. Only what the configuration fixes is checked: under an automatic method without
/// `pfc-headroom-allowance` the allowance comes from the link (and the peer), and the port
/// lowers it to what its buffer holds; a value the peer set never makes a commit fail.
pub fn check(
    name: &str,
    intent: &PortIntent,
    method: HeadroomMethod,
    receive: ReceiveBuffer,
) -> Result<(), BackendError> {
    let buffer = receive.octets;
    let fits = |leaf: &str, bits: Option<u64>| -> Result<(), BackendError> {
        let Some(bits) = bits else { return Ok(()) };
        let octets = bits.div_ceil(8);
        if octets <= buffer {
            return Ok(());
        }
        Err(BackendError::new(format!(
            "{leaf} is {bits} bits ({octets} octets), more than port {name}'s whole receive \
             buffer of {buffer} octets (receive-buffer-size): frames would be lost before PFC \
             could take effect. Use at most {} bits, or a shorter link.",
            buffer * 8
        ))
        .at(pfc_path(name, leaf)))
    };
    fits(ieee::PFC_LINK_DELAY_ALLOWANCE, Some(intent.link_delay_allowance_bits))?;
    fits(ieee::PFC_HEADROOM_ALLOWANCE, intent.headroom_allowance_bits)?;
    fits("headroom/minimum-allowance", Some(intent.minimum_bits))?;
    fits("headroom/initial-allowance", intent.initial_bits)?;
    if let Some(max) = intent.maximum_bits.filter(|m| *m < intent.minimum_bits) {
        return Err(BackendError::new(format!(
            "maximum-allowance ({max} bits) is below minimum-allowance ({} bits): lower the \
             minimum or raise the maximum.",
            intent.minimum_bits
        ))
        .at(pfc_path(name, "headroom/maximum-allowance")));
    }
    // The allowance each enabled priority's buffer must hold: the one the configuration fixes.
    let allowance = match (method, intent.headroom_allowance_bits) {
        (HeadroomMethod::Manual, _) => intent.link_delay_allowance_bits,
        (_, Some(bits)) => bits,
        _ => return check_allocations(name, intent, buffer),
    };
    let mut total = 0u64;
    for n in (0..PRIORITIES).filter(|n| intent.enabled(*n)) {
        let config = receive.priority_config(intent.buffer_allocation_octets[n]);
        let plan = BufferPlan::new(allowance, &config).map_err(|e| {
            BackendError::new(format!(
                "priority {n}'s buffer-allocation does not hold the allowance of {allowance} \
                 bits: {e}. Raise buffer-allocation or remove it (twice the allowance is used)."
            ))
            .at(pfc_path(name, &format!("priority[priority='{n}']/pfcd-pfc:buffer-allocation")))
        })?;
        total = total.saturating_add(plan.allocation_octets);
    }
    if total > buffer {
        return Err(BackendError::new(format!(
            "PFC on {} as configured needs {total} octets of receive buffer (buffer-allocation, \
             or twice the allowance of {allowance} bits, per priority), but port {name} has \
             {buffer} (receive-buffer-size): enable PFC on fewer priorities, lower the \
             allowance or the allocations.",
            pfc_enable_bits(intent.pfc_enable)
        ))
        .at(pfc_path(name, ieee::PFC_ENABLE)));
    }
    Ok(())
}

/// Under an automatic method the allowance is not known at commit: only the allocations
/// written must fit the receive buffer together.
fn check_allocations(name: &str, intent: &PortIntent, buffer: u64) -> Result<(), BackendError> {
    let total = (0..PRIORITIES)
        .filter(|n| intent.enabled(*n))
        .filter_map(|n| intent.buffer_allocation_octets[n])
        .fold(0u64, u64::saturating_add);
    if total <= buffer {
        return Ok(());
    }
    Err(BackendError::new(format!(
        "the buffer-allocation of the priorities with PFC on {} add up to {total} octets, but \
         port {name} has {buffer} (receive-buffer-size): lower the allocations or enable PFC on \
         fewer priorities.",
        pfc_enable_bits(intent.pfc_enable)
    ))
    .at(pfc_path(name, ieee::PFC_ENABLE)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1 MiB of receive buffer for 9216-octet frames and their FCS.
    const MIB: ReceiveBuffer = ReceiveBuffer { octets: 1 << 20, max_frame_octets: 9_220 };

    /// A port with 1 MiB of receive buffer and PFC on priority 3, headroom calculated.
    fn calculated_on_3() -> PortIntent {
        PortIntent {
            pfc_enable: 1 << 3,
            method: HeadroomMethod::Calculated,
            ..PortIntent::default()
        }
    }

    #[test]
    fn the_allowance_a_peer_put_in_force_never_fails_a_commit() {
        // Whatever the peer's Local Delay TLV made the calculation give, the commit checks
        // only what the configuration fixes.
        let intent = calculated_on_3();
        assert_eq!(check("p1", &intent, HeadroomMethod::Calculated, MIB), Ok(()));
        // Allocations written are still checked against the buffer.
        let mut too_much = intent;
        too_much.buffer_allocation_octets[3] = Some(2 << 20);
        let e = check("p1", &too_much, HeadroomMethod::Calculated, MIB).expect_err("refused");
        assert!(e.message.contains("receive-buffer-size"), "{}", e.message);
    }

    #[test]
    fn a_manual_allowance_that_does_not_fit_is_refused() {
        let intent = PortIntent {
            method: HeadroomMethod::Manual,
            link_delay_allowance_bits: 8 << 20,
            ..calculated_on_3()
        };
        let e = check("p1", &intent, HeadroomMethod::Manual, MIB).expect_err("refused");
        assert!(e.message.contains("needs"), "{}", e.message);
    }

    /// The port's intent from `inner`, written in its `pfc` container.
    fn written(inner: &str) -> PortIntent {
        let xml = format!("<pfc xmlns=\"{PFC_BRIDGE_NS}\">{inner}</pfc>");
        let pfc = netconf_proto::xml::parse(xml.as_bytes()).expect("XML");
        intent_from("p1", Some(&pfc)).expect("taken")
    }

    #[test]
    fn every_pfc_leaf_reaches_the_ports_intent() {
        let pfc = format!(
            "<pfc-link-delay-allowance>1000</pfc-link-delay-allowance>\
             <pfc-headroom-allowance>2000</pfc-headroom-allowance><pfc-enable>p3 p4</pfc-enable>\
             <headroom><method xmlns:pfc=\"{PFC_NS}\">pfc:measurement</method>\
             <minimum-allowance>3000</minimum-allowance><maximum-allowance>4000</maximum-allowance>\
             <initial-allowance>5000</initial-allowance></headroom>\
             <priority><priority>4</priority><buffer-allocation xmlns=\"{PFCD_PFC_NS}\">6000</buffer-allocation></priority>"
        );
        let i = written(&pfc);
        assert_eq!(i.link_delay_allowance_bits, 1_000);
        assert_eq!(i.headroom_allowance_bits, Some(2_000));
        assert_eq!(i.pfc_enable, 0b1_1000);
        assert_eq!(i.method, HeadroomMethod::Measured);
        assert_eq!(
            (i.minimum_bits, i.maximum_bits, i.initial_bits),
            (3_000, Some(4_000), Some(5_000))
        );
        assert_eq!(i.buffer_allocation_octets[4], Some(6_000));
        assert_eq!(i.buffer_allocation_octets[3], None);
    }

    #[test]
    fn every_calculation_input_moves_the_calculation_or_our_local_delay() {
        use dataplane::headroom::calculate;
        use dataplane::time::LinkSpeed;
        // A peer's Local Delay TLV of 1 us, and 2000-octet frames forwarded.
        let peer = Some(1_000 * 65_536);
        let figures = |inner: &str| {
            let c = written(&format!(
                "<headroom><calculation-inputs>{inner}</calculation-inputs></headroom>"
            ))
            .calculation;
            let bits =
                calculate(&c.headroom_inputs(LinkSpeed::G10, peer, 2_000)).expect("headroom").bits;
            (bits, c.local_delays(LinkSpeed::G10).local_delay_tlv(LinkSpeed::G10))
        };
        let no_tlv = "<use-peer-local-delay>false</use-peer-local-delay>";
        let macsec = "<macsec-user-data>true</macsec-user-data>";
        let cases = [
            ("cable-length", "<cable-length>300</cable-length>".to_string(), String::new()),
            ("medium", "<medium>fibre</medium>".into(), String::new()),
            (
                "propagation-velocity",
                "<medium>other</medium><propagation-velocity>100000000</propagation-velocity>"
                    .into(),
                "<medium>other</medium><propagation-velocity>200000000</propagation-velocity>"
                    .into(),
            ),
            (
                "one-way-link-delay",
                "<one-way-link-delay>5000000</one-way-link-delay>".into(),
                String::new(),
            ),
            (
                "reception-processing",
                "<reception-processing>1000</reception-processing>".into(),
                String::new(),
            ),
            ("pfc-generation", "<pfc-generation>1000</pfc-generation>".into(), String::new()),
            ("interface-rtt", "<interface-rtt>1000</interface-rtt>".into(), String::new()),
            (
                "receive-processing",
                "<receive-processing>1000</receive-processing>".into(),
                String::new(),
            ),
            ("pause-entry", "<pause-entry>100000</pause-entry>".into(), String::new()),
            ("use-peer-local-delay", no_tlv.into(), String::new()),
            (
                "peer-interface-rtt",
                format!("{no_tlv}<peer-interface-rtt>1000</peer-interface-rtt>"),
                no_tlv.into(),
            ),
            (
                "peer-pause-entry",
                format!("{no_tlv}<peer-pause-entry>100000</peer-pause-entry>"),
                no_tlv.into(),
            ),
            ("max-frame", "<max-frame>9220</max-frame>".into(), String::new()),
            ("pfc-frame", "<pfc-frame>128</pfc-frame>".into(), String::new()),
            ("macsec-user-data", macsec.into(), String::new()),
            ("secy-delay", format!("{macsec}<secy-delay>1000</secy-delay>"), macsec.into()),
        ];
        for (leaf, with, without) in cases {
            assert_ne!(figures(&with), figures(&without), "{leaf} changes nothing");
        }
    }

    #[test]
    fn a_buffer_allocation_must_hold_the_allowance_above_the_ports_largest_frame() {
        // Annex N's 126 224 bits are 15 778 octets: 20 000 octets hold them above a 2000-octet
        // frame that prompts PFC, not above one of 9220.
        let mut intent = PortIntent {
            method: HeadroomMethod::Manual,
            link_delay_allowance_bits: 126_224,
            ..calculated_on_3()
        };
        intent.buffer_allocation_octets[3] = Some(20_000);
        let small = ReceiveBuffer { max_frame_octets: 2_000, ..MIB };
        assert_eq!(check("p1", &intent, HeadroomMethod::Manual, small), Ok(()));
        let e = check("p1", &intent, HeadroomMethod::Manual, MIB).expect_err("refused");
        assert!(e.message.contains("buffer-allocation"), "{}", e.message);
    }
}
