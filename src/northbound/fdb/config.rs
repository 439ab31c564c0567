//! The static filtering entries of running, for the bridge on real interfaces: each
//! `filtering-entry` of the component that holds pfcd's Bridge Ports becomes one
//! [`StaticEntry`] per VID it lists, forwarding through the ports its port map marks `forward`
//! and no other (a port the map does not name, or marks `filter`, is filtered). Port-ref N is
//! the Bridge Port numbered N: pfcd's N-th port (its `port-number` in the state). What pfcd
//! does not run is refused at its leaf, saying what it supports: another filtering database,
//! `dynamic` entries, `forward-filter`, connection identifiers, registration entries, another
//! ageing time; and on the lab, whose ports forward no frames between them, any entry.

use dataplane::wire::MacAddr;
use mgmt::backend::BackendError;
use netconf_proto::xml::Element;
use pfc_bridge::static_entries::{PortMap, StaticEntry};

use crate::northbound::namespaces::DOT1Q_NS;
use crate::northbound::xml::child_text;

/// The one filtering database pfcd's bridge has.
pub const DATABASE_ID: &str = "1";
/// The ageing time the bridge runs (802.1Q 8.8.3's default), seconds.
pub const AGEING_SECS: &str = "300";

/// Running's static entries: those pfcd runs, and the refusals of the rest.
#[derive(Debug, Default)]
pub struct Read {
    pub entries: Vec<StaticEntry>,
    pub refused: Vec<BackendError>,
}

/// Where the entries may be: the (bridge, component) names pfcd's Bridge Ports give.
pub type Component = (String, String);

/// The static entries of `root` (running) for `ports` (pfcd's, in port order) in
/// `component`; `forwards`: whether the ports forward frames between them (the lab's do not).
pub fn read(root: &Element, ports: &[&str], component: Option<&Component>, forwards: bool) -> Read {
    let mut read = Read::default();
    let Some(bridges) = root.child(DOT1Q_NS, "bridges") else { return read };
    for bridge in bridges.elements().filter(|e| e.is(DOT1Q_NS, "bridge")) {
        let Some(bridge_name) = child_text(bridge, DOT1Q_NS, "name") else { continue };
        for c in bridge.elements().filter(|e| e.is(DOT1Q_NS, "component")) {
            let Some(name) = child_text(c, DOT1Q_NS, "name") else { continue };
            let Some(fdb) = c.child(DOT1Q_NS, "filtering-database") else { continue };
            let at = format!(
                "/ieee802-dot1q-bridge:bridges/bridge[name='{bridge_name}']\
                 /component[name='{name}']/filtering-database"
            );
            let here = (bridge_name.clone(), name);
            read_database(
                fdb,
                &at,
                Where { ports, ours: component == Some(&here), forwards },
                &mut read,
            );
        }
    }
    read
}

/// What decides whether a database's entries run.
#[derive(Clone, Copy)]
struct Where<'a> {
    ports: &'a [&'a str],
    /// The component is the one pfcd's Bridge Ports are in.
    ours: bool,
    forwards: bool,
}

fn read_database(fdb: &Element, at: &str, w: Where<'_>, read: &mut Read) {
    for e in fdb.elements() {
        let leaf = e.name.as_str();
        match leaf {
            "filtering-entry" => match entry(e, at, w) {
                Ok(entries) => read.entries.extend(entries),
                Err(refusal) => read.refused.push(refusal),
            },
            "aging-time" if e.text().trim() == AGEING_SECS => {}
            "aging-time" => read.refused.push(
                BackendError::new(format!(
                    "pfcd's bridge ages learned addresses after {AGEING_SECS} s (802.1Q's \
                     default) and cannot run another aging-time: remove it or set {AGEING_SECS}."
                ))
                .at(format!("{at}/aging-time")),
            ),
            _ => read.refused.push(
                BackendError::new(format!(
                    "pfcd's bridge has no VLAN or MAC address registration: of the filtering \
                     database it runs static filtering entries (filtering-entry) only; \
                     remove {leaf}."
                ))
                .at(format!("{at}/{leaf}")),
            ),
        }
    }
}

