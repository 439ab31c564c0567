//! A port task's thread, the same for the lab's ports and real ones: it waits for a command
//! from the port's handle or for its next step, carries the command out, steps, and publishes
//! a snapshot when something changed. What a step does is the task's own ([`PortTask`]).

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use tracing::{info, info_span};

use super::intent::PortIntent;
use super::snapshot::{PortSnapshot, Published};

/// What a port's handle asks of its task.
pub(super) enum Command {
    Apply(Box<PortIntent>),
    /// Discard the measurement's estimate and measure again (the measure-headroom RPC).
    Measure,
    /// Reset the counters (the clear-pfc-counters RPC).
    ClearCounters,
    Stop,
}

/// One kind of port task: the state its thread owns.
pub trait PortTask: Send + 'static {
    /// How long to wait for a command before the next step.
    fn wait(&self) -> Duration;
    fn apply(&mut self, intent: PortIntent);
    fn measure(&mut self);
    fn clear_counters(&mut self);
    /// The port stops: LLDP's shutdown. Returns whether a shutdown LLDPDU went out.
    fn shutdown_lldp(&mut self) -> bool;
    /// The step after a command (`commanded`) or after the wait. Returns whether the snapshot
    /// may have changed.
    fn step(&mut self, commanded: bool) -> bool;
    fn snapshot(&self) -> PortSnapshot;
}

/// The port's thread: commands from `commands` and steps until told to stop (or the handle is
/// gone), each step's snapshot published to `out` when it may have changed.
pub(super) fn serve(
    name: &str,
    mut port: impl PortTask,
    commands: &Receiver<Command>,
    out: &Published,
) {
    let _span = info_span!("port", name = %name).entered();
    loop {
        let commanded = match commands.recv_timeout(port.wait()) {
            Ok(Command::Apply(intent)) => {
                port.apply(*intent);
                true
            }
            Ok(Command::Measure) => {
                port.measure();
                true
            }
            Ok(Command::ClearCounters) => {
                port.clear_counters();
                true
            }
            Ok(Command::Stop) | Err(RecvTimeoutError::Disconnected) => {
                if port.shutdown_lldp() {
                    info!("LLDP shutdown LLDPDU sent");
                }
                break;
            }
            Err(RecvTimeoutError::Timeout) => false,
        };
        if port.step(commanded) {
            out.publish(port.snapshot());
        }
    }
}
