//! `monitor`: subscribes to the NETCONF stream and prints each notification on one line
//! (`time  event  leaf=value …`; `--json` one JSON object a line, `--xml` the notification
//! whole) until Ctrl-C, which returns to the prompt instead of ending pfcsh.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use quick_xml::events::Event;
use quick_xml::Reader;
use yang2::context::Context;
use yang2::data::{DataFormat, DataOperation, DataTree};
use yang2::schema::SchemaNodeKind;

use crate::rpc_error::sentence;
use crate::session::{Format, Session};

/// How often the Ctrl-C flag is looked at while waiting.
const POLL: Duration = Duration::from_millis(200);

pub fn run(session: &mut Session) -> Result<(), String> {
    // The session's one subscription serves every `monitor`; notifications that came while
    // none ran are not shown as new.
    if !session.subscribed {
        session.client.create_subscription(None).map_err(|e| sentence("monitor", &e))?;
        session.subscribed = true;
    }
    for _ in 0..10_000 {
        if !matches!(session.client.next_notification(Duration::ZERO), Ok(Some(_))) {
            break;
        }
    }
    let stop = Arc::new(AtomicBool::new(false));
    let id = signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(&stop))
        .map_err(|e| format!("monitor cannot catch Ctrl-C: {e}"))?;
    session.say("monitoring notifications; Ctrl-C stops");
    let result = loop {
        if stop.load(Ordering::Relaxed) {
            break Ok(());
        }
        match session.client.next_notification(POLL) {
            Ok(Some(n)) => {
                let line = match session.format {
                    Format::Xml => n.trim().to_string(),
                    Format::Json => json_line(&n, Some(&session.ctx)),
                    Format::Table => one_line(&n, Some(&session.ctx)),
                };
                crate::visible::println(&line);
            }
            Ok(None) => {}
            Err(e) => break Err(sentence("monitor", &e)),
        }
    };
    signal_hook::low_level::unregister(id);
    result
}

/// `2024-01-01T00:00:00Z  receive-buffer-drop  interface=lab2 priority=3 …`; a notification
/// defined on a data node is named by itself, after the list entries it sits in
/// (`headroom-allowance-changed  interface=lab2 old-allowance=…`), when `schema` knows it.
pub fn one_line(xml: &str, schema: Option<&Context>) -> String {
    let (time, event, leaves) = fields(xml, schema);
    let leaves: Vec<String> = leaves.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{time}  {event}  {}", leaves.join(" ")).trim_end().to_string()
}

/// `--json`: `{"time": …, "event": …, "leaves": {"interface": "lab2", …}}` on one line.
pub fn json_line(xml: &str, schema: Option<&Context>) -> String {
    let (time, event, leaves) = fields(xml, schema);
    let leaves: serde_json::Map<String, serde_json::Value> =
        leaves.into_iter().map(|(k, v)| (k, serde_json::Value::String(v))).collect();
    serde_json::json!({ "time": time, "event": event, "leaves": leaves }).to_string()
}

/// A notification's time, event name and fields (name, text) in document order.
fn fields(xml: &str, schema: Option<&Context>) -> (String, String, Vec<(String, String)>) {
    let (time, event, leaves, span) = walk(xml);
    if let Some((name, fields)) = schema.zip(span).and_then(|(ctx, (a, b))| nested(ctx, &xml[a..b]))
    {
        return (time, name, fields);
    }
    (time, event, leaves)
}

/// The notification defined on a data node (RFC 7950 §7.16.2) that `event` (the event
/// element's XML) carries: its name, then each list entry it sits in (`list=key`) and its
/// leaves. `None` for a top-level notification or one the schema does not know.
fn nested(ctx: &Context, event: &str) -> Option<(String, Vec<(String, String)>)> {
    let mut bytes = event.as_bytes().to_vec();
    bytes.push(0);
    let tree =
        DataTree::parse_op_string(ctx, &bytes, DataFormat::XML, DataOperation::NotificationYang)
            .ok()?;
    let notification =
        tree.traverse().find(|n| n.schema().kind() == SchemaNodeKind::Notification)?;
    let mut entries: Vec<_> = notification.ancestors().collect();
    if entries.is_empty() {
        return None;
    }
    entries.reverse();
    let mut fields = Vec::new();
    for entry in entries.iter().filter(|e| e.schema().kind() == SchemaNodeKind::List) {
        let keys: Vec<String> = entry.list_keys().filter_map(|k| k.value_canonical()).collect();
        fields.push((entry.schema().name().to_string(), keys.join(",")));
    }
    for leaf in notification.traverse().skip(1) {
        if let Some(value) = leaf.value_canonical() {
            fields.push((leaf.schema().name().to_string(), bare_identity(&leaf.schema(), value)));
        }
    }
    Some((notification.schema().name().to_string(), fields))
}

