#!/bin/bash
# The issue's 512-entry edit+commit with ncclient (bench.py's client, its send patch on):
# the distribution of the commit's time over many repetitions, against one fresh mgmt-serve
# (BENCHMARKS.md, NETCONF server). A delayed TCP acknowledgement shows as commits of 40 ms
# and more where the rest take 1–2 ms.
#
#   mgmt/bench/commit-tail.sh BIN_DIR [REPS]      (300)
#
# BIN_DIR holds mgmt-serve and examples/hash_password (a cargo release directory). Needs
# python3-ncclient.
set -euo pipefail
BIN=$1
REPS=${2:-300}
HERE=$(cd "$(dirname "$0")" && pwd)
PORT=18992
STATE=$(mktemp -d)
trap 'rm -rf "$STATE"' EXIT
printf 'bench password %s\n' "$(printf benchpw | "$BIN/examples/hash_password")" >"$STATE/users"
chmod 600 "$STATE/users"
"$BIN/mgmt-serve" "$STATE" "$PORT" --module ietf-interfaces --module iana-if-type \
    --admin bench >"$STATE/out" 2>"$STATE/err" &
PID=$!
for _ in $(seq 100); do grep -q listening "$STATE/out" && break; sleep 0.1; done
NC_HOST=127.0.0.1 NC_PORT=$PORT NC_USER=bench NC_PASSWORD=benchpw \
    /usr/bin/python3 - "$HERE/../../bench/netconfd-baseline" "$REPS" <<'PY'
import statistics, sys, time
sys.path.insert(0, sys.argv[1])
import bench
bench.patch_ncclient()
reps = int(sys.argv[2])
m = bench.connect()
cfg = bench.cfg_entries(512)
bench.clear_all(m)
commits = []
for i in range(reps + 1):
    m.edit_config(target="candidate", config=cfg)
    t0 = time.perf_counter()
    m.commit()
    if i:
        commits.append((time.perf_counter() - t0) * 1e3)
    bench.clear_all(m)
s = sorted(commits)
slow = [(i, round(t, 1)) for i, t in enumerate(commits) if t > 20]
print(f"commit N=512, {reps} reps: p50 {statistics.median(s):.2f}  p95 {s[int(reps * .95) - 1]:.2f}"
      f"  p99 {s[int(reps * .99) - 1]:.2f}  max {s[-1]:.2f} ms; over 20 ms (rep, ms): {slow}")
m.close_session()
PY
kill -INT $PID
wait $PID || true
