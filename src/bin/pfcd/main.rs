//! pfcd: the IEEE 802.1Q Priority-based Flow Control management daemon. With no settings
//! file it runs the embedded lab on 127.0.0.1:830; `pfcd --help` says it all.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use pfcd::settings::SettingsSource;

/// mimalloc, as mgmt-serve: mgmt overrides the C allocator with it too (mgmt's Cargo.toml).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser, Debug)]
#[command(
    name = "pfcd",
    version,
    about = "IEEE 802.1Q Priority-based Flow Control management daemon (NETCONF over SSH)",
    long_about = "pfcd serves the PFC YANG model (ieee802-dot1q-pfc-bridge: the Table 12-1 \
objects, PFC enable, headroom, per-priority pause state, and the port's measure-headroom and \
clear-pfc-counters actions) over NETCONF/SSH. With no settings file \
it runs the embedded lab: four simulated Bridge Ports (lab0 3 m at 100G, lab1 100 m of Cat6 at \
10G, lab2 10 km at 100G on an allowance too small for it, lab3 60 km at 400G), each linked to an \
in-process peer that congests lossless priority 3 and runs LLDP/DCBX with it (lab0-lab2's peers are \
willing, lab3's is not), and the bridge's transmit pipeline, paused as the peers pause the ports. \
Modules served: ieee802-dot1q-pfc-bridge, ieee802-dot1ab-lldp with the DCBX and PFC TLV modules, \
ietf-interfaces, ieee802-dot1q-bridge, and pfcd's own pfcd-pipeline, pfcd-headroom, \
pfcd-watchdog (the PFC watchdog), pfcd-pfc (each priority's buffer, PFC counts and time paused; \
the itemised headroom; the measurement's history and counters), pfcd-lldp (neighbours' TTL and \
age, the 6-octet TLV, DCBX's reasons), pfcd-lab (the lab's state and its peers' storms), \
pfcd-nic (what was set on each NIC, with data-plane = \"nic\") and \
pfcd-deviations (what pfcd does not implement of the IEEE modules).

On first start pfcd creates the administrator with a random password (Argon2id hash in the users \
file, the password in <state-dir>/admin.password, both mode 0600) and stores the lab's \
configuration in running; every start prints how to connect, then 'pfcd ready'.

With ports = \"interfaces\" pfcd bridges real interfaces instead: frames are forwarded between \
them through the pipeline engine with the external-memory pause mechanism, PFC frames from a \
port's peer pause it, a lossless priority's buffer past XOFF sends PFC to its peer, LLDP/DCBX \
runs with the peer on the wire, and headroom/method measurement measures the link with HMPDUs. The \
first start configures every interface as a Bridge Port with PFC off and LLDP on.",
    after_help = "SETTINGS FILE (TOML; every field optional, defaults shown):
  listen = \"127.0.0.1:830\"      # NETCONF over SSH
  state-dir = \"./pfcd-state\"    # host key, datastores, yang/, admin.password
                                # (default $XDG_STATE_HOME/pfcd when XDG_STATE_HOME is set)
  users-file = \"<state-dir>/users\"
  admin-user = \"admin\"          # made on first start when the users file does not exist
  ports = \"lab\"                 # the embedded lab; \"interfaces\": a bridge on [interfaces]
  [interfaces]                  # with ports = \"interfaces\" (needs CAP_NET_RAW, CAP_NET_ADMIN)
  names = [\"eth1\", \"eth2\"]      # the Linux interfaces that are Bridge Ports, in order
  speed = \"10G\"                 # when the interfaces report no common speed (veth)
  max-frame = 9216              # the largest frame forwarded, octets without FCS
  receive-buffer = 1048576      # octets per port for the PFC-enabled priorities
  max-transit-ms = 1000         # frames held longer are discarded (802.1Q 6.5.6; 1-4000)
  data-plane = \"bridge\"         # \"nic\": the NICs run PFC, programmed through DCB netlink
                                # from DCBX (refused, naming each interface, where a
                                # driver has no DCB); what was set: pfcd-nic
  nic-dcbx = \"take-over\"        # with \"nic\", a NIC whose firmware runs DCBX: pfcd takes
                                # it over; \"leave\": pfcd sets nothing there, runs no
                                # LLDP on it, serves the NIC's PFC as read back
  [lab]
  time-ratio = 0.001            # simulated seconds per wall-clock second (0 < r <= 1)
  tick-ms = 50                  # how often each port catches up with the clock
  ports = 4                     # lab ports (1-256): the four kinds of link, repeated
  traffic = true                # peers' and pipeline traffic; false: an idle lab

SIGNALS: SIGTERM, SIGINT stop; SIGHUP re-reads the users file, and the settings file (a
changed setting is logged and takes effect at the next start; a broken file changes nothing).
LOGS: RUST_LOG (e.g. RUST_LOG=pfcd=debug), on stderr."
)]
struct Args {
    /// The settings file (TOML). Without it every setting has its default.
    #[arg(long, short = 'c', value_name = "FILE")]
    config: Option<PathBuf>,
    /// Listen on this address and port instead (e.g. 127.0.0.1:0 picks a free port).
    #[arg(long, value_name = "ADDR:PORT")]
    listen: Option<std::net::SocketAddr>,
    /// Keep the state here instead.
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,
}

fn main() -> ExitCode {
    // mimalloc asks for transparent huge pages on its arenas; with a heap per thread (a thread
    // per lab port) every thread's first small allocations then fault in a 2 MiB page: 64
    // ports took 330 MB of RSS this way and 100 MB without. The lab gains nothing from huge
    // pages, so the process opts out (inherited by nothing: pfcd starts no programs).
    if let Err(e) = nix::sys::prctl::set_thp_disable(true) {
        eprintln!("pfcd: transparent huge pages stay enabled ({e}): memory use will be higher");
    }
    let args = Args::parse();
    pfc_logging::init();
    let source =
        SettingsSource { file: args.config, listen: args.listen, state_dir: args.state_dir };
    let settings = match source.load() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("pfcd: {e}");
            return ExitCode::FAILURE;
        }
    };
    match pfcd::daemon::run(settings, source) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pfcd: {e}");
            ExitCode::FAILURE
        }
    }
}
