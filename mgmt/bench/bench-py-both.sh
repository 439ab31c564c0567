#!/bin/bash
# The issue's ncclient workload (bench/netconfd-baseline/bench.py, unmodified) against
# yuma123 netconfd (behind the baseline's private sshd) and against mgmt-serve, one after the
# other in one invocation (BENCHMARKS.md, NETCONF server).
#
#   mgmt/bench/bench-py-both.sh            BENCH_ARGS="--only abc" selects bench.py's parts
#
# Needs root and what run.sh installs. Environment:
#   CARGO_TARGET_DIR  where the release binaries are (built if missing)   [<workspace>/target]
#   NCB               a writable copy of bench/netconfd-baseline   [/tmp/ncb]
#   MGMT_PORT         mgmt-serve's port                                    [18830]
#   OUT               results directory                                    [/tmp/bench-py-<time>]
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
WS=$(cd "$HERE/../.." && pwd)
BIN=${CARGO_TARGET_DIR:-$WS/target}/release
NCB=${NCB:-/tmp/ncb}
MGMT_PORT=${MGMT_PORT:-18830}
OUT=${OUT:-/tmp/bench-py-$(date +%Y%m%dT%H%M%S)}
ARGS=${BENCH_ARGS:-}
mkdir -p "$OUT"
if [ ! -x "$BIN/mgmt-serve" ] || [ ! -x "$BIN/examples/hash_password" ]; then
    (cd "$WS" && cargo build --release -p mgmt --bin mgmt-serve --example hash_password) || exit 1
fi
if [ ! -x "$NCB/run.sh" ]; then
    cp -r "$WS/bench/netconfd-baseline" "$NCB" && chmod -R u+w "$NCB"
fi
echo "== $(date -u +%FT%TZ) $(nproc) cpus; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== versions: $(dpkg-query -W -f='${Package} ${Version}; ' netconfd openssh-server python3-ncclient python3-paramiko)"

echo "===== netconfd ====="
"$NCB/run.sh" start || exit 1
NETCONFD_PID=$(cat "${NC_BASELINE_DIR:-/tmp/nc_baseline}/run/netconfd.pid") \
    /usr/bin/python3 "$NCB/bench.py" $ARGS 2>&1 | tee "$OUT/netconfd.txt"
"$NCB/run.sh" stop

echo "===== mgmt-serve ====="
STATE=$(mktemp -d /tmp/bench-py-mgmt.XXXXXX)
echo "bench password $(printf %s benchpw | "$BIN/examples/hash_password")" > "$STATE/users"
chmod 600 "$STATE/users"
"$BIN/mgmt-serve" "$STATE" "$MGMT_PORT" --module ietf-interfaces --module iana-if-type \
    --admin bench > "$STATE/serve.out" 2>&1 &
SPID=$!
for _ in $(seq 100); do grep -q "listening on" "$STATE/serve.out" && break; sleep 0.1; done
NC_HOST=127.0.0.1 NC_PORT=$MGMT_PORT NC_USER=bench NC_PASSWORD=benchpw NC_SERVER_PID=$SPID \
    /usr/bin/python3 "$NCB/bench.py" $ARGS 2>&1 | tee "$OUT/mgmt.txt"
kill -INT $SPID; wait $SPID
rm -rf "$STATE"
echo "== load: $(cut -d' ' -f1-3 /proc/loadavg); results in $OUT"
