//! The daemon's side of a port task: how the northbound side hands a port its configuration
//! and RPCs and reads its state, whatever kind of port runs behind it.

use std::sync::mpsc;
use std::thread::JoinHandle;

use super::intent::PortIntent;
use super::run::{self, Command, PortTask};
use super::snapshot::{PortSnapshot, Published};

/// The daemon's side of a port task.
#[derive(Debug)]
pub struct PortHandle {
    pub name: String,
    pub receive_buffer_size: u64,
    commands: mpsc::Sender<Command>,
    published: Published,
    thread: std::sync::Mutex<Option<JoinHandle<()>>>,
    /// Set by `stop`: the thread ending after it is no failure.
    stopping: std::sync::atomic::AtomicBool,
    /// Why the thread ended unasked, once seen (its panic's message).
    died: std::sync::Mutex<Option<String>>,
}

impl PortHandle {
    /// Starts `port`'s thread, named after the port, and returns its handle. Both kinds of
    /// port (the lab's, `crate::lab::port`; a real interface's, `crate::real::port`) start so.
    pub fn start(
        name: String,
        receive_buffer_size: u64,
        port: impl PortTask,
    ) -> std::io::Result<Self> {
        let published = Published::new(port.snapshot());
        let (commands, rx) = mpsc::channel();
        let out = published.clone();
        let thread_name = format!("port {name}");
        let span_name = name.clone();
        let thread = std::thread::Builder::new()
            .name(thread_name)
            .spawn(move || run::serve(&span_name, port, &rx, &out))?;
        Ok(PortHandle {
            name,
            receive_buffer_size,
            commands,
            published,
            thread: std::sync::Mutex::new(Some(thread)),
            stopping: std::sync::atomic::AtomicBool::new(false),
            died: std::sync::Mutex::new(None),
        })
    }

    /// Why the port's thread has ended although nobody stopped it (it panicked), if it has:
    /// the port then takes no configuration and its state no longer moves, so pfcd must not
    /// go on reporting commits as applied.
    pub fn failure(&self) -> Option<String> {
        use std::sync::PoisonError;
        let mut died = self.died.lock().unwrap_or_else(PoisonError::into_inner);
        if died.is_none() && !self.stopping.load(std::sync::atomic::Ordering::Relaxed) {
            let mut thread = self.thread.lock().unwrap_or_else(PoisonError::into_inner);
            if thread.as_ref().is_some_and(JoinHandle::is_finished) {
                let why = match thread.take().map(JoinHandle::join) {
                    Some(Err(panic)) => panic_message(panic.as_ref()),
                    _ => "it ended".to_string(),
                };
                *died = Some(format!("the thread of port {} stopped: {why}", self.name));
            }
        }
        died.clone()
    }

    /// Hands the port a new configuration; a stopped port ignores it.
    pub fn apply(&self, intent: PortIntent) {
        let _ = self.commands.send(Command::Apply(Box::new(intent)));
    }

    /// Measures the headroom again; a stopped port ignores it.
    pub fn measure(&self) {
        let _ = self.commands.send(Command::Measure);
    }

    /// Resets the port's counters; a stopped port ignores it.
    pub fn clear_counters(&self) {
        let _ = self.commands.send(Command::ClearCounters);
    }

    /// Where the port publishes its snapshots (for other tasks that follow it).
    pub fn published(&self) -> Published {
        self.published.clone()
    }

    /// The port's latest snapshot, without waiting for the port.
    pub fn snapshot(&self) -> std::sync::Arc<PortSnapshot> {
        self.published.read()
    }

    /// Stops the thread and waits for it.
    pub fn stop(&self) {
        self.stopping.store(true, std::sync::atomic::Ordering::Relaxed);
        let _ = self.commands.send(Command::Stop);
        let thread = self.thread.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        if let Some(t) = thread {
            let _ = t.join();
        }
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

impl Drop for PortHandle {
    fn drop(&mut self) {
        self.stop();
    }
}
