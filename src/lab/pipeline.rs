//! The lab bridge's transmit pipeline: dataplane's pipeline engine (QMAN → QMI → BMI → NTI →
//! MAC, with the external-memory pause mechanism or its alternatives) with one pipeline port per
//! lab port, carrying random traffic on every priority, following the lab's clock ([`SLOWER`]
//! times slower). Each lab
//! port's peer pauses are the pipeline port's pauses: while a port's PFC receiver holds a
//! priority paused, the pipeline receives PFC frames for it (refreshed every step, with the
//! pause time left), and an XON when it ends. The thread publishes a snapshot after every step.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use dataplane::pipeline::{Pipeline, PipelineConfig, Traffic};
use dataplane::time::{LinkSpeed, Picos};
use tracing::{info, info_span, warn};

use super::clock::SimClock;
use crate::ports::snapshot::Published;
use crate::ports::watched::Watched;
use crate::ports::PRIORITIES;
use dataplane::pipeline::PipelineSnapshot;

/// The share of each pipeline port's line rate offered by the traffic generator.
const LOAD_PERCENT: u64 = 50;

/// The pipeline's clock runs this many times slower than the lab's: a cycle-accurate model of
/// a 1 GHz pipeline costs far more per simulated second than the links do (a tenth of a core
/// for four ports at the lab's own rate). Pauses still match: they are refreshed every step for
/// as long as the port is paused.
const SLOWER: u64 = 10;

enum Command {
    Reconfigure(Box<PipelineConfig>),
    Stop,
}

/// The lab's side of the pipeline thread.
pub struct PipelineHandle {
    commands: mpsc::Sender<Command>,
    published: Arc<RwLock<Arc<PipelineSnapshot>>>,
    thread: Watched,
}

impl std::fmt::Debug for PipelineHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PipelineHandle").finish_non_exhaustive()
    }
}

/// The pipeline's configuration for `ports` lab ports with `base`'s settings: one pipeline port
/// per lab port at 100 Gb/s (the engine runs one speed), random traffic at half the line rate.
pub fn lab_config(ports: usize, base: &PipelineConfig) -> PipelineConfig {
    PipelineConfig {
        ports,
        speed: LinkSpeed::G100,
        traffic: Traffic::Random { load_percent: LOAD_PERCENT },
        min_len: 60,
        max_len: 1500,
        ..base.clone()
    }
}

impl PipelineHandle {
    /// Starts the pipeline thread over `ports`, following `clock`.
    pub fn spawn(
        config: PipelineConfig,
        ports: Vec<Published>,
        clock: SimClock,
        tick: Duration,
        traffic: bool,
    ) -> std::io::Result<Self> {
        let mut run = PipelineRun::new(config, ports.len()).map_err(std::io::Error::other)?;
        let published = Arc::new(RwLock::new(Arc::new(run.snapshot())));
        let (commands, rx) = mpsc::channel();
        let out = published.clone();
        let thread = std::thread::Builder::new().name("pipeline".into()).spawn(move || {
            let _span = info_span!("pipeline").entered();
            let share = Picos((tick.as_nanos() as f64 * 1000.0 * clock.ratio) as u64);
            let mut started = clock.target();
            loop {
                // Without the lab's traffic nothing flows and nothing pauses: the pipeline
                // waits for commands only.
                let wait = if traffic { tick } else { Duration::from_secs(3600) };
                match rx.recv_timeout(wait) {
                    Ok(Command::Reconfigure(config)) => match PipelineRun::new(*config, ports.len())
                    {
                        Ok(new) => {
                            info!(mode = %new.pipeline.config().mode, "pipeline reconfigured");
                            run = new;
                            started = clock.target();
                        }
                        Err(e) => warn!(error = %e, "pipeline configuration refused; the previous stays"),
                    },
                    Ok(Command::Stop) | Err(RecvTimeoutError::Disconnected) => break,
                    Err(RecvTimeoutError::Timeout) => {}
                }
                if !traffic {
                    *out.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(run.snapshot());
                    continue;
                }
                run.follow_pauses(&ports);
                let target = Picos(clock.target().saturating_sub(started).0 / SLOWER);
                run.advance(target, Picos(share.0.saturating_mul(4) / SLOWER));
                *out.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(run.snapshot());
            }
        })?;
        let thread = Watched::new("the lab's pipeline".into(), thread);
        Ok(PipelineHandle { commands, published, thread })
    }

    /// A new configuration: the pipeline starts again with it (counters from zero).
    pub fn reconfigure(&self, config: PipelineConfig) {
        let _ = self.commands.send(Command::Reconfigure(Box::new(config)));
    }

    pub fn snapshot(&self) -> Arc<PipelineSnapshot> {
        self.published.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    pub fn stop(&self) {
        self.thread.stopping();
        let _ = self.commands.send(Command::Stop);
        self.thread.join();
    }

    /// Why the pipeline's thread has ended unasked, if it has.
    pub fn failure(&self) -> Option<String> {
        self.thread.failure()
    }
}

impl Drop for PipelineHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The engine and what it was last told about pauses.
struct PipelineRun {
    pipeline: Pipeline,
    paused: Vec<u8>,
}

impl PipelineRun {
    fn new(config: PipelineConfig, ports: usize) -> Result<Self, String> {
        Ok(PipelineRun { pipeline: Pipeline::new(config)?, paused: vec![0; ports] })
    }

    /// Gives each pipeline port the pauses its lab port is under: a PFC frame with the time
    /// left for each paused priority, an XON for each that is no longer paused.
    fn follow_pauses(&mut self, ports: &[Published]) {
        let now = self.pipeline.now();
        let speed = self.pipeline.config().speed;
        for (i, port) in ports.iter().enumerate() {
            let s = port.read();
            let port_speed = s.speed;
            let mut time = [0u16; PRIORITIES];
            let mut paused = 0u8;
            for (n, p) in s.priorities.iter().enumerate() {
                if p.priority_paused {
                    let left = port_speed.quanta(p.pause_time_remaining);
                    let quanta = speed.quanta_in_ceil(left).clamp(1, u64::from(u16::MAX));
                    time[n] = u16::try_from(quanta).unwrap_or(u16::MAX);
                    paused |= 1 << n;
                }
            }
            let ended = self.paused[i] & !paused;
            if paused != 0 || ended != 0 {
                self.pipeline.schedule_pfc(now, i, paused | ended, time);
            }
            self.paused[i] = paused;
        }
    }

    /// Runs the pipeline up to `target`, at most `limit` of it in one step.
    fn advance(&mut self, target: Picos, limit: Picos) {
        let now = self.pipeline.now();
        let until = target.min(now + limit);
        let cycle = self.pipeline.config().cycle.0.max(1);
        let cycles = until.saturating_sub(now).0 / cycle;
        if cycles > 0 {
            self.pipeline.run(cycles);
        }
    }

    fn snapshot(&self) -> PipelineSnapshot {
        PipelineSnapshot::of(&self.pipeline)
    }
}
