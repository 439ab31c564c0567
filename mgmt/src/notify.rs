//! Notifications (RFC 5277): the NETCONF event stream, a bounded replay log, and
//! subscriptions. Events are published by the server itself (RFC 6470 netconf-config-change,
//! netconf-session-start/end, netconf-confirmed-commit) and by backends through a
//! [`Notifier`]; every subscribed session receives them, filtered and access-checked, in order.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::sync::broadcast;

use netconf_proto::xml::Element;

/// The namespace of `<notification>` and `<create-subscription>` (RFC 5277).
pub const NOTIFICATION_NS: &str = "urn:ietf:params:xml:ns:netconf:notification:1.0";
/// The namespace of `replayComplete` and `notificationComplete` (the nc-notifications module of RFC 5277).
pub const NETMOD_NOTIFICATION_NS: &str = "urn:ietf:params:xml:ns:netmod:notification";
/// The namespace of RFC 6470's base notifications.
pub const NC_NOTIFICATIONS_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-netconf-notifications";
/// The one stream this server offers.
pub const STREAM: &str = "NETCONF";

/// One event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notification {
    /// When it happened.
    pub event_time: SystemTime,
    /// The event element (e.g. `<netconf-config-change>`), the content of `<notification>`.
    pub event: Element,
}

impl Notification {
    /// The complete `<notification>` message.
    pub fn to_xml(&self) -> String {
        let mut out = format!(
            "<notification xmlns=\"{NOTIFICATION_NS}\"><eventTime>{}</eventTime>",
            format_time(self.event_time)
        );
        self.event.write_xml(&mut out, Some(NOTIFICATION_NS));
        out.push_str("</notification>");
        out
    }
}

#[derive(Debug)]
struct Log {
    events: VecDeque<Arc<Notification>>,
    capacity: usize,
}

/// The event stream: publishers push, subscribers receive.
#[derive(Debug)]
pub struct Bus {
    log: Mutex<Log>,
    tx: broadcast::Sender<Arc<Notification>>,
    created: SystemTime,
}

