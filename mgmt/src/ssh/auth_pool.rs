//! Threads of their own for password checks (Argon2id), apart from tokio's blocking pool that
//! runs heavy requests, commits and confirmed-commit rollbacks: clients guessing passwords
//! then queue behind each other and take at most these threads' share of the CPU, instead
//! of filling the pool that other users' commits wait for (DECISIONS.md, "Password checks on
//! threads of their own").
//!
//! The queue is first come, first served and has no bound of its own: each connection has at
//! most one check in flight (russh handles a connection's packets one at a time), and the
//! connections waiting for authentication are bounded by `admission`. A check whose
//! connection has gone (displaced, cut at the deadline) before its turn is skipped.

use std::panic::AssertUnwindSafe;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

type Job = Box<dyn FnOnce() + Send>;

/// A fixed set of threads running password checks in arrival order.
#[derive(Debug)]
pub struct AuthPool {
    jobs: mpsc::Sender<Job>,
    threads: usize,
}

impl AuthPool {
    /// Starts `threads` threads (at least one), named `mgmt-auth`. They end when the pool is
    /// dropped.
    pub fn new(threads: usize) -> std::io::Result<AuthPool> {
        let threads = threads.max(1);
        let (jobs, queue) = mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        for _ in 0..threads {
            let queue = queue.clone();
            std::thread::Builder::new().name("mgmt-auth".into()).spawn(move || {
                lower_priority();
                loop {
                    let job =
                        queue.lock().unwrap_or_else(std::sync::PoisonError::into_inner).recv();
                    match job {
                        // A panic fails that one check (its caller sees `None`), not the thread.
                        Ok(job) => drop(std::panic::catch_unwind(AssertUnwindSafe(job))),
                        Err(mpsc::RecvError) => break,
                    }
                }
            })?;
        }
        Ok(AuthPool { jobs, threads })
    }

    /// How many threads run checks.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Runs `check` on one of the pool's threads when its turn comes; `None` if it could not
    /// run (it panicked).
    pub async fn run<T: Send + 'static>(
        &self,
        check: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move || {
            // The waiting connection is gone: nobody needs the answer.
            if !tx.is_closed() {
                let _ = tx.send(check());
            }
        });
        self.jobs.send(job).ok()?;
        rx.await.ok()
    }
}

/// The nice value of the password-check threads.
pub const NICE: i32 = 10;

/// Gives the calling thread a lower CPU priority (nice [`NICE`]): when the CPUs are busy,
/// password checks get about a tenth of a CPU's time against a request's thread (the
/// scheduler's weights for nice 10 and 0 are 110 and 1024), so guessing delays other users'
/// requests little; on an idle machine they run at full speed. On Linux the nice value
/// belongs to the thread (setpriority(2), "BUGS"), so the rest of the process keeps its own.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    if let Err(e) = rustix::process::setpriority_process(None, NICE) {
        tracing::warn!("cannot lower the password-check thread's priority: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[tokio::test]
    async fn runs_checks_on_its_own_threads() {
        let pool = AuthPool::new(2).expect("threads");
        let name = pool.run(|| std::thread::current().name().map(str::to_string)).await;
        assert_eq!(name.flatten().as_deref(), Some("mgmt-auth"));
        assert_eq!(pool.run(|| 6 * 7).await, Some(42));
    }

    #[tokio::test]
    async fn at_most_its_threads_run_at_once() {
        let pool = Arc::new(AuthPool::new(2).expect("threads"));
        let (running, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let checks: Vec<_> = (0..8)
            .map(|_| {
                let (pool, running, most) = (pool.clone(), running.clone(), most.clone());
                tokio::spawn(async move {
                    pool.run(move || {
                        let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(20));
                        running.fetch_sub(1, Ordering::SeqCst);
                    })
                    .await
                })
            })
            .collect();
        for c in checks {
            assert_eq!(c.await.expect("task"), Some(()));
        }
        assert_eq!(most.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_panicking_check_fails_alone_and_an_abandoned_one_is_skipped() {
        let pool = AuthPool::new(1).expect("threads");
        assert_eq!(pool.run(|| -> u8 { panic!("check failed") }).await, None);
        assert_eq!(pool.run(|| 1).await, Some(1), "the thread survived");

        // Occupy the only thread, queue a check, abandon it, release the thread.
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let busy = pool.run(move || wait.recv().ok());
        let ran = Arc::new(AtomicUsize::new(0));
        let r = ran.clone();
        let abandoned = pool.run(move || r.fetch_add(1, Ordering::SeqCst));
        tokio::pin!(busy);
        // Start both (the first occupies the thread), then drop the second.
        let _ = tokio::time::timeout(Duration::from_millis(50), &mut busy).await;
        let _ = tokio::time::timeout(Duration::from_millis(10), abandoned).await;
        release.send(()).expect("release");
        assert_eq!(busy.await, Some(Some(())));
        assert_eq!(pool.run(|| 2).await, Some(2));
        assert_eq!(ran.load(Ordering::SeqCst), 0, "the abandoned check did not run");
    }
}
