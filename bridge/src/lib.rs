//! pfcd's software bridge on real interfaces: an 802.1Q bridge in user space whose transmit
//! side is dataplane's pipeline engine (QMAN → QMI → BMI → NTI → MAC with the external-memory
//! pause mechanism, or `fifo` / `stall`) driven by the wall clock instead of simulated time.
//!
//! - `forward.rs`: one received frame: MAC Control (PFC pauses the pipeline port), link-local
//!   frames, classification, learning and the static entries (`fdb.rs`, `static_entries.rs`:
//!   802.1Q 8.8.1, looked up first, never aged or moved), the ingress buffer (`ingress.rs`), the frame
//!   memory (`store/`), offers to the pipeline;
//! - `run.rs`: the loop on one thread (receive, run the pipeline to now, send, PFC initiator,
//!   publish, `ppoll`); `receive.rs` and `transmit.rs`: its two sides (MAC Control first,
//!   the receive queue followed; frames held while their class is paused, a look for PFC
//!   frames before each one a pause can stop); `links.rs`: each port's interface followed;
//! - `links.rs`: each port's interface followed (link down and up, the interface created
//!   anew: its socket reopened);
//! - `port.rs`: a port's setup, MAC halves, buffer and counters; `reaction.rs`: how fast a
//!   pause stops a priority; `snapshot.rs`: the state published; `socket.rs`: a port's
//!   sockets (every frame, MAC Control apart, HMPDUs with transmit timestamps);
//!   `handover.rs`: how long an HMPDU takes from its timestamp to the driver; `ring/`: the
//!   receive ring each port's frames come into; `xsk/`: the transmit ring frames leave through
//!   on request, from the store's frame memory (`store/memory.rs`). The crate's only `unsafe`
//!   is in `ring/sys.rs`, `xsk/sys.rs` and `store/memory.rs`.

pub mod control;
pub mod epoch;
pub mod fdb;
pub mod forward;
pub mod handover;
pub mod ingress;
pub mod keeper;
pub mod links;
pub mod long_pause;
pub mod port;
pub mod reaction;
pub mod receive;
pub mod ring;
pub mod run;
pub mod snapshot;
pub mod socket;
pub mod spec;
pub mod static_entries;
pub mod store;
pub mod transmit;
pub mod watchdog;
pub mod xsk;

use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use dataplane::io::{FramePort, IoError, RxBatch};
use dataplane::pipeline::{ExternalMemoryConfig, PauseMode, Pipeline, PipelineConfig, Traffic};
use dataplane::time::{LinkSpeed, Picos};

pub use port::{BridgePortSetup, PortCounters};
pub use snapshot::{BridgeSnapshot, PortSnapshot};
pub use socket::PortSockets;

