#!/bin/bash
# nc-load against yuma123 netconfd (behind a private OpenSSH sshd, the shared baseline's
# run.sh) and against mgmt-serve, one after the other in one invocation, then a side-by-side
# Markdown table (the one in BENCHMARKS.md, NETCONF server).
#
#   mgmt/bench/nc-load-both.sh [nc-load options]     e.g. --quick, --only bc, --reps 10
#
# Needs root (run.sh creates user nctest and starts sshd on 127.0.0.1:8830) and the Debian
# packages run.sh installs (netconfd, openssh-server). Environment:
#   CARGO_TARGET_DIR  where the release binaries are (built if missing)   [<workspace>/target]
#   NCB               a writable copy of bench/netconfd-baseline   [/tmp/ncb]
#   NC_BASELINE_DIR   run.sh's state (keys, logs)                          [/tmp/ncb-state]
#   MGMT_PORT         mgmt-serve's port                                    [18830]
#   OUT               results directory                                    [/tmp/nc-load-<time>]
#   ROUNDS            rounds, alternating the two servers                  [1]
#
# With ROUNDS > 1 both servers run throughout, and each round runs the workload against
# netconfd, then against mgmt-serve: a slow spell of the machine (this VM has spells in which
# everything runs at two thirds of its speed for minutes) then falls on both, not on one. The
# table gives, for each figure, the median over the rounds (rounds-*.tsv keep each round), and
# the CPU ratio of each round is listed under it.
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
    (cd "$WS" && CARGO_TARGET_DIR=$TARGET cargo build --release -p mgmt -p netconf-load \
        --bin nc-load --bin mgmt-serve --example hash_password)
fi
if [ ! -x "$NCB/run.sh" ]; then
    log "copying the netconfd baseline to $NCB (the shared directory is read-only)"
    cp -r "$WS/bench/netconfd-baseline" "$NCB" && chmod -R u+w "$NCB"
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
ROUNDS=${ROUNDS:-1}
: > "$TSV"
echo "== $(date -u +%FT%TZ) $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg); nc-load $*; rounds $ROUNDS" | tee "$OUT/info.txt"
{ dpkg-query -W -f="\${Package} \${Version}; " netconfd openssh-server 2>/dev/null; echo; } | tee -a "$OUT/info.txt"

# ---- both servers: netconfd behind sshd, mgmt-serve (release) in a fresh state directory
"$NCB/run.sh" start
NETCONFD=$(cat "$NC_BASELINE_DIR/run/netconfd.pid")
SSHD=$(cat "$NC_BASELINE_DIR/run/sshd.pid.run")
STATE=$(mktemp -d /tmp/nc-load-mgmt.XXXXXX)
printf 'bench password %s\n' "$(printf benchpw | "$BIN/examples/hash_password")" > "$STATE/users"
chmod 600 "$STATE/users"
"$BIN/mgmt-serve" "$STATE" "$MGMT_PORT" --module ietf-interfaces --module iana-if-type \
    --admin bench > "$OUT/mgmt-serve.out" 2> "$OUT/mgmt-serve.err" &
MGMT_PID=$!
for _ in $(seq 100); do grep -q listening "$OUT/mgmt-serve.out" && break; sleep 0.1; done
grep -q listening "$OUT/mgmt-serve.out" || { log "mgmt-serve did not start"; cat "$OUT/mgmt-serve.err" >&2; exit 1; }

for round in $(seq "$ROUNDS"); do
    RT=$OUT/rounds-$round.tsv
    : > "$RT"
    [ "$ROUNDS" -gt 1 ] && log "round $round of $ROUNDS"
    "$BIN/nc-load" --host 127.0.0.1 --port 8830 --user nctest --password nctest \
        --server-pid "$NETCONFD" --ssh-pid "$SSHD" --label netconfd --tsv "$RT" "$@" \
        | tee -a "$OUT/netconfd.txt" || log "nc-load against netconfd reported failures"
    "$BIN/nc-load" --host 127.0.0.1 --port "$MGMT_PORT" --user bench --password benchpw \
        --server-pid "$MGMT_PID" --label mgmt --tsv "$RT" "$@" \
        | tee -a "$OUT/mgmt.txt" || log "nc-load against mgmt-serve reported failures"
done
"$NCB/run.sh" stop
kill -INT "$MGMT_PID"; wait "$MGMT_PID" 2>/dev/null || true; MGMT_PID=
rm -rf "$STATE"

# ---- one row per server and measurement: the median of each column over the rounds (a single
# round is copied as it is), and the CPU ratio of every round
python3 - "$OUT" "$ROUNDS" "$TSV" <<'PY'
import statistics, sys
out, rounds, tsv = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = {}   # (label, key) -> list of rows (lists of columns)
order = []
for r in range(1, rounds + 1):
    for line in open(f"{out}/rounds-{r}.tsv"):
        cols = line.rstrip("\n").split("\t")
        if len(cols) < 13:
            continue
        k = (cols[0], cols[1])
        if k not in rows:
            rows[k] = []
            order.append(k)
        rows[k].append(cols)
def med(values):
    nums = [float(v) for v in values if v != ""]
    return "" if not nums else f"{statistics.median(nums):.3f}"
with open(tsv, "w") as f:
    for k in order:
        rs = rows[k]
        cols = [k[0], k[1], rs[0][2]] + [med([r[i] for r in rs]) for i in range(3, 12)]
        cols.append(str(sum(int(r[12] or 0) for r in rs)))
        f.write("\t".join(cols) + "\n")
if rounds > 1:
    with open(f"{out}/round-ratios.txt", "w") as f:
        for label, key in order:
            if label != "mgmt" or ("netconfd", key) not in rows:
                continue
            pairs = zip(rows[("netconfd", key)], rows[("mgmt", key)])
            ratios = [f"{float(n[7]) / float(m[7]):.1f}" for n, m in pairs
                      if n[7] and m[7] and float(m[7]) > 0]
            if ratios:
                f.write(f"{key}: netconfd/mgmt CPU per round (alone): {' '.join(ratios)}\n")
PY

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
[ -f "$OUT/round-ratios.txt" ] && tee -a "$OUT/table.md" < "$OUT/round-ratios.txt"
log "results in $OUT"
