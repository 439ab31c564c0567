//! The subtree filters of the show commands: each asks for what its table shows, one port's
//! entries when a port is named.

pub const IF_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-interfaces";
pub const DOT1Q_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-bridge";
pub const PFCB_NS: &str = pfc_yang_names::ieee802_dot1q_pfc_bridge::NAMESPACE;
pub const LLDP_NS: &str = "urn:ieee:std:802.1AB:yang:ieee802-dot1ab-lldp";
pub const PIPELINE_NS: &str = pfc_yang_names::pfcd_pipeline::NAMESPACE;
pub const WATCHDOG_NS: &str = pfc_yang_names::pfcd_watchdog::NAMESPACE;
pub const PFCD_PFC_NS: &str = pfc_yang_names::pfcd_pfc::NAMESPACE;
pub const LAB_NS: &str = pfc_yang_names::pfcd_lab::NAMESPACE;
pub const NIC_NS: &str = pfc_yang_names::pfcd_nic::NAMESPACE;

/// pfcd-pfc's leaves `names`, each selected in its own namespace beside the IEEE module's.
fn own(names: &[&str]) -> String {
    names.iter().map(|n| format!("<{n} xmlns=\"{PFCD_PFC_NS}\"/>")).collect()
}

fn name(port: Option<&str>) -> String {
    match port {
        Some(p) => format!("<name>{}</name>", quick_xml::escape::escape(p)),
        None => "<name/>".into(),
    }
}

/// `/interfaces/interface/bridge-port/pfc` with `inner` selected inside `pfc`.
pub fn pfc(port: Option<&str>, inner: &str) -> String {
    pfc_and(port, "", inner)
}

/// The same, with `beside` selected in the interface entry too (its `<speed/>`).
fn pfc_and(port: Option<&str>, beside: &str, inner: &str) -> String {
    format!(
        "<interfaces xmlns=\"{IF_NS}\"><interface>{}{beside}<bridge-port xmlns=\"{DOT1Q_NS}\">\
         <pfc xmlns=\"{PFCB_NS}\">{inner}</pfc></bridge-port></interface></interfaces>",
        name(port)
    )
}

/// `/lldp/port` with `inner` selected.
pub fn lldp(port: Option<&str>, inner: &str) -> String {
    format!("<lldp xmlns=\"{LLDP_NS}\"><port>{}{inner}</port></lldp>", name(port))
}

/// `show interfaces pfc`.
pub fn interfaces_pfc(port: Option<&str>) -> String {
    pfc_and(
        port,
        "<speed/>",
        &format!(
            "<pfc-enable/><oper-pfc-enable/><pfc-requests/><pfc-indications/>\
             <allowance-in-force/><allowance-source/><allowance-clamp/>{}\
             <priority><priority/><priority-paused/><pause-time-remaining/>{}</priority>",
            own(&["receive-buffer-size"]),
            own(&["xoff", "occupancy", "frames-dropped", "pfc-frames-sent", "pfc-frames-received"]),
        ),
    )
}

/// `show headroom`.
pub fn headroom(port: Option<&str>) -> String {
    pfc_and(
        port,
        "<speed/>",
        &format!(
            "<pfc-link-delay-allowance/><pfc-headroom-allowance/><allowance-in-force/>\
             <allowance-source/><allowance-clamp/><calculated-allowance/>\
             <calculated-allowance-method/>{}<headroom/>",
            own(&["receive-buffer-size"]),
        ),
    )
}

/// `show dcbx`: the port's own PFC Enable (admin), and LLDP's view of both ends.
pub fn dcbx(port: Option<&str>) -> String {
    pfc(port, "<pfc-enable/><oper-pfc-enable/>")
        + &lldp(
            port,
            "<dest-mac-address/><pfc-tlv-extension xmlns=\"urn:ieee:std:802.1Q:yang:ieee802-dot1q-lldp-dcbx-tlv\"/>\
             <remote-systems-data><time-mark/><remote-index/><system-name/>\
             <pfc-tlv-extension xmlns=\"urn:ieee:std:802.1Q:yang:ieee802-dot1q-lldp-dcbx-tlv\"/>\
             </remote-systems-data>\
             <pfc-dcbx xmlns=\"urn:ieee:std:802.1Q:yang:ieee802-dot1q-lldp-pfc-tlv\"/>",
        )
}

/// `show lldp neighbors`.
pub fn lldp_neighbors(port: Option<&str>) -> String {
    lldp(port, "<dest-mac-address/><remote-systems-data/>")
}

/// `show pipeline`.
pub fn pipeline() -> String {
    format!(
        "<pipeline xmlns=\"{PIPELINE_NS}\"/><interfaces xmlns=\"{IF_NS}\"><interface><name/>\
         <bridge-port xmlns=\"{DOT1Q_NS}\"><pipeline xmlns=\"{PIPELINE_NS}\"/></bridge-port>\
         </interface></interfaces>"
    )
}

/// `show counters`.
pub fn counters(port: Option<&str>) -> String {
    pfc(
        port,
        &format!(
            "<pfc-requests/><pfc-indications/>{}<discontinuity-time/>\
             <priority><priority/>{}</priority>",
            own(&[
                "pause-frames-sent",
                "pause-frames-received",
                "pause-frames-ignored",
                "pfc-frames-ignored",
                "mac-control-discarded"
            ]),
            own(&["frames-accepted", "frames-dropped"]),
        ),
    ) + &lldp(port, "<dest-mac-address/><tx-statistics/><rx-statistics/>")
}

/// `show interfaces pfc counters`; with the time paused when the server has pfcd-pfc, and the
/// lab's simulated clock when it has pfcd-lab (a lab's rates are per simulated second).
pub fn pfc_counters(port: Option<&str>, time_paused: bool, lab: bool) -> String {
    let paused = if time_paused { own(&["time-paused"]) } else { String::new() };
    let clock = if lab {
        format!("<lab xmlns=\"{LAB_NS}\"><clock><simulated-time/></clock></lab>")
    } else {
        String::new()
    };
    pfc(
        port,
        &format!(
            "<pfc-enable/><discontinuity-time/><priority><priority/>{}{paused}</priority>",
            own(&[
                "pfc-frames-sent",
                "pfc-frames-received",
                "xoff-events",
                "xon-sent",
                "frames-dropped",
                "octets-dropped"
            ]),
        ),
    ) + &clock
}

/// `show interfaces pfc PORT detail`: everything of the port's pfc container, and what pfcd
/// set on its NIC when it runs on one (pfcd-nic; nothing otherwise).
pub fn pfc_detail(port: &str) -> String {
    pfc_and(Some(port), "<speed/>", "")
        + &format!("<nic xmlns=\"{NIC_NS}\"><port>{}</port></nic>", name(Some(port)))
}

/// `show pfc watchdog`.
pub fn watchdog(port: Option<&str>) -> String {
    format!(
        "<interfaces xmlns=\"{IF_NS}\"><interface>{}<bridge-port xmlns=\"{DOT1Q_NS}\">\
         <pfc-watchdog xmlns=\"{WATCHDOG_NS}\"/></bridge-port></interface></interfaces>",
        name(port)
    )
}