impl Bus {
    /// A stream keeping the last `replay` events for replay.
    pub fn new(replay: usize) -> Bus {
        let (tx, _) = broadcast::channel(4096);
        Bus {
            log: Mutex::new(Log { events: VecDeque::new(), capacity: replay }),
            tx,
            created: SystemTime::now(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Log> {
        self.log.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Publishes an event now.
    pub fn publish(&self, event: Element) {
        let n = Arc::new(Notification { event_time: SystemTime::now(), event });
        let mut log = self.lock();
        if log.capacity > 0 {
            if log.events.len() >= log.capacity {
                log.events.pop_front();
            }
            log.events.push_back(n.clone());
        }
        // No receiver is fine.
        let _ = self.tx.send(n);
    }

    /// Subscribes: the logged events since `start` (if given) and a receiver of every later
    /// one, with nothing lost or repeated between the two.
    pub fn subscribe(
        &self,
        start: Option<SystemTime>,
    ) -> (Vec<Arc<Notification>>, broadcast::Receiver<Arc<Notification>>) {
        let log = self.lock();
        let replay = match start {
            Some(t) => log.events.iter().filter(|n| n.event_time >= t).cloned().collect(),
            None => Vec::new(),
        };
        (replay, self.tx.subscribe())
    }

    /// When the replay log starts (the oldest event kept, or the stream's creation).
    pub fn replay_log_creation_time(&self) -> SystemTime {
        self.created
    }

    /// The oldest event still in the log.
    pub fn replay_log_aged_time(&self) -> Option<SystemTime> {
        let log = self.lock();
        if log.events.len() >= log.capacity {
            log.events.front().map(|n| n.event_time)
        } else {
            None
        }
    }
}

/// A handle through which a backend publishes its own notifications.
#[derive(Clone)]
pub struct Notifier {
    pub(crate) bus: Arc<Bus>,
    pub(crate) check: Arc<dyn Fn(&Element) -> bool + Send + Sync>,
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notifier").finish_non_exhaustive()
    }
}

impl Notifier {
    /// Publishes `event` (a notification element of a module the schema holds). Returns
    /// false, and publishes nothing, if the schema has no such notification.
    pub fn publish(&self, event: Element) -> bool {
        if !(self.check)(&event) {
            tracing::warn!(name = %event.name, "dropping a notification the schema does not define");
            return false;
        }
        self.bus.publish(event);
        true
    }
}

// ===== time =====

/// `date-and-time` (RFC 3339, UTC) of `t`, with microseconds.
pub fn format_time(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, day) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{day:02}T{:02}:{:02}:{:02}.{:06}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_micros()
    )
}

/// Parses an RFC 3339 `date-and-time` (`Z` or a numeric offset, optional fraction).
pub fn parse_time(s: &str) -> Option<SystemTime> {
    let s = s.trim();
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = s.get(r)?;
        if t.bytes().all(|c| c.is_ascii_digit()) {
            t.parse().ok()
        } else {
            None
        }
    };
    if b.len() < 20 || b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    if !matches!(b.get(10), Some(b'T' | b't'))
        || b.get(13) != Some(&b':')
        || b.get(16) != Some(&b':')
    {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut i = 19;
    let mut nanos: u32 = 0;
    if b.get(i) == Some(&b'.') {
        let start = i + 1;
        i = start;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
        let frac = s.get(start..i.min(start + 9))?;
        let digits = frac.len() as u32;
        nanos = frac.parse::<u32>().ok()? * 10u32.pow(9 - digits);
    }
    let offset = match s.get(i..)? {
        "Z" | "z" => 0,
        t if t.len() == 6
            && (t.starts_with('+') || t.starts_with('-'))
            && t.as_bytes()[3] == b':' =>
        {
            let oh: i64 = t.get(1..3)?.parse().ok()?;
            let om: i64 = t.get(4..6)?.parse().ok()?;
            let v = oh * 3600 + om * 60;
            if t.starts_with('-') {
                -v
            } else {
                v
            }
        }
        _ => return None,
    };
    let days = days_from_civil(y, mo, d);
    let total = days * 86_400 + h * 3600 + mi * 60 + sec - offset;
    if total < 0 {
        return None;
    }
    Some(UNIX_EPOCH + Duration::new(total as u64, nanos))
}

// Howard Hinnant's algorithms.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_round_trips() {
        let t = UNIX_EPOCH + Duration::new(1_700_000_000, 123_456_000);
        let s = format_time(t);
        assert_eq!(s, "2023-11-14T22:13:20.123456Z");
        assert_eq!(parse_time(&s), Some(t));
        assert_eq!(parse_time("2023-11-14T23:13:20.123456+01:00"), Some(t));
        assert_eq!(parse_time("1970-01-01T00:00:00Z"), Some(UNIX_EPOCH));
        for bad in [
            "",
            "2023-11-14",
            "2023-13-01T00:00:00Z",
            "2023-11-14T22:13:20",
            "x023-11-14T22:13:20Z",
        ] {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
    }

    #[tokio::test]
    async fn replay_and_live() {
        let bus = Bus::new(2);
        let before = SystemTime::now() - Duration::from_secs(1);
        for name in ["a", "b", "c"] {
            bus.publish(Element::new("urn:x", name));
        }
        let (replay, mut rx) = bus.subscribe(Some(before));
        assert_eq!(replay.iter().map(|n| n.event.name.as_str()).collect::<Vec<_>>(), ["b", "c"]);
        bus.publish(Element::new("urn:x", "d"));
        assert_eq!(rx.recv().await.expect("live").event.name, "d");
        assert!(bus.subscribe(None).0.is_empty());
        let xml = replay[0].to_xml();
        assert!(xml.contains("<eventTime>") && xml.contains("<b xmlns=\"urn:x\"/>"), "{xml}");
    }
}
