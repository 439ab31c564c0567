//! The server's own state data: capabilities (RFC 6241 §8, RFC 6243, RFC 5277, RFC 8526),
//! ietf-netconf-monitoring (RFC 6022), ietf-yang-library (RFC 8525, plus RFC 7895's
//! `modules-state` for older clients) and the notification streams (RFC 5277's
//! nc-notifications `netconf/streams` container).

use std::net::SocketAddr;
use std::time::SystemTime;

use crate::notify::{format_time, Bus, NETMOD_NOTIFICATION_NS, STREAM};
use crate::protocol::sessions::{SessionCounters, SessionInfo};
use crate::yang::schema::Schema;
use netconf_proto::hello::{BASE_1_0, BASE_1_1};
use netconf_proto::xml::Element;

/// ietf-netconf-monitoring's namespace.
pub const MONITORING_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring";
/// ietf-yang-library's namespace.
pub const YANG_LIBRARY_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-yang-library";
/// ietf-datastores' namespace.
pub const DATASTORES_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-datastores";
/// The with-defaults capability this server advertises.
pub const WITH_DEFAULTS_CAP: &str = "urn:ietf:params:netconf:capability:with-defaults:1.0?basic-mode=explicit&also-supported=report-all,report-all-tagged,trim";

/// A stable identifier of the module set (FNV-1a over names, revisions, features and
/// conformance), the yang-library content-id and modules-state module-set-id.
pub fn content_id(schema: &Schema) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |s: &str| {
        for b in s.bytes().chain(std::iter::once(0)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for m in schema.model().modules() {
        eat(&m.name);
        eat(m.revision.as_deref().unwrap_or(""));
        eat(if m.implemented { "i" } else { "m" });
        for f in schema.features(&m.name) {
            eat(f);
        }
    }
    format!("{h:016x}")
}

/// The capabilities of the hello.
pub fn capabilities(schema: &Schema, content_id: &str) -> Vec<String> {
    let mut caps: Vec<String> = [
        BASE_1_0,
        BASE_1_1,
        "urn:ietf:params:netconf:capability:writable-running:1.0",
        "urn:ietf:params:netconf:capability:candidate:1.0",
        "urn:ietf:params:netconf:capability:confirmed-commit:1.1",
        "urn:ietf:params:netconf:capability:rollback-on-error:1.0",
        "urn:ietf:params:netconf:capability:validate:1.1",
        "urn:ietf:params:netconf:capability:startup:1.0",
        "urn:ietf:params:netconf:capability:xpath:1.0",
        WITH_DEFAULTS_CAP,
        "urn:ietf:params:netconf:capability:notification:1.0",
        "urn:ietf:params:netconf:capability:interleave:1.0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    caps.push(format!(
        "urn:ietf:params:netconf:capability:yang-library:1.1?revision=2019-01-04&content-id={content_id}"
    ));
    // The RFC 7950 §5.6.4 form as well, naming the same set: clients that predate RFC 8526
    // (yangcli of yuma123) read /modules-state on it and fetch each module by get-schema;
    // without it they see none of the YANG 1.1 modules.
    caps.push(format!(
        "urn:ietf:params:netconf:capability:yang-library:1.0?revision=2019-01-04&module-set-id={content_id}"
    ));
    // RFC 7950 §5.6.4: only YANG 1.0 modules are listed as module capabilities; a YANG 1.1
    // module is announced by the yang-library capability alone (RFC 8526 clients read it).
    let yang_1_0 = |name: &str, revision: Option<&str>| {
        schema.module_source(name, revision).map_or(true, |text| !declares_yang_1_1(text))
    };
    for m in schema
        .model()
        .modules()
        .iter()
        .filter(|m| m.implemented && yang_1_0(&m.name, m.revision.as_deref()))
    {
        let mut cap = format!("{}?module={}", m.namespace, m.name);
        if let Some(r) = &m.revision {
            cap.push_str(&format!("&revision={r}"));
        }
        let features = schema.features(&m.name);
        if !features.is_empty() {
            cap.push_str(&format!("&features={}", features.join(",")));
        }
        caps.push(cap);
    }
    caps
}

