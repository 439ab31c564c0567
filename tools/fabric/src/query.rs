//! The one `<get>` a refresh sends each device: subtree filters that select only what the
//! fabric view reads, in the YANG modules' namespaces.

pub const LLDP_NS: &str = "urn:ieee:std:802.1AB:yang:ieee802-dot1ab-lldp";
pub const IF_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-interfaces";
pub const DOT1Q_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-bridge";
pub const PFC_BRIDGE_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-pfc-bridge";
/// pfcd's own pipeline module: the only model here that says how much waits to leave.
pub const PIPELINE_NS: &str = "urn:uuid:efc1e1ad-781a-5967-ad09-aaaae237bbf0";
pub const PFCD_PFC_NS: &str = "urn:uuid:f8a72bf3-f2f2-5965-8356-6d5b9285f984";

/// The subtree filter: the chassis ID, each port's neighbours' chassis and port IDs, each
/// Bridge Port's per-priority `priority-paused` and `xoff`, and (with `backlog`) pfcd-pipeline's
/// per-priority `inflight` and `external-fifo-depth`.
pub fn filter(backlog: bool) -> String {
    let pipeline = if backlog {
        format!(
            "<pipeline xmlns=\"{PIPELINE_NS}\"><priority><priority/><inflight/>\
             <external-fifo-depth/></priority></pipeline>"
        )
    } else {
        String::new()
    };
    format!(
        "<lldp xmlns=\"{LLDP_NS}\"><local-system-data><chassis-id/></local-system-data>\
         <port><name/><remote-systems-data><chassis-id/><port-id/></remote-systems-data></port>\
         </lldp>\
         <interfaces xmlns=\"{IF_NS}\"><interface><name/><bridge-port xmlns=\"{DOT1Q_NS}\">\
         <pfc xmlns=\"{PFC_BRIDGE_NS}\"><priority><priority/><priority-paused/><xoff xmlns=\"{PFCD_PFC_NS}\"/></priority>\
         </pfc>{pipeline}</bridge-port></interface></interfaces>"
    )
}
