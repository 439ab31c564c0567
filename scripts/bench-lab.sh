#!/usr/bin/env bash
# The embedded lab's idle cost: pfcd with PORTS lab ports (default 4, their peers congesting
# lossless priority 3) on a free port and a fresh state directory, no NETCONF client; CPU time
# of all its threads from /proc/PID/task/*/schedstat over 60 s after a 10 s warm-up, then RSS
# and threads.
#
#   [PORTS=64] scripts/bench-lab.sh [PFCD_BINARY]   default target/debug/pfcd (run.sh's build)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/debug/pfcd}
ports=${PORTS:-4}
dir=$(mktemp -d)
printf '[lab]\nports = %d\n' "$ports" >"$dir/settings.toml"
"$bin" --config "$dir/settings.toml" --listen 127.0.0.1:0 --state-dir "$dir/state" >"$dir/out" 2>"$dir/err" &
pid=$!
cpu() { cat /proc/"$pid"/task/*/schedstat | awk '{s += $1} END {printf "%.0f\n", s}'; }
sleep 10
t0=$(cpu)
sleep 60
t1=$(cpu)
rss=$(awk '/VmRSS/ {print $2}' /proc/"$pid"/status)
threads=$(awk '/Threads/ {print $2}' /proc/"$pid"/status)
kill -TERM "$pid"
wait "$pid" || true
rm -rf "$dir"
awk -v ns="$((t1 - t0))" -v rss="$rss" -v th="$threads" -v ports="$ports" \
  'BEGIN { printf "lab, %d ports, 60 s after 10 s: CPU %.2f %% of a core, RSS %.0f MiB, %d threads\n", ports, ns / 6e8, rss / 1024, th }'