/// Whether YANG source `text` says `yang-version 1.1;` (quoted or not).
fn declares_yang_1_1(text: &str) -> bool {
    text.split("yang-version").skip(1).any(|rest| {
        let v = rest.trim_start().trim_start_matches(['"', '\'']);
        v.starts_with("1.1")
    })
}

/// A lock as monitoring shows it.
#[derive(Debug, Clone)]
pub struct LockView {
    /// Datastore name.
    pub datastore: &'static str,
    /// Holder.
    pub session: u32,
    /// Since when.
    pub since: SystemTime,
}

/// Server-wide counters (ietf-netconf-monitoring statistics).
#[derive(Debug, Clone, Default)]
pub struct Statistics {
    /// When the server started.
    pub start: Option<SystemTime>,
    /// Hellos refused.
    pub in_bad_hellos: u64,
    /// Sessions started.
    pub in_sessions: u64,
    /// Sessions ended abnormally.
    pub dropped_sessions: u64,
    /// Correct rpcs received.
    pub in_rpcs: u64,
    /// Incorrect rpcs received.
    pub in_bad_rpcs: u64,
    /// rpc-replies with an rpc-error sent.
    pub out_rpc_errors: u64,
    /// Notifications sent.
    pub out_notifications: u64,
}

fn leaf(ns: &str, name: &str, v: impl ToString) -> Element {
    Element::leaf(ns, name, v.to_string())
}

fn host(a: &Option<SocketAddr>) -> Option<String> {
    a.map(|a| a.ip().to_string())
}

/// `/ietf-netconf-monitoring:netconf-state`.
pub fn netconf_state(
    schema: &Schema,
    capabilities: &[String],
    locks: &[LockView],
    sessions: &[SessionInfo],
    stats: &Statistics,
) -> Element {
    let m = MONITORING_NS;
    let mut caps = Element::new(m, "capabilities");
    for c in capabilities {
        caps.push(leaf(m, "capability", c));
    }
    let mut dss = Element::new(m, "datastores");
    for name in ["running", "candidate", "startup"] {
        let mut ds = Element::new(m, "datastore").with(leaf(m, "name", name));
        if let Some(l) = locks.iter().find(|l| l.datastore == name) {
            ds.push(
                Element::new(m, "locks").with(
                    Element::new(m, "global-lock")
                        .with(leaf(m, "locked-by-session", l.session))
                        .with(leaf(m, "locked-time", format_time(l.since))),
                ),
            );
        }
        dss.push(ds);
    }
    let mut schemas = Element::new(m, "schemas");
    for (name, rev, ns) in schema.schema_list() {
        schemas.push(
            Element::new(m, "schema")
                .with(leaf(m, "identifier", &name))
                .with(leaf(m, "version", rev.as_deref().unwrap_or("")))
                .with(leaf(m, "format", "yang"))
                .with(leaf(m, "namespace", &ns))
                .with(leaf(m, "location", "NETCONF")),
        );
    }
    let mut sess = Element::new(m, "sessions");
    for s in sessions {
        let c = &s.counters;
        let mut e = Element::new(m, "session")
            .with(leaf(m, "session-id", s.id))
            .with(leaf(m, "transport", "netconf-ssh"))
            .with(leaf(m, "username", &s.username));
        if let Some(h) = host(&s.source) {
            e.push(leaf(m, "source-host", h));
        }
        e.push(leaf(m, "login-time", format_time(s.login_time)));
        e.push(leaf(m, "in-rpcs", SessionCounters::get(&c.in_rpcs)));
        e.push(leaf(m, "in-bad-rpcs", SessionCounters::get(&c.in_bad_rpcs)));
        e.push(leaf(m, "out-rpc-errors", SessionCounters::get(&c.out_rpc_errors)));
        e.push(leaf(m, "out-notifications", SessionCounters::get(&c.out_notifications)));
        sess.push(e);
    }
    let mut st = Element::new(m, "statistics");
    if let Some(t) = stats.start {
        st.push(leaf(m, "netconf-start-time", format_time(t)));
    }
    st.push(leaf(m, "in-bad-hellos", stats.in_bad_hellos));
    st.push(leaf(m, "in-sessions", stats.in_sessions));
    st.push(leaf(m, "dropped-sessions", stats.dropped_sessions));
    st.push(leaf(m, "in-rpcs", stats.in_rpcs));
    st.push(leaf(m, "in-bad-rpcs", stats.in_bad_rpcs));
    st.push(leaf(m, "out-rpc-errors", stats.out_rpc_errors));
    st.push(leaf(m, "out-notifications", stats.out_notifications));
    Element::new(m, "netconf-state").with(caps).with(dss).with(schemas).with(sess).with(st)
}

