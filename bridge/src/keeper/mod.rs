//! The pause keeper: a thread per port that keeps the peer paused while the forwarding thread
//! does not run. The forwarding thread pauses the peer's PFC priorities when its receive ring
//! is an eighth full and refreshes that pause (at most 65 535 quanta: 3.4 ms at 10 Gb/s) each
//! turn; a turn that comes late (the thread preempted on a busy core for longer than a pause
//! lasts) would let the peer fill the ring until the kernel drops frames, whatever their
//! priority. The keeper sleeps until frames wait in the ring; then, every millisecond while
//! they do, it looks whether the forwarding thread is late (no turn of its loop for [`GRACE`]:
//! with frames waiting it would be running) with the ring an eighth full, and if so sends the
//! peer the pause the
//! forwarding thread would have, refreshed at half its time. The forwarding thread takes over
//! that pause at its next turn (`take_kept`) and releases it (XON) as its own. The keeper's
//! thread runs at the lowest real-time priority where allowed (`realtime.rs`): on a machine
//! too busy for the forwarding thread, an ordinary thread's millisecond would come late too.

mod realtime;

use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use dataplane::io::{FramePort, RawPort};
use dataplane::wire::{MacAddr, MacControl, PfcFrame};
use nix::poll::{PollFd, PollFlags, PollTimeout};
use nix::sys::socket::sockopt;
use tracing::warn;

use super::ring::RingWatch;

/// How late the forwarding thread may be before the keeper pauses for it.
pub const GRACE: Duration = Duration::from_millis(1);
/// How often the keeper looks while frames wait.
const LOOK: Duration = Duration::from_millis(1);
/// The longest the keeper sleeps with no frame waiting (it stops within this when dropped).
const IDLE: u16 = 100;

/// What the forwarding thread and the keeper share; times in nanoseconds since `base`.
#[derive(Debug)]
struct Shared {
    stop: AtomicBool,
    /// Turns of the forwarding thread's loop.
    turns: AtomicU64,
    /// The priorities to pause (0: none, the keeper idle), and for how long: quanta, and the
    /// same in nanoseconds at the port's speed.
    pfc_enable: AtomicU8,
    quanta: AtomicU16,
    pause_ns: AtomicU64,
    /// When the keeper last paused the peer, plus one (0: not since the forwarding thread
    /// looked); and how many pauses it has sent in all.
    kept_at: AtomicU64,
    kept: AtomicU64,
}

/// The forwarding thread's handle on a port's keeper; the thread stops when it is dropped.
#[derive(Debug)]
pub struct PauseKeeper {
    shared: Arc<Shared>,
    base: Instant,
    thread: Option<JoinHandle<()>>,
}