/// An identity's name without the module libyang's canonical form puts before it
/// (`measurement-result`, not `ieee802-dot1q-pfc:measurement-result`), as `show` prints it.
fn bare_identity(schema: &yang2::schema::SchemaNode, value: String) -> String {
    let identity = schema
        .leaf_type()
        .is_some_and(|t| t.base_type() == yang2::schema::DataValueType::IdentityRef);
    match value.split_once(':') {
        Some((_, name)) if identity => name.to_string(),
        _ => value,
    }
}

/// The notification's time, its event element's name, the leaves below it (name, text) in
/// document order, and where the event element is in `xml`.
#[allow(clippy::type_complexity)]
fn walk(xml: &str) -> (String, String, Vec<(String, String)>, Option<(usize, usize)>) {
    let mut reader = Reader::from_str(xml);
    let mut depth = 0usize;
    let mut time = String::new();
    let mut event = String::new();
    let mut leaves = Vec::new();
    let mut current = String::new();
    let mut start = None;
    let mut span = None;
    loop {
        let before = reader.buffer_position() as usize;
        match reader.read_event() {
            Ok(Event::Start(s)) => {
                depth += 1;
                current = s.local_name().as_ref().to_string();
                if depth == 2 && current != "eventTime" {
                    event = current.clone();
                    start = Some(before);
                }
            }
            Ok(Event::End(_)) => {
                if depth == 2 {
                    if let Some(a) = start.take() {
                        span = Some((a, reader.buffer_position() as usize));
                    }
                }
                depth = depth.saturating_sub(1);
            }
            Ok(Event::Text(t)) => {
                let text = t.xml10_content().trim().to_string();
                if text.is_empty() {
                    continue;
                }
                if current == "eventTime" {
                    time = text;
                } else if depth >= 3 {
                    leaves.push((current.clone(), text));
                }
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    (time, event, leaves, span)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notification_on_one_line() {
        let n = r#"<notification xmlns="urn:ietf:params:xml:ns:netconf:notification:1.0"><eventTime>2026-01-01T00:00:00Z</eventTime><receive-buffer-drop xmlns="urn:x"><interface>lab2</interface><priority>3</priority></receive-buffer-drop></notification>"#;
        assert_eq!(
            one_line(n, None),
            "2026-01-01T00:00:00Z  receive-buffer-drop  interface=lab2 priority=3"
        );
        let v: serde_json::Value = serde_json::from_str(&json_line(n, None)).expect("JSON");
        assert_eq!(v["event"], "receive-buffer-drop");
        assert_eq!(v["leaves"]["priority"], "3");
    }

    /// pfcd's PFC modules, as the server would serve them.
    fn pfc_schema() -> Context {
        let yang = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../yang");
        let mut ctx =
            Context::new(yang2::context::ContextFlags::DISABLE_SEARCHDIR_CWD).expect("context");
        ctx.set_searchdir(&yang).expect("yang/");
        ctx.set_searchdir(yang.join("standard")).expect("yang/standard/");
        for (module, features) in [
            ("ieee802-dot1q-pfc", &["automatic-headroom"][..]),
            ("ieee802-dot1q-pfc-bridge", &["priority-flow-control"][..]),
            ("ieee802-dot1q-pfc-bridge-notifications", &[][..]),
        ] {
            ctx.load_module(module, None, features).expect(module);
        }
        ctx
    }

    #[test]
    fn a_notification_defined_on_a_port_is_named_by_itself_after_its_port() {
        let n = format!(
            r#"<notification xmlns="urn:ietf:params:xml:ns:netconf:notification:1.0"><eventTime>2026-01-01T00:00:00Z</eventTime><interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><interface><name>lab2</name><bridge-port xmlns="urn:ieee:std:802.1Q:yang:ieee802-dot1q-bridge"><pfc xmlns="{b}"><headroom-allowance-changed xmlns="{b}-notifications" xmlns:pfc="{p}"><old-allowance>126224</old-allowance><old-source>pfc:link-delay-allowance</old-source><new-allowance>164352</new-allowance><new-source>pfc:measurement-result</new-source></headroom-allowance-changed></pfc></bridge-port></interface></interfaces></notification>"#,
            b = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-pfc-bridge",
            p = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-pfc",
        );
        let ctx = pfc_schema();
        assert_eq!(
            one_line(&n, Some(&ctx)),
            "2026-01-01T00:00:00Z  headroom-allowance-changed  interface=lab2 old-allowance=126224 \
             old-source=link-delay-allowance new-allowance=164352 new-source=measurement-result"
        );
        let v: serde_json::Value = serde_json::from_str(&json_line(&n, Some(&ctx))).expect("JSON");
        assert_eq!(v["event"], "headroom-allowance-changed");
        assert_eq!(v["leaves"]["interface"], "lab2");
        // A top-level notification is printed as before, with or without the schema.
        let top = r#"<notification xmlns="urn:ietf:params:xml:ns:netconf:notification:1.0"><eventTime>2026-01-01T00:00:00Z</eventTime><receive-buffer-drop xmlns="urn:x"><interface>lab2</interface></receive-buffer-drop></notification>"#;
        assert_eq!(one_line(top, Some(&ctx)), one_line(top, None));
    }
}