/// `/ietf-yang-library:yang-library` (RFC 8525) with one module set and schema for every
/// datastore; each module lists the modules that deviate it.
pub fn yang_library(schema: &Schema, content_id: &str) -> Element {
    let y = YANG_LIBRARY_NS;
    let mut set = Element::new(y, "module-set").with(leaf(y, "name", "complete"));
    let modules = schema.model().modules();
    let deviations = schema.deviations();
    for m in modules.iter().filter(|m| m.implemented) {
        let mut e = Element::new(y, "module").with(leaf(y, "name", &m.name));
        if let Some(r) = &m.revision {
            e.push(leaf(y, "revision", r));
        }
        e.push(leaf(y, "namespace", &m.namespace));
        for f in schema.features(&m.name) {
            e.push(leaf(y, "feature", f));
        }
        for (by, _) in deviations.get(&m.name).into_iter().flatten() {
            e.push(leaf(y, "deviation", by));
        }
        set.push(e);
    }
    for m in modules.iter().filter(|m| !m.implemented) {
        set.push(
            Element::new(y, "import-only-module")
                .with(leaf(y, "name", &m.name))
                .with(leaf(y, "revision", m.revision.as_deref().unwrap_or("")))
                .with(leaf(y, "namespace", &m.namespace)),
        );
    }
    let sch = Element::new(y, "schema").with(leaf(y, "name", "complete")).with(leaf(
        y,
        "module-set",
        "complete",
    ));
    let mut lib = Element::new(y, "yang-library").with(set).with(sch);
    for ds in ["running", "candidate", "startup", "operational"] {
        let mut name = leaf(y, "name", format!("ds:{ds}"));
        name.namespaces_mut().push((Some("ds".into()), DATASTORES_NS.into()));
        lib.push(Element::new(y, "datastore").with(name).with(leaf(y, "schema", "complete")));
    }
    lib.push(leaf(y, "content-id", content_id));
    lib
}

/// `/ietf-yang-library:modules-state` (RFC 7895, deprecated, for older clients). Deviations
/// are announced in `yang-library` only: yangcli 2.13 (yuma123), which reads this list, fetches
/// a deviation module listed here twice (as a module and as a deviation) and then stops. The
/// deviation module is listed as an implemented module, so a client that loads every module
/// applies it all the same.
pub fn modules_state(schema: &Schema, content_id: &str) -> Element {
    let y = YANG_LIBRARY_NS;
    let mut st = Element::new(y, "modules-state").with(leaf(y, "module-set-id", content_id));
    for m in schema.model().modules() {
        let mut e = Element::new(y, "module")
            .with(leaf(y, "name", &m.name))
            .with(leaf(y, "revision", m.revision.as_deref().unwrap_or("")))
            .with(leaf(y, "namespace", &m.namespace));
        if m.implemented {
            for f in schema.features(&m.name) {
                e.push(leaf(y, "feature", f));
            }
        }
        e.push(leaf(y, "conformance-type", if m.implemented { "implement" } else { "import" }));
        st.push(e);
    }
    st
}

/// `/nc-notifications:netconf/streams` (RFC 5277: the available event streams).
pub fn streams(bus: &Bus) -> Element {
    let n = NETMOD_NOTIFICATION_NS;
    let mut s = Element::new(n, "stream")
        .with(leaf(n, "name", STREAM))
        .with(leaf(n, "description", "The NETCONF event stream: configuration changes, sessions and the daemon's own events."))
        .with(leaf(n, "replaySupport", "true"))
        .with(leaf(n, "replayLogCreationTime", format_time(bus.replay_log_creation_time())));
    if let Some(t) = bus.replay_log_aged_time() {
        s.push(leaf(n, "replayLogAgedTime", format_time(t)));
    }
    Element::new(n, "netconf").with(Element::new(n, "streams").with(s))
}