impl PauseKeeper {
    /// Starts the keeper of the port whose ring `watch` sees: `readable` is the ring's socket
    /// (readable while frames wait), `sender` a socket on the port's interface it sends its
    /// pauses through, from `src`.
    pub fn start(
        name: &str,
        watch: RingWatch,
        readable: OwnedFd,
        sender: RawPort,
        src: MacAddr,
    ) -> std::io::Result<PauseKeeper> {
        let base = Instant::now();
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            turns: AtomicU64::new(0),
            pfc_enable: AtomicU8::new(0),
            quanta: AtomicU16::new(0),
            pause_ns: AtomicU64::new(0),
            kept_at: AtomicU64::new(0),
            kept: AtomicU64::new(0),
        });
        let keeper = Keeper { shared: shared.clone(), base, watch, readable, sender, src };
        let thread = std::thread::Builder::new()
            .name(format!("keeper-{name}"))
            .spawn(move || keeper.run())?;
        Ok(PauseKeeper { shared, base, thread: Some(thread) })
    }

    /// The forwarding thread runs a turn of its loop; it pauses `pfc_enable` for `quanta`
    /// (`pause` at the port's speed) when behind.
    pub fn turn(&self, pfc_enable: u8, quanta: u16, pause: Duration) {
        let s = &self.shared;
        s.turns.fetch_add(1, Ordering::Relaxed);
        s.pfc_enable.store(pfc_enable, Ordering::Relaxed);
        s.quanta.store(quanta, Ordering::Relaxed);
        s.pause_ns.store(u64::try_from(pause.as_nanos()).unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    /// When the keeper last paused the peer, if it has since the last call.
    pub fn take_kept(&self) -> Option<Instant> {
        let at = self.shared.kept_at.swap(0, Ordering::Acquire);
        (at > 0).then(|| self.base + Duration::from_nanos(at - 1))
    }

    /// Pauses the keeper has sent in all.
    pub fn kept(&self) -> u64 {
        self.shared.kept.load(Ordering::Relaxed)
    }
}

impl Drop for PauseKeeper {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The keeper's own thread.
struct Keeper {
    shared: Arc<Shared>,
    base: Instant,
    watch: RingWatch,
    readable: OwnedFd,
    sender: RawPort,
    src: MacAddr,
}

impl Keeper {
    fn run(mut self) {
        if let Err(e) = realtime::lowest_realtime_priority() {
            warn!(error = %e, "the pause keeper runs without real-time priority: on a busy machine its pauses may come late");
        }
        let mut last_sent: Option<u64> = None;
        let mut last_turn = (u64::MAX, 0u64);
        while !self.shared.stop.load(Ordering::Relaxed) {
            let mut fds = [PollFd::new(self.readable.as_fd(), PollFlags::POLLIN)];
            if nix::poll::poll(&mut fds, PollTimeout::from(IDLE)).unwrap_or(0) == 0 {
                continue;
            }
            if fds[0].revents().is_some_and(|r| r.contains(PollFlags::POLLERR)) {
                // The link went down (the socket's error is ENETDOWN): taken, or every poll
                // would return at once.
                let _ = nix::sys::socket::getsockopt(&self.readable, sockopt::SocketError);
            }
            // Frames wait: look every millisecond until none does.
            while !self.shared.stop.load(Ordering::Relaxed) && self.watch.holds_at_least(1) {
                self.look(&mut last_sent, &mut last_turn);
                std::thread::sleep(LOOK);
            }
            // Whatever woke the keeper (a frame on the socket's own queue rather than the
            // ring, an error), it never looks more often than this: at real-time priority a
            // loop that does not sleep would hold its core.
            std::thread::sleep(LOOK);
        }
    }

    /// Pauses the peer if the forwarding thread is late (`last_turn`: the turns last seen, and
    /// when they were) and the ring an eighth full, unless the keeper's last pause has more
    /// than half its time to run.
    fn look(&mut self, last_sent: &mut Option<u64>, last_turn: &mut (u64, u64)) {
        let s = &self.shared;
        let now = u64::try_from(self.base.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let turns = s.turns.load(Ordering::Relaxed);
        if turns != last_turn.0 {
            *last_turn = (turns, now);
        }
        let late = now.saturating_sub(last_turn.1) > GRACE.as_nanos() as u64;
        let enable = s.pfc_enable.load(Ordering::Relaxed);
        let behind = self.watch.holds_at_least(self.watch.slots().div_ceil(8).max(1));
        if !late || !behind || enable == 0 {
            *last_sent = None;
            return;
        }
        let half = s.pause_ns.load(Ordering::Relaxed) / 2;
        if last_sent.is_some_and(|t| now.saturating_sub(t) < half) {
            return;
        }
        let quanta = s.quanta.load(Ordering::Relaxed);
        let frame = MacControl::Pfc(PfcFrame::pause(self.src, enable, quanta)).to_vec();
        match self.sender.send(&frame) {
            Ok(()) => {
                *last_sent = Some(now);
                s.kept.fetch_add(1, Ordering::Relaxed);
                s.kept_at.store(now + 1, Ordering::Release);
            }
            Err(e) => warn!(error = %e, "the pause keeper cannot send a PFC frame"),
        }
    }
}
