//! pfc-bridge: pfcd's software PFC bridge on real interfaces, on its own.
//!
//! Forwards frames between the interfaces it is given (an 802.1Q bridge: learning and
//! flooding per VLAN, priority from the PCP), through dataplane's pipeline engine with the
//! external-memory pause mechanism (or `fifo` / `stall`), honours PFC frames from each port's
//! peer and sends PFC to the peers when a lossless priority's receive buffer passes XOFF.
//! State goes to a JSON file every half second and to stdout at exit (`--json`).

use std::os::fd::AsFd;
use std::path::PathBuf;
use std::process::ExitCode;

use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::{SigSet, Signal};
use nix::sys::signalfd::{SfdFlags, SignalFd};

use clap::Parser;
use dataplane::io::RawOptions;
use dataplane::pipeline::PauseMode;
use dataplane::time::LinkSpeed;
use pfc_bridge::ring::RingOptions;
use pfc_bridge::{spec, Bridge, BridgeSetup, PortSockets};

#[derive(Parser)]
#[command(
    name = "pfc-bridge",
    version,
    about = "Software PFC bridge on real interfaces: forwarding through the pipeline engine, PFC in and out",
    after_help = "PORT is NAME[,pfc=3+4][,prio=N][,pvid=N][,headroom=BITS][,buffer=OCTETS]\
                  [,lossy=OCTETS][,quanta=N][,tc=01234567][,watchdog=drop|forward|alert|off]\
                  [,detect=MS][,restore=MS][,pause=honour|ignore]: PFC on priorities 3 and 4, default \
                  priority of untagged frames, VLAN of untagged frames, the headroom allowance \
                  in force (bits; sizes the lossless buffers: XOFF sits a headroom and a frame \
                  below the allocation), the allocation per lossless priority (default twice \
                  the headroom), the pool the lossy priorities share, the pause time our PFC \
                  frames ask for, the traffic class of priorities 0 to 7 on transmit (default \
                  01234567; a pause of one priority holds every priority of its class), the PFC \
                  watchdog (default drop, detect=200 restore=200: a priority, or with PFC off the \
                  link, held paused for the detection time while frames wait and none leave is a \
                  storm: its pauses are then ignored and, with drop, its frames toward the port \
                  discarded, until no pause came for the restoration time), and whether 802.3x \
                  PAUSE is honoured with PFC off.\n\nExample: pfc-bridge --port veth1,pfc=3 --port veth2,pfc=3 --speed 10G \
                  --state /run/pfc-bridge.json\n\nSIGTERM or SIGINT stop it. Needs CAP_NET_RAW."
)]
struct Cli {
    /// A bridge port (repeatable, at least two to forward anything).
    #[arg(short, long = "port", value_name = "PORT", required = true)]
    ports: Vec<String>,
    /// What happens to a paused priority's frames in the pipeline: external, fifo or stall.
    #[arg(long, default_value = "external")]
    mode: PauseMode,
    /// Each port's transmit rate (veth has none of its own): 1G, 10G, 25G, 40G, 50G, 100G...
    #[arg(long, default_value = "10G")]
    speed: LinkSpeed,
    /// The largest frame forwarded, octets without FCS.
    #[arg(long, default_value_t = 9216)]
    max_frame: u16,
    /// The maximum bridge transit delay (802.1Q 6.5.6), milliseconds: a frame older is
    /// discarded and counted (`transit_drops`), when it comes to leave or, under a pause
    /// unbroken for longer than this (a deadlock's), while the pause lasts. 802.1Q's
    /// recommended 1 s by default, its absolute maximum 4 s at most.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=4000))]
    max_transit_ms: u64,
    /// Each port's receive ring, MiB (PACKET_MMAP; its slots fit --max-frame): the bridge sees
    /// exactly how many frames wait there and pauses the peer's PFC priorities from an eighth
    /// full, so the kernel drops none while the bridge keeps up with its pauses. Larger holds
    /// longer stalls of the bridge's thread; opening it costs the kernel about 0.15 ms a MiB
    /// that it does not yield. 0, or an interface that refuses a ring (said in the log),
    /// receives through the socket's queue instead; the state's `receive_path` says which.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(0..=1024))]
    rx_ring_mib: u64,
    /// Send through a transmit ring on each port (`AF_XDP`, copy mode, frames sent from where
    /// the bridge stored them: less CPU per frame on veth than the socket's `sendmmsg`). Its frames go straight to the driver,
    /// past the interface's queueing discipline: `tc` shaping or policing on a port is then
    /// ignored, which is why it is not the default. An interface that refuses a ring (said in
    /// the log) sends through its socket; the state's `transmit_path` says which.
    #[arg(long)]
    tx_ring: bool,
    /// Rewrite this file with the state as JSON every half second.
    #[arg(long)]
    state: Option<PathBuf>,
    /// Print the final state as JSON on stdout at exit.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    pfc_logging::init();
    let cli = Cli::parse();
    let ports = match cli.ports.iter().map(|p| spec::parse_port(p)).collect::<Result<Vec<_>, _>>() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("pfc-bridge: {e}");
            return ExitCode::FAILURE;
        }
    };
    let setup = BridgeSetup {
        ports,
        mode: cli.mode,
        speed: cli.speed,
        max_frame: cli.max_frame,
        max_transit: std::time::Duration::from_millis(cli.max_transit_ms),
    };
    let options = RawOptions {
        promiscuous: true,
        recv_buffer: Some(4 << 20),
        timestamps: true,
        send_buffer: Some(4 << 20),
        ..RawOptions::default()
    };
    // Blocked before the bridge's thread starts (it inherits the mask), taken from a signalfd.
    let signals = match stop_signals() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("pfc-bridge: cannot wait for signals: {e}");
            return ExitCode::FAILURE;
        }
    };
    let ring = RingOptions {
        octets: usize::try_from(cli.rx_ring_mib << 20).unwrap_or(usize::MAX),
        max_frame: usize::from(cli.max_frame),
        transmit: cli.tx_ring,
    };
    let open = move |name: &str| PortSockets::open_with_ring(name, &options, ring);
    let bridge = match Bridge::start(&setup, open) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("pfc-bridge: {e}");
            return ExitCode::FAILURE;
        }
    };
    eprintln!("pfc-bridge: forwarding between {}", cli.ports.join(" "));
    loop {
        let mut fds = [PollFd::new(signals.as_fd(), PollFlags::POLLIN)];
        let _ = poll(&mut fds, PollTimeout::from(500u16));
        if matches!(signals.read_signal(), Ok(Some(_))) {
            break;
        }
        if let Some(path) = &cli.state {
            write_state(path, &bridge);
        }
        // A forwarding thread that has ended forwards nothing: exit, for a supervisor to see.
        if bridge.failed() {
            eprintln!("pfc-bridge: the forwarding thread has stopped (its panic is above)");
            return ExitCode::FAILURE;
        }
    }
    bridge.stop();
    if let Some(path) = &cli.state {
        write_state(path, &bridge);
    }
    if cli.json {
        println!("{}", serde_json::to_string_pretty(&bridge.snapshot()).unwrap_or_default());
    }
    ExitCode::SUCCESS
}

/// Writes the state next to `path` and renames it there, so a reader never sees half a file.
fn write_state(path: &std::path::Path, bridge: &Bridge) {
    let text = serde_json::to_string_pretty(&bridge.snapshot()).unwrap_or_default();
    let tmp = path.with_extension("tmp");
    if std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, path)).is_err() {
        eprintln!("pfc-bridge: cannot write {}", path.display());
    }
}

/// SIGTERM and SIGINT, blocked and readable from a signalfd.
fn stop_signals() -> nix::Result<SignalFd> {
    let mut mask = SigSet::empty();
    mask.add(Signal::SIGTERM);
    mask.add(Signal::SIGINT);
    mask.thread_block()?;
    SignalFd::with_flags(&mask, SfdFlags::SFD_NONBLOCK | SfdFlags::SFD_CLOEXEC)
}
