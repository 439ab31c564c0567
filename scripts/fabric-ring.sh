#!/usr/bin/env bash
# Figure 36-7's ring on this host, for an operator to watch a PFC deadlock form, be found from
# the management plane and be broken: three pfcd bridges (b1, b2, b3) in network namespaces,
# joined in a ring by veth pairs (each bridge's `cw` to the next one's `ccw`), a host on each
# (h1, h2, h3, `eth0` to the bridge's `host`), every host's address routed clockwise by static
# filtering entries (a ring without a spanning tree would loop every flooded frame), PFC on
# priority 3 everywhere, the watchdog off and the maximum transit delay at its longest.
# Each bridge's NETCONF server listens on a management link to this namespace, 10.99.N.1:830.
#
#   scripts/fabric-ring.sh up                 build what is needed, make the ring, configure it
#   scripts/fabric-ring.sh traffic [RATE] [DURATION]
#                                             each host sends RATE (default 8Gbps) of priority 3
#                                             to the host two bridges on, for DURATION (3s)
#   scripts/fabric-ring.sh view [ARGS...]     pfc-fabric on the three bridges (ARGS: --watch 1,
#                                             --json, --svg FILE, ...)
#   scripts/fabric-ring.sh watchdog on|off    the PFC watchdog of every port (on: its defaults)
#   scripts/fabric-ring.sh pfcsh N [ARGS...]  pfcsh on bridge bN
#   scripts/fabric-ring.sh down               stop everything and remove the namespaces
#
# Needs root (namespaces). State, logs and the shared users file live in $FABRIC_RING_DIR
# (default /tmp/pfcd-fabric-ring); binaries come from `cargo build` (PROFILE=release for a
# release build; FABRIC_RING_NO_BUILD=1 uses them as they are), in $CARGO_TARGET_DIR or target/.
# FABRIC_RING_PREFIX (default fr) names the namespaces and links, FABRIC_RING_NET (default
# 10.99) the management links' addresses, so that two beds can stand side by side.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR="${FABRIC_RING_DIR:-/tmp/pfcd-fabric-ring}"
PROFILE="${PROFILE:-debug}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}/$PROFILE"
PREFIX="${FABRIC_RING_PREFIX:-fr}"
NET="${FABRIC_RING_NET:-10.99}"

