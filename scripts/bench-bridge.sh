#!/usr/bin/env bash
# Benchmarks of pfc-bridge, the engine pfcd runs on real interfaces (as root):
#  1. forwarding rate against the Linux bridge on the same namespaces, 64- and 1500-octet
#     frames, alternated runs (examples/bridge_rate.rs);
#  2. pause reaction on the wire: h2 drains priority 3 at 20 Mb/s and pauses it with PFC while
#     h1 offers 100 Mb/s of it and 40 Mb/s of priority 0 through pfc-bridge; the bridge's own
#     figures per pause (from the PFC receiver's indication, 36.3.3's measure, and from the PFC
#     frame's kernel arrival, to the start of the last send of the priority after it), and the
#     traffic tool's view from h2;
#  3. a sender faster than the bridge: h1 offers 4 and 10 Gb/s of PFC priority 3, more than
#     one core forwards; what arrives, what is lost (at the bridge: its ring's and sockets'
#     counters; at h2: its own socket's), how long h1 was paused.
# BRIDGE_ARGS adds options to pfc-bridge's command line in parts 2 and 3 (e.g. --tx-ring).
# Creates its namespaces and removes them.
# Usage: sudo scripts/bench-bridge.sh [seconds per run, default 3] [runs, default 3]
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-3}"
runs="${2:-3}"
target="${CARGO_TARGET_DIR:-target}"
cargo build --release --quiet --bin pfc-bridge --bin pfc-traffic --example bridge_rate
bin="$target/release"

echo "== forwarding rate"
[ "${SKIP_RATE:-}" ] || "$bin/examples/bridge_rate" "$secs" "$runs"

tag="pfbr$$"
out=$(mktemp -d)
bridge=
cleanup() {
    [ -n "$bridge" ] && kill "$bridge" 2>/dev/null || true
    for n in h1 sw h2; do ip netns del "${tag}$n" 2>/dev/null || true; done
    rm -rf "$out"
}
trap cleanup EXIT

# h1 eth0 — p1 [pfc-bridge, PFC on priority 3, 4 Mbit of headroom] p2 — eth0 h2.
start() {
    for n in h1 sw h2; do ip netns add "${tag}$n"; done
    ip -n "${tag}h1" link add eth0 type veth peer name p1 netns "${tag}sw"
    ip -n "${tag}sw" link add p2 type veth peer name eth0 netns "${tag}h2"
    ip -n "${tag}h1" link set eth0 up
    ip -n "${tag}sw" link set p1 up
    ip -n "${tag}sw" link set p2 up
    ip -n "${tag}h2" link set eth0 up
    # The watchdog off: h2's software receiver may hold a pause past its 200 ms, and what is
    # measured is the pause reaction, not the watchdog (bridge/examples/watchdog_bench.rs).
    ip netns exec "${tag}sw" "$bin/pfc-bridge" --port p1,pfc=3,headroom=4000000,watchdog=off \
        --port p2,pfc=3,headroom=4000000,watchdog=off --state "$out/bridge.json" ${BRIDGE_ARGS:-} "$@" 2>/dev/null &
    bridge=$!
    sleep 0.5
}

stop() {
    sleep 0.6
    kill "$bridge" 2>/dev/null || true
    wait "$bridge" 2>/dev/null || true
    bridge=
    for n in h1 sw h2; do ip netns del "${tag}$n" 2>/dev/null || true; done
}

# h2 receives (with $1..: its pfc-traffic options), h1 sends (the rest after --).
traffic() {
    local recv=() send=()
    while [ "$1" != "--" ]; do recv+=("$1"); shift; done
    shift
    send=("$@")
    ip netns exec "${tag}h2" "$bin/pfc-traffic" recv -i eth0 --idle 1500ms --json "${recv[@]}" \
        >"$out/r.json" &
    local receiver=$!
    sleep 0.3
    ip netns exec "${tag}h1" "$bin/pfc-traffic" send -i eth0 --duration "${secs}s" --json \
        "${send[@]}" >"$out/s.json"
    wait "$receiver" 2>/dev/null || true
}

echo "== pause reaction through pfc-bridge (${secs} s of congestion)"
start
traffic --drain 3:20Mbps --xoff 32KB --buffer 4MB -- --flow 3:100Mbps:1000 --flow 0:40Mbps:1000
stop
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
b = json.load(open(f"{out}/bridge.json"))
r = json.load(open(f"{out}/r.json"))
p2 = next(p for p in b["ports"] if p["name"] == "p2")
p1 = next(p for p in b["ports"] if p["name"] == "p1")
r3, r0 = r["priorities"]["3"], r["priorities"]["0"]
print(f"  bridge, over {p2['reaction_samples']} pauses of priority 3, the last frame of it begun after")
print(f"    the PFC receiver's indication (36.3.3, bound 0.614 us): in {p2['indication_late_pauses']} pauses; "
      f"p99 {p2['indication_reaction_p99_us']:.3f} us, worst {p2['indication_reaction_max_us']:.3f} us")
print(f"    the PFC frame's kernel arrival: in {p2['reaction_late_pauses']} pauses; "
      f"p50 {p2['reaction_p50_us']:.3f} us, p99 {p2['reaction_p99_us']:.3f} us, worst {p2['reaction_max_us']:.3f} us")
print(f"  h2: {r['pfc_frames_sent']} PFC frames sent; priority 3 lost {r3['lost']}, reordered {r3['reordered']}; "
      f"priority 0 at {r0['rate_bps']/1e6:.1f} Mb/s, lost {r0['lost']}")
print(f"  bridge: PFC to h1 {p1['pfc_requests']}, lossless drops {p1['lossless_drops']}, order violations {b['pipeline_order_violations']}")
PY

# Each port's ring: the default 8 MiB (5 120 slots of 1522 octets) holds a stall of the bridge's
# thread of about 10 ms at 4 Gb/s; RING_MIB=256 holds half a second.
for rate in 4 10; do
echo "== a sender faster than the bridge: h1 offers ${rate} Gb/s of priority 3 (${secs} s), ${RING_MIB:-8} MiB rings"
start --max-frame 1522 --rx-ring-mib "${RING_MIB:-8}"
traffic --socket-buffer 256MiB -- --flow "3:${rate}Gbps:1000"
stop
python3 - "$out" "$secs" <<'PY'
import json, sys
out, secs = sys.argv[1], float(sys.argv[2])
b = json.load(open(f"{out}/bridge.json"))
r = json.load(open(f"{out}/r.json"))
s = json.load(open(f"{out}/s.json"))
p1 = next(p for p in b["ports"] if p["name"] == "p1")
r3, s3 = r["priorities"]["3"], s["priorities"]["3"]
print(f"  h1 sent {s3['frames']} frames, paused {s3['pause_ns']/1e9/secs*100:.0f} % of the time; "
      f"h2 received {r3['frames']} at {r3['rate_bps']/1e9:.2f} Gb/s, lost {r3['lost']}, reordered {r3['reordered']} "
      f"(dropped by h2's own socket: {r['kernel_drops']})")
print(f"  bridge p1 ({p1['receive_path']}, {p1['rx_ring_slots']} slots): fell behind {p1['behind_xoffs']} times, "
      f"PFC to h1 {p1['pfc_requests']} (by the pause keeper {p1['keeper_pauses']}), kernel drops {p1['rx_kernel_drops']}, lossless drops {p1['lossless_drops']}")
PY
done
