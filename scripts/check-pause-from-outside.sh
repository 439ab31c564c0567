#!/usr/bin/env bash
# BRIDGE_ARGS adds options to pfc-bridge's command line (e.g. --tx-ring).
# The pause reaction checked from outside (as root): pfc-bridge between h1 and h2; h1 sends
# priorities 3 and 0 (pfc-traffic); on h2 a PFC sender written apart from the project
# (scripts/pfc_sender.py: hand-built frames, random pauses) pauses priority 3; tshark on h2's
# eth0 records everything, and per pause the last priority-3 frame after the XOFF is found
# (a pause ends at XON or when its time runs out). Creates its namespaces and removes them.
# Usage: sudo scripts/check-pause-from-outside.sh
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
cargo build --release --quiet --bin pfc-bridge --bin pfc-traffic
bin="$target/release"
tag=oc$$
out=$(mktemp -d)
cleanup() {
    kill ${bridge:-} ${cap:-} 2>/dev/null || true
    for n in h1 sw h2; do ip netns del $tag$n 2>/dev/null || true; done
    rm -rf "$out"
}
trap cleanup EXIT
for n in h1 sw h2; do ip netns add $tag$n; done
ip -n ${tag}h1 link add eth0 type veth peer name p1 netns ${tag}sw
ip -n ${tag}sw link add p2 type veth peer name eth0 netns ${tag}h2
ip -n ${tag}h2 link set eth0 address 02:00:00:00:02:02
for x in "h1 eth0" "sw p1" "sw p2" "h2 eth0"; do set -- $x; ip -n $tag$1 link set $2 up; done
ip netns exec ${tag}sw $bin/pfc-bridge --port p1,pfc=3,headroom=4000000,watchdog=off --port p2,pfc=3,headroom=4000000,watchdog=off --state $out/b.json ${BRIDGE_ARGS:-} 2>$out/b.log &
bridge=$!
ip netns exec ${tag}h2 tshark -i eth0 -w $out/h2.pcap -F pcap 2>$out/cap.log &
cap=$!
sleep 1.5
ip netns exec ${tag}h2 python3 scripts/pfc_sender.py eth0 3.5 > $out/pfc.txt &
sleep 0.2
ip netns exec ${tag}h1 $bin/pfc-traffic send -i eth0 --flow 3:50Mbps:1000 --flow 0:20Mbps:1000 --duration 3s --json > $out/s.json
sleep 0.6
kill -INT $cap; wait $cap 2>/dev/null || true
cat $out/pfc.txt
tshark -r $out/h2.pcap -T fields -e frame.time_epoch -e eth.src -e eth.type -e vlan.etype -e vlan.priority -e macc.cbfc.pause_time.c3 -E separator=, > $out/f.csv
python3 - $out/f.csv $out/b.json <<'PY'
import sys, json
rows=[l.rstrip("\n").split(",") for l in open(sys.argv[1])]
pauses=[]; cur=None; last3=None; n3_during=0; n0_during=0; n0=0; until=0.0
QUANTA=65535*512/10e9  # pause time asked at the bridge's 10 Gb/s
for t,src,et,vet,prio,c3 in rows:
    t=float(t)
    if src=="02:00:00:00:02:02" and (et=="0x8808"):
        q=int(c3,0) if c3 else 0
        if q>0:
            if cur is None or t>=until:
                if cur is not None: pauses.append((cur,until,last3))
                cur=t; last3=None
            until=t+QUANTA
        elif cur is not None:
            pauses.append((cur,min(t,until),last3)); cur=None
        continue
    if cur is not None and t>=until:
        pauses.append((cur,until,last3)); cur=None
    if et=="0x8100" and prio:
        p=int(prio)
        if cur is not None:
            if p==3: last3=t; n3_during+=1
            else: n0_during+=1
        if p==0: n0+=1
lat=sorted(((l-s)*1e6 if l else 0.0) for s,e,l in pauses)
late=[x for x in lat if x>0]
pct=lambda q: lat[min(len(lat)-1,round((len(lat)-1)*q))] if lat else 0
print(f"tshark on h2: {len(pauses)} pauses; priority-3 frames after an XOFF in {len(late)} of them; "
      f"XOFF to the last such frame p50 {pct(.5):.1f} us, p99 {pct(.99):.1f} us, worst {pct(1):.1f} us")
print(f"frames received during pauses: priority 3 {n3_during}, priority 0 {n0_during} (priority 0 in all: {n0})")
b=json.load(open(sys.argv[2]))
p2=[p for p in b['ports'] if p['name']=='p2'][0]
print(f"bridge p2: {p2['reaction_samples']} pauses, late after indication {p2['indication_late_pauses']}, after arrival {p2['reaction_late_pauses']} (p99 {p2['reaction_p99_us']:.2f} us); pfc_indications {p2['pfc_indications']}")
PY