/// A bridge port's interface: frames one at a time, and many per system call; MAC Control
/// frames apart (`AsFd` is the socket of every frame).
pub trait BridgeIo: FramePort + AsFd + Send {
    /// Receives what is waiting, up to the batch's capacity; how many.
    fn recv_many(&mut self, batch: &mut RxBatch) -> Result<usize, IoError>;
    /// Sends as many of `frames` as the interface takes now; how many.
    fn send_many(&mut self, frames: &[&[u8]]) -> Result<usize, IoError>;
    /// Receives the MAC Control frames waiting (they also come through `recv_many`, where the
    /// loop passes them over).
    fn recv_control(&mut self, batch: &mut RxBatch) -> Result<usize, IoError>;
    /// Readable when a MAC Control frame waits.
    fn control_fd(&self) -> std::os::fd::BorrowedFd<'_>;
    /// Frames the kernel dropped since the last call because a socket's receive buffer was
    /// full (the loop fell behind).
    fn take_kernel_drops(&mut self) -> u64;
    /// Sends one frame; the kernel's time for its reaching the driver (CLOCK_REALTIME
    /// nanoseconds) when the interface gives one.
    fn send_stamped(&mut self, frame: &[u8]) -> Result<Option<u64>, IoError>;
    /// How full the receive queue of every frame is: octets held and the most it holds
    /// (`None` when the kernel does not say).
    fn receive_queue(&self) -> Option<(u64, u64)>;
    /// Frames too long for the receive slots (the largest frame and its tag) since the last
    /// call: dropped before the bridge saw them, so counted as oversize.
    fn take_truncated(&mut self) -> u64 {
        0
    }
    /// The receive ring of every frame, taken out while the loop reads it (so that the ports
    /// can be handed each frame) and put back with [`BridgeIo::put_ring`]; `None` when frames
    /// come through `recv_many`.
    fn take_ring(&mut self) -> Option<ring::RxRing> {
        None
    }
    fn put_ring(&mut self, _ring: ring::RxRing) {}
    /// The MAC Control socket's ring, taken and put back likewise; `None`: `recv_control`.
    fn take_control_ring(&mut self) -> Option<ring::RxRing> {
        None
    }
    fn put_control_ring(&mut self, _ring: ring::RxRing) {}
    /// The receive ring's slots; 0 without a ring.
    fn ring_slots(&self) -> usize {
        0
    }
    /// Takes (clears) the error a socket of the port holds, which makes it always ready.
    fn take_socket_errors(&self) {}
    /// Whether frames wait in a receive ring (one memory read each; false without rings).
    fn frames_waiting(&self) -> bool {
        false
    }
    /// Gives the port the store's frame memory, which its transmit ring (when it was asked for
    /// one) sends stored frames from; without it the port sends through its socket.
    fn use_frame_memory(&mut self, _memory: &Arc<store::memory::FrameMemory>) {}
    /// Whether frames leave through a transmit ring.
    fn transmit_ring(&self) -> bool {
        false
    }
    /// Has the kernel send what waits in the transmit ring; whether some still waits.
    fn flush_transmit(&mut self) -> bool {
        false
    }
    /// Frames the interface dropped after the bridge handed them over, since the last call.
    fn take_transmit_drops(&mut self) -> u64 {
        0
    }
    /// Tells the port's pause keeper (`keeper`) that the loop runs a turn, and what it
    /// pauses when behind: `pfc_enable` for `quanta`, `pause` at the port's speed.
    fn keeper_turn(&self, _pfc_enable: u8, _quanta: u16, _pause: Duration) {}
    /// When the pause keeper last paused the peer, if it has since the last call.
    fn take_kept_pause(&self) -> Option<Instant> {
        None
    }
    /// Pauses the keeper has sent in all.
    fn kept_pauses(&self) -> u64 {
        0
    }
}

/// The bridge as the settings describe it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BridgeSetup {
    pub ports: Vec<BridgePortSetup>,
    /// What the pipeline does with a paused priority's frames.
    pub mode: PauseMode,
    /// The rate each port transmits at (veth has none of its own; the pipeline runs one speed).
    pub speed: LinkSpeed,
    /// The largest frame forwarded, octets without FCS.
    pub max_frame: u16,
    /// The maximum bridge transit delay (802.1Q 6.5.6): a frame older when it comes to leave is
    /// discarded and counted (`transit_drops`).
    pub max_transit: std::time::Duration,
}

/// 802.1Q 6.5.6's recommended maximum bridge transit delay (its absolute maximum is 4 s).
pub const DEFAULT_MAX_TRANSIT: std::time::Duration = std::time::Duration::from_secs(1);

/// Why the bridge cannot start.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    #[error("port {port}: {source}")]
    Open { port: String, source: dataplane::io::IoError },
    #[error("port {port}: {source}")]
    Port { port: String, source: port::PortError },
    #[error("the bridge needs 1 to 256 ports, not {0}")]
    Ports(usize),
    #[error("pipeline: {0}")]
    Pipeline(String),
    #[error("cannot start the bridge thread: {0}")]
    Thread(std::io::Error),
}

/// The pipeline of a software bridge: a 1 µs cycle (the loop follows the wall clock to within
/// tens of microseconds, so a finer cycle would only cost CPU), one-cycle stages, 16
/// descriptors per cycle (a 10G port sends up to 15 minimum frames a microsecond), and the
/// credit to keep a port's wire busy across the pipeline's few microseconds.
pub fn pipeline_config(
    ports: usize,
    mode: PauseMode,
    speed: LinkSpeed,
    max_frame: u16,
) -> PipelineConfig {
    PipelineConfig {
        mode,
        ports,
        speed,
        cycle: Picos::from_ns(1_000),
        width: 16,
        qman_latency: 1,
        qman_capacity: 64,
        qmi_latency: 1,
        bmi_latency: 1,
        nti_latency: 1,
        stage_capacity: 64,
        port_credit: 128,
        pause_detect_latency: Picos::from_ns(1_000),
        external: ExternalMemoryConfig {
            capacity_fds: 1 << 20,
            write_latency: 1,
            read_latency: 1,
            ops_per_cycle: 16,
        },
        traffic: Traffic::Offered,
        min_len: 60,
        max_len: max_frame.max(60),
        seed: 1,
    }
}

