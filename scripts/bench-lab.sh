#!/usr/bin/env bash
# The embedded lab's idle cost: pfcd with PORTS lab ports (default 4, their peers congesting
# lossless priority 3) on a free port and a fresh state directory, no NETCONF client; the
# process's CPU time from /proc/PID/stat over 60 s after a 10 s warm-up, then RSS and threads.
#
#   [PORTS=64] [TRAFFIC=false] scripts/bench-lab.sh [PFCD_BINARY]
#                                  default target/debug/pfcd (run.sh's build); TRAFFIC=false:
#                                  the idle lab (LLDP/DCBX only, no traffic)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/debug/pfcd}
ports=${PORTS:-4}
dir=$(mktemp -d)
traffic=${TRAFFIC:-true}
printf '[lab]\nports = %d\ntraffic = %s\n' "$ports" "$traffic" >"$dir/settings.toml"
"$bin" --config "$dir/settings.toml" --listen 127.0.0.1:0 --state-dir "$dir/state" >"$dir/out" 2>"$dir/err" &
pid=$!
# utime + stime of the whole process in clock ticks: threads that have exited (the runtime's
# idle blocking threads) still count, as they would not in the per-thread schedstat sum.
cpu() { awk '{print $14 + $15}' /proc/"$pid"/stat; }
tck=$(getconf CLK_TCK)
sleep 10
t0=$(cpu)
sleep 60
t1=$(cpu)
rss=$(awk '/VmRSS/ {print $2}' /proc/"$pid"/status)
threads=$(awk '/Threads/ {print $2}' /proc/"$pid"/status)
kill -TERM "$pid"
wait "$pid" || true
rm -rf "$dir"
awk -v ns="$(( (t1 - t0) * 1000000000 / tck ))" -v rss="$rss" -v th="$threads" -v ports="$ports" -v traffic="$traffic" \
  'BEGIN { printf "lab, %d ports, traffic %s, 60 s after 10 s: CPU %.3f %% of a core, RSS %.0f MiB, %d threads\n", ports, traffic, ns / 6e8, rss / 1024, th }'
