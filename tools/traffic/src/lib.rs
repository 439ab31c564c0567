//! The traffic tool (`pfc-traffic`) and the delay line (`pfc-delay`): what tests and users put
//! on either side of pfcd on real interfaces.
//!
//! - [`sender`]: paced, sequence-numbered, timestamped flows per priority that honour PFC;
//! - [`receiver`]: per-priority counts, loss, reordering, duplicates and latency, a slow drain
//!   that pauses the sender with PFC (and [`reaction`]: how fast the pauses took hold), and a
//!   PFC storm;
//! - [`delay`]: a line that holds every frame for a fixed time in each direction;
//! - [`payload`]: the test frame; [`rate`]: rates and the command-line specifications;
//!   [`report`]: what is printed at the end (JSON with `--json`).
//!
//! All three run on [`dataplane::io::RawPort`].

pub mod clock;
pub mod delay;
pub mod drain;
pub mod event_loop;
pub mod histogram;
pub mod pause;
pub mod payload;
pub mod rate;
pub mod reaction;
pub mod receiver;
pub mod report;
pub mod sender;
pub mod sequence;
