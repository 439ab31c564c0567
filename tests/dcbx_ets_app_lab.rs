//! ETS and APP configuration on the lab over NETCONF: what a NIC or a peer could not run is
//! refused with an rpc-error at the leaf saying what to fix, and running stays as it was; a
//! RoCE set-up (priority 3 in its own traffic class, UDP 4791 at priority 3) is taken.

use netconf_client::{Client, Datastore};
use test_support::lab::LabPfcd;

const LLDP_NS: &str = "urn:ieee:std:802.1AB:yang:ieee802-dot1ab-lldp";
const DCBX_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-lldp-dcbx-tlv";
const TYPES_NS: &str = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-types";

/// lab0's LLDP entry with `inner` (DCBX leaves with the prefix `t`, TSA identities `q`).
fn lab0_lldp(inner: &str) -> String {
    format!(
        "<lldp xmlns=\"{LLDP_NS}\" xmlns:t=\"{DCBX_NS}\" xmlns:q=\"{TYPES_NS}\"><port>\
         <name>lab0</name><dest-mac-address>01-80-C2-00-00-0E</dest-mac-address>{inner}\
         </port></lldp>"
    )
}

fn ets(priority: u8, bandwidths: [u8; 2], tsa: &str) -> String {
    format!(
        "<t:ets-configuration-tlv-extension><t:priority-assignment-table>\
         <t:priority>{priority}</t:priority><t:priority-traffic-class>1</t:priority-traffic-class>\
         </t:priority-assignment-table>\
         <t:tc-bandwidth-table><t:traffic-class>0</t:traffic-class>\
         <t:percentage-bandwidth>{}</t:percentage-bandwidth></t:tc-bandwidth-table>\
         <t:tc-bandwidth-table><t:traffic-class>1</t:traffic-class>\
         <t:percentage-bandwidth>{}</t:percentage-bandwidth></t:tc-bandwidth-table>\
         <t:tsa-assignment-table><t:tsa-traffic-class>2</t:tsa-traffic-class>\
         <t:transmission-selection-algorithm>{tsa}</t:transmission-selection-algorithm>\
         </t:tsa-assignment-table></t:ets-configuration-tlv-extension>",
        bandwidths[0], bandwidths[1]
    )
}

fn app(entries: &[(u8, u16)]) -> String {
    let rows: String = entries
        .iter()
        .map(|(priority, port)| {
            format!(
                "<t:application-priority-table><t:application-priority>{priority}\
                 </t:application-priority><t:application-priority-selector>t:pri-udp-dccp\
                 </t:application-priority-selector><t:application-priority-protocol>{port}\
                 </t:application-priority-protocol></t:application-priority-table>"
            )
        })
        .collect();
    format!("<t:application-priority-tlv-extension>{rows}</t:application-priority-tlv-extension>")
}

/// Puts `inner` on lab0's LLDP entry and commits: the first error's path and message, or
/// `None` when it was taken. The candidate is left as running.
fn commit(c: &mut Client, inner: &str) -> Option<(String, String)> {
    let edited = c.edit_config(Datastore::Candidate, &lab0_lldp(inner), None);
    let result = edited.and_then(|()| c.commit());
    let error = result.err().map(|err| {
        let errors = err.reply().map(|r| r.errors().to_vec()).unwrap_or_default();
        let first = errors.first().cloned().unwrap_or_default();
        // The server writes the module's prefix before each of its nodes.
        let path = first.error_path.unwrap_or_default().replace("lldp-dcbx-tlv:", "");
        (path, first.error_message.unwrap_or_default())
    });
    c.discard_changes().expect("discard");
    error
}

#[test]
fn ets_and_app_a_nic_could_not_run_are_refused_at_the_leaf_and_a_roce_set_up_is_taken() {
    let mut pfcd = LabPfcd::start("ets-app-lab");
    let mut c = pfcd.client();
    let before = c.get_config(Datastore::Running, None).expect("running");

    let (path, message) = commit(&mut c, &ets(3, [60, 50], "q:strict-priority")).expect("refused");
    assert!(path.ends_with("ets-configuration-tlv-extension/tc-bandwidth-table"), "{path}");
    assert!(message.contains("add up to 110%, not 100%"), "{message}");

    let (path, message) =
        commit(&mut c, &ets(3, [50, 50], "q:asynchronous-traffic-shaping")).expect("refused");
    assert!(path.ends_with("/transmission-selection-algorithm"), "{path}");
    assert!(message.contains("use one of strict-priority"), "{message}");

    let (path, message) = commit(&mut c, &app(&[(3, 4791), (5, 4791)])).expect("refused");
    assert!(path.contains("application-priority='5'"), "{path}");
    assert!(message.contains("given priority 3 and priority 5"), "{message}");

    // A priority beyond 7: YANG's own refusal, at the leaf, naming the value.
    let (path, message) = commit(&mut c, &ets(8, [50, 50], "q:strict-priority")).expect("refused");
    assert!(path.contains("priority"), "{path}");
    assert!(message.contains('8'), "{message}");

    let after = c.get_config(Datastore::Running, None).expect("running");
    assert_eq!(after.data(), before.data(), "running unchanged");

    let roce = format!("{}{}", ets(3, [50, 50], "q:strict-priority"), app(&[(3, 4791)]));
    assert_eq!(commit(&mut c, &roce), None, "RoCE's set-up is taken");
    assert!(pfcd.alive(), "{}", pfcd.log_text());
}