/// One `filtering-entry`: a static entry per VID, or the refusal of its first leaf pfcd does
/// not run.
fn entry(e: &Element, at: &str, w: Where<'_>) -> Result<Vec<StaticEntry>, BackendError> {
    let text = |leaf| child_text(e, DOT1Q_NS, leaf).unwrap_or_default();
    let (id, vids, address) = (text("database-id"), text("vids"), text("address"));
    let at =
        format!("{at}/filtering-entry[database-id='{id}'][vids='{vids}'][address='{address}']");
    let refuse = |leaf: &str, message: String| {
        let path = if leaf.is_empty() { at.clone() } else { format!("{at}/{leaf}") };
        BackendError::new(message).at(path)
    };
    if !w.forwards {
        return Err(refuse(
            "",
            "The lab's simulated ports forward no frames between each other, so a static \
             filtering entry has nothing to act on. pfcd runs the entries on real interfaces \
             (ports = \"interfaces\" in its settings); on the lab remove filtering-entry."
                .into(),
        ));
    }
    if !w.ours {
        return Err(refuse(
            "",
            "pfcd runs one bridge component, the one its ports' bridge-port names (bridge-name \
             and component-name): put the entry under that component, or remove it."
                .into(),
        ));
    }
    if id != DATABASE_ID {
        return Err(refuse(
            "database-id",
            format!(
                "pfcd's bridge has one filtering database, database-id {DATABASE_ID}, not {id}."
            ),
        ));
    }
    if text("entry-type") == "dynamic" {
        return Err(refuse(
            "entry-type",
            "Dynamic entries are learned by the bridge, not configured: make the entry static \
             or remove entry-type."
                .into(),
        ));
    }
    let address: MacAddr = address.parse().map_err(|e| refuse("address", format!("{e}.")))?;
    let vids = vid_list(&vids).map_err(|m| refuse("vids", m))?;
    let forward = port_map(e, w.ports, &refuse)?;
    Ok(vids.into_iter().map(|vid| StaticEntry { vid, address, forward }).collect())
}

/// The ports an entry's port map forwards through.
fn port_map(
    e: &Element,
    ports: &[&str],
    refuse: &impl Fn(&str, String) -> BackendError,
) -> Result<PortMap, BackendError> {
    let numbered = ports
        .iter()
        .enumerate()
        .map(|(i, name)| format!("{} ({name})", i + 1))
        .collect::<Vec<_>>()
        .join(", ");
    let mut forward = Vec::new();
    for map in e.elements().filter(|m| m.is(DOT1Q_NS, "port-map")) {
        let port_ref = child_text(map, DOT1Q_NS, "port-ref").unwrap_or_default();
        let leaf = |l: &str| format!("port-map[port-ref='{port_ref}']/{l}");
        let index = port_ref.parse::<usize>().ok().filter(|n| (1..=ports.len()).contains(n));
        let Some(index) = index else {
            return Err(refuse(
                &leaf("port-ref"),
                format!("pfcd has no Bridge Port numbered {port_ref}: its ports are {numbered}."),
            ));
        };
        if let Some(other) = map
            .elements()
            .find(|c| !c.is(DOT1Q_NS, "port-ref") && !c.is(DOT1Q_NS, "static-filtering-entries"))
        {
            return Err(refuse(
                &leaf(other.name.as_str()),
                format!(
                    "A filtering entry's port map takes static-filtering-entries only; remove {}.",
                    other.name
                ),
            ));
        }
        let statics = map.child(DOT1Q_NS, "static-filtering-entries");
        if statics.is_some_and(|s| s.child(DOT1Q_NS, "connection-identifier").is_some()) {
            return Err(refuse(
                &leaf("static-filtering-entries/connection-identifier"),
                "pfcd's bridge has no connection identifiers (8.8.12): remove \
                 connection-identifier."
                    .into(),
            ));
        }
        let element = statics.and_then(|s| child_text(s, DOT1Q_NS, "control-element"));
        match element.as_deref() {
            Some("forward") => forward.push(index - 1),
            Some("filter") => {}
            Some(other) => {
                return Err(refuse(
                    &leaf("static-filtering-entries/control-element"),
                    format!(
                        "pfcd supports control-element forward and filter, not {other}: a \
                         static entry decides alone where its frames go."
                    ),
                ))
            }
            None => {
                return Err(refuse(
                    &leaf("static-filtering-entries/control-element"),
                    format!(
                        "Say what port {port_ref} does with the entry's frames: \
                         static-filtering-entries/control-element forward or filter."
                    ),
                ))
            }
        }
    }
    Ok(PortMap::of(forward))
}

