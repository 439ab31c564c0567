//! SIGHUP while pfcd starts: its default action ends the process, and pfcd's handler exists only
//! once the server runs. The signal is held (blocked, so it stays pending) from the first moment
//! of start-up and released once the handler is in place, which then re-reads the files as for
//! any SIGHUP: a reload asked for during start-up is done, not lost and not fatal.

use nix::sys::signal::{pthread_sigmask, SigSet, SigmaskHow, Signal};

fn hangup() -> SigSet {
    let mut set = SigSet::empty();
    set.add(Signal::SIGHUP);
    set
}

/// Blocks SIGHUP on this thread and on every thread it starts from now on (they inherit the
/// mask); call before any thread is started.
pub fn hold_hangups() -> nix::Result<()> {
    pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&hangup()), None)
}

/// Unblocks SIGHUP on this thread, once its handler is installed: a pending one is delivered
/// now. (Threads started while it was held keep it blocked; the process's SIGHUP then reaches
/// this thread.)
pub fn release_hangups() -> nix::Result<()> {
    pthread_sigmask(SigmaskHow::SIG_UNBLOCK, Some(&hangup()), None)
}
