#!/usr/bin/python3
"""Builds frames with scapy, an independent Ethernet/LLDP implementation, and prints one JSON
object per line: {"kind": ..., "hex": <frame bytes>, "expect": {<the values scapy was given>}}.

The Rust test tests/scapy_frames_parse.rs parses each frame with pfcd's codecs and compares.
Usage: scapy_frames.py [--count N] [--seed S]
"""
import argparse
import json
import random
import struct
import sys

from scapy.all import Ether, Dot1Q, Raw, conf, load_contrib  # noqa: E402

conf.verb = 0
load_contrib("mac_control")
load_contrib("lldp")
from scapy.contrib import mac_control as mc  # noqa: E402
from scapy.contrib import lldp  # noqa: E402

MAC_CONTROL = "01:80:c2:00:00:01"
NEAREST_BRIDGE = "01:80:c2:00:00:0e"


def rand_mac(rng, individual=True):
    octets = [rng.randrange(256) for _ in range(6)]
    if individual:
        octets[0] &= 0xFE
    return ":".join(f"{o:02x}" for o in octets)


def pfc(rng):
    src = rand_mac(rng)
    enable = rng.randrange(256)
    times = [rng.choice([0, 1, 0xFFFF, rng.randrange(65536)]) for _ in range(8)]
    fields = {f"c{n}_enabled": (enable >> n) & 1 for n in range(8)}
    fields.update({f"c{n}_pause_time": times[n] for n in range(8)})
    frame = Ether(src=src, dst=MAC_CONTROL) / mc.MACControlClassBasedFlowControl(**fields)
    return frame, {"src": src, "enable": enable, "time": times}


def pause(rng):
    src = rand_mac(rng)
    t = rng.randrange(65536)
    frame = Ether(src=src, dst=MAC_CONTROL) / mc.MACControlPause(pause_time=t)
    return frame, {"src": src, "pause_time": t}


def tagged(rng):
    src, dst = rand_mac(rng), rand_mac(rng, individual=False)
    pcp, dei, vid = rng.randrange(8), rng.randrange(2), rng.randrange(4096)
    ethertype = rng.choice([0x0800, 0x86DD, 0x88CC, 0x1234])
    frame = Ether(src=src, dst=dst) / Dot1Q(prio=pcp, id=dei, vlan=vid, type=ethertype) / Raw(b"\x00" * 46)
    return frame, {"src": src, "dst": dst, "pcp": pcp, "dei": dei, "vid": vid, "ethertype": ethertype}


def hmpdu(rng):
    # scapy has no HMPDU layer: the Ethernet header is scapy's, the body is packed here from the
    # layout of P802.1Qdt 36.9.2 (see SPEC.md 2.3), independently of pfcd's emitter.
    src = rand_mac(rng)
    version = rng.randrange(16)
    path = rng.randrange(4)
    uses = [rng.choice([1, 2, 3]), rng.choice([0, 1, 2, 3])]
    tuples = []
    body = b""
    for use in uses:
        ts, req, resp = rng.randrange(2**32), rng.randrange(-32768, 32768), rng.randrange(-32768, 32768)
        if use in (0, 1):
            resp = 0
        if use == 0:
            ts, req = 0, 0
        body += struct.pack(">Ihh", ts, req, resp)
        tuples.append({"use": use, "timestamp": ts, "request_adjustment": req, "response_adjustment": resp})
    fmt = (uses[0] << 6) | (uses[1] << 4) | (path << 2)
    frame = Ether(src=src, dst=MAC_CONTROL, type=0x89A2) / Raw(bytes([(version << 4) | 1, fmt]) + body)
    return frame, {"src": src, "version": version, "path": path, "tuples": tuples}


def lldpdu(rng):
    src = rand_mac(rng)
    chassis_mac = rand_mac(rng)
    port_name = "eth%d" % rng.randrange(100)
    ttl = rng.randrange(65536)
    sysname = "sw-%d" % rng.randrange(10000)
    willing, mbc, cap = rng.randrange(2), rng.randrange(2), rng.randrange(9)
    macsec_cap, privacy_cap = rng.randrange(2), rng.randrange(2)
    rtm, ptp = rng.randrange(2), rng.randrange(2)
    enable = rng.randrange(256)
    legacy = rng.randrange(2) == 1
    octet_a = (willing << 7) | (mbc << 6) | cap
    if not legacy:
        octet_a |= (macsec_cap << 5) | (privacy_cap << 4)
    pfc_info = bytes([octet_a, enable]) + (b"" if legacy else bytes([(rtm << 7) | (ptp << 6)]))
    ets_willing, ets_cbs, maxtcs = rng.randrange(2), rng.randrange(2), rng.randrange(8)
    prio_tc = [rng.randrange(8) for _ in range(8)]
    tcbw = [rng.randrange(101) for _ in range(8)]
    tsa = [rng.choice([0, 1, 2, 255]) for _ in range(8)]
    pat = bytes((prio_tc[2 * i] << 4) | prio_tc[2 * i + 1] for i in range(4))
    ets_info = bytes([(ets_willing << 7) | (ets_cbs << 6) | maxtcs]) + pat + bytes(tcbw) + bytes(tsa)
    apps = [(rng.randrange(8), rng.choice([1, 2, 3, 4]), rng.randrange(65536)) for _ in range(rng.randrange(1, 4))]
    app_info = b"\x00" + b"".join(bytes([(p << 5) | s]) + struct.pack(">H", pid) for p, s, pid in apps)
    delay = rng.randrange(-(2**40), 2**40)
    delay_info = struct.pack(">q", delay)

    def org(subtype, info):
        return lldp.LLDPDUGenericOrganisationSpecific(org_code=0x0080C2, subtype=subtype, data=info)

    frame = (
        Ether(src=src, dst=NEAREST_BRIDGE)
        / lldp.LLDPDUChassisID(subtype=4, id=chassis_mac)
        / lldp.LLDPDUPortID(subtype=5, id=port_name)
        / lldp.LLDPDUTimeToLive(ttl=ttl)
        / lldp.LLDPDUSystemName(system_name=sysname)
        / org(0x09, ets_info)
        / org(0x0B, pfc_info)
        / org(0x0C, app_info)
        / org(0x17, delay_info)
        / lldp.LLDPDUEndOfLLDPDU()
    )
    expect = {
        "src": src, "chassis_mac": chassis_mac, "port_name": port_name, "ttl": ttl,
        "system_name": sysname,
        "ets": {"willing": ets_willing, "cbs": ets_cbs, "max_tcs": maxtcs, "prio_tc": prio_tc,
                "tc_bandwidth": tcbw, "tsa": tsa},
        "pfc": {"willing": willing, "mbc": mbc, "cap": cap, "enable": enable, "legacy": legacy,
                "macsec_cap": 0 if legacy else macsec_cap, "privacy_cap": 0 if legacy else privacy_cap,
                "rtm": 0 if legacy else rtm, "ptp": 0 if legacy else ptp},
        "app": [{"priority": p, "selector": s, "protocol": pid} for p, s, pid in apps],
        "local_delay": delay,
    }
    return frame, expect


KINDS = {"pfc": pfc, "pause": pause, "tagged": tagged, "hmpdu": hmpdu, "lldpdu": lldpdu}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--count", type=int, default=100, help="frames of each kind")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    for _ in range(args.count):
        for kind, build in KINDS.items():
            frame, expect = build(rng)
            raw = bytes(frame)
            if len(raw) < 60:
                raw += b"\x00" * (60 - len(raw))
            print(json.dumps({"kind": kind, "hex": raw.hex(), "expect": expect}))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