/// The running bridge.
pub struct Bridge {
    stop: Arc<AtomicBool>,
    published: Arc<Mutex<BridgeSnapshot>>,
    controls: Mutex<std::sync::mpsc::Sender<control::Control>>,
    /// Wakes the loop from its sleep when a control is sent.
    wake: std::os::unix::net::UnixDatagram,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Bridge {
    /// Opens every port with `open` (interface name → its port and MAC address) and starts
    /// the bridge's thread. The loop keeps `open` to open a port again when its interface is
    /// created anew (`links.rs`).
    pub fn start<P, F>(setup: &BridgeSetup, open: F) -> Result<Bridge, BridgeError>
    where
        P: BridgeIo + 'static,
        F: Fn(&str) -> Result<P, dataplane::io::IoError> + Send + 'static,
    {
        if setup.ports.is_empty() || setup.ports.len() > 256 {
            return Err(BridgeError::Ports(setup.ports.len()));
        }
        let store = store::FrameStore::default();
        // Every port, and one opened again, sends from the store's frame memory.
        let memory = store.memory().cloned();
        let open = move |name: &str| {
            let mut io = open(name)?;
            if let Some(memory) = &memory {
                io.use_frame_memory(memory);
            }
            Ok(io)
        };
        let mut ports = Vec::new();
        let mut seen = Vec::new();
        for p in &setup.ports {
            seen.push(dataplane::io::Seen::probe(&p.name));
            let io = open(&p.name)
                .map_err(|source| BridgeError::Open { port: p.name.clone(), source })?;
            let mac = io.mac();
            let ring_slots = io.ring_slots();
            let mut port = port::BridgePort::new(
                p.clone().with_max_frame(setup.max_frame),
                io,
                mac,
                setup.speed,
            )
            .map_err(|source| BridgeError::Port { port: p.name.clone(), source })?;
            port.rx_ring_slots = ring_slots;
            ports.push(port);
        }
        let watch = links::LinkWatch::new(&mut ports, &seen, Box::new(open));
        let config = pipeline_config(ports.len(), setup.mode, setup.speed, setup.max_frame);
        let mut engine = Pipeline::new(config).map_err(BridgeError::Pipeline)?;
        engine.record_departures();
        let fwd = forward::Forwarder {
            engine,
            fdb: fdb::Fdb::new(fdb::DEFAULT_AGEING),
            store,
            max_len: usize::from(setup.max_frame),
            pending_mode: None,
            max_transit: Picos::from_duration(setup.max_transit),
            out: Vec::new(),
        };
        let stop = Arc::new(AtomicBool::new(false));
        let published = Arc::new(Mutex::new(BridgeSnapshot::take(&ports, &fwd)));
        let (controls, controls_rx) = std::sync::mpsc::channel();
        let (wake, woken) =
            std::os::unix::net::UnixDatagram::pair().map_err(BridgeError::Thread)?;
        for end in [&wake, &woken] {
            end.set_nonblocking(true).map_err(BridgeError::Thread)?;
        }
        let thread = {
            let (stop, published) = (stop.clone(), published.clone());
            let speed = setup.speed;
            std::thread::Builder::new()
                .name("bridge".into())
                .spawn(move || {
                    run::run(
                        ports,
                        fwd,
                        run::Links { stop, published, controls: controls_rx, woken, speed },
                        watch,
                    )
                })
                .map_err(BridgeError::Thread)?
        };
        Ok(Bridge {
            stop,
            published,
            controls: Mutex::new(controls),
            wake,
            thread: Mutex::new(Some(thread)),
        })
    }

    /// Hands the loop a control; it wakes and takes it at once.
    pub fn control(&self, c: control::Control) {
        let _ = self.controls.lock().unwrap_or_else(PoisonError::into_inner).send(c);
        // (A full socket means a wake-up is pending already.)
        let _ = self.wake.send(&[1]);
    }

    /// Whether the loop has ended without being stopped (it panicked): nothing is forwarded
    /// any more.
    pub fn failed(&self) -> bool {
        !self.stop.load(Ordering::Relaxed)
            && self
                .thread
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .as_ref()
                .is_some_and(JoinHandle::is_finished)
    }

    /// The state as last published (every 100 ms).
    pub fn snapshot(&self) -> BridgeSnapshot {
        self.published.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Stops the loop and waits for it; the final state is published.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.lock().unwrap_or_else(PoisonError::into_inner).take() {
            let _ = t.join();
        }
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        self.stop();
    }
}
