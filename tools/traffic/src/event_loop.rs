//! Waiting between frames: sleep in `ppoll` on the sockets and a signalfd until the next
//! deadline, then spin the last stretch, because a sleeping thread wakes tens of microseconds
//! late (timer slack, scheduler) and frame spacing and added delays are in microseconds.
//! SIGINT and SIGTERM end the run (they are blocked and read from the signalfd, so a signal
//! arriving mid-batch never cuts a frame in half).

use std::os::fd::{AsFd, BorrowedFd};

use dataplane::time::Picos;
use nix::poll::{ppoll, PollFd, PollFlags};
use nix::sys::signal::{SigSet, Signal};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use nix::sys::time::TimeSpec;

/// The longest sleep without looking at the time: runs with a duration end within this.
const MAX_SLEEP: Picos = Picos::from_ms(50);

/// Signals and sleeps of one run loop.
#[derive(Debug)]
pub struct EventLoop {
    signals: SignalFd,
    spin: Picos,
    stopped: bool,
}

impl EventLoop {
    /// `spin`: how long before a deadline to stop sleeping and spin instead (0: never spin).
    pub fn new(spin: Picos) -> std::io::Result<Self> {
        let mut mask = SigSet::empty();
        mask.add(Signal::SIGTERM);
        mask.add(Signal::SIGINT);
        mask.thread_block()?;
        let signals = SignalFd::with_flags(&mask, SfdFlags::SFD_NONBLOCK | SfdFlags::SFD_CLOEXEC)?;
        // Timers of a default thread may fire 50 µs late; ours are microsecond deadlines.
        let _ = nix::sys::prctl::set_timerslack(1);
        Ok(EventLoop { signals, spin, stopped: false })
    }

    /// Whether SIGINT or SIGTERM has arrived.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Waits until one of `fds` is readable, `deadline` is within the spin margin, or a signal
    /// arrives. Returns at once when the deadline is that close: the caller spins.
    pub fn wait(&mut self, fds: &[BorrowedFd<'_>], now: Picos, deadline: Option<Picos>) {
        let left = deadline.map_or(MAX_SLEEP, |d| d.saturating_sub(now).min(MAX_SLEEP));
        if deadline.is_some() && left <= self.spin {
            return;
        }
        let sleep = left - self.spin;
        let mut polls: Vec<PollFd<'_>> =
            fds.iter().map(|fd| PollFd::new(*fd, PollFlags::POLLIN)).collect();
        polls.push(PollFd::new(self.signals.as_fd(), PollFlags::POLLIN));
        let timeout = TimeSpec::from_duration(std::time::Duration::from_nanos(sleep.as_ns()));
        let _ = ppoll(&mut polls, Some(timeout), None);
        let signalled = polls.last().and_then(PollFd::revents).is_some_and(|r| !r.is_empty());
        if signalled {
            self.check_signals();
        }
    }

    /// Reads any pending signal without waiting (for loops that spin and never sleep).
    pub fn check_signals(&mut self) {
        while let Ok(Some(_)) = self.signals.read_signal() {
            self.stopped = true;
        }
    }
}
