//! The daemon's side of a port task: how the northbound side hands a port its configuration
//! and RPCs and reads its state, whatever kind of port runs behind it.

use std::sync::mpsc;

use super::headroom::ReceiveBuffer;
use super::intent::PortIntent;
use super::run::{self, Command, PortTask};
use super::snapshot::{PortSnapshot, Published};
use super::watched::Watched;

/// The daemon's side of a port task.
#[derive(Debug)]
pub struct PortHandle {
    pub name: String,
    pub receive_buffer: ReceiveBuffer,
    commands: mpsc::Sender<Command>,
    published: Published,
    thread: Watched,
}

impl PortHandle {
    /// Starts `port`'s thread, named after the port, and returns its handle. Both kinds of
    /// port (the lab's, `crate::lab::port`; a real interface's, `crate::real::port`) start so.
    pub fn start(
        name: String,
        receive_buffer: ReceiveBuffer,
        port: impl PortTask,
    ) -> std::io::Result<Self> {
        let published = Published::new(port.snapshot());
        let (commands, rx) = mpsc::channel();
        let out = published.clone();
        let thread_name = format!("port {name}");
        let span_name = name.clone();
        let thread = std::thread::Builder::new()
            .name(thread_name.clone())
            .spawn(move || run::serve(&span_name, port, &rx, &out))?;
        Ok(PortHandle {
            name,
            receive_buffer,
            commands,
            published,
            thread: Watched::new(thread_name, thread),
        })
    }

    /// Why the port's thread has ended although nobody stopped it (it panicked), if it has:
    /// the port then takes no configuration and its state no longer moves, so pfcd must not
    /// go on reporting commits as applied.
    pub fn failure(&self) -> Option<String> {
        self.thread.failure()
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
        self.thread.stopping();
        let _ = self.commands.send(Command::Stop);
        self.thread.join();
    }
}

impl Drop for PortHandle {
    fn drop(&mut self) {
        self.stop();
    }
}
