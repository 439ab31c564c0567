#!/bin/bash
# nc-load against yuma123 netconfd (behind a private OpenSSH sshd, the shared baseline's
# run.sh) and against mgmt-serve, one after the other in one invocation, then a side-by-side
# Markdown table (the one in BENCHMARKS.md, "Our load generator (nc-load)").
#
#   mgmt/bench/nc-load-both.sh [nc-load options]     e.g. --quick, --only bc, --reps 10
#
# Needs root (run.sh creates user nctest and starts sshd on 127.0.0.1:8830) and the Debian
# packages run.sh installs (netconfd, openssh-server). Environment:
#   CARGO_TARGET_DIR  where the release binaries are (built if missing)   [<workspace>/target]
#   NCB               a writable copy of shared/bench/netconfd-baseline   [/tmp/ncb]
#   NC_BASELINE_DIR   run.sh's state (keys, logs)                          [/tmp/ncb-state]
#   MGMT_PORT         mgmt-serve's port                                    [18830]
#   OUT               results directory                                    [/tmp/nc-load-<time>]
#
# Server CPU: netconfd alone (--server-pid) and netconfd + sshd with its per-session children
# and netconf-subsystem (--ssh-pid); mgmt-serve does its own SSH, so one figure.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
WS=$(cd "$HERE/../.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$WS/target}
NCB=${NCB:-/tmp/ncb}
export NC_BASELINE_DIR=${NC_BASELINE_DIR:-/tmp/ncb-state}
MGMT_PORT=${MGMT_PORT:-18830}
OUT=${OUT:-/tmp/nc-load-$(date +%Y%m%dT%H%M%S)}
mkdir -p "$OUT"
log() { echo "[nc-load-both] $*" >&2; }

BIN=$TARGET/release
if [ ! -x "$BIN/nc-load" ] || [ ! -x "$BIN/mgmt-serve" ] || [ ! -x "$BIN/examples/hash_password" ]; then
    log "building release binaries in $TARGET"
    (cd "$WS" && CARGO_TARGET_DIR=$TARGET cargo build --release -p mgmt \
        --bin nc-load --bin mgmt-serve --example hash_password)
fi
if [ ! -x "$NCB/run.sh" ]; then
    log "copying the netconfd baseline to $NCB (the shared directory is read-only)"
    cp -r "$WS/../shared/bench/netconfd-baseline" "$NCB" && chmod -R u+w "$NCB"
fi

MGMT_PID=
cleanup() {
    "$NCB/run.sh" stop >/dev/null 2>&1 || true
    if [ -n "$MGMT_PID" ] && kill -0 "$MGMT_PID" 2>/dev/null; then
        kill -INT "$MGMT_PID"; wait "$MGMT_PID" 2>/dev/null || true
    fi
}
trap cleanup EXIT INT TERM

TSV=$OUT/results.tsv
: > "$TSV"
echo "== $(date -u +%FT%TZ) $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg); nc-load $*" | tee "$OUT/info.txt"
{ dpkg-query -W -f="\${Package} \${Version}; " netconfd openssh-server 2>/dev/null; echo; } | tee -a "$OUT/info.txt"

# ---- netconfd behind sshd
"$NCB/run.sh" start
NETCONFD=$(cat "$NC_BASELINE_DIR/run/netconfd.pid")
SSHD=$(cat "$NC_BASELINE_DIR/run/sshd.pid.run")
"$BIN/nc-load" --host 127.0.0.1 --port 8830 --user nctest --password nctest \
    --server-pid "$NETCONFD" --ssh-pid "$SSHD" --label netconfd --tsv "$TSV" "$@" \
    | tee "$OUT/netconfd.txt" || log "nc-load against netconfd reported failures"
"$NCB/run.sh" stop

# ---- mgmt-serve (release), fresh state directory
STATE=$(mktemp -d /tmp/nc-load-mgmt.XXXXXX)
printf 'bench password %s\n' "$(printf benchpw | "$BIN/examples/hash_password")" > "$STATE/users"
chmod 600 "$STATE/users"
"$BIN/mgmt-serve" "$STATE" "$MGMT_PORT" --module ietf-interfaces --module iana-if-type \
    --admin bench > "$OUT/mgmt-serve.out" 2> "$OUT/mgmt-serve.err" &
MGMT_PID=$!
for _ in $(seq 100); do grep -q listening "$OUT/mgmt-serve.out" && break; sleep 0.1; done
grep -q listening "$OUT/mgmt-serve.out" || { log "mgmt-serve did not start"; cat "$OUT/mgmt-serve.err" >&2; exit 1; }
"$BIN/nc-load" --host 127.0.0.1 --port "$MGMT_PORT" --user bench --password benchpw \
    --server-pid "$MGMT_PID" --label mgmt --tsv "$TSV" "$@" \
    | tee "$OUT/mgmt.txt" || log "nc-load against mgmt-serve reported failures"
kill -INT "$MGMT_PID"; wait "$MGMT_PID" 2>/dev/null || true; MGMT_PID=
rm -rf "$STATE"

# ---- side by side (TSV columns: label key n p50 p99 min max cpu cpu+ssh ops/s cpu% cpu+ssh% errors)
awk -F'\t' '
function r(a, b) { return (a != "" && b != "" && b + 0 > 0) ? sprintf("%.1f", a / b) : "–" }
function v(x, f) { return x == "" ? "–" : sprintf(f, x) }
{ key = $2; if (!(key in seen)) { seen[key] = 1; order[++n] = key }
  for (i = 3; i <= 13; i++) d[$1, key, i] = $i }
END {
  print "| measurement | netconfd p50 / p99 ms | netconfd CPU/op ms (alone / +sshd) | mgmt p50 / p99 ms | mgmt CPU/op ms | netconfd/mgmt p50 | netconfd/mgmt CPU (alone / +sshd) |"
  print "| --- | --- | --- | --- | --- | --- | --- |"
  for (k = 1; k <= n; k++) { key = order[k]; if (key ~ /^throughput/) continue
    printf "| %s | %s / %s | %s / %s | %s / %s | %s | %s | %s / %s |\n", key,
      v(d["netconfd", key, 4], "%.2f"), v(d["netconfd", key, 5], "%.2f"),
      v(d["netconfd", key, 8], "%.2f"), v(d["netconfd", key, 9], "%.2f"),
      v(d["mgmt", key, 4], "%.2f"), v(d["mgmt", key, 5], "%.2f"), v(d["mgmt", key, 8], "%.2f"),
      r(d["netconfd", key, 4], d["mgmt", key, 4]),
      r(d["netconfd", key, 8], d["mgmt", key, 8]), r(d["netconfd", key, 9], d["mgmt", key, 8]) }
  print ""
  print "| K sessions | netconfd ops/s | netconfd p50 / p99 ms | netconfd CPU % (alone / +sshd) | mgmt ops/s | mgmt p50 / p99 ms | mgmt CPU % | netconfd/mgmt ops/s | errors (netconfd / mgmt) |"
  print "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  for (k = 1; k <= n; k++) { key = order[k]; if (key !~ /^throughput/) continue
    split(key, kk, "/")
    printf "| %s | %s | %s / %s | %s / %s | %s | %s / %s | %s | %s | %s / %s |\n", kk[2],
      v(d["netconfd", key, 10], "%.0f"), v(d["netconfd", key, 4], "%.2f"), v(d["netconfd", key, 5], "%.2f"),
      v(d["netconfd", key, 11], "%.0f"), v(d["netconfd", key, 12], "%.0f"),
      v(d["mgmt", key, 10], "%.0f"), v(d["mgmt", key, 4], "%.2f"), v(d["mgmt", key, 5], "%.2f"),
      v(d["mgmt", key, 11], "%.0f"), r(d["netconfd", key, 10], d["mgmt", key, 10]),
      v(d["netconfd", key, 13], "%s"), v(d["mgmt", key, 13], "%s") }
}' "$TSV" | tee "$OUT/table.md"
log "results in $OUT"
