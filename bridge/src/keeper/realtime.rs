//! The keeper's thread runs at the lowest real-time priority (`SCHED_FIFO` 1): it must run
//! within its millisecond exactly when the machine is too busy for the forwarding thread to,
//! and it runs a few microseconds per millisecond, only while frames wait. No safe crate sets
//! a thread's scheduling policy; this file holds the one call.

use nix::libc;

/// Puts the calling thread on `SCHED_FIFO` priority 1; the error when not allowed
/// (without `CAP_SYS_NICE` or an `RLIMIT_RTPRIO`).
pub fn lowest_realtime_priority() -> std::io::Result<()> {
    let param = libc::sched_param { sched_priority: 1 };
    #[allow(unsafe_code)] // sched_setscheduler(2) of the calling thread (pid 0)
    // SAFETY: a pointer to a live sched_param; pid 0 is the calling thread.
    let rc = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}
