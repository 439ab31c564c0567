//! pfc-traffic: sends and receives test traffic per priority on a real interface, honouring and
//! sending IEEE 802.1Q PFC frames. The library code is `pfc_traffic`.

use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use dataplane::time::{LinkSpeed, Picos};
use dataplane::wire::MacAddr;
use pfc_traffic::rate::{parse_duration, parse_octets, DrainSpec, FlowSpec};
use pfc_traffic::{receiver, sender};

#[derive(Parser)]
#[command(
    name = "pfc-traffic",
    version,
    about = "Test traffic per priority that honours IEEE 802.1Q PFC, and a receiver that counts \
             it (loss, reordering, duplicates, latency) and can pause the sender with PFC",
    long_about = "Test traffic per priority that honours IEEE 802.1Q PFC, and a receiver that \
                  counts it and can pause the sender with PFC.\n\n\
                  Start the receiver first, then the sender, on the two ends of a link:\n\n  \
                  pfc-traffic recv -i h2eth --idle 1s --drain 3:500Mbps --json\n  \
                  pfc-traffic send -i h1eth --flow 3:2Gbps:1500 --flow 0:1Gbps:64 --duration 5s\n\n\
                  Test frames are EtherType 88-B5 with an 802.1Q tag whose PCP is the priority; \
                  each carries its flow, sequence number and send time (CLOCK_MONOTONIC, so \
                  latency is right when both ends run on one host, e.g. in network namespaces). \
                  Frame sizes and bit rates count octets from destination address to FCS (RFC \
                  2544). Needs CAP_NET_RAW.",
    after_help = "Signals: SIGTERM or SIGINT end a run; the report is printed either way."
)]
struct Cli {
    #[command(subcommand)]
    mode: Mode,
}

#[derive(Subcommand)]
enum Mode {
    /// Send flows of sequence-numbered frames, paused by the PFC frames that arrive.
    #[command(long_about = "Send flows of sequence-numbered frames at a given rate per \
        priority. A PFC frame received (88-08, opcode 01-01) pauses the priorities it names for \
        its pause time in quanta at --speed, as a NIC does; a zero time (XON) resumes them. A \
        paused flow does not catch up afterwards. The report gives frames, rate and the time \
        each priority was paused.\n\nExample: pfc-traffic send -i eth1 --flow 3:2Gbps:1500 \
        --flow 0:100kpps:64 --duration 10s --json")]
    Send(SendArgs),
    /// Receive and count test frames per priority; optionally drain slowly and send PFC.
    #[command(long_about = "Receive test frames and report per priority: frames, octets, \
        rate, loss, reordering and duplicates (from sequence numbers), and one-way latency p50/p99 \
        (same host only). With --drain PRIO:RATE a queue per priority fills with what arrives and \
        empties at RATE; above --xoff the receiver sends PFC frames pausing that priority \
        (refreshed before they run out), and at --xon it sends XON. --storm PRIO pauses a \
        priority for ever.\n\nExample: pfc-traffic recv -i eth2 --drain 3:500Mbps --xoff 64KB \
        --idle 1s --json")]
    Recv(RecvArgs),
}

