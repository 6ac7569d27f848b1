#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host test of rocx-switch: three sockets pose as three guests.

Usage: test_switch.py SWITCH_BINARY WORK_DIR
Prints one line per check, then "switch: N passed, N failed"; exits 1 on any
failure.
"""
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import fabric  # noqa: E402  (include/rocx/rocx_fabric.h)

ETH_TEST = 0x88B5           # IEEE local experimental ethertype
BCAST = b"\xff" * 6
MCAST = bytes.fromhex("01005e000001")
MAX_FRAME = 9216

passed = 0
failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name} {detail}")


def mac(i):
    return bytes([0x02, 0, 0, 0, 0, 0x10 + i])


class Guest:
    """One end of a switch port, as QEMU's dgram backend would hold it."""

    def __init__(self, sockdir, idx):
        self.idx = idx
        self.mac = mac(idx)
        self.path = f"{sockdir}/g{idx}.sock"
        self.sw = f"{sockdir}/sw{idx}.sock"
        self.open()

    def open(self):
        if os.path.exists(self.path):
            os.unlink(self.path)
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.s.bind(self.path)

    def close(self):
        self.s.close()
        os.unlink(self.path)

    def frame(self, dst, tag, size=64, ethertype=ETH_TEST, src=None):
        hdr = dst + (src or self.mac) + struct.pack("!H", ethertype)
        body = tag.encode()
        return (hdr + body).ljust(size, b"\0")

    def send(self, dst, tag, size=64, **kw):
        f = self.frame(dst, tag, size, **kw)
        self.s.sendto(f, self.sw)
        return f

    def send_raw(self, data):
        self.s.sendto(data, self.sw)

    def recv(self, timeout=0.3):
        """Every frame that arrives until @timeout seconds pass quietly."""
        out = []
        self.s.settimeout(timeout)
        try:
            while True:
                out.append(self.s.recv(fabric.BUNDLE_MAX))
        except socket.timeout:
            pass
        return out


def tags(frames):
    return [f[14:].rstrip(b"\0").decode(errors="replace") for f in frames]


def start_switch(exe, sockdir, args, log):
    pidfile = f"{sockdir}/switch.pid"
    p = subprocess.Popen([exe, "--dir", sockdir, "--pidfile", pidfile] + args,
                         stdout=log, stderr=log)
    deadline = time.time() + 5
    while not os.path.exists(pidfile):
        if time.time() > deadline or p.poll() is not None:
            raise SystemExit("switch did not start")
        time.sleep(0.01)
    return p


def stop_switch(p):
    p.send_signal(signal.SIGTERM)
    try:
        return p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        p.kill()
        return None


def parse_stats(text):
    """Last report's counters: {port: {key: value}}."""
    ports = {}
    for line in text.splitlines():
        if not line.startswith("rocx-switch: port"):
            continue
        words = line.split()
        port = int(words[1][4:])
        kv = dict(w.split("=", 1) for w in words[2:])
        ports[port] = kv
    return ports


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    magic, vmaj, vmin, _, _, snap, link = struct.unpack("<IHHiIII", data[:24])
    recs = []
    off = 24
    while off + 16 <= len(data):
        sec, usec, incl, orig = struct.unpack("<IIII", data[off:off + 16])
        recs.append((sec, usec, data[off + 16:off + 16 + incl], orig))
        off += 16 + incl
    return (magic, vmaj, vmin, snap, link), recs, off == len(data)


# A guest's fabric frames: the format is include/rocx/rocx_fabric.h's.
def fab(ftype, src=mac(9)):
    return fabric.control(ftype, src=src)


def bundle_of(frames, src=mac(9)):
    return fabric.bundle(frames, src=src)


unbundle = fabric.unbundle


