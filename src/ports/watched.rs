//! A thread pfcd depends on, watched: whether it has ended although nobody stopped it (it
//! panicked), and why. pfcd's health check stops pfcd on such a thread (fail-stop) rather than
//! go on serving state nobody updates.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::thread::JoinHandle;

#[derive(Debug)]
pub struct Watched {
    /// What the thread is, for the message ("port lab1", "the lab's pipeline").
    what: String,
    thread: Mutex<Option<JoinHandle<()>>>,
    /// Set by `stopping`: the thread ending after it is no failure.
    stopping: AtomicBool,
    /// Why the thread ended unasked, once seen.
    died: Mutex<Option<String>>,
}

impl Watched {
    pub fn new(what: String, thread: JoinHandle<()>) -> Self {
        Watched {
            what,
            thread: Mutex::new(Some(thread)),
            stopping: AtomicBool::new(false),
            died: Mutex::new(None),
        }
    }

    /// The thread is being told to stop: its ending is no failure from now on.
    pub fn stopping(&self) {
        self.stopping.store(true, Ordering::Relaxed);
    }

    /// Waits for the thread to end (after telling it to stop).
    pub fn join(&self) {
        self.stopping();
        let thread = self.thread.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(t) = thread {
            let _ = t.join();
        }
    }

    /// Why the thread has ended although nobody stopped it, if it has.
    pub fn failure(&self) -> Option<String> {
        let mut died = self.died.lock().unwrap_or_else(PoisonError::into_inner);
        if died.is_none() && !self.stopping.load(Ordering::Relaxed) {
            let mut thread = self.thread.lock().unwrap_or_else(PoisonError::into_inner);
            if thread.as_ref().is_some_and(JoinHandle::is_finished) {
                let why = match thread.take().map(JoinHandle::join) {
                    Some(Err(panic)) => panic_message(panic.as_ref()),
                    _ => "it ended".to_string(),
                };
                *died = Some(format!("the thread of {} stopped: {why}", self.what));
            }
        }
        died.clone()
    }
}

/// What a thread's panic said (`panic!` with a message gives a `String` or a `&str`).
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let text = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("no message");
    format!("it panicked: {text}")
}