#[derive(Args)]
struct Common {
    /// The interface to use.
    #[arg(short, long)]
    interface: String,
    /// The link speed that times pause quanta (veth reports none): 1G, 10G, 25G, 40G, 50G, 100G,
    /// 200G or 400G.
    #[arg(long, default_value = "10G")]
    speed: LinkSpeed,
    /// Stop after this long (e.g. 10s, 500ms); otherwise at SIGTERM/SIGINT.
    #[arg(long, value_parser = parse_duration)]
    duration: Option<Picos>,
    /// Spin instead of sleeping this close to a deadline (more precise, more CPU).
    #[arg(long, default_value = "20us", value_parser = parse_duration)]
    spin: Picos,
    /// Print the report as JSON (every figure) instead of a summary.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct SendArgs {
    #[command(flatten)]
    common: Common,
    /// A flow PRIORITY:RATE:SIZE, e.g. 3:2Gbps:1500 or 0:100kpps:64 (repeatable). SIZE counts
    /// the FCS; 64 is the least.
    #[arg(long = "flow", required = true)]
    flows: Vec<FlowSpec>,
    /// Destination MAC address.
    #[arg(long, default_value = "ff:ff:ff:ff:ff:ff")]
    dst: MacAddr,
    /// VLAN ID of the tags.
    #[arg(long, default_value_t = 0)]
    vid: u16,
    /// Send priority 0 untagged (otherwise priority-tagged like the others).
    #[arg(long)]
    untagged_zero: bool,
    /// Frames per flow, at most.
    #[arg(long)]
    count: Option<u64>,
    /// Send straight to the driver (PACKET_QDISC_BYPASS).
    #[arg(long)]
    qdisc_bypass: bool,
}

#[derive(Args)]
struct RecvArgs {
    #[command(flatten)]
    common: Common,
    /// Stop this long after the last test frame (once one has arrived), e.g. 1s.
    #[arg(long, value_parser = parse_duration)]
    idle: Option<Picos>,
    /// Drain priority PRIORITY at RATE (bits per second), e.g. 3:500Mbps, and send PFC when its
    /// queue passes --xoff (repeatable).
    #[arg(long = "drain")]
    drains: Vec<DrainSpec>,
    /// Queue level that starts a pause (octets: 64KB, 100000, 1MiB).
    #[arg(long, default_value = "64KB", value_parser = parse_octets)]
    xoff: u64,
    /// Queue level that ends it (XON); default half of --xoff.
    #[arg(long, value_parser = parse_octets)]
    xon: Option<u64>,
    /// Queue capacity: frames arriving above it are counted as overflow (lost on a real port).
    #[arg(long, value_parser = parse_octets)]
    buffer: Option<u64>,
    /// Pause time of the PFC frames sent, in quanta (refreshed at half).
    #[arg(long, default_value_t = 0xffff)]
    quanta: u16,
    /// The socket's receive buffer (octets: 8MB, 256MiB): what may queue while this receiver
    /// is not running; frames past it are dropped by the kernel (reported as kernel_drops).
    #[arg(long, default_value = "8MiB", value_parser = parse_octets)]
    socket_buffer: u64,
    /// Pause this priority for ever (a PFC storm), refreshing before each pause runs out.
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..8))]
    storm: Option<u8>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let printed = match cli.mode {
        Mode::Send(a) => sender::run(&sender::SendConfig {
            interface: a.common.interface,
            flows: a.flows,
            dst: a.dst,
            vid: a.vid,
            untagged_zero: a.untagged_zero,
            duration: a.common.duration,
            count: a.count,
            speed: a.common.speed,
            spin: a.common.spin,
            qdisc_bypass: a.qdisc_bypass,
        })
        .and_then(|r| print(a.common.json, &r, &r)),
        Mode::Recv(a) => receiver::run(&receiver::RecvConfig {
            interface: a.common.interface,
            duration: a.common.duration,
            idle: a.idle,
            drains: a.drains,
            xoff_octets: a.xoff,
            xon_octets: a.xon.unwrap_or(a.xoff / 2),
            buffer_octets: a.buffer,
            quanta: a.quanta,
            storm: a.storm,
            speed: a.common.speed,
            spin: a.common.spin,
            socket_buffer: usize::try_from(a.socket_buffer).unwrap_or(usize::MAX),
        })
        .and_then(|r| print(a.common.json, &r, &r)),
    };
    match printed {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pfc-traffic: {e}");
            ExitCode::FAILURE
        }
    }
}

fn print(
    json: bool,
    report: &impl serde::Serialize,
    human: &impl std::fmt::Display,
) -> Result<(), String> {
    if json {
        println!("{}", serde_json::to_string_pretty(report).map_err(|e| e.to_string())?);
    } else {
        println!("{human}");
    }
    Ok(())
}
