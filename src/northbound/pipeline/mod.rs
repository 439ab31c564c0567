//! pfcd-pipeline: the bridge's transmit pipeline, one file per direction: [`config`] (its
//! settings, `/pipeline`: pause mode, port credit, pause detection, external memory, into the
//! engine's configuration), [`state`] (statistics, external memory in use, each port's and
//! priority's Pause FSM and FIFO depth, from the pipeline thread's latest snapshot).

pub mod config;
pub mod state;
