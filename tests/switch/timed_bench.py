#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What synchronisation through a timed rocx-switch costs on this host.

Usage: timed_bench.py SWITCH_BINARY [SECONDS]

Two channel peers on a 2-port timed switch play NICs that run exactly to
their horizon and promise it: each waits for the switch's promise p,
sends what it has stamped before p + L, then SYNC p + L.  The switch
promises each the other's promise + L + a 14-byte serialisation, so on
an idle link a round moves the clock about 4 L.  Prints, for an idle link (SYNC only) and for a
busy one (both peers sending 1024-byte frames to each other at the
ports' 25 Gb/s), the rounds, the wall time per round, the switch's own
CPU time per round (from /proc) and the virtual ns reached per wall
second.  The Python peers' share of a round is most of it, so the idle
link is measured again with two peers in C (timed_peer.c).
"""
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chanpeer  # noqa: E402
import fabric  # noqa: E402

L = 1000
RATE = 25000
FRAME = 1024


def ser_ns(nbytes, mbps):
    rate = int(mbps * 1e6)
    return ((nbytes + 20) * 8 * 10**9 + rate - 1) // rate


def cpu_ns(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) * 10**9 // tick


def one(exe, busy, seconds):
    d = tempfile.mkdtemp(prefix="rocx-tb.")
    log = open(f"{d}/log", "w")
    sw = subprocess.Popen([exe, "--dir", d, "--ports", "2", "--timed",
                           "--latency", str(L), "--rate", str(RATE),
                           "--pidfile", f"{d}/pid"], stdout=log, stderr=log)
    while not os.path.exists(f"{d}/pid"):
        time.sleep(0.01)
    peers = [chanpeer.Chan(d, i) for i in range(2)]
    for p in peers:
        p.hello(0)
    sel = selectors.DefaultSelector()
    nxt = {}
    for p in peers:
        sel.register(p.s, selectors.EVENT_READ, p)
        nxt[p] = 0
    gap = ser_ns(FRAME, RATE)
    rounds = frames = 0
    cpu0 = cpu_ns(sw.pid)
    t0 = time.perf_counter()
    end = t0 + seconds
    # The switch promised L to each at once (both joined at 0).
    while time.perf_counter() < end:
        for key, _ in sel.select(timeout=5):
            p = key.data
            d_ = p.recv_raw(0)
            if d_ is None:
                continue
            if p.take(d_) != fabric.SYNC:
                frames = sum(len(q.frames) for q in peers)
                continue
            h = p.promise + L
            if busy:
                out = []
                other = peers[1 - peers.index(p)]
                while nxt[p] < h:
                    out.append((nxt[p], chanpeer_frame(p, other)))
                    nxt[p] += gap
                for i in range(0, len(out), 50):
                    p.bundle(out[i:i + 50])
            p.sync(h)
            if p is peers[0]:
                rounds += 1
    wall = time.perf_counter() - t0
    cpu = cpu_ns(sw.pid) - cpu0
    virt = peers[0].promise
    frames = sum(len(q.frames) for q in peers)
    for p in peers:
        p.close()
    sw.send_signal(signal.SIGTERM)
    sw.wait()
    log.close()
    shutil.rmtree(d)
    return rounds, wall, cpu, virt, frames


def chanpeer_frame(src, dst):
    return (dst.mac + src.mac + b"\x88\xb5").ljust(FRAME, b"\0")


def c_peers(exe, seconds):
    here = os.path.dirname(os.path.abspath(__file__))
    d = tempfile.mkdtemp(prefix="rocx-tb.")
    peer = f"{d}/timed_peer"
    subprocess.run(["cc", "-O2", "-Wall", "-Werror", "-I",
                    os.path.join(here, "..", "..", "include"), "-o", peer,
                    os.path.join(here, "timed_peer.c")], check=True)
    log = open(f"{d}/log", "w")
    sw = subprocess.Popen([exe, "--dir", d, "--ports", "2", "--timed",
                           "--latency", str(L), "--pidfile", f"{d}/pid"],
                          stdout=log, stderr=log)
    while not os.path.exists(f"{d}/pid"):
        time.sleep(0.01)
    cpu0 = cpu_ns(sw.pid)
    out = subprocess.run([peer, d, str(L), str(seconds)], check=True,
                         capture_output=True, text=True).stdout.split()
    cpu = cpu_ns(sw.pid) - cpu0
    sw.send_signal(signal.SIGTERM)
    sw.wait()
    log.close()
    shutil.rmtree(d)
    rounds, wall, virt = int(out[1]), float(out[3]), int(out[5])
    return rounds, wall, cpu, virt, 0


def main():
    exe = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 5
    rounds, wall, cpu, virt, _ = c_peers(exe, seconds)
    print(f"idle, C peers: L={L} ns, {rounds} rounds in {wall:.2f} s wall: "
          f"{wall / rounds * 1e6:.1f} us wall and "
          f"{cpu / rounds / 1e3:.1f} us switch CPU per round; "
          f"{virt / wall:.0f} virtual ns per wall s ({virt} ns virtual)")
    for name, busy in (("idle", False), ("busy", True)):
        rounds, wall, cpu, virt, frames = one(exe, busy, seconds)
        print(f"{name}: L={L} ns, {rounds} rounds in {wall:.2f} s wall: "
              f"{wall / rounds * 1e6:.1f} us wall and "
              f"{cpu / rounds / 1e3:.1f} us switch CPU per round; "
              f"{virt / wall:.0f} virtual ns per wall s "
              f"({virt} ns virtual); {frames} frames delivered")


if __name__ == "__main__":
    main()
