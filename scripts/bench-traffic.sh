#!/usr/bin/env bash
# Benchmarks of the traffic tool and the delay line on veth pairs between network namespaces
# (as root): pfc-traffic's own send/receive rate with 64- and 1500-octet frames, and the delay
# line's accuracy at 0, 50 and 500 µs: one-way latency through it (pfc-traffic's timestamps
# against the kernel's receive time) minus the delay asked for. Creates its namespaces and
# removes them.
# Usage: sudo scripts/bench-traffic.sh [seconds per run, default 3]
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-3}"
target="${CARGO_TARGET_DIR:-target}"
cargo build --release --quiet --bin pfc-traffic --bin pfc-delay
bin="$target/release"
tag="pfcb$$"
cleanup() { for n in 1 d 2; do ip netns del "${tag}$n" 2>/dev/null || true; done; }
trap cleanup EXIT
for n in 1 d 2; do ip netns add "${tag}$n"; ip -n "${tag}$n" link set lo up; done
ip -n "${tag}1" link add h1eth type veth peer name da netns "${tag}d"
ip -n "${tag}2" link add h2eth type veth peer name db netns "${tag}d"
# The direct pair for the rate runs.
ip -n "${tag}1" link add r1 type veth peer name r2 netns "${tag}2"
for l in "1 h1eth" "1 r1" "2 h2eth" "2 r2" "d da" "d db"; do
    set -- $l; ip -n "${tag}$1" link set "$2" up
done
json() { python3 -c "import json,sys; r=json.load(open('$1')); print(eval(sys.argv[1]))" "$2"; }
out=$(mktemp -d)

echo "== pfc-traffic send and receive rate, one flow, veth, ${secs} s"
for run in "64" "1500" "64 --qdisc-bypass" "1500 --qdisc-bypass"; do
    set -- $run
    size=$1; shift
    ip netns exec "${tag}2" "$bin/pfc-traffic" recv -i r2 --idle 1s --json >"$out/r.json" &
    sleep 0.3
    ip netns exec "${tag}1" "$bin/pfc-traffic" send -i r1 --flow "0:400Gbps:$size" "$@" \
        --duration "${secs}s" --json >"$out/s.json"
    wait
    json "$out/s.json" "'  %4d octets%s: sent %.3f Mpps %.2f Gb/s' % ($size, ' ${1:-}', r['priorities']['0']['pps']/1e6, r['priorities']['0']['rate_bps']/1e9)"
    json "$out/r.json" "'               received %.3f Mpps %.2f Gb/s, lost %d' % (r['priorities']['0']['pps']/1e6, r['priorities']['0']['rate_bps']/1e9, r['priorities']['0']['lost'])"
done

echo "== pfc-delay added delay: 10 000 frames/s of 256 octets for ${secs} s"
for delay in 0 50us 500us; do
    ip netns exec "${tag}d" "$bin/pfc-delay" --a da --b db --delay "$delay" \
        --duration "$((secs + 2))s" --json >"$out/d.json" &
    dpid=$!
    sleep 0.3
    ip netns exec "${tag}2" "$bin/pfc-traffic" recv -i h2eth --idle 1s --json >"$out/r.json" &
    rpid=$!
    sleep 0.3
    ip netns exec "${tag}1" "$bin/pfc-traffic" send -i h1eth --flow 3:10kpps:256 \
        --duration "${secs}s" --json >"$out/s.json"
    wait "$rpid" "$dpid"
    p50=$(json "$out/r.json" "r['priorities']['3']['latency_ns']['p50']")
    p99=$(json "$out/r.json" "r['priorities']['3']['latency_ns']['p99']")
    json "$out/d.json" "'  delay %-6s one-way p50 %.1f us (%.1f over the delay) p99 %.1f us; line late by p50 %.1f us p99 %.1f us' % ('$delay', $p50/1e3, $p50/1e3 - r['directions'][0]['delay_ns']/1e3, $p99/1e3, r['directions'][0]['lateness_ns']['p50']/1e3, r['directions'][0]['lateness_ns']['p99']/1e3)"
done
rm -rf "$out"