/// A `vid-range-type` ("1", "1-10,20") as its VIDs; YANG's pattern has checked the shape, the
/// values and their order are checked here.
fn vid_list(text: &str) -> Result<Vec<u16>, String> {
    let bad = || format!("'{text}' is not a list of VIDs from 1 to 4094 in ascending order.");
    let mut vids: Vec<u16> = Vec::new();
    for part in text.split(',') {
        let (first, last) = part.split_once('-').unwrap_or((part, part));
        let first: u16 = first.trim().parse().map_err(|_| bad())?;
        let last: u16 = last.trim().parse().map_err(|_| bad())?;
        if first == 0 || last > 4094 || first > last || vids.last().is_some_and(|v| *v >= first) {
            return Err(bad());
        }
        vids.extend(first..=last);
    }
    Ok(vids)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PORTS: [&str; 3] = ["r1", "r2", "h"];

    fn running(entries: &str) -> Element {
        let xml = format!(
            "<config><bridges xmlns=\"{DOT1Q_NS}\"><bridge><name>b</name><component><name>c\
             </name><filtering-database>{entries}</filtering-database></component></bridge>\
             </bridges></config>"
        );
        netconf_proto::xml::parse(xml.as_bytes()).expect("XML")
    }

    fn entry_xml(vids: &str, address: &str, maps: &str) -> String {
        format!(
            "<filtering-entry><database-id>1</database-id><vids>{vids}</vids>\
             <address>{address}</address><entry-type>static</entry-type>{maps}</filtering-entry>"
        )
    }

    fn map(port: u32, element: &str) -> String {
        format!(
            "<port-map><port-ref>{port}</port-ref><static-filtering-entries>\
             <control-element>{element}</control-element></static-filtering-entries></port-map>"
        )
    }

    fn ours() -> Component {
        ("b".into(), "c".into())
    }

    fn read_real(entries: &str) -> Read {
        read(&running(entries), &PORTS, Some(&ours()), true)
    }

    fn refusal(entries: &str) -> BackendError {
        let r = read_real(entries);
        assert!(r.entries.is_empty(), "{:?}", r.entries);
        r.refused.into_iter().next().expect("refused")
    }

    #[test]
    fn an_entry_forwards_through_its_forward_ports_on_each_vid() {
        let maps = map(1, "filter") + &map(3, "forward") + &map(2, "forward");
        let r = read_real(&entry_xml("1,5-6", "02-00-00-00-00-0A", &maps));
        assert!(r.refused.is_empty(), "{:?}", r.refused);
        let address = MacAddr([2, 0, 0, 0, 0, 0xa]);
        let forward = PortMap::of([1, 2]);
        let want: Vec<_> =
            [1, 5, 6].into_iter().map(|vid| StaticEntry { vid, address, forward }).collect();
        assert_eq!(r.entries, want);
        // No port map at all: filtered everywhere.
        let r = read_real(&entry_xml("1", "02-00-00-00-00-0B", ""));
        assert!(r.entries[0].forward.is_empty());
    }

    #[test]
    fn what_pfcd_does_not_run_is_refused_at_its_leaf() {
        let cases = [
            (entry_xml("1", "02-00-00-00-00-0A", &map(4, "forward")), "port-ref", "1 (r1)"),
            (
                entry_xml("1", "02-00-00-00-00-0A", &map(1, "forward-filter")),
                "control-element",
                "forward and filter",
            ),
            (entry_xml("4095", "02-00-00-00-00-0A", ""), "vids", "1 to 4094"),
            (entry_xml("5,3", "02-00-00-00-00-0A", ""), "vids", "ascending"),
            (
                entry_xml("1", "02-00-00-00-00-0A", "").replace("static</entry", "dynamic</entry"),
                "entry-type",
                "learned",
            ),
            (
                entry_xml("1", "02-00-00-00-00-0A", "")
                    .replace(">1</database-id", ">2</database-id"),
                "database-id",
                "database-id 1",
            ),
            ("<aging-time>60</aging-time>".to_string(), "filtering-database/aging-time", "300"),
            (
                "<vlan-registration-entry><database-id>1</database-id><vids>1</vids>\
                 </vlan-registration-entry>"
                    .to_string(),
                "filtering-database/vlan-registration-entry",
                "filtering-entry",
            ),
        ];
        for (xml, leaf, says) in cases {
            let e = refusal(&xml);
            let path = e.path.clone().unwrap_or_default();
            assert!(path.ends_with(leaf), "{xml}: {path}");
            assert!(e.message.contains(says), "{xml}: {}", e.message);
        }
        let r = read_real("<aging-time>300</aging-time>");
        assert!(r.refused.is_empty(), "the default is what the bridge runs");
    }

    #[test]
    fn on_the_lab_or_in_another_component_an_entry_is_refused() {
        let xml = entry_xml("1", "02-00-00-00-00-0A", &map(1, "forward"));
        let lab = read(&running(&xml), &PORTS, Some(&ours()), false);
        assert!(lab.entries.is_empty());
        assert!(lab.refused[0].message.contains("ports = \"interfaces\""), "{:?}", lab.refused);
        let other = ("b".to_string(), "other".to_string());
        let elsewhere = read(&running(&xml), &PORTS, Some(&other), true);
        assert!(elsewhere.entries.is_empty());
        assert!(elsewhere.refused[0].message.contains("component-name"));
    }
}
