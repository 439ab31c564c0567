//! The channel the ports' events go north on: bounded and coalescing, so that a peer who makes
//! a port report as fast as it can (a neighbour that comes and goes, DCBX flapping) costs a
//! bounded queue, never memory without end.
//!
//! An event replaces the queued one of the same port and kind (and priority, for drops), which
//! has not been read yet: what the reader gets is the latest of each, and an allowance change
//! keeps the oldest `old` with the newest `new`. Since the kinds per port are few, the queue
//! holds about ports × kinds; [`CAPACITY`] bounds it all the same, and what does not fit is
//! dropped. Both are counted ([`Counts`]).

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use super::event::PortEvent;

/// Events queued at most.
pub const CAPACITY: usize = 1024;

/// What the channel did with events not delivered as sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Merged into a queued event of the same port and kind.
    pub coalesced: u64,
    /// Dropped: the queue was full.
    pub dropped: u64,
}

#[derive(Default)]
struct Queue {
    events: VecDeque<PortEvent>,
    senders: usize,
    counts: Counts,
}

struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
    capacity: usize,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A port's end; cloned for each port. The reader's iterator ends when every sender is gone.
pub struct EventSender(Arc<Shared>);

/// The northbound side's end.
pub struct EventReceiver(Arc<Shared>);

/// A channel of [`CAPACITY`] events.
pub fn channel() -> (EventSender, EventReceiver) {
    with_capacity(CAPACITY)
}

fn with_capacity(capacity: usize) -> (EventSender, EventReceiver) {
    let shared = Arc::new(Shared {
        queue: Mutex::new(Queue { senders: 1, ..Queue::default() }),
        ready: Condvar::new(),
        capacity,
    });
    (EventSender(shared.clone()), EventReceiver(shared))
}

impl EventSender {
    /// Queues `event`, merged into a queued one of the same port and kind if there is one;
    /// dropped (and counted) when the queue is full.
    pub fn send(&self, event: PortEvent) {
        let mut q = self.0.lock();
        if let Some(queued) = q.events.iter_mut().find(|e| same_subject(e, &event)) {
            merge(queued, event);
            q.counts.coalesced += 1;
        } else if q.events.len() >= self.0.capacity {
            q.counts.dropped += 1;
        } else {
            q.events.push_back(event);
            self.0.ready.notify_one();
        }
    }
}

impl Clone for EventSender {
    fn clone(&self) -> Self {
        self.0.lock().senders += 1;
        EventSender(self.0.clone())
    }
}

impl Drop for EventSender {
    fn drop(&mut self) {
        let mut q = self.0.lock();
        q.senders -= 1;
        if q.senders == 0 {
            self.0.ready.notify_all();
        }
    }
}

impl EventReceiver {
    /// The next event, waiting for one; `None` once every sender is gone and the queue empty.
    pub fn recv(&self) -> Option<PortEvent> {
        let mut q = self.0.lock();
        loop {
            if let Some(e) = q.events.pop_front() {
                return Some(e);
            }
            if q.senders == 0 {
                return None;
            }
            q = self.0.ready.wait(q).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// What the channel coalesced and dropped so far.
    pub fn counts(&self) -> Counts {
        self.0.lock().counts
    }
}

impl std::fmt::Debug for EventReceiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let q = self.0.lock();
        f.debug_struct("EventReceiver")
            .field("queued", &q.events.len())
            .field("counts", &q.counts)
            .finish()
    }
}

impl Iterator for EventReceiver {
    type Item = PortEvent;

    fn next(&mut self) -> Option<PortEvent> {
        self.recv()
    }
}

/// Whether `a` and `b` say the same thing of the same port, so that the later replaces the
/// earlier.
fn same_subject(a: &PortEvent, b: &PortEvent) -> bool {
    use PortEvent::*;
    match (a, b) {
        (AllowanceChanged { port: p, .. }, AllowanceChanged { port: q, .. })
        | (DcbxMisconfiguration { port: p, .. }, DcbxMisconfiguration { port: q, .. })
        | (RemoteTableChange { port: p, .. }, RemoteTableChange { port: q, .. }) => p == q,
        (LosslessDrop { port: p, priority: m, .. }, LosslessDrop { port: q, priority: n, .. }) => {
            p == q && m == n
        }
        _ => false,
    }
}

/// `queued` takes what `newer` says; an allowance change keeps where it started from.
fn merge(queued: &mut PortEvent, newer: PortEvent) {
    let first_old = match queued {
        PortEvent::AllowanceChanged { old, .. } => Some(*old),
        _ => None,
    };
    *queued = newer;
    if let (Some(first), PortEvent::AllowanceChanged { old, .. }) = (first_old, queued) {
        *old = first;
    }
}

#[cfg(test)]
mod tests {
    use lldp::agent::RemoteStatistics;

    use super::*;

    fn table_change(port: &str, inserts: u64) -> PortEvent {
        let stats = RemoteStatistics { remote_inserts: inserts, ..Default::default() };
        PortEvent::RemoteTableChange { port: port.into(), stats }
    }

    fn inserts(e: &PortEvent) -> u64 {
        match e {
            PortEvent::RemoteTableChange { stats, .. } => stats.remote_inserts,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_burst_of_one_port_and_kind_is_one_event_with_the_latest_state() {
        let (tx, rx) = channel();
        for n in 1..=100_000 {
            tx.send(table_change("p1", n));
        }
        tx.send(table_change("p2", 7));
        drop(tx);
        let got: Vec<_> = rx.collect();
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!((inserts(&got[0]), inserts(&got[1])), (100_000, 7));
    }

    #[test]
    fn what_does_not_fit_is_dropped_and_counted() {
        let (tx, rx) = with_capacity(3);
        for port in ["p1", "p2", "p3", "p4", "p5"] {
            tx.send(table_change(port, 1));
        }
        tx.send(table_change("p1", 2));
        assert_eq!(rx.counts(), Counts { coalesced: 1, dropped: 2 });
        drop(tx);
        let got: Vec<_> = rx.map(|e| inserts(&e)).collect();
        assert_eq!(got, [2, 1, 1], "the first three ports, p1 at its latest");
    }

    #[test]
    fn an_allowance_change_coalesced_keeps_its_first_old_value() {
        use dataplane::headroom::allowance::{Allowance, AllowanceSource};
        let a = |bits| Allowance {
            bits,
            source: AllowanceSource::AdministrativeOverride,
            calculated: None,
        };
        let (tx, rx) = channel();
        tx.send(PortEvent::AllowanceChanged { port: "p1".into(), old: a(1), new: a(2) });
        tx.send(PortEvent::AllowanceChanged { port: "p1".into(), old: a(2), new: a(3) });
        drop(tx);
        let got: Vec<_> = rx.collect();
        assert!(
            matches!(&got[..], [PortEvent::AllowanceChanged { old, new, .. }] if old.bits == 1 && new.bits == 3),
            "{got:?}"
        );
    }

    #[test]
    fn the_reader_ends_when_every_port_is_gone() {
        let (tx, rx) = channel();
        let other = tx.clone();
        let reader = std::thread::spawn(move || rx.count());
        tx.send(table_change("p1", 1));
        drop(tx);
        other.send(table_change("p2", 1));
        drop(other);
        assert_eq!(reader.join().expect("reader"), 2);
    }
}
