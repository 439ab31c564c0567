# A PFC sender written apart from pfcd, for scripts/check-pause-from-outside.sh: hand-built
# 802.1Qbb frames on an AF_PACKET socket pause priority 3 for random spells of 0.5-3 ms,
# refreshing every 0.5 ms, then XON; repeats. Usage: pfc_sender.py INTERFACE SECONDS
import socket, struct, sys, time, random
iface, seconds = sys.argv[1], float(sys.argv[2])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((iface, 0))
src = bytes.fromhex(open(f"/sys/class/net/{iface}/address").read().strip().replace(":", ""))
def pfc(quanta):
    times = [0] * 8
    times[3] = quanta
    body = struct.pack("!HH8H", 0x0101, 1 << 3, *times)
    f = bytes.fromhex("0180c2000001") + src + b"\x88\x08" + body
    return f + b"\x00" * (60 - len(f))
end = time.time() + seconds
pauses = 0
while time.time() < end:
    spell = random.uniform(0.0005, 0.003)
    t0 = time.time()
    while time.time() - t0 < spell:
        s.send(pfc(0xffff))
        time.sleep(0.0005)
    s.send(pfc(0))
    pauses += 1
    time.sleep(random.uniform(0.001, 0.004))
print(pauses, "pauses")