def bundles(exe, sockdir, work, log):
    """Fabric bundles: HELLO answered, bundles split at ingress and built
    at egress for ports that asked, plain frames for the others."""
    pcap = f"{work}/bundle.pcap"
    log.seek(0)
    log.truncate()
    sw = start_switch(exe, sockdir, ["--ports", "3", "--pcap", pcap], log)
    a, b, c = (Guest(sockdir, i) for i in range(3))
    for g in (a, b, c):
        g.send(BCAST, f"hi-{g.idx}")
    for g in (a, b, c):
        g.recv()

    a.send_raw(fab(fabric.HELLO))
    got = a.recv()
    check("bundles: HELLO answered by HELLO_ACK",
          len(got) == 1 and
          got[0] == fabric.control(fabric.HELLO_ACK, src=fabric.SWITCH_MAC),
          [x[:fabric.HLEN].hex() for x in got])
    b.send_raw(fab(fabric.HELLO))
    b.recv()

    # B's bundle of five: A (asked) gets them in one bundle, C one by one.
    five = [b.frame(BCAST, f"b{i}", 64 + i) for i in range(5)]
    b.send_raw(bundle_of(five))
    got_a, got_c = a.recv(), c.recv()
    check("bundles: split at ingress, one bundle to a port that asked",
          len(got_a) == 1 and unbundle(got_a[0]) == five,
          [len(x) for x in got_a])
    check("bundles: plain frames to a port that did not ask", got_c == five)
    check("bundles: nothing back to the sender", b.recv() == [])

    # One frame alone goes plain even to a port that takes bundles.
    c.send(a.mac, "single")
    check("bundles: a lone frame is not bundled",
          tags(a.recv()) == ["single"])

    # Damage: the frames before it are forwarded, the rest dropped.
    bad = fabric.header(fabric.BUNDLE, 3, src=mac(9)) + \
        fabric.entries(five[:2])
    b.send_raw(bad)
    got_a = a.recv()
    check("bundles: a short bundle forwards what it holds",
          c.recv() == five[:2] and len(got_a) == 1 and
          unbundle(got_a[0]) == five[:2])
    b.send_raw(fab(fabric.HELLO_ACK))
    b.send_raw(fab(7))
    check("bundles: a guest's HELLO_ACK or unknown type goes nowhere",
          a.recv() == [] and c.recv() == [])

    # A restarted guest has not asked yet: plain frames until it does.
    a.close()
    a.open()
    time.sleep(1.5)
    a.send(BCAST, "a-back")
    b.recv()
    c.recv()
    b.send_raw(bundle_of(five[:3]))
    check("bundles: a restarted guest gets plain frames",
          a.recv() == five[:3])

    sw.send_signal(signal.SIGUSR1)
    time.sleep(0.3)
    stop_switch(sw)
    log.seek(0)
    st = parse_stats(log.read())
    p0, p1 = st.get(0, {}), st.get(1, {})
    check("bundles: counters", p1.get("rx_bundles") == "3" and
          p0.get("tx_bundles") == "2" and p1.get("rx_fab_err") == "3",
          f"{p1.get('rx_bundles')} {p0.get('tx_bundles')} "
          f"{p1.get('rx_fab_err')}")
    _, recs, whole = read_pcap(pcap)
    check("bundles: the capture holds frames, never bundles",
          whole and not any(r[2][:6] == fabric.DST for r in recs) and
          sum(1 for r in recs if r[2] in five) == 5 + 2 + 3)
    for g in (a, b, c):
        g.close()


