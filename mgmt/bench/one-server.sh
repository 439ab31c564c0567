#!/bin/bash
# One nc-load run against one fresh mgmt-serve, for A/B comparisons of two builds (or two
# flag settings) alternated in one invocation (BENCHMARKS.md, NETCONF server).
#
#   mgmt/bench/one-server.sh BIN_DIR PORT NC_LOAD_ARGS...
#
# BIN_DIR holds mgmt-serve, nc-load and examples/hash_password: a cargo release directory
# (`cargo build --release -p mgmt -p netconf-load --bin mgmt-serve --bin nc-load --example hash_password`)
# or a copy of one. SERVE_ARGS (environment) is passed to mgmt-serve. Prints nc-load's result
# lines with the server CPU per operation (cpu % × 10 / ops/s, ms) appended to the throughput
# ones, then the server's resident set and thread count every 15 s.
#
#   for i in 1 2 3; do for b in /tmp/before /tmp/after; do
#     mgmt/bench/one-server.sh $b 8399 --only d --sessions 1,10 --duration 6; done; done
set -euo pipefail
BIN=$1
PORT=$2
shift 2
STATE=$(mktemp -d)
trap 'rm -rf "$STATE"' EXIT
printf 'bench password %s\n' "$(printf benchpw | "$BIN/examples/hash_password")" >"$STATE/users"
chmod 600 "$STATE/users"
# shellcheck disable=SC2086 # SERVE_ARGS is a list of words
"$BIN/mgmt-serve" "$STATE" "$PORT" ${SERVE_ARGS:-} --module ietf-interfaces --module iana-if-type \
    --admin bench >"$STATE/out" 2>"$STATE/err" &
PID=$!
for _ in $(seq 100); do grep -q listening "$STATE/out" && break; sleep 0.1; done
(while kill -0 $PID 2>/dev/null; do
    echo "$(awk '/VmRSS/ {print int($2 / 1024) " MB"}' /proc/$PID/status) $(ls /proc/$PID/task | wc -l) threads"
    sleep 1
done) >"$STATE/rss" 2>/dev/null &
SAMPLER=$!
"$BIN/nc-load" --host 127.0.0.1 --port "$PORT" --user bench --password benchpw --server-pid $PID \
    --label mgmt "$@" | sed -n '/=== SUMMARY/,$p' | awk '
    /ops\/s/ { for (i = 1; i <= NF; i++) { if ($i ~ /ops\/s/) o = $(i - 1); if ($i ~ /^cpu=/) c = substr($i, 5) + 0 }
               printf "%s  %.3f ms CPU/op\n", $0, c * 10 / o; next }
    { print }'
kill -INT $PID
wait $PID || true
kill $SAMPLER 2>/dev/null || true
awk 'NR == 1 || NR % 15 == 0' "$STATE/rss" | paste -sd ';' -