die() { echo "fabric-ring: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"

bridge_ns() { echo "$PREFIX-b$1"; }
host_ns() { echo "$PREFIX-h$1"; }
mac_host() { printf '02:00:00:00:%02x:%02x' "$1" "$1"; }

# pfcsh on bridge N, as a user of this bed: its own home, so the operator's pins stay theirs.
pfcsh_on() {
    local n="$1"; shift
    HOME="$DIR/home" XDG_CONFIG_HOME="$DIR/home/config" XDG_CACHE_HOME="$DIR/home/cache" \
        XDG_DATA_HOME="$DIR/home/data" \
        "$TARGET/pfcsh" --host "$NET.$n.1" --port 830 --user admin \
        --password-file "$DIR/b1/state/admin.password" --accept-new "$@"
}

build() {
    [ -n "${FABRIC_RING_NO_BUILD:-}" ] && return
    local flag=()
    [ "$PROFILE" = release ] && flag=(--release)
    (cd "$ROOT" && cargo build "${flag[@]}" --bin pfcd --bin pfcsh --bin pfc-traffic \
        --bin pfc-fabric)
}

up() {
    ip netns list | grep -q "^$(bridge_ns 1)\b" && die "the ring is up already ('down' first)"
    build
    mkdir -p "$DIR"
    chmod 700 "$DIR"
    for n in 1 2 3; do
        ip netns add "$(bridge_ns "$n")"
        ip netns add "$(host_ns "$n")"
    done
    for n in 1 2 3; do
        local b next h
        b="$(bridge_ns "$n")"; next="$(bridge_ns $(( n % 3 + 1 )))"; h="$(host_ns "$n")"
        ip link add "$PREFIX-cw$n" type veth peer name "$PREFIX-ccw$n"
        ip link set "$PREFIX-cw$n" netns "$b" name cw address "02:00:00:0b:0$n:01"
        ip link set "$PREFIX-ccw$n" netns "$next" name ccw address "02:00:00:0b:0$(( n % 3 + 1 )):02"
        ip link add "$PREFIX-hp$n" type veth peer name "$PREFIX-he$n"
        ip link set "$PREFIX-hp$n" netns "$b" name host address "02:00:00:0b:0$n:03"
        ip link set "$PREFIX-he$n" netns "$h" name eth0 address "$(mac_host "$n")"
        # The management link: 10.99.N.1 in the bridge's namespace, 10.99.N.2 here.
        ip link add "$PREFIX-m$n" type veth peer name "$PREFIX-mb$n"
        ip link set "$PREFIX-mb$n" netns "$b" name mgmt
        ip addr add "$NET.$n.2/30" dev "$PREFIX-m$n"
        ip link set "$PREFIX-m$n" up
        ip -n "$b" addr add "$NET.$n.1/30" dev mgmt
    done
    for n in 1 2 3; do
        for ns in "$(bridge_ns "$n")" "$(host_ns "$n")"; do
            ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
            ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
            ip -n "$ns" link set lo up
        done
        for i in cw ccw host mgmt; do ip -n "$(bridge_ns "$n")" link set "$i" up; done
        ip -n "$(host_ns "$n")" link set eth0 up
    done
    for n in 1 2 3; do
        mkdir -p "$DIR/b$n"
        chmod 700 "$DIR/b$n"
        cat > "$DIR/b$n/pfcd.toml" <<EOF
listen = "$NET.$n.1:830"
state-dir = "$DIR/b$n/state"
users-file = "$DIR/users"
ports = "interfaces"
[interfaces]
names = ["cw", "ccw", "host"]
max-transit-ms = 4000
EOF
        # b1 makes the shared users file (and the administrator's password) on its first
        # start; b2 and b3 use it.
        ip netns exec "$(bridge_ns "$n")" "$TARGET/pfcd" --config "$DIR/b$n/pfcd.toml" \
            > "$DIR/b$n/pfcd.out" 2> "$DIR/b$n/pfcd.log" &
        echo $! > "$DIR/b$n/pfcd.pid"
        for _ in $(seq 1 300); do
            grep -q "pfcd ready" "$DIR/b$n/pfcd.out" 2>/dev/null && break
            sleep 0.1
        done
        grep -q "pfcd ready" "$DIR/b$n/pfcd.out" || die "b$n's pfcd did not start: $DIR/b$n/pfcd.log"
    done
    for n in 1 2 3; do
        local cmds=(-c configure)
        for h in 1 2 3; do
            local port=1
            [ "$h" = "$n" ] && port=3
            cmds+=(-c "set bridges bridge br0 component c0 filtering-database filtering-entry 1 10 $(mac_host "$h" | tr : -) port-map $port static-filtering-entries control-element forward")
        done
        for i in cw ccw host; do
            cmds+=(-c "set interfaces interface $i bridge-port pfc pfc-enable p3")
            cmds+=(-c "set interfaces interface $i bridge-port pfc-watchdog enabled false")
        done
        cmds+=(-c commit -c exit)
        pfcsh_on "$n" "${cmds[@]}" > /dev/null
    done
    echo "fabric-ring: up. Next: $0 view --watch 1   and, in another terminal, $0 traffic"
}

traffic() {
    local rate="${1:-8Gbps}" duration="${2:-3s}" pids=()
    for n in 1 2 3; do
        local to=$(( (n + 1) % 3 + 1 ))
        ip netns exec "$(host_ns "$n")" "$TARGET/pfc-traffic" send -i eth0 \
            --flow "3:$rate:1500" --dst "$(mac_host "$to")" --vid 10 --duration "$duration" \
            > "$DIR/h$n.traffic.txt" &
        pids+=($!)
    done
    wait "${pids[@]}"
    for n in 1 2 3; do
        echo "h$n -> h$(( (n + 1) % 3 + 1 )):"
        sed 's/^/  /' "$DIR/h$n.traffic.txt"
    done
}

view() {
    "$TARGET/pfc-fabric" --device "b1=$NET.1.1:830" --device "b2=$NET.2.1:830" \
        --device "b3=$NET.3.1:830" --user admin --password-file "$DIR/b1/state/admin.password" \
        --known-hosts "$DIR/home/config/pfcsh/known_hosts" --threshold-ms 200 "$@"
}

watchdog() {
    local enabled
    case "${1:-}" in
        on) enabled=true ;;
        off) enabled=false ;;
        *) die "watchdog on|off" ;;
    esac
    for n in 1 2 3; do
        local cmds=(-c configure)
        for i in cw ccw host; do
            cmds+=(-c "set interfaces interface $i bridge-port pfc-watchdog enabled $enabled")
        done
        cmds+=(-c commit -c exit)
        pfcsh_on "$n" "${cmds[@]}" > /dev/null
    done
    echo "fabric-ring: watchdog $1 on every port"
}

down() {
    for n in 1 2 3; do
        [ -f "$DIR/b$n/pfcd.pid" ] && kill "$(cat "$DIR/b$n/pfcd.pid")" 2>/dev/null || true
    done
    sleep 0.5
    for n in 1 2 3; do
        for ns in "$(bridge_ns "$n")" "$(host_ns "$n")"; do
            ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null || true
            ip netns del "$ns" 2>/dev/null || true
        done
        ip link del "$PREFIX-m$n" 2>/dev/null || true
    done
    rm -rf "$DIR"
    echo "fabric-ring: down"
}

case "${1:-}" in
    up) up ;;
    traffic) shift; traffic "$@" ;;
    view) shift; view "$@" ;;
    watchdog) shift; watchdog "$@" ;;
    pfcsh) shift; n="$1"; shift; pfcsh_on "$n" "$@" ;;
    down) down ;;
    *) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
