//! pfcd-watchdog's configuration: a Bridge Port's `pfc-watchdog` container (absent: the YANG
//! defaults) into the port's [`WatchdogSetup`]. Each priority entry and the `link-pause`
//! container take the port-wide value for every leaf they leave out.

use dataplane::time::Picos;
use dataplane::watchdog::{Action, ClassConfig, WatchdogSetup, CLASSES, LINK_PAUSE};
use mgmt::backend::BackendError;
use netconf_proto::xml::Element;
use pfc_yang_names::pfcd_watchdog as wd;

use crate::northbound::namespaces::WD_NS;
use crate::northbound::xml::{child_text, child_u64, interface_path};

/// Port `name`'s watchdog from its Bridge Port's `pfc-watchdog` container.
pub fn setup_from(name: &str, wd: Option<&Element>) -> Result<WatchdogSetup, BackendError> {
    let mut setup = WatchdogSetup::default();
    let Some(wd) = wd else { return Ok(setup) };
    let port = settings(name, wd, "", ClassConfig::default())?;
    setup.classes = [port; CLASSES];
    setup.ignore_link_pause =
        child_text(wd, WD_NS, wd::IGNORE_LINK_PAUSE).as_deref() == Some("true");
    for p in wd.elements().filter(|e| e.is(WD_NS, wd::PRIORITY)) {
        let n = child_u64(p, WD_NS, wd::PRIORITY).ok().flatten().unwrap_or(u64::MAX);
        let Some(slot) = usize::try_from(n).ok().filter(|n| *n < LINK_PAUSE) else { continue };
        setup.classes[slot] = settings(name, p, &format!("priority[priority='{n}']/"), port)?;
    }
    if let Some(l) = wd.child(WD_NS, wd::LINK_PAUSE) {
        setup.classes[LINK_PAUSE] = settings(name, l, "link-pause/", port)?;
    }
    Ok(setup)
}

/// The settings leaves of `e`, each absent one taken from `base`.
fn settings(
    name: &str,
    e: &Element,
    at: &str,
    base: ClassConfig,
) -> Result<ClassConfig, BackendError> {
    let mut c = base;
    let millis = |leaf: &str| {
        child_u64(e, WD_NS, leaf).map_err(|t| {
            BackendError::new(format!("'{t}' is not a number of milliseconds."))
                .at(format!("{}/pfcd-watchdog:pfc-watchdog/{at}{leaf}", bridge_port(name)))
        })
    };
    if let Some(v) = child_text(e, WD_NS, wd::ENABLED) {
        c.enabled = v == "true";
    }
    if let Some(ms) = millis(wd::DETECTION_TIME)? {
        c.detection = Picos::from_ms(ms);
    }
    if let Some(ms) = millis(wd::RESTORATION_TIME)? {
        c.restoration = Picos::from_ms(ms);
    }
    if let Some(a) = child_text(e, WD_NS, wd::ACTION) {
        c.action = Action::from_name(&a).ok_or_else(|| {
            BackendError::new(format!("pfcd does not know the watchdog action '{a}'."))
                .at(format!("{}/pfcd-watchdog:pfc-watchdog/{at}action", bridge_port(name)))
        })?;
    }
    Ok(c)
}

/// A `pfc-watchdog` container configured on port `name` whose ports run no watchdog:
/// refused rather than accepted and ignored.
pub fn lab_refusal(name: &str, wd: Option<&Element>) -> Option<BackendError> {
    wd?;
    Some(
        BackendError::new(
            "These ports run no PFC watchdog. Remove pfc-watchdog from this port.".to_string(),
        )
        .at(format!("{}/pfcd-watchdog:pfc-watchdog", bridge_port(name))),
    )
}

fn bridge_port(name: &str) -> String {
    format!("{}/ieee802-dot1q-bridge:bridge-port", interface_path(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(xml: &str) -> Element {
        netconf_proto::xml::parse(xml.as_bytes()).expect("xml")
    }

    #[test]
    fn absent_is_the_protective_default_and_entries_override_the_port() {
        let d = setup_from("p1", None).expect("ok");
        assert_eq!(d, WatchdogSetup::default());
        assert!(d.classes.iter().all(|c| c.enabled && c.action == Action::Drop));
        let wd = parse(&format!(
            "<pfc-watchdog xmlns=\"{WD_NS}\"><detection-time>500</detection-time>\
             <action>alert</action><ignore-link-pause>true</ignore-link-pause>\
             <priority><priority>3</priority><action>drop</action></priority>\
             <link-pause><enabled>false</enabled></link-pause></pfc-watchdog>"
        ));
        let s = setup_from("p1", Some(&wd)).expect("ok");
        assert!(s.ignore_link_pause);
        assert_eq!(s.classes[0].action, Action::Alert);
        assert_eq!(s.classes[0].detection, Picos::from_ms(500));
        assert_eq!(s.classes[3].action, Action::Drop);
        assert_eq!(s.classes[3].detection, Picos::from_ms(500), "the port's, not the default");
        assert!(!s.classes[LINK_PAUSE].enabled);
        assert_eq!(s.classes[LINK_PAUSE].action, Action::Alert);
    }

    #[test]
    fn every_watchdog_leaf_reaches_the_ports_setup() {
        let settings = "<enabled>false</enabled><detection-time>7</detection-time>\
                        <restoration-time>8</restoration-time><action>forward</action>";
        let wd = parse(&format!(
            "<pfc-watchdog xmlns=\"{WD_NS}\"><enabled>true</enabled>\
             <detection-time>300</detection-time><restoration-time>400</restoration-time>\
             <action>alert</action><ignore-link-pause>true</ignore-link-pause>\
             <priority><priority>5</priority>{settings}</priority>\
             <link-pause>{settings}</link-pause></pfc-watchdog>"
        ));
        let s = setup_from("p1", Some(&wd)).expect("ok");
        let port = ClassConfig {
            enabled: true,
            detection: Picos::from_ms(300),
            restoration: Picos::from_ms(400),
            action: Action::Alert,
        };
        let own = ClassConfig {
            enabled: false,
            detection: Picos::from_ms(7),
            restoration: Picos::from_ms(8),
            action: Action::Forward,
        };
        assert!(s.ignore_link_pause);
        for n in 0..CLASSES {
            let expected = if n == 5 || n == LINK_PAUSE { own } else { port };
            assert_eq!(s.classes[n], expected, "class {n}");
        }
    }
}
