//! The collector: a NETCONF session kept with each device, one `<get>` per device per refresh
//! (all devices at once, each on its own thread), and the view built from the answers.

use std::time::{Duration, Instant};

use fabric_graph::Nanos;
use netconf_client::Client;

use crate::device_state::DeviceState;
use crate::endpoint::Endpoint;
use crate::first_seen::FirstSeen;
use crate::flows::Flows;
use crate::query;
use crate::view::{build, Answer, View};

/// One device's session, and whether its server serves pfcd-pipeline's backlog.
struct Session {
    client: Client,
    backlog: bool,
}

/// Reads a list of devices again and again.
pub struct Collector {
    endpoints: Vec<Endpoint>,
    sessions: Vec<Option<Session>>,
    first_seen: FirstSeen,
    start: Instant,
    threshold: Duration,
    refreshes: u64,
    flows: Flows,
}

impl Collector {
    /// A collector of `endpoints` that reports a deadlock once its every part has held for
    /// `threshold`. Nothing is connected before the first refresh.
    pub fn new(endpoints: Vec<Endpoint>, threshold: Duration) -> Self {
        let sessions = endpoints.iter().map(|_| None).collect();
        Collector {
            endpoints,
            sessions,
            first_seen: FirstSeen::default(),
            start: Instant::now(),
            threshold,
            refreshes: 0,
            flows: Flows::default(),
        }
    }

    /// The flows that run through the fabric: from the next refresh on, each congestion tree
    /// names those caught in it and its victims.
    pub fn set_flows(&mut self, flows: Flows) {
        self.flows = flows;
    }

    /// The collector's clock: ns since it was made.
    pub fn now(&self) -> Nanos {
        nanos(self.start.elapsed())
    }

    /// Reads every device once (a device without a session is connected first; one that fails
    /// is reported in the view and tried again next time) and builds the view.
    pub fn refresh(&mut self) -> View {
        let answers: Vec<Answer> = std::thread::scope(|scope| {
            let running: Vec<_> = self
                .endpoints
                .iter()
                .zip(self.sessions.iter_mut())
                .map(|(endpoint, session)| scope.spawn(move || read(endpoint, session)))
                .collect();
            running
                .into_iter()
                .zip(&self.endpoints)
                .map(|(thread, endpoint)| Answer {
                    name: endpoint.name.clone(),
                    state: thread.join().unwrap_or_else(|_| Err("its reader panicked".into())),
                })
                .collect()
        });
        self.refreshes += 1;
        let now = self.now();
        let threshold = nanos(self.threshold);
        build(self.refreshes, &answers, &mut self.first_seen, now, threshold, &self.flows)
    }

    /// Refreshes every `interval` until a view satisfies `wanted` (`Ok` with it) or a refresh
    /// would start after `limit` (`Err` with the last view): what a test or a script that
    /// waits for a topology, a pause or a deadlock calls.
    pub fn refresh_until(
        &mut self,
        limit: Duration,
        interval: Duration,
        mut wanted: impl FnMut(&View) -> bool,
    ) -> Result<View, Box<View>> {
        let start = Instant::now();
        loop {
            let began = Instant::now();
            let view = self.refresh();
            if wanted(&view) {
                return Ok(view);
            }
            let next = began + interval;
            if next.duration_since(start) > limit {
                return Err(Box::new(view));
            }
            std::thread::sleep(next.saturating_duration_since(Instant::now()));
        }
    }
}

/// One device's state, through its session (opened when there is none; dropped after a
/// failure, so that the next refresh opens a new one).
fn read(endpoint: &Endpoint, session: &mut Option<Session>) -> Result<DeviceState, String> {
    let s = match session {
        Some(s) => s,
        None => session.insert(Session { client: (endpoint.connect)()?, backlog: true }),
    };
    let result = get(s);
    if result.is_err() {
        *session = None;
    }
    result
}

fn get(s: &mut Session) -> Result<DeviceState, String> {
    let reply = match s.client.get(Some(&query::filter(s.backlog))) {
        // A server without pfcd-pipeline may refuse the filter's unknown namespace: asked
        // again without it, and never again on this session.
        Err(netconf_client::Error::Rpc(_)) if s.backlog => {
            s.backlog = false;
            s.client.get(Some(&query::filter(false)))
        }
        other => other,
    }
    .map_err(|e| format!("<get> failed: {e}"))?;
    let data = reply.data().unwrap_or_default();
    DeviceState::from_data(data).map_err(|e| format!("its reply cannot be read: {e}"))
}

fn nanos(d: Duration) -> Nanos {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}