def main():
    exe, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    sockdir = f"{work}/s"
    os.makedirs(sockdir)
    pcap = f"{work}/sw.pcap"
    log = open(f"{work}/switch.log", "w+")

    sw = start_switch(exe, sockdir, ["--ports", "3", "--pcap", pcap], log)
    check("switch binds sw0..sw2",
          all(os.path.exists(f"{sockdir}/sw{i}.sock") for i in range(3)))
    a, b, c = (Guest(sockdir, i) for i in range(3))
    forwarded = 0

    # Unknown unicast, broadcast and multicast reach every port but ingress.
    a.send(b.mac, "unknown-ab")
    a.send(BCAST, "bcast-a")
    a.send(MCAST, "mcast-a")
    forwarded += 3
    want = ["unknown-ab", "bcast-a", "mcast-a"]
    check("flood unknown/bcast/mcast to B", tags(b.recv()) == want)
    check("flood unknown/bcast/mcast to C", tags(c.recv()) == want)
    check("no reflection to ingress A", a.recv() == [])

    # Learning: A was learned above; B -> A is now known unicast.
    b.send(a.mac, "ba")
    forwarded += 1
    check("learned: B->A reaches A", tags(a.recv()) == ["ba"])
    check("learned: B->A not flooded to C", c.recv() == [])
    a.send(b.mac, "ab")
    forwarded += 1
    check("learned: A->B reaches B only",
          tags(b.recv()) == ["ab"] and c.recv() == [] and a.recv() == [])

    # A frame for a MAC behind its own ingress port is filtered, not sent back.
    a.send(a.mac, "self", src=mac(7))
    check("frame to a MAC on the ingress port goes nowhere",
          a.recv() == [] and b.recv() == [] and c.recv() == [])
    # The spoofed source 02:..:17 now lives on port 0; B's frame to it goes
    # to A alone.
    b.send(mac(7), "to-moved")
    forwarded += 1
    check("station learned from any source", tags(a.recv()) == ["to-moved"]
          and c.recv() == [])

    # Malformed and oversize frames are dropped and counted.
    a.send_raw(b"\x01" * 13)
    a.send_raw(b"")
    big = a.frame(b.mac, "jumbo", MAX_FRAME)
    a.send_raw(big)
    forwarded += 1
    a.send_raw(a.frame(b.mac, "toobig", MAX_FRAME + 1))
    got = b.recv()
    check("jumbo 9216-byte frame forwarded intact",
          len(got) == 1 and got[0] == big, f"got {[len(x) for x in got]}")
    check("runt and oversize frames dropped", c.recv() == [])

    # A burst larger than a unix socket's datagram queue (10) waits in the
    # switch's egress queue instead of being lost.
    for i in range(200):
        a.send(b.mac, f"burst{i}")
    forwarded += 200
    got = tags(b.recv(0.5))
    check("200-frame burst delivered in order",
          got == [f"burst{i}" for i in range(200)], f"got {len(got)}")

    # VLAN PCP 5 picks traffic class 5; DSCP 26 (RoCE) picks class 3.
    vlan = b.mac + a.mac + struct.pack("!HHH", 0x8100, (5 << 13) | 42,
                                       ETH_TEST) + b"vlan5"
    a.send_raw(vlan.ljust(64, b"\0"))
    ip = bytes([0x45, 26 << 2]) + bytes(18)
    a.send_raw((b.mac + a.mac + b"\x08\x00" + ip).ljust(64, b"\0"))
    forwarded += 2
    got = b.recv()
    # The VLAN frame was learned on VLAN 42 where B is unknown: flooded.
    check("tagged and DSCP frames forwarded", len(got) == 2 and
          len(c.recv()) == 1)

    # Guest C goes away: traffic to it is dropped, the switch keeps going.
    c.close()
    a.send(BCAST, "c-gone")
    forwarded += 1
    check("absent guest does not block others", tags(b.recv()) == ["c-gone"])
    # C comes back on the same path (a restarted QEMU).
    c.open()
    time.sleep(1.5)
    c.send(a.mac, "c-back")
    forwarded += 1
    check("restarted guest's frames forwarded", tags(a.recv()) == ["c-back"])
    a.send(c.mac, "to-c")
    forwarded += 1
    check("restarted guest receives", tags(c.recv()) == ["to-c"])

    sw.send_signal(signal.SIGUSR1)
    time.sleep(0.3)
    log.seek(0)
    check("SIGUSR1 prints counters", "port2 state=" in log.read())

    rc = stop_switch(sw)
    check("SIGTERM exits 0", rc == 0, f"rc={rc}")
    check("sockets and pidfile removed on exit",
          not any(os.path.exists(f"{sockdir}/{n}") for n in
                  ("sw0.sock", "sw1.sock", "sw2.sock", "switch.pid")))
    log.seek(0)
    st = parse_stats(log.read())
    p0, p1, p2 = st.get(0, {}), st.get(1, {}), st.get(2, {})
    check("counters: runts", p0.get("rx_runt") == "2", p0.get("rx_runt"))
    check("counters: oversize", p0.get("rx_oversize") == "1")
    check("counters: filtered", p0.get("rx_filtered") == "1")
    check("counters: C's absence counted", int(p2.get("tx_nopeer", 0)) >= 1)
    check("counters: no queue drops", p1.get("tx_qfull") == "0")
    check("counters: burst waited for the guest's socket",
          int(p1.get("tx_blocked", 0)) >= 1, p1.get("tx_blocked"))
    tc = [int(x) for x in p1.get("tx_tc", "0").split(",")]
    check("counters: classes 5 and 3 used", tc[5] == 1 and tc[3] == 1,
          p1.get("tx_tc"))
    check("counters: B rx bytes", p1.get("rx_bytes") == str(64 * 2))

    hdr, recs, whole = read_pcap(pcap)
    check("pcap header", hdr == (0xA1B2C3D4, 2, 4, MAX_FRAME, 1), hdr)
    check("pcap records = forwarded frames", len(recs) == forwarded and whole,
          f"{len(recs)} != {forwarded}")
    check("pcap holds the jumbo frame", any(r[2] == big for r in recs))
    if shutil.which("tshark"):
        out = subprocess.run(["tshark", "-r", pcap, "-T", "fields",
                              "-e", "frame.len"], capture_output=True,
                             text=True, timeout=60)
        lens = out.stdout.split()
        check("tshark reads the pcap", out.returncode == 0 and
              len(lens) == forwarded and "9216" in lens,
              out.stderr.strip()[-200:])
    else:
        print("skip tshark not installed")

    # Ageing: with --age 1 a learned MAC is forgotten and flooded again.
    for g in (a, b, c):
        g.close()
    sw = start_switch(exe, sockdir, ["--ports", "3", "--age", "1"], log)
    a, b, c = (Guest(sockdir, i) for i in range(3))
    b.send(BCAST, "hello-b")
    a.recv()
    c.recv()
    a.send(b.mac, "fresh")
    fresh = c.recv() == []
    time.sleep(1.3)
    a.send(b.mac, "aged")
    check("ageing: known then forgotten",
          fresh and tags(c.recv()) == ["aged"])
    stop_switch(sw)

    # A switch started before any guest: floods to absent ports never block.
    for g in (a, b, c):
        g.close()
    log.seek(0)
    log.truncate()
    sw = start_switch(exe, sockdir, ["--ports", "3", "--queue-limit", "4"],
                      log)
    a = Guest(sockdir, 0)
    t = time.time()
    for i in range(1000):
        a.send(BCAST, f"nobody{i}")
    a.send(BCAST, "x")
    alive = sw.poll() is None
    check("no guests: 1000 floods do not block",
          alive and time.time() - t < 5)

    # A guest that does not read: its socket fills, then the switch's queue
    # (4 frames here), then the switch drops at the tail and counts.  A
    # fresh switch, so that none of the floods above, still in flight when
    # port 1's guest appears, lands in its queue and skews the count.
    stop_switch(sw)
    a.close()
    log.seek(0)
    log.truncate()
    sw = start_switch(exe, sockdir, ["--ports", "3", "--queue-limit", "4"],
                      log)
    a = Guest(sockdir, 0)
    b = Guest(sockdir, 1)
    b.send(BCAST, "hello-b")
    a.recv()
    for i in range(50):
        a.send(b.mac, f"stall{i}")
    time.sleep(0.2)
    got = tags(b.recv())
    stop_switch(sw)
    log.seek(0)
    p1 = parse_stats(log.read()).get(1, {})
    qfull = int(p1.get("tx_qfull", 0))
    check("stalled guest: tail drops counted",
          qfull > 0 and len(got) + qfull == 50 and
          got == [f"stall{i}" for i in range(len(got))],
          f"got {len(got)} qfull {qfull}")
    a.close()
    b.close()

    bundles(exe, sockdir, work, log)

    print(f"switch: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
