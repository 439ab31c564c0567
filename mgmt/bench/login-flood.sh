#!/bin/bash
# Login time of an authorised user with the server not flooded, flooded by idle connections,
# and flooded by password guessers (BENCHMARKS.md, NETCONF server).
#
#   cargo build --release -p mgmt -p netconf-load --bin mgmt-serve --bin login-flood --example hash_password
#   mgmt/bench/login-flood.sh [BIN_DIR] [LOGIN_FLOOD_ARGS...]
#
# BIN_DIR defaults to the workspace's target/release (CARGO_TARGET_DIR honoured). The server
# is a fresh mgmt-serve with the test modules' ietf-interfaces, its defaults for every limit,
# and --login-cache 0, so that every login pays its Argon2id check (default cost) like a
# guess does; SERVE_ARGS (environment) adds to its options.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:-${CARGO_TARGET_DIR:-$ROOT/target}/release}
shift || true
STATE=$(mktemp -d)
trap 'rm -rf "$STATE"' EXIT
printf 'bench password %s\n' "$(printf benchpw | "$BIN/examples/hash_password")" >"$STATE/users"
chmod 600 "$STATE/users"
# shellcheck disable=SC2086 # SERVE_ARGS is a list of words
"$BIN/mgmt-serve" "$STATE" 0 --login-cache 0 ${SERVE_ARGS:-} --module ietf-interfaces \
    --module iana-if-type >"$STATE/out" 2>"$STATE/err" &
PID=$!
for _ in $(seq 100); do grep -q listening "$STATE/out" && break; sleep 0.1; done
PORT=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$STATE/out")
"$BIN/login-flood" --port "$PORT" --user bench --password benchpw "$@"
kill -INT $PID
wait $PID || true
