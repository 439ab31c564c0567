//! `monitor`: subscribes to the NETCONF stream and prints each notification on one line
//! (`time  event  leaf=value …`; `--json` one JSON object a line, `--xml` the notification
//! whole) until Ctrl-C, which returns to the prompt instead of ending pfcsh.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use quick_xml::events::Event;
use quick_xml::Reader;

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
                    Format::Json => json_line(&n),
                    Format::Table => one_line(&n),
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

/// `2024-01-01T00:00:00Z  receive-buffer-drop  interface=lab2 priority=3 …`.
pub fn one_line(xml: &str) -> String {
    let (time, event, leaves) = fields(xml);
    let leaves: Vec<String> = leaves.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{time}  {event}  {}", leaves.join(" ")).trim_end().to_string()
}

/// `--json`: `{"time": …, "event": …, "leaves": {"interface": "lab2", …}}` on one line.
pub fn json_line(xml: &str) -> String {
    let (time, event, leaves) = fields(xml);
    let leaves: serde_json::Map<String, serde_json::Value> =
        leaves.into_iter().map(|(k, v)| (k, serde_json::Value::String(v))).collect();
    serde_json::json!({ "time": time, "event": event, "leaves": leaves }).to_string()
}

/// A notification's time, event name and leaves (name, text) in document order.
fn fields(xml: &str) -> (String, String, Vec<(String, String)>) {
    let mut reader = Reader::from_str(xml);
    let mut depth = 0usize;
    let mut time = String::new();
    let mut event = String::new();
    let mut leaves = Vec::new();
    let mut current = String::new();
    loop {
        match reader.read_event() {
            Ok(Event::Start(s)) => {
                depth += 1;
                current = s.local_name().as_ref().to_string();
                if depth == 2 && current != "eventTime" {
                    event = current.clone();
                }
            }
            Ok(Event::End(_)) => depth = depth.saturating_sub(1),
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
    (time, event, leaves)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notification_on_one_line() {
        let n = r#"<notification xmlns="urn:ietf:params:xml:ns:netconf:notification:1.0"><eventTime>2026-01-01T00:00:00Z</eventTime><receive-buffer-drop xmlns="urn:x"><interface>lab2</interface><priority>3</priority></receive-buffer-drop></notification>"#;
        assert_eq!(
            one_line(n),
            "2026-01-01T00:00:00Z  receive-buffer-drop  interface=lab2 priority=3"
        );
        let v: serde_json::Value = serde_json::from_str(&json_line(n)).expect("JSON");
        assert_eq!(v["event"], "receive-buffer-drop");
        assert_eq!(v["leaves"]["priority"], "3");
    }
}
