#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host test of rocx-switch: three sockets pose as three guests.

Usage: test_switch.py SWITCH_BINARY WORK_DIR
Prints one line per check, then "switch: N passed, N failed"; exits 1 on any
failure.

The impairment checks compare what the guests receive with what the
switch's settings imply, worked out here: a count against the binomial
(or, for the Gilbert-Elliott model, Markov chain) distribution it must
follow, at a bound that a correct switch misses once in a million runs;
an exact set of frames where the settings decide it (gap, limit, seed).
"""
import json
import math
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fabric  # noqa: E402  (include/rocx/rocx_fabric.h)
import chanpeer  # noqa: E402
import rings  # noqa: E402  (a fabric channel's other end)
import swctl  # noqa: E402  (tools/rocx-switch/ctl_server.c)

ETH_TEST = 0x88B5           # IEEE local experimental ethertype
BCAST = b"\xff" * 6
MCAST = bytes.fromhex("01005e000001")
MAX_FRAME = 9216

passed = 0
failed = 0


# Said before every check's name: the channel's cases run twice.
prefix = ""


def check(name, cond, detail=""):
    global passed, failed
    name = prefix + name
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


_sentinels = 0


def is_sentinel(frame, tag):
    return frame[14:].rstrip(b"\0") == tag.encode()


def until_sentinel(src, guests, timeout=5.0):
    """What each guest of guests received before src's sentinel, a
    broadcast src sends now: {idx: frames}, None for a guest the sentinel
    did not reach in timeout seconds.  The switch forwards one ingress
    port's frames in order, so a frame src sent before that did not come
    before the sentinel never will: a negative proven by what did arrive,
    not by a quiet window a slow switch could outlast.  A guest that
    cannot get src's broadcast (src itself) is read without waiting once
    the others have their sentinels: the switch has handled src's earlier
    frames by then, and what it sent src is in src's socket.  A port that
    takes bundles may get the sentinel in one with the frames queued just
    before it: those count as their frames."""
    global _sentinels
    _sentinels += 1
    tag = f"sentinel-{_sentinels}"
    src.send(BCAST, tag)
    out = {}
    for g in guests:
        if g is src:
            continue
        got = []
        g.s.settimeout(timeout)
        try:
            while True:
                f = g.s.recv(fabric.BUNDLE_MAX)
                if is_sentinel(f, tag):
                    break
                inner = unbundle(f) or []
                if any(is_sentinel(x, tag) for x in inner):
                    got += inner[:[is_sentinel(x, tag)
                                   for x in inner].index(True)]
                    break
                got.append(f)
        except socket.timeout:
            got = None
        out[g.idx] = got
    if src in guests:
        got = []
        src.s.setblocking(False)
        try:
            while True:
                got.append(src.s.recv(fabric.BUNDLE_MAX))
        except BlockingIOError:
            pass
        out[src.idx] = got
    return out


def qtags(q):
    """until_sentinel's answer with each frame's tag, for a failure."""
    return {k: None if v is None else tags(v) for k, v in q.items()}


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
        # Counter lines only, not the log's "port 1: ..." messages.
        if not words[1][4:].isdigit():
            continue
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
    q = until_sentinel(b, (a, b, c))
    check("bundles: nothing back to the sender, nothing more to the others",
          q[b.idx] == [] and q[a.idx] == [] and q[c.idx] == [], qtags(q))

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
    q = until_sentinel(b, (a, c))
    check("bundles: a guest's HELLO_ACK or unknown type goes nowhere",
          q[a.idx] == [] and q[c.idx] == [], qtags(q))

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


# ---- Impairments (impair.c) and the control socket (ctl_server.c) ----

# A correct switch fails a statistical check this rarely.
ALPHA = 1e-6
# Standard normal quantile for ALPHA, two-sided (for the Markov chain).
Z = 4.89


def binom_bounds(n, p, alpha=ALPHA):
    """[lo, hi] that Binomial(n, p) leaves with probability at most
    alpha/2 on each side, from the exact distribution."""
    if p <= 0:
        return 0, 0
    if p >= 1:
        return n, n
    lp, lq = math.log(p), math.log1p(-p)
    pmf = [math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) -
                    math.lgamma(n - k + 1) + k * lp + (n - k) * lq)
           for k in range(n + 1)]
    lo, acc = 0, 0.0
    while acc + pmf[lo] <= alpha / 2:
        acc += pmf[lo]
        lo += 1
    hi, acc = n, 0.0
    while acc + pmf[hi] <= alpha / 2:
        acc += pmf[hi]
        hi -= 1
    return lo, hi


def within(name, k, n, p):
    lo, hi = binom_bounds(n, p)
    check(f"{name}: {k} of {n} within [{lo}, {hi}] for p={p}",
          lo <= k <= hi)


def index(frame):
    """The number in a test frame's tag ("n17" -> 17)."""
    t = tags([frame])[0]
    return int(t.lstrip("abcdefghijklmnopqrstuvwxyz"))


def numbered(g, dst, n, base="n", size=64):
    return [g.frame(dst, f"{base}{i}", size) for i in range(n)]


def sends(src, frames):
    """Send frames back to back, waiting while the switch catches up (a
    recv() timeout set before would make a full socket an error)."""
    src.s.settimeout(10)
    for f in frames:
        src.send_raw(f)


def pump(src, dsts, frames, chunk=100):
    """Send frames from src, chunk by chunk so that no socket overflows,
    and collect what each guest of dsts receives."""
    got = {d.idx: [] for d in dsts}
    for i in range(0, len(frames), chunk):
        sends(src, frames[i:i + chunk])
        for d in dsts:
            got[d.idx] += d.recv(0.05)
    for d in dsts:
        got[d.idx] += d.recv(0.1)
    return got


class Collector(threading.Thread):
    """Receives on a guest's socket with arrival times until stopped."""

    def __init__(self, g):
        super().__init__(daemon=True)
        self.g = g
        self.got = []
        self.done = threading.Event()
        self.start()

    def run(self):
        self.g.s.settimeout(0.02)
        while not self.done.is_set():
            try:
                d = self.g.s.recv(fabric.BUNDLE_MAX)
            except socket.timeout:
                continue
            self.got.append((time.monotonic(), d))

    def stop(self, linger=0.0):
        time.sleep(linger)
        self.done.set()
        self.join()
        return self.got


def paced(src, frames, gap):
    """Send frames gap seconds apart; returns each one's send time."""
    sent = []
    src.s.settimeout(10)
    for f in frames:
        sent.append(time.monotonic())
        src.send_raw(f)
        time.sleep(gap)
    return sent


def delays(frames, sent, got):
    """One-way delay of each received frame, by its tag."""
    at = {tags([f])[0]: t for f, t in zip(frames, sent)}
    return [t - at[tags([d])[0]] for t, d in got]


def counters(ctl, port, direction):
    return {k: int(v) for k, v in ctl.show(f"port={port} dir={direction}")
            [(port, direction)].items() if v.isdigit()}


def impair_start(exe, sockdir, log, args=()):
    log.seek(0)
    log.truncate()
    sw = start_switch(exe, sockdir, ["--ports", "3"] + list(args), log)
    gs = [Guest(sockdir, i) for i in range(3)]
    # Everyone learned: unicast between the guests is not flooded.  Each
    # waits for the others' hellos by name, not for a quiet 0.1 s, which
    # a loaded host can leave before the last one and let it into a check.
    for g in gs:
        g.send(BCAST, f"hello-{g.idx}")
    for g in gs:
        want = {f"hello-{o.idx}".encode() for o in gs if o is not g}
        g.s.settimeout(5.0)
        try:
            while want:
                want.discard(g.s.recv(fabric.BUNDLE_MAX)[14:].rstrip(b"\0"))
        except socket.timeout:
            pass
    ctl = swctl.SwitchCtl(f"{sockdir}/ctl.sock")
    return sw, gs, ctl


def impair_stop(sw, gs, ctl):
    ctl.close()
    stop_switch(sw)
    for g in gs:
        g.close()


def roce_mcast(src, group):
    """A RoCE v2 UD SEND to a multicast group: group is an IPv4 address
    (bytes of 4) or an IPv6 one (16), its MAC derived as a NIC does."""
    udp = struct.pack("!HHHH", 0xc000, 4791, 8 + 12 + 8 + 4, 0)
    bth = bytes([0x64, 0, 0xff, 0xff, 0, 0xff, 0xff, 0xff, 0, 0, 0, 1])
    rest = udp + bth + bytes(8) + b"mc" + bytes(2)
    if len(group) == 4:
        dst = bytes([1, 0, 0x5e, group[1] & 0x7f]) + group[2:]
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(rest), 0, 0,
                         64, 17, 0, bytes([198, 18, 0, 1]), group)
        return dst + src + b"\x08\x00" + ip + rest
    dst = b"\x33\x33" + group[12:]
    ip = struct.pack("!IHBB16s16s", 6 << 28, len(rest), 17, 64,
                     bytes.fromhex("20010002" + "00" * 11 + "01"), group)
    return dst + src + b"\x86\xdd" + ip + rest


def multicast_groups(exe, sockdir, log):
    """RoCE multicast: a frame to a group MAC reaches every port but its
    ingress, bundled or not, however well the switch knows the senders;
    a group MAC used as a source is never learned."""
    log.seek(0)
    log.truncate()
    sw = start_switch(exe, sockdir, ["--ports", "3"], log)
    a, b, c = (Guest(sockdir, i) for i in range(3))
    for g in (a, b, c):
        g.send(BCAST, f"hi-{g.idx}")
    for g in (a, b, c):
        g.recv()
    for g in (a, b):
        g.send_raw(fab(fabric.HELLO))
        g.recv()

    v4 = roce_mcast(b.mac, bytes([239, 1, 2, 3]))
    v6 = roce_mcast(b.mac, bytes.fromhex("ff0e" + "00" * 13 + "42"))
    uni = b.frame(a.mac, "uni")
    b.send_raw(bundle_of([v4, v6, uni]))
    got_a = a.recv()
    check("mcast: bundled RoCE to groups and unicast reach A in one bundle",
          len(got_a) == 1 and unbundle(got_a[0]) == [v4, v6, uni],
          [len(x) for x in got_a])
    check("mcast: both groups, not the unicast, reach C plain",
          c.recv() == [v4, v6])
    q = until_sentinel(b, (a, b, c))
    check("mcast: nothing back to the sender",
          q[b.idx] == [] and q[a.idx] == [] and q[c.idx] == [], qtags(q))

    v4c = roce_mcast(c.mac, bytes([239, 1, 2, 3]))
    c.send_raw(v4c)
    q = until_sentinel(c, (a, b, c))
    check("mcast: a plain group frame reaches both others",
          q[a.idx] == [v4c] and q[b.idx] == [v4c] and q[c.idx] == [],
          qtags(q))

    # A group MAC as a source is bogus: it must not become a port's.
    group_mac = v4[:6]
    a.send(BCAST, "spoof", src=group_mac)
    b.recv()
    c.recv()
    c.send_raw(v4c)
    check("mcast: a group MAC seen as a source still floods",
          a.recv() == [v4c] and b.recv() == [v4c])
    stop_switch(sw)
    for g in (a, b, c):
        g.close()


def impair_ctl(exe, sockdir, log):
    """The control socket: answers, errors that change nothing, line
    handling; --impair and --seed at start."""
    sw, (a, b, c), ctl = impair_start(exe, sockdir, log)
    helped = " ".join(ctl("help"))
    check("ctl: help lists the commands",
          all(v in helped for v in ("show", "stats", "impair", "seed")))
    fresh = ctl.show()
    check("ctl: show lists every port and direction, nothing set",
          sorted(fresh) == [(p, d) for p in range(3)
                            for d in ("egress", "ingress")] and
          all(v["loss"] == "0%" and v["delay"] == "0ms" and
              v["frames"] == "0" for v in fresh.values()))

    bad = [
        ("impair port=1 dir=egress loss=150%", "loss: bad probability"),
        ("impair port=1 dir=egress loss=-1%", "loss: bad probability"),
        ("impair port=1 dir=egress loss=lots", "loss: bad probability"),
        ("impair port=3 dir=egress loss=1%", "ports 0..2"),
        ("impair port=x dir=egress loss=1%", "not a port number"),
        ("impair port=1 dir=sideways loss=1%", "not ingress, egress or both"),
        ("impair port=1 loss=1%", "give dir="),
        ("impair dir=egress loss=1%", "give port="),
        ("impair port=1 dir=egress delay=5", "delay: bad time"),
        ("impair port=1 dir=egress delay=11s", "delay: bad time"),
        ("impair port=1 dir=egress reorder=10%", "reorder needs a delay"),
        ("impair port=1 dir=egress delay=1ms jitter=2ms",
         "jitter must not exceed delay"),
        ("impair port=1 dir=egress loss=1% lossy=2", "unknown key 'lossy'"),
        ("impair port=1 dir=egress loss=1% now", "unknown word 'now'"),
        ("impair port=1 dir=egress loss=1% loss=2%", "given twice"),
        ("impair port=1 dir=egress", "nothing to set"),
        ("impair port=1 dir=egress loss=1% loss-gemodel=1%",
         "exclude each other"),
        ("impair port=1 dir=egress loss-gemodel=1%,2%,3%,4%,5%", "at most 4"),
        ("impair port=1 dir=egress loss=1% ge-step=1ms",
         "ge-step needs loss-gemodel"),
        ("impair port=1 dir=egress loss-gemodel=1% ge-step=5",
         "ge-step: bad time"),
        ("impair port=1 dir=egress delay=1ms gap=0", "gap"),
        ("impair port=1 dir=egress delay=1ms limit=0", "limit"),
        ("impair port=1 dir=egress loss=", "no value"),
        ("frobnicate port=1", "unknown command 'frobnicate'"),
        ("show port=7", "ports 0..2"),
        ("seed 12abc", "not a decimal number"),
    ]
    wrong = []
    for cmd, want in bad:
        ok, out, err = ctl.request(cmd)
        if ok or want not in (err or ""):
            wrong.append(f"{cmd!r}: {'ok' if ok else err}")
    check(f"ctl: {len(bad)} bad requests each answer a clear error",
          not wrong, "; ".join(wrong))
    check("ctl: ... and change nothing", ctl.show() == fresh)

    # One request for two ports that is wrong for one changes neither.
    ctl("impair port=1 dir=egress delay=5ms")
    ok, _, err = ctl.request("impair port=0,1 dir=egress jitter=3ms")
    p1 = ctl.show("port=1 dir=egress")[(1, "egress")]
    check("ctl: a request wrong for one of its ports changes none",
          not ok and "port 0 egress" in err and p1["jitter"] == "0ms" and
          p1["delay"] == "5ms", err)
    ctl("impair port=1 dir=egress clear")

    # Lines in pieces, several in one write, none left without answer.
    ctl.send_raw(b"sho")
    time.sleep(0.05)
    ctl.send_raw(b"w port=2 dir=ingress\n# comment\n\nseed 5\n")
    answers = [ctl.answer() for _ in range(4)]
    check("ctl: a line in two writes, then four lines in one",
          answers[0][0] and len(answers[0][1]) == 1 and
          answers[0][1][0].startswith("port2 ingress") and
          answers[1] == (True, [], None) and answers[2] == (True, [], None)
          and answers[3] == (True, ["seed=5"], None), answers)
    other = swctl.SwitchCtl(f"{sockdir}/ctl.sock")
    check("ctl: a second client at the same time",
          other("seed") == ["seed=5"] and ctl("seed") == ["seed=5"])
    other.send_raw(b"x" * 5000 + b"\n")
    ok, _, err = other.answer()
    try:
        closed = other.f.readline() == b""
    except ConnectionResetError:
        # Closed with the rest of the line unread: a unix socket resets.
        closed = True
    check("ctl: a line over 4095 bytes: error, then the client is dropped",
          not ok and "longer than" in err and closed, err)
    other.close()

    a.send(b.mac, "still-forwarding")
    check("ctl: the switch forwards as before",
          tags(b.recv()) == ["still-forwarding"])
    cli = subprocess.run([exe, "ctl", f"{sockdir}/ctl.sock", "impair",
                          "port=2", "dir=ingress", "loss=2%"],
                         capture_output=True, text=True, timeout=10)
    bad_cli = subprocess.run([exe, "ctl", f"{sockdir}/ctl.sock", "impair",
                              "port=2", "dir=ingress", "loss=200%"],
                             capture_output=True, text=True, timeout=10)
    shown = subprocess.run([exe, "ctl", f"{sockdir}/ctl.sock", "show",
                            "port=2", "dir=ingress"],
                           capture_output=True, text=True, timeout=10)
    check("ctl: rocx-switch ctl sets, refuses (exit 1) and shows",
          cli.returncode == 0 and bad_cli.returncode == 1 and
          "bad probability" in bad_cli.stderr and
          shown.returncode == 0 and " loss=2% " in shown.stdout,
          f"{cli.returncode} {bad_cli.returncode} {bad_cli.stderr!r} "
          f"{shown.stdout!r}")
    impair_stop(sw, (a, b, c), ctl)
    check("ctl: the control socket is removed on exit",
          not os.path.exists(f"{sockdir}/ctl.sock"))
    gone = subprocess.run([exe, "ctl", f"{sockdir}/ctl.sock", "show"],
                          capture_output=True, text=True, timeout=10)
    check("ctl: rocx-switch ctl without a switch exits 2",
          gone.returncode == 2, gone.stderr)

    # At start: a bad --impair stops the switch before it binds a port.
    out = subprocess.run([exe, "--dir", sockdir, "--ports", "3", "--impair",
                          "port=1 dir=egress reorder=5%"],
                         capture_output=True, text=True, timeout=10)
    check("start: a bad --impair exits 2 and says why",
          out.returncode == 2 and "reorder needs a delay" in out.stderr,
          f"{out.returncode} {out.stderr!r}")
    sw, gs, ctl = impair_start(exe, sockdir, log, [
        "--seed", "4242",
        "--impair", "port=0 dir=ingress duplicate=3%",
        "--impair", "port=1,2 dir=egress delay=2ms jitter=1ms "
                    "reorder=10% gap=3 limit=77"])
    sh = ctl.show()
    check("start: --impair and --seed set what show and seed report",
          sh[(0, "ingress")]["duplicate"] == "3%" and
          all(sh[(p, "egress")]["delay"] == "2ms" and
              sh[(p, "egress")]["jitter"] == "1ms" and
              sh[(p, "egress")]["reorder"] == "10%" and
              sh[(p, "egress")]["gap"] == "3" and
              sh[(p, "egress")]["limit"] == "77" for p in (1, 2)) and
          sh[(0, "egress")]["delay"] == "0ms" and
          ctl("seed") == ["seed=4242"], sh)
    impair_stop(sw, gs, ctl)
    log.seek(0)
    check("start: the seed is in the log", "seed 4242" in log.read())


def impair_loss(exe, sockdir, log):
    """Random loss: counts, replay by seed, isolation, run-time change."""
    sw, (a, b, c), ctl = impair_start(exe, sockdir, log, ["--seed", "11"])
    n, p = 2000, 0.10
    ctl(f"impair port=1 dir=egress loss={p * 100:g}%")
    frames = numbered(a, b.mac, n)
    got = pump(a, [b, c], frames)
    idx = [index(f) for f in got[1]]
    lost = set(range(n)) - set(idx)
    cnt = counters(ctl, 1, "egress")
    check("loss: what arrives is in order and intact",
          idx == sorted(idx) and all(f == frames[i]
                                     for f, i in zip(got[1], idx)))
    check("loss: frames and lost counted exactly",
          cnt["frames"] == n and cnt["lost"] == len(lost), cnt)
    within("loss: 10% of frames lost", len(lost), n, p)
    check("loss: no other port sees unicast", got[2] == [])

    # Other directions and ports are not touched.
    back = pump(b, [a], numbered(b, a.mac, 500, "b"))[0]
    to_c = pump(a, [c], numbered(a, c.mac, 500, "c"))[2]
    check("loss: B's own frames (port 1 ingress) all arrive",
          len(back) == 500 and counters(ctl, 1, "ingress")["frames"] == 0)
    check("loss: frames to C (port 2) all arrive", len(to_c) == 500)

    # The same seed replays the same losses; another seed others.
    def lost_set(seed):
        ctl(f"seed {seed}")
        got = pump(a, [b], numbered(a, b.mac, 1000, "r"))[1]
        return set(range(1000)) - {index(f) for f in got}

    one, again, other = lost_set(77), lost_set(77), lost_set(78)
    check("loss: seed 77 twice loses the same frames, seed 78 others",
          one == again and one != other and one,
          f"{len(one)} {len(again)} {len(other)}")

    # Run-time changes take effect at once.
    ctl("impair port=1 dir=egress loss=100%")
    none = pump(a, [b], numbered(a, b.mac, 200, "x"))[1]
    ctl("impair port=1 dir=egress loss=0")
    all_ = pump(a, [b], numbered(a, b.mac, 200, "y"))[1]
    check("loss: set to 100% at run time, then back to 0",
          none == [] and len(all_) == 200)
    shown = counters(ctl, 1, "egress")
    sw.send_signal(signal.SIGUSR1)
    time.sleep(0.3)
    log.seek(0)
    st = parse_stats(log.read()).get(1, {})
    check("loss: SIGUSR1's report holds the same counters as show",
          st.get("tx_imp_lost") == str(shown["lost"]) and
          st.get("tx_imp_frames") == str(shown["frames"]) and
          st.get("rx_imp_frames") == "0",
          f"{st.get('tx_imp_lost')} {shown['lost']}")
    impair_stop(sw, (a, b, c), ctl)

    # A switch started with the same --seed loses the same frames.
    def run_seeded():
        sw, (a, b, c), ctl = impair_start(exe, sockdir, log, [
            "--seed", "5", "--impair", "port=1 dir=egress loss=10%"])
        got = pump(a, [b], numbered(a, b.mac, 500, "s"))[1]
        impair_stop(sw, (a, b, c), ctl)
        return [index(f) for f in got]

    first = run_seeded()
    check("loss: --seed 5 replays a whole run", first == run_seeded())


def runs(missing):
    """Lengths of the runs of consecutive numbers in a sorted list."""
    out, prev = [], None
    for i in missing:
        if prev is not None and i == prev + 1:
            out[-1] += 1
        else:
            out.append(1)
        prev = i
    return out


def impair_gemodel(exe, sockdir, log):
    """Gilbert-Elliott bursts against the chain's own statistics."""
    sw, (a, b, c), ctl = impair_start(exe, sockdir, log, ["--seed", "3"])
    n, p, r = 4000, 0.05, 0.25
    ctl(f"impair port=1 dir=egress loss-gemodel={p * 100:g}%,{r * 100:g}%")
    sh = ctl.show("port=1 dir=egress")[(1, "egress")]
    check("gemodel: 1-h and 1-k default to 100% and 0% (netem's)",
          sh.get("loss-gemodel") == "5%,25%,100%,0%", sh)
    got = pump(a, [b], numbered(a, b.mac, n), chunk=200)[1]
    missing = sorted(set(range(n)) - {index(f) for f in got})
    # With 1-h = 1 and 1-k = 0 a frame is lost exactly in the bad state:
    # stationary share pi = p / (p + r), and a two-state chain's sum has
    # variance n pi (1 - pi) (1 + lam) / (1 - lam), lam = 1 - p - r.
    pi, lam = p / (p + r), 1 - p - r
    sd = math.sqrt(n * pi * (1 - pi) * (1 + lam) / (1 - lam))
    k = len(missing)
    check(f"gemodel: {k} of {n} lost, within {n * pi:.0f} +/- {Z * sd:.0f}",
          abs(k - n * pi) <= Z * sd)
    # Bursts last 1/r frames on average (geometric, variance (1-r)/r^2).
    bursts = runs(missing)
    mean = k / len(bursts)
    half = Z * math.sqrt((1 - r) / r ** 2 / len(bursts))
    check(f"gemodel: mean burst {mean:.2f} within {1 / r:g} +/- {half:.2f}",
          abs(mean - 1 / r) <= half)
    check("gemodel: lost counted exactly",
          counters(ctl, 1, "egress")["lost"] == k)
    impair_stop(sw, (a, b, c), ctl)


def impair_gemodel_step(exe, sockdir, log):
    """ge-step: the chain steps in time, not per frame.  p = 100% and
    r = 0 make it deterministic: the first step turns it bad for good."""
    sw, (a, b, c), ctl = impair_start(exe, sockdir, log, ["--seed", "4"])
    ctl("impair port=1 dir=egress loss-gemodel=100%,0% ge-step=2s")
    sh = ctl.show("port=1 dir=egress")[(1, "egress")]
    check("gemodel: show gives the step", sh.get("ge-step") == "2000ms", sh)
    # Sent at once: inside the first 2 s, in the good state, however many.
    t0 = time.monotonic()
    first = pump(a, [b], numbered(a, b.mac, 50, "g"))[1]
    took = time.monotonic() - t0
    time.sleep(max(0.0, t0 + 2.2 - time.monotonic()))
    # Past the first step: bad, and the chain stays there.
    later = pump(a, [b], numbered(a, b.mac, 50, "h"))[1]
    check("gemodel: with ge-step=2s, 50 frames in the first step all pass "
          "and 50 after it are all lost",
          took < 2 and len(first) == 50 and later == [],
          f"{len(first)} then {len(later)}, the first 50 in {took:.2f} s")
    check("gemodel: ... and the lost ones are counted",
          counters(ctl, 1, "egress")["lost"] == 100 - len(first) - len(later))
    # Stepping per frame again (ge-step=0s): the second frame is lost.
    ctl("impair port=1 dir=egress ge-step=0s")
    per_frame = pump(a, [b], numbered(a, b.mac, 50, "i"))[1]
    sh = ctl.show("port=1 dir=egress")[(1, "egress")]
    check("gemodel: ge-step=0s steps per frame: 1 of 50 passes",
          [index(f) for f in per_frame] == [0] and "ge-step" not in sh,
          f"{len(per_frame)} {sh}")
    impair_stop(sw, (a, b, c), ctl)


def impair_dup_corrupt(exe, sockdir, log):
    """Duplication and corruption, at egress (a shared buffer) and at
    ingress (before forwarding)."""
    sw, (a, b, c), ctl = impair_start(exe, sockdir, log, ["--seed", "8"])
    n = 1000
    ctl("impair port=1 dir=egress duplicate=20%")
    got = pump(a, [b, c], numbered(a, BCAST, n))
    idx = [index(f) for f in got[1]]
    twice = sum(1 for i in range(n) if idx.count(i) == 2)
    cnt = counters(ctl, 1, "egress")
    check("duplicate: every frame once or twice, copies side by side",
          sorted(set(idx)) == list(range(n)) and idx == sorted(idx) and
          all(idx.count(i) <= 2 for i in range(n)))
    check("duplicate: copies counted exactly",
          len(idx) == n + cnt["duplicated"] and twice == cnt["duplicated"],
          f"{len(idx)} {twice} {cnt}")
    within("duplicate: 20% of frames doubled", twice, n, 0.20)
    check("duplicate: port 2 gets each flooded frame once",
          [index(f) for f in got[2]] == list(range(n)))

    ctl("impair port=1 dir=egress clear corrupt=10%")
    frames = numbered(a, BCAST, n, "k", size=200)
    got = pump(a, [b, c], frames)
    flips = []
    for f, want in zip(got[1], frames):
        diff = [i for i in range(len(f)) if f[i] != want[i]]
        if diff:
            flips.append((diff, bin(f[diff[0]] ^ want[diff[0]]).count("1")))
    cnt = counters(ctl, 1, "egress")
    check("corrupt: all frames arrive; one bit flipped past the header",
          len(got[1]) == n and
          all(len(d) == 1 and d[0] >= 14 and bits == 1
              for d, bits in flips))
    check("corrupt: corrupted counted exactly",
          len(flips) == cnt["corrupted"], f"{len(flips)} {cnt}")
    within("corrupt: 10% of frames corrupted", len(flips), n, 0.10)
    check("corrupt: port 2's copies of the same frames are intact",
          got[2] == frames)

    # Ingress: before forwarding, so every destination sees the same.
    ctl("impair port=1 dir=egress clear")
    before = [counters(ctl, p, "egress")["frames"] for p in (1, 2)]
    ctl("impair port=0 dir=ingress loss=20% duplicate=10%")
    got = pump(a, [b, c], numbered(a, BCAST, n, "i"))
    cnt = counters(ctl, 0, "ingress")
    check("ingress: both ports receive the same frames",
          got[1] == got[2] and len(got[1]) > 0)
    check("ingress: delivered = frames + copies - lost",
          len(got[1]) == n + cnt["duplicated"] - cnt["lost"] and
          cnt["frames"] == n, f"{len(got[1])} {cnt}")
    within("ingress: 10% duplicated", cnt["duplicated"], n, 0.10)
    within("ingress: 20% of the copies lost", cnt["lost"],
           n + cnt["duplicated"], 0.20)
    check("ingress: the egress stages saw nothing",
          [counters(ctl, p, "egress")["frames"] for p in (1, 2)] == before)
    impair_stop(sw, (a, b, c), ctl)


def impair_delay(exe, sockdir, log):
    """Delay, jitter, reordering and the delay lines' limits, timed."""
    sw, (a, b, c), ctl = impair_start(exe, sockdir, log, ["--seed", "9"])

    col = Collector(b)
    frames = numbered(a, b.mac, 40, "u")
    base = delays(frames, paced(a, frames, 0.005), col.stop(0.1))
    ctl("impair port=1 dir=egress delay=50ms")
    col = Collector(b)
    frames = numbered(a, b.mac, 40, "d")
    d = sorted(delays(frames, paced(a, frames, 0.005), col.stop(0.2)))
    colb = Collector(a)
    rev = numbered(b, a.mac, 40, "v")
    back = sorted(delays(rev, paced(b, rev, 0.005), colb.stop(0.1)))
    check("delay: 50ms, measured from send to arrival",
          len(d) == 40 and d[0] >= 0.0495 and d[20] <= 0.075,
          f"min {d[0] * 1e3:.2f}ms median {d[20] * 1e3:.2f}ms" if d else "")
    check("delay: without it, and the other direction, arrive at once",
          len(base) == 40 and sorted(base)[20] < 0.01 and
          len(back) == 40 and back[20] < 0.01)

    ctl("impair port=1 dir=egress delay=40ms jitter=20ms")
    col = Collector(b)
    frames = numbered(a, b.mac, 200, "j")
    sent = paced(a, frames, 0.001)
    got = col.stop(0.2)
    d = sorted(delays(frames, sent, got))
    order = [index(x) for _, x in got]
    inversions = sum(1 for i in range(len(order) - 1)
                     if order[i] > order[i + 1])
    # Uniform on [20ms, 60ms]: quartiles at 30ms and 50ms.
    check("jitter: delays within 40ms +/- 20ms, spread as uniform",
          len(d) == 200 and d[0] >= 0.0195 and d[-1] <= 0.110 and
          d[50] < 0.037 and d[150] > 0.043,
          f"min {d[0] * 1e3:.1f} q1 {d[50] * 1e3:.1f} "
          f"q3 {d[150] * 1e3:.1f} max {d[-1] * 1e3:.1f} ms" if d else "")
    check(f"jitter: wider than the frames' spacing, it reorders "
          f"({inversions} inversions)", inversions > 0)

    # reorder: the reordered frames skip the delay, the rest wait for it,
    # each kind in the order it was sent.  Frames are told apart by their
    # own measured delay, not by a window from the start of the run, so a
    # slow or loaded host that takes long to send them cannot mix the two.
    n, delay = 400, 1.0
    before = counters(ctl, 1, "egress")
    ctl(f"impair port=1 dir=egress clear delay={delay * 1e3:g}ms reorder=25%")
    col = Collector(b)
    frames = numbered(a, b.mac, n, "o")
    sent = paced(a, frames, 0)
    got = col.stop(delay + 0.5)
    cnt = {key: v - before[key]
           for key, v in counters(ctl, 1, "egress").items()}
    k = cnt["reordered"]
    d = delays(frames, sent, got)
    order = [index(x) for _, x in got]
    early = [i for i, t in zip(order, d) if t < delay / 2]
    late = [i for i, t in zip(order, d) if t >= delay - 0.005]
    check("reorder: reordered frames skip the delay, the rest wait, "
          "each in order",
          sorted(order) == list(range(n)) and
          len(early) == k and len(late) == cnt["delayed"] and
          k + cnt["delayed"] == n and
          early == sorted(early) and late == sorted(late),
          f"{k} reordered, {cnt['delayed']} delayed; measured "
          f"{len(early)} early, {len(late)} late")
    within("reorder: 25% sent early", k, n, 0.25)

    ctl("impair port=1 dir=egress delay=200ms reorder=100% gap=5")
    col = Collector(b)
    sends(a, numbered(a, b.mac, 50, "g"))
    got = col.stop(0.5)
    order = [index(x) for _, x in got]
    check("reorder: gap=5 at 100% sends every fifth frame early",
          order == list(range(4, 50, 5)) +
          [i for i in range(50) if i % 5 != 4], order)

    # A delay line holds at most its limit; the rest overflow.
    before = counters(ctl, 1, "egress")
    ctl("impair port=1 dir=egress clear delay=300ms limit=10")
    sends(a, numbered(a, b.mac, 50, "l"))
    got = b.recv(0.5)
    cnt = counters(ctl, 1, "egress")
    check("limit: 10 frames held and delivered, 40 overflow",
          [index(f) for f in got] == list(range(10)) and
          cnt["overflow"] - before["overflow"] == 40 and
          cnt["delayed"] - before["delayed"] == 10, cnt)
    impair_stop(sw, (a, b, c), ctl)

    # --impair-hold bounds all delay lines together.
    sw, (a, b, c), ctl = impair_start(exe, sockdir, log, [
        "--impair-hold", "16",
        "--impair", "port=1,2 dir=egress delay=200ms"])
    # The guests' hellos crossed these delay lines too: let them drain
    # first, however long the host takes, so the lines start empty.
    for _ in range(200):
        if all(counters(ctl, p, "egress")["held"] == 0 for p in (1, 2)):
            break
        time.sleep(0.05)
    b.recv(0.05), c.recv(0.05)
    before = sum(counters(ctl, p, "egress")["overflow"] for p in (1, 2))
    sends(a, numbered(a, BCAST, 20, "h"))
    got_b, got_c = b.recv(1.0), c.recv(0.3)
    over = sum(counters(ctl, p, "egress")["overflow"]
               for p in (1, 2)) - before
    check("hold: 16 frames held over both lines, 24 overflow",
          len(got_b) + len(got_c) == 16 and over == 24,
          f"{len(got_b)} {len(got_c)} {over}")
    impair_stop(sw, (a, b, c), ctl)


def impairments(exe, sockdir, log):
    impair_ctl(exe, sockdir, log)
    impair_loss(exe, sockdir, log)
    impair_gemodel(exe, sockdir, log)
    impair_gemodel_step(exe, sockdir, log)
    impair_dup_corrupt(exe, sockdir, log)
    impair_delay(exe, sockdir, log)


# ---- Lossless fabric (qos.c, pfc.c, red.c, series.c) ----

PFC_DST = bytes.fromhex("0180c2000001")
ETH_PFC = 0x8808


def pfc_frame(src, quanta, opcode=0x0101):
    """A PFC frame from src: quanta {prio: q}; 802.3x: quanta {0: time}."""
    cev = sum(1 << p for p in quanta) if opcode == 0x0101 else quanta[0]
    q = [quanta.get(p, 0) if opcode == 0x0101 else 0 for p in range(8)]
    body = struct.pack("!HH8H", opcode, cev, *q)
    return (PFC_DST + src.mac + struct.pack("!H", ETH_PFC) +
            body).ljust(60, b"\0")


def pfc_parse(f):
    """(class_enable, quanta[8]) of a PFC frame, or None."""
    if len(f) < 34 or f[:6] != PFC_DST or f[12:14] != b"\x88\x08":
        return None
    op, cev, *q = struct.unpack("!HH8H", f[14:34])
    return (cev, q) if op == 0x0101 else None


def tagged(g, dst, pcp, tag, size=1000, ethertype=ETH_TEST):
    """A priority-tagged (VLAN 0) frame of size bytes."""
    hdr = dst + g.mac + struct.pack("!HHH", 0x8100, pcp << 13, ethertype)
    return (hdr + tag.encode()).ljust(size, b"\0")


def ipv4_frame(g, dst, tag, size=1000, dscp=26, ecn=2, pcp=None):
    """An IPv4 frame (DSCP, ECN as given), priority-tagged if pcp is set."""
    plen = size - 14 - (4 if pcp is not None else 0)
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, dscp << 2 | ecn, plen,
                               0, 0, 64, 17, 0, bytes([198, 18, 0, 1]),
                               bytes([198, 18, 0, 2])))
    ip[10:12] = struct.pack("!H", ip_csum(ip))
    eth = dst + g.mac + (struct.pack("!HH", 0x8100, pcp << 13)
                         if pcp is not None else b"") + b"\x08\x00"
    return (eth + bytes(ip) + tag.encode()).ljust(size, b"\0")


def ipv6_frame(g, dst, tag, size=1000, dscp=26, ecn=2, pcp=None):
    """An IPv6 frame (traffic class DSCP, ECN), priority-tagged if pcp."""
    tc = dscp << 2 | ecn
    plen = size - 14 - (4 if pcp is not None else 0) - 40
    ip = struct.pack("!IHBB16s16s", 6 << 28 | tc << 20, plen, 17, 64,
                     bytes(15) + b"\x01", bytes(15) + b"\x02")
    eth = dst + g.mac + (struct.pack("!HH", 0x8100, pcp << 13)
                         if pcp is not None else b"") + b"\x86\xdd"
    return (eth + ip + tag.encode()).ljust(size, b"\0")


def ip_csum(hdr):
    s = sum(struct.unpack(f"!{len(hdr) // 2}H", bytes(hdr)))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ip_of(f):
    return 18 if f[12:14] == b"\x81\x00" else 14


def ip_tag(f):
    off = ip_of(f) + 20
    return f[off:].rstrip(b"\0").decode(errors="replace")


def vtags(frames):
    """Tags of priority-tagged test frames."""
    return [f[18:].rstrip(b"\0").decode(errors="replace") for f in frames]


def wait_for(cond, timeout=2.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.005)
    return cond()


def qos_defaults(exe, sockdir, log):
    """Everything off by default; settings checked, and refused whole."""
    sw, (a, b, c), ctl = impair_start(exe, sockdir, log)
    q = ctl.qshow()
    check("qos: by default no port has a rate, PFC, ETS or RED",
          all(q[(p, None)]["plain"] == "1" and q[(p, None)]["rate"] == "0"
              for p in range(3)) and
          all(q[(p, k)]["pfc"] == "off" and q[(p, k)]["ets"] == "strict" and
              q[(p, k)]["kmax"] == "0" for p in range(3) for k in range(8)))
    check("qos: no buffer limit by default",
          ctl("buffer") == ["buffer size=0 shared=0 used=0"])
    # A MAC control frame crosses a switch with PFC off, as it always did.
    a.send_raw(pfc_frame(a, {3: 100}))
    check("qos: PFC frames pass a port without PFC",
          len(b.recv(0.1)) == 1 and len(c.recv(0.1)) == 1)
    q = ctl.qshow("port=1")
    for bad, why in (("qos port=1 prio=3 xoff=1000 xon=2000", "above xoff"),
                     ("qos port=1 xoff=1000", "need prio"),
                     ("qos port=1 prio=3 kmin=5000 kmax=1000", "above kmax"),
                     ("qos port=1 prio=9 pfc=on", "0..7"),
                     ("qos port=1 ets=0 prio=2", "strict or"),
                     ("qos port=1 trust=vlan", "auto, pcp"),
                     ("qos port=1 rate=-1", "Mb/s"),
                     ("qos port=1 dscp=26", "together"),
                     ("qos port=1 prio=3 pfc=maybe", "on or off"),
                     ("qos port=1 colour=red", "unknown key")):
        ok, _, err = ctl.request(bad)
        check(f"qos: '{bad}' refused ({why})",
              not ok and why in (err or ""), err)
    check("qos: refused requests changed nothing", ctl.qshow("port=1") == q)
    ctl("qos port=1 prio=3,4 pfc=on xoff=9000 xon=4000 ets=40")
    q = ctl.qshow("port=1")
    check("qos: per-priority settings reach the priorities named",
          q[(1, 3)]["pfc"] == "on" and q[(1, 4)]["xoff"] == "9000" and
          q[(1, 4)]["ets"] == "40" and q[(1, 5)]["pfc"] == "off" and
          q[(1, None)]["plain"] == "0")
    ctl("qos port=1 clear")
    check("qos: clear returns a port to the defaults",
          ctl.qshow("port=1")[(1, None)]["plain"] == "1")
    impair_stop(sw, (a, b, c), ctl)


def qos_rate(exe, sockdir, log):
    """Token bucket: 2 Mb/s is 250000 bytes/s; with a 20000-byte burst 60
    frames of 1000 bytes take 20 at once, then 40 at 4 ms each: the last
    arrives 160 ms after the first, and the first 20 within what 80 ms
    at the rate would need."""
    sw, (a, b, c), ctl = impair_start(exe, sockdir, log)
    ctl("qos port=1 rate=2 burst=20000")
    col = Collector(b)
    # From before the first send, not from the first arrival: a collector
    # thread the host runs late takes the burst late and shortens a span
    # measured from it, while no frame can leave before it is sent.
    t0 = time.monotonic()
    sends(a, [a.frame(b.mac, f"r{i}", 1000) for i in range(60)])
    got = col.stop(0.5)
    span = got[-1][0] - t0 if got else 0
    check("rate: every frame arrives, in order",
          [index(f) for _, f in got] == list(range(60)), len(got))
    check(f"rate: 40 kB beyond the burst at 2 Mb/s take 160 ms "
          f"(measured {span * 1000:.1f} ms)", 0.155 <= span <= 0.4)
    burst = got[19][0] - got[0][0] if len(got) == 60 else 1
    check(f"rate: the burst leaves at once ({burst * 1000:.1f} ms)",
          burst < 0.05)
    ctl("qos port=1 rate=0")
    col = Collector(b)
    sends(a, [a.frame(b.mac, f"u{i}", 1000) for i in range(50)])
    got = col.stop(0.3)
    check("rate: rate=0 lifts the limit",
          len(got) == 50 and got[-1][0] - got[0][0] < 0.1)
    impair_stop(sw, (a, b, c), ctl)


def qos_pfc_rx(exe, sockdir, log):
    """PFC from a NIC: 0xffff quanta at 100 Mb/s pause priority 3 for
    65535 * 512 bits / 1e8 b/s = 335.5392 ms; priority 5 goes on; quanta
    0 resumes at once; 802.3x pause stops every priority."""
    sw, (a, b, c), ctl = impair_start(exe, sockdir, log)
    ctl("qos port=1 prio=3 pfc=on speed=100")
    col = Collector(b)
    t0 = time.monotonic()
    b.send_raw(pfc_frame(b, {3: 0xffff}))
    check("pfc rx: the pause is taken",
          wait_for(lambda: ctl.qshow("port=1")[(1, 3)]["paused"] == "1"))
    a.send_raw(tagged(a, b.mac, 3, "p3"))
    a.send_raw(tagged(a, b.mac, 5, "p5"))
    got = col.stop(0.6)
    at = {vtags([f])[0]: t - t0 for t, f in got}
    check(f"pfc rx: priority 5 is not paused ({at.get('p5')})",
          "p5" in at and at["p5"] < 0.1)
    check(f"pfc rx: priority 3 waits out 335.5 ms ({at.get('p3')})",
          "p3" in at and 0.3355 <= at["p3"] <= 0.6)
    q = ctl.qshow("port=1")[(1, 3)]
    check("pfc rx: paused time is the pause's, 335539200 ns",
          q["paused_ns"] == "335539200" and q["pause_rx"] == "1", q)
    q = until_sentinel(b, (a, c))
    check("pfc rx: the PFC frame is consumed, not forwarded",
          q[a.idx] == [] and q[c.idx] == [], qtags(q))

    b.send_raw(pfc_frame(b, {3: 0xffff}))
    wait_for(lambda: ctl.qshow("port=1")[(1, 3)]["paused"] == "1")
    a.send_raw(tagged(a, b.mac, 3, "held"))
    # The sentinel on priority 0, below 3 in the strict order: "held",
    # enqueued first, would leave before it unless paused.
    q = until_sentinel(a, (b, c))
    check("pfc rx: held while paused", q[b.idx] == [], qtags(q))
    t0 = time.monotonic()
    b.send_raw(pfc_frame(b, {3: 0}))
    got = b.recv(0.1)
    check("pfc rx: quanta 0 resumes at once",
          vtags(got) == ["held"] and time.monotonic() - t0 < 0.3)

    # 802.3x, honoured with pause=on: every priority waits.
    ctl("qos port=2 pause=on speed=100")
    c.send_raw(pfc_frame(c, {0: 0x8000}, opcode=0x0001))
    wait_for(lambda: ctl.qshow("port=2")[(2, 0)]["paused"] == "1")
    base = ctl.qshow("port=2")
    a.send_raw(tagged(a, c.mac, 0, "x0"))
    a.send_raw(tagged(a, c.mac, 6, "x6"))
    # No sentinel passes a port paused whole: the switch's own word that
    # it took both frames and still holds them instead, then C's socket
    # read without waiting (anything sent would be in it by then).
    n = {k: str(int(base[(2, k)]["enqueued"]) + 1) for k in (0, 6)}
    wait_for(lambda: all(ctl.qshow("port=2")[(2, k)]["enqueued"] == n[k]
                         for k in (0, 6)))
    qs = ctl.qshow("port=2")
    c.s.setblocking(False)
    try:
        early = [c.s.recv(fabric.BUNDLE_MAX)]
    except BlockingIOError:
        early = []
    check("pause rx: 802.3x holds every priority",
          early == [] and all(qs[(2, k)]["enqueued"] == n[k] and
                              qs[(2, k)]["depth"] != "0" for k in (0, 6)),
          (vtags(early), {k: qs[(2, k)] for k in (0, 6)}))
    c.send_raw(pfc_frame(c, {0: 0}, opcode=0x0001))
    check("pause rx: pause time 0 resumes",
          sorted(vtags(c.recv(0.2))) == ["x0", "x6"])
    impair_stop(sw, (a, b, c), ctl)


def qos_pfc_tx(exe, sockdir, log):
    """XOFF/XON to the upstream port: port 0, priority 3, xoff 10000 and
    xon 4000 bytes.  With B's priority 3 paused nothing leaves, so after
    n frames of 1000 bytes port 0 holds n * 1000: the 10th frame reaches
    xoff and A gets one PFC frame, quanta 0xffff for priority 3 alone.
    B resumes; as frames leave, the 6th departure leaves 4000 held and A
    gets quanta 0.  While held above xon the XOFF is sent again every
    half pause: at 100 Mb/s every 167.8 ms."""
    sw, (a, b, c), ctl = impair_start(exe, sockdir, log)
    ctl("qos port=0 prio=3 pfc=on xoff=10000 xon=4000 speed=100")
    # B's pause lasts 0xffff quanta at 10 Mb/s: 3.36 s, the whole test.
    ctl("qos port=1 prio=3 pfc=on speed=10")
    b.send_raw(pfc_frame(b, {3: 0xffff}))
    wait_for(lambda: ctl.qshow("port=1")[(1, 3)]["paused"] == "1")
    sends(a, [tagged(a, b.mac, 3, f"t{i}") for i in range(9)])
    wait_for(lambda: ctl.qshow("port=0")[(0, 3)]["in_bytes"] == "9000")
    # A PFC frame goes ahead of anything queued after it: none before C's
    # sentinel means none was sent.
    q = until_sentinel(c, (a, b))
    check("pfc tx: 9000 bytes held, below xoff: no PFC",
          q[a.idx] == [], qtags(q))
    col = Collector(a)
    t0 = time.monotonic()
    a.send_raw(tagged(a, b.mac, 3, "t9"))
    time.sleep(0.6)
    pf = [(t - t0, pfc_parse(f)) for t, f in col.stop()]
    xoff = (8, [0, 0, 0, 0xffff, 0, 0, 0, 0])
    check("pfc tx: the 10th frame sends XOFF for priority 3, 0xffff quanta",
          pf and pf[0][1] == xoff and pf[0][0] < 0.1, pf[:1])
    gaps = [pf[i + 1][0] - pf[i][0] for i in range(len(pf) - 1)]
    # Each one is timed by the switch; what we see adds our own delays.
    mean = sum(gaps) / len(gaps) if gaps else 0
    check(f"pfc tx: XOFF again every 167.8 ms while above xon "
          f"(mean gap {mean * 1000:.1f} ms)",
          len(pf) >= 3 and all(x == xoff for _, x in pf) and
          0.15 <= mean <= 0.22 and all(0.1 <= g <= 0.3 for g in gaps))
    col = Collector(a)
    b.send_raw(pfc_frame(b, {3: 0}))
    got = b.recv(0.2)
    pf = [pfc_parse(f) for _, f in col.stop(0.1)]
    check("pfc tx: B gets the 10 frames in order",
          vtags(got) == [f"t{i}" for i in range(10)], vtags(got))
    check("pfc tx: the drain below xon sends XON (quanta 0)",
          pf == [(8, [0] * 8)], pf)
    q = ctl.qshow("port=0")[(0, 3)]
    check("pfc tx: nothing held or dropped after",
          q["in_bytes"] == "0" and q["dropped"] == "0" and
          q["xoff_sent"] == "0", q)
    impair_stop(sw, (a, b, c), ctl)


def qos_buffer(exe, sockdir, log):
    """Shared buffer of 5000 bytes, nothing reserved: on a lossy priority
    the frames beyond it are tail-dropped at admission; 1000 reserved
    bytes of port 0 priority 0 come before the shared pool.  A lossless
    priority with 3000 bytes of headroom takes 3 frames more than the
    shared pool, then drops too (dishonest headroom)."""
    sw, (a, b, c), ctl = impair_start(exe, sockdir, log)
    ctl("buffer size=5000")
    # B's priority 2 paused (lossless at B's port) keeps what is admitted.
    ctl("qos port=1 prio=2,3 pfc=on speed=10")
    b.send_raw(pfc_frame(b, {2: 0xffff, 3: 0xffff}))
    wait_for(lambda: ctl.qshow("port=1")[(1, 2)]["paused"] == "1")
    sends(a, [tagged(a, b.mac, 2, f"s{i}") for i in range(8)])
    wait_for(lambda: int(ctl.qshow("port=0")[(0, 2)]["dropped"]) +
             int(ctl.qshow("port=0")[(0, 2)]["in_bytes"]) // 1000 >= 8)
    q = ctl.qshow("port=0")[(0, 2)]
    check("buffer: lossy: 5 frames fill 5000 bytes, 3 tail-dropped",
          q["in_bytes"] == "5000" and q["dropped"] == "3", q)
    ctl("qos port=0 prio=3 pfc=on headroom=3000 reserved=1000")
    check("buffer: reserved and headroom leave 1000 shared",
          ctl("buffer") == ["buffer size=5000 shared=1000 used=5000"])
    sends(a, [tagged(a, b.mac, 3, f"h{i}") for i in range(6)])
    wait_for(lambda: int(ctl.qshow("port=0")[(0, 3)]["dropped"]) +
             int(ctl.qshow("port=0")[(0, 3)]["in_bytes"]) // 1000 >= 6)
    q = ctl.qshow("port=0")[(0, 3)]
    # 1 reserved, 0 shared (full), 3 headroom: 4 held, 2 dropped.
    check("buffer: lossless: reserved, then headroom, then drops",
          q["in_bytes"] == "4000" and q["dropped"] == "2", q)
    b.send_raw(pfc_frame(b, {2: 0, 3: 0}))
    got = vtags(b.recv(0.2))
    check("buffer: what was admitted is delivered",
          sorted(got) == sorted([f"s{i}" for i in range(5)] +
                                [f"h{i}" for i in range(4)]), got)
    check("buffer: all released",
          ctl("buffer") == ["buffer size=5000 shared=1000 used=0"])
    impair_stop(sw, (a, b, c), ctl)


def qos_headroom(exe, sockdir, log):
    """A lossless priority past xoff takes headroom, not the shared pool:
    port 0 priority 3 with xoff 3000 and 2000 bytes of headroom in a
    buffer of 10000 (8000 shared).  With B paused, frames of 1000 bytes
    fill 3000 of the shared pool (the third sends XOFF), the next two
    take the headroom and the sixth is dropped, though 5000 bytes of the
    shared pool are free; those stay for the lossy priority 2, which then
    takes 5 frames of them."""
    sw, (a, b, c), ctl = impair_start(exe, sockdir, log)
    ctl("buffer size=10000")
    ctl("qos port=0 prio=3 pfc=on xoff=3000 xon=1000 headroom=2000")
    ctl("qos port=1 prio=2,3 pfc=on speed=10")
    b.send_raw(pfc_frame(b, {2: 0xffff, 3: 0xffff}))
    wait_for(lambda: ctl.qshow("port=1")[(1, 3)]["paused"] == "1")
    sends(a, [tagged(a, b.mac, 3, f"h{i}") for i in range(6)])
    wait_for(lambda: int(ctl.qshow("port=0")[(0, 3)]["dropped"]) +
             int(ctl.qshow("port=0")[(0, 3)]["in_bytes"]) // 1000 >= 6)
    q = ctl.qshow("port=0")[(0, 3)]
    check("headroom: past xoff, 2 frames into headroom, the 6th dropped",
          q["in_bytes"] == "5000" and q["dropped"] == "1", q)
    check("headroom: the lossless priority holds only xoff of the pool",
          ctl("buffer") == ["buffer size=10000 shared=8000 used=3000"])
    sends(a, [tagged(a, b.mac, 2, f"s{i}") for i in range(6)])
    wait_for(lambda: int(ctl.qshow("port=0")[(0, 2)]["dropped"]) +
             int(ctl.qshow("port=0")[(0, 2)]["in_bytes"]) // 1000 >= 6)
    q = ctl.qshow("port=0")[(0, 2)]
    check("headroom: the lossy priority finds the rest of the pool",
          q["in_bytes"] == "5000" and q["dropped"] == "1", q)
    b.send_raw(pfc_frame(b, {2: 0, 3: 0}))
    got = vtags(b.recv(0.2))
    check("headroom: what was admitted is delivered",
          sorted(got) == sorted([f"h{i}" for i in range(5)] +
                                [f"s{i}" for i in range(5)]), got)
    impair_stop(sw, (a, b, c), ctl)


def qos_headroom_returned(exe, sockdir, log):
    """What leaves a lossless priority gives back its headroom first:
    port 0 priority 3 with xoff 3000 and 2000 bytes of headroom, B
    paused.  Five frames of 1000 bytes: three in the shared pool (XOFF),
    two in headroom.  B's port then lets exactly two go (a token bucket
    of 2500 bytes, then 8 s a frame): those are the oldest, taken from
    the shared pool, yet the headroom is whole again, for the priority
    is 3000 bytes in, no more over its share, and two more frames after
    the XOFF still sent are held, not dropped.  Counting headroom by the
    frames that came after XOFF would leave it full until those two, at
    the tail, had left: on a queue that drains slower than PFC cycles,
    the next round trip found none (the timed incast's drops)."""
    sw, (a, b, c), ctl = impair_start(exe, sockdir, log)
    ctl("buffer size=10000")
    ctl("qos port=0 prio=3 pfc=on xoff=3000 xon=1000 headroom=2000")
    ctl("qos port=1 prio=3 pfc=on speed=10")
    b.send_raw(pfc_frame(b, {3: 0xffff}))
    wait_for(lambda: ctl.qshow("port=1")[(1, 3)]["paused"] == "1")
    sends(a, [tagged(a, b.mac, 3, f"h{i}") for i in range(5)])
    wait_for(lambda: ctl.qshow("port=0")[(0, 3)]["in_bytes"] == "5000")
    check("headroom back: three frames shared, two in headroom",
          ctl("buffer") == ["buffer size=10000 shared=8000 used=3000"])
    ctl("qos port=1 rate=0.001 burst=2500")
    b.send_raw(pfc_frame(b, {3: 0}))
    got = vtags(b.recv(0.5))
    q = ctl.qshow("port=0")[(0, 3)]
    check("headroom back: the two oldest left, the headroom is given back",
          got == ["h0", "h1"] and q["in_bytes"] == "3000" and
          ctl("buffer") == ["buffer size=10000 shared=8000 used=3000"],
          (got, q, ctl("buffer")))
    sends(a, [tagged(a, b.mac, 3, f"h{i}") for i in range(5, 7)])
    wait_for(lambda: int(ctl.qshow("port=0")[(0, 3)]["dropped"]) +
             int(ctl.qshow("port=0")[(0, 3)]["in_bytes"]) // 1000 >= 5)
    q = ctl.qshow("port=0")[(0, 3)]
    check("headroom back: two more after XOFF held, none dropped",
          q["in_bytes"] == "5000" and q["dropped"] == "0", q)
    ctl("qos port=1 rate=0")
    got = vtags(b.recv(0.5))
    check("headroom back: the rest delivered in order, the buffer empty",
          got == [f"h{i}" for i in range(2, 7)] and
          ctl("buffer") == ["buffer size=10000 shared=8000 used=0"],
          (got, ctl("buffer")))
    impair_stop(sw, (a, b, c), ctl)


def qos_ets(exe, sockdir, log):
    """ETS 70/30 on priorities 1 and 2: while both have frames, bytes
    leave 70:30, so of the first 400 frames of 1000 bytes 280 are
    priority 1's, give or take one turn's quantum (70 * 256 bytes: 18
    frames).  The queues are filled behind a PFC pause from B, so both
    wait when the line opens; strict priority 6, queued last, leaves
    first."""
    sw, (a, b, c), ctl = impair_start(exe, sockdir, log,
                                      ["--queue-limit", "1024"])
    ctl("qos port=1 prio=1 ets=70")
    ctl("qos port=1 prio=2 ets=30")
    ctl("qos port=1 prio=1,2,6 pfc=on speed=10")
    b.send_raw(pfc_frame(b, {1: 0xffff, 2: 0xffff, 6: 0xffff}))
    wait_for(lambda: ctl.qshow("port=1")[(1, 2)]["paused"] == "1")
    frames = []
    for i in range(300):
        frames.append(tagged(a, b.mac, 1, f"e{i}"))
        frames.append(tagged(a, b.mac, 2, f"f{i}"))
    sends(a, frames)
    a.send_raw(tagged(a, b.mac, 6, "strict"))
    wait_for(lambda: ctl.qshow("port=1")[(1, 6)]["depth"] == "1000")
    col = Collector(b)
    b.send_raw(pfc_frame(b, {1: 0, 2: 0, 6: 0}))
    got = col.stop(0.5)
    names = vtags([f for _, f in got])
    n1 = sum(1 for x in names[1:401] if x.startswith("e"))
    check(f"ets: 70/30: {n1} of the first 400 frames are priority 1's",
          abs(n1 - 280) <= 18)
    check("ets: strict priority 6, queued last, leaves first",
          names[:1] == ["strict"], names[:3])
    check("ets: every frame arrives, each class in order",
          len(names) == 601 and
          [x for x in names if x[0] == "e"] == [f"e{i}" for i in range(300)]
          and [x for x in names if x[0] == "f"] ==
          [f"f{i}" for i in range(300)], len(names))
    impair_stop(sw, (a, b, c), ctl)


def qos_red(exe, sockdir, log):
    """RED on port 1 priority 3 (lossless, so B can hold the queue):
    kmin 2000, kmax 12000, pmax 0.5.  Frame k of a batch queued behind a
    paused priority sees k * 1000 bytes ahead of it, so is marked with p
    = 0 for k <= 2, 0.5 (k * 1000 - 2000) / 10000 for 3 <= k <= 11 (0.05
    to 0.45), 1 for k >= 12.  On a lossy priority (4) with kmin = kmax
    = 3000 non-ECT frames from the fourth on are dropped, ECT ones
    marked."""
    sw, (a, b, c), ctl = impair_start(exe, sockdir, log)
    ctl("qos port=1 prio=3 pfc=on speed=10 kmin=2000 kmax=12000 pmax=0.5")
    batches, per = 60, 14
    marks = [0] * per
    bad = 0
    for r in range(batches):
        b.send_raw(pfc_frame(b, {3: 0xffff}))
        wait_for(lambda: ctl.qshow("port=1")[(1, 3)]["paused"] == "1")
        sends(a, [ipv4_frame(a, b.mac, f"m{k}", pcp=3) for k in range(per)])
        wait_for(lambda: ctl.qshow("port=1")[(1, 3)]["depth"] ==
                 str(per * 1000))
        b.send_raw(pfc_frame(b, {3: 0}))
        got = b.recv(0.05)
        if len(got) != per:
            bad += 1
            continue
        for k, f in enumerate(got):
            ip = f[ip_of(f):ip_of(f) + 20]
            bad += ip_tag(f) != f"m{k}" or ip_csum(ip) != 0
            marks[k] += (ip[1] & 3) == 3
    check("red: every batch arrives whole, in order, checksums right",
          bad == 0, bad)
    check("red: frames 0-2 (queue below kmin) never marked",
          marks[:3] == [0, 0, 0], marks)
    check("red: frames 12-13 (queue at kmax) always marked",
          marks[12:] == [batches, batches], marks)
    for k in range(3, 12):
        within(f"red: frame {k} marked with p {(k * 1000 - 2000) / 20000}",
               marks[k], batches, (k * 1000 - 2000) / 20000)
    q = ctl.qshow("port=1")[(1, 3)]
    check("red: marks counted", int(q["marked"]) == sum(marks), q["marked"])

    # Lossy priority 4, a step at 3000 bytes, behind a port that a filler
    # frame has emptied of tokens and that earns one 1000-byte frame per
    # 8 s: nothing leaves while the rest arrive, however slowly a loaded
    # host sends them.  With a 0.1 Mb/s port and its burst unspent, the
    # first frame left at some moment among the others, and a busy host
    # once let it leave after n3-n7 were dropped and before c0 and c1
    # came, so they found the queue below K and left unmarked.
    ctl("qos port=1 prio=3 clear")
    ctl("qos port=1 rate=0.001 burst=1000 prio=4 kmin=3000 kmax=3000")
    a.send_raw(ipv4_frame(a, b.mac, "f", pcp=4, ecn=0))
    check("red: lossy, the filler spends the port's burst",
          [ip_tag(f) for f in b.recv(0.5)] == ["f"])
    sends(a, [ipv4_frame(a, b.mac, f"n{k}", pcp=4, ecn=0)
              for k in range(8)])
    sends(a, [ipv4_frame(a, b.mac, f"c{k}", pcp=4, ecn=1)
              for k in range(2)])
    a.send_raw(ipv6_frame(a, b.mac, "v6", pcp=4, ecn=2))
    wait_for(lambda: int(ctl.qshow("port=1")[(1, 4)]["dropped"]) +
             int(ctl.qshow("port=1")[(1, 4)]["enqueued"]) >= 11)
    q = ctl.qshow("port=1")[(1, 4)]
    ctl("qos port=1 rate=0")
    got = b.recv(0.2)
    v6 = [f for f in got if f[16:18] == b"\x86\xdd"]
    got = [f for f in got if f[16:18] == b"\x08\x00"]
    names = [ip_tag(f) for f in got]
    ce = [ip_tag(f) for f in got if f[ip_of(f) + 1] & 3 == 3]
    check("red: lossy, an ECT IPv6 frame beyond K leaves CE, the rest intact",
          len(v6) == 1 and (v6[0][19] >> 4) & 3 == 3 and
          v6[0][18] == 0x60 | (26 << 2) >> 4 and
          v6[0][19] & 0xcf == ((26 << 2) & 0xf) << 4, v6)
    kept = [x for x in names if x.startswith("n")]
    check("red: lossy, non-ECT beyond K dropped",
          kept == ["n0", "n1", "n2"] and int(q["dropped"]) == 5,
          (names, q["dropped"]))
    check("red: lossy, ECT beyond K marked, not dropped",
          ce == ["c0", "c1"], names)
    impair_stop(sw, (a, b, c), ctl)


def qos_trust(exe, sockdir, log):
    """Trust modes: DSCP 26 is priority 3 by default (DSCP >> 3), 5 with
    dscp=26 to=5 under trust=dscp; under trust=pcp an untagged frame is 0
    whatever its DSCP, a tagged one its PCP."""
    sw, (a, b, c), ctl = impair_start(exe, sockdir, log)

    def tx_tc():
        return [int(x) for x in ctl.stats("port=1")[1]["tx_tc"].split(",")]

    def sent_class(frame):
        before = tx_tc()
        a.send_raw(frame)
        b.recv(0.05)
        after = tx_tc()
        return [i for i in range(8) if after[i] != before[i]]

    check("trust auto: DSCP 26 in class 3",
          sent_class(ipv4_frame(a, b.mac, "d", 200)) == [3])
    ctl("qos port=0 trust=dscp dscp=26 to=5")
    check("trust dscp: dscp=26 to=5 puts it in class 5",
          sent_class(ipv4_frame(a, b.mac, "d", 200)) == [5])
    check("trust dscp: a tag's PCP does not count",
          sent_class(ipv4_frame(a, b.mac, "d", 200, dscp=8, pcp=6)) == [1])
    ctl("qos port=0 trust=pcp")
    check("trust pcp: untagged is class 0",
          sent_class(ipv4_frame(a, b.mac, "d", 200)) == [0])
    check("trust pcp: tagged is its PCP",
          sent_class(ipv4_frame(a, b.mac, "d", 200, pcp=6)) == [6])
    impair_stop(sw, (a, b, c), ctl)


def qos_series(exe, sockdir, log, work):
    """The time series: a JSON line every 50 ms with depth, rates, marks
    and pauses; --qos and --buffer at start."""
    path = f"{work}/series.jsonl"
    sw, (a, b, c), ctl = impair_start(exe, sockdir, log, [
        "--qos", "port=1 prio=3 pfc=on speed=10", "--buffer", "100000",
        "--series", path, "--series-interval", "50ms"])
    check("series: --buffer at start",
          ctl("buffer")[0].startswith("buffer size=100000 "))
    b.send_raw(pfc_frame(b, {3: 0xffff}))
    wait_for(lambda: ctl.qshow("port=1")[(1, 3)]["paused"] == "1")
    sends(a, [tagged(a, b.mac, 3, f"z{i}") for i in range(5)])
    time.sleep(0.35)
    b.send_raw(pfc_frame(b, {3: 0}))
    b.recv(0.1)
    ctl("series off")
    ok, _, err = ctl.request("series interval=50us")
    check("series: on the wall clock an interval below 1 ms is refused",
          not ok and "1ms" in (err or ""), err)
    with open(path) as f:
        lines = [json.loads(x) for x in f]
    ts = [x["t"] for x in lines]
    # On a fixed grid: line k at 50 ms * k or (when the switch is late)
    # after it, never two in one slot.
    slots = [int(t / 0.05 + 1e-9) for t in ts]
    check(f"series: a line every 50 ms ({len(lines)} lines, {ts[:4]})",
          len(lines) >= 6 and slots[0] >= 1 and
          all(slots[i + 1] > slots[i] for i in range(len(slots) - 1)) and
          slots[-1] - slots[0] < 2 * len(slots))
    p1 = [x["ports"][1] for x in lines]
    check("series: the paused queue's depth and pause shown",
          any(x["depth"] == 5000 and x["depth_prio"][3] == 5000 and
              x["paused"][3] == 1 and x["pause_rx"][3] >= 1 for x in p1))
    check("series: keys for every port",
          all(len(x["ports"]) == 3 and
              {"tx_mbps", "rx_mbps", "tx_mbps_prio", "rx_mbps_prio", "marked",
               "dropped", "pause_tx", "pause_rx", "unread"} <= set(x["ports"][0])
              for x in lines))
    impair_stop(sw, (a, b, c), ctl)


def qos_backlog(exe, sockdir, log):
    """A port sends while its guest has fewer than backlog= bytes unread:
    what the kernel counts for datagrams sent before (2304 for a 1000-byte
    frame) plus the length of those of the burst going.  With backlog=8000
    and 30 frames of 1000 bytes, the guest finds four (3 x 2304 < 8000,
    frames that came one by one) to eight (7000 < 8000, frames that came
    together) waiting, not the ten its socket's queue takes; the rest
    follow, none lost, once it reads."""
    sw, (a, b, c), ctl = impair_start(exe, sockdir, log)
    check("backlog: 32768 bytes by default",
          ctl.qshow("port=1")[(1, None)]["backlog"] == "32768")
    ok, _, err = ctl.request("qos port=1 backlog=lots")
    check("backlog: a bad value is refused", not ok and err, err)
    ctl("qos port=1 rate=1000 backlog=8000")
    tx0 = int(ctl.stats("port=1")[1]["tx_frames"])
    sends(a, [a.frame(b.mac, f"k{i}", 1000) for i in range(30)])
    time.sleep(0.2)
    # What the port had sent before the guest read anything: counted by
    # the switch, since reading makes room for more, and on a loaded host
    # a loop of reads found 16 frames while the port kept sending.
    unread = int(ctl.stats("port=1")[1]["tx_frames"]) - tx0
    b.s.setblocking(False)
    first = []
    try:
        while True:
            first.append(b.s.recv(fabric.BUNDLE_MAX))
    except BlockingIOError:
        pass
    rest = b.recv(0.3)
    check(f"backlog: the guest found 4 to 8 frames unread ({unread})",
          4 <= unread <= 8)
    held = ctl.stats("port=1")[1].get("tx_held", "0")
    check(f"backlog: the port counted its holds ({held})", int(held) > 0)
    check("backlog: the rest came once it read, every frame in order",
          [index(f) for f in first + rest] == list(range(30)),
          len(first + rest))
    # Held for the 0.2 s the guest did not read, with frames waiting: at
    # 1000 Mb/s the bucket keeps its 1 ms burst (125000 bytes) and the
    # rest of the time is line time lost, some 199 ms, less what the
    # frames' arrival took before the hold began.  Once the port has
    # sent all it had it idles, and idling loses nothing.
    lost = int(ctl.qshow("port=1")[(1, None)]["lost_line_ns"])
    check(f"backlog: the hold's 0.2 s counted as line time lost "
          f"({lost / 1e6:.1f} ms)", 150e6 <= lost <= 260e6)
    time.sleep(0.2)
    idle = int(ctl.qshow("port=1")[(1, None)]["lost_line_ns"])
    check(f"backlog: an idle port loses no line time ({idle - lost} ns)",
          idle == lost)
    ctl("qos port=1 backlog=0")
    sends(a, [a.frame(b.mac, f"z{i}", 1000) for i in range(30)])
    time.sleep(0.2)
    check("backlog: backlog=0 leaves only the socket's own limit",
          len(b.recv(0.3)) >= 10)
    impair_stop(sw, (a, b, c), ctl)


def run_delay(pid):
    """Nanoseconds the threads of process pid have waited for a CPU, summed
    (the second field of each thread's schedstat)."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[1])
        except (OSError, IndexError, ValueError):
            pass
    return total


def lost_split(ctl, port):
    q = ctl.qshow(f"port={port}")[(port, None)]
    return (int(q["lost_line_ns"]), int(q["lost_host_ns"]),
            int(q["lost_recv_ns"]))


# A guest in a process of its own, on the socket it inherits (its path
# is not bound again: the switch, still associated with the old socket
# for up to a second, would refuse a new one's frames with EPERM).  It
# says hello, so that the switch knows whose CPU wait to ask about, and
# once told to go (a line on its stdin) keeps its CPU busy without
# reading for HOLD seconds (it cannot read: the host gives it no CPU),
# then reads everything and prints how many frames came.
STARVED_GUEST = r"""
import socket, sys, time
fd, sw, mac, hold = int(sys.argv[1]), sys.argv[2], bytes.fromhex(sys.argv[3]), float(sys.argv[4])
s = socket.socket(fileno=fd)
s.sendto(b"\xff" * 6 + mac + b"\x88\xb5hello".ljust(64, b"\0"), sw)
print("ready", flush=True)
sys.stdin.readline()
end = time.monotonic() + hold
while time.monotonic() < end:
    pass
s.settimeout(0.5)
n = 0
try:
    while True:
        s.recv(65536)
        n += 1
except socket.timeout:
    pass
print(n, flush=True)
"""


def qos_lost_split(exe, sockdir, log):
    """Line time a port lost while its guest held the frames is the
    receiver's unless the guest waited for a CPU then (lost.c): a guest
    that sleeps instead of reading is the receiver's doing, one the host
    gives no CPU the host's.  lost_host_ns and lost_recv_ns add up to
    lost_line_ns."""
    sw, (a, b, c), ctl = impair_start(exe, sockdir, log)
    ctl("qos port=1 rate=1000 backlog=8000")
    w0 = run_delay(sw.pid) + run_delay(os.getpid())
    sends(a, [a.frame(b.mac, f"r{i}", 1000) for i in range(60)])
    time.sleep(0.3)
    got = b.recv(0.3)
    lost, host, recv = lost_split(ctl, 1)
    waited = run_delay(sw.pid) + run_delay(os.getpid()) - w0
    check(f"lost split: a guest that did not read lost the line time "
          f"({lost / 1e6:.1f} ms, every frame came: {len(got)})",
          lost >= 150e6 and len(got) == 60)
    check(f"lost split: host's and receiver's add up "
          f"({host} + {recv} of {lost} ns)", abs(host + recv - lost) <= 2)
    # The switch also excuses how late it came back once the guest read,
    # and a wait the kernel has not reported yet: 20 ms of slack.
    check(f"lost split: ... the receiver's, less what the switch and the "
          f"guest waited for a CPU ({recv / 1e6:.1f} ms, the host's "
          f"{host / 1e6:.1f} ms; they waited {waited / 1e6:.1f} ms)",
          recv >= lost - waited - 20e6 and recv > 0)

    # The same guest, in a process the host starves: pinned to one CPU
    # beside two busy processes of higher priority.  It starts and says
    # hello before the hogs start (a Python starting at nice 19 beside them
    # takes seconds of wall time), is told to go and sent the frames only
    # once both hogs spin on its CPU, so that its whole wait is for the
    # CPU.  Its stderr is kept: if it dies, the check says why.
    cpu = min(os.sched_getaffinity(0))
    hog = ("import os, sys; os.sched_setaffinity(0, {%d}); "
           "print('spinning', flush=True)\nwhile True: pass" % cpu)
    child = subprocess.Popen(
        [sys.executable, "-c", STARVED_GUEST, str(b.s.fileno()), b.sw,
         b.mac.hex(), "0.5"], pass_fds=[b.s.fileno()], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: (os.sched_setaffinity(0, {cpu}), os.nice(19)))
    ready = child.stdout.readline().strip()
    hogs = [subprocess.Popen([sys.executable, "-c", hog],
                             stdout=subprocess.PIPE, text=True)
            for _ in range(2)]
    spinning = [h.stdout.readline().strip() for h in hogs]
    try:
        child.stdin.write("go\n")
        child.stdin.flush()
    except BrokenPipeError:
        pass            # it died: the check below says how
    time.sleep(0.05)
    l0, h0, r0 = lost_split(ctl, 1)
    w0 = run_delay(sw.pid) + run_delay(child.pid)
    sends(a, [a.frame(b.mac, f"h{i}", 1000) for i in range(60)])
    time.sleep(0.3)
    lost, host, recv = lost_split(ctl, 1)
    waited = run_delay(sw.pid) + run_delay(child.pid) - w0
    for h in hogs:
        h.kill()
        h.wait()
    n, err = child.communicate(timeout=30)
    n = n.strip()
    err = err.strip().splitlines()[-4:] if err.strip() else []
    lost, host, recv = lost - l0, host - h0, recv - r0
    check(f"lost split: a starved guest ({ready}, hogs {spinning}) lost "
          f"the line time ({lost / 1e6:.1f} ms, frames that came: {n})",
          lost >= 100e6 and n == "60", f"exit {child.returncode} {err}")
    check(f"lost split: ... which is the host's ({host / 1e6:.1f} ms, "
          f"{recv / 1e6:.1f} ms the receiver's; it waited "
          f"{waited / 1e6:.1f} ms)",
          host >= 0.8 * lost)
    impair_stop(sw, (a, b, c), ctl)


# ---------------------------------------------------------------------
# A port's capture (tools/rocx-switch/capture.c): started and stopped on
# the control socket while the switch runs.

def capture_lines(ctl, sel=""):
    """{port: {key: value}} of `capture list`; why= holds blanks."""
    res = {}
    for line in ctl(f"capture list {sel}".strip()):
        head, _, why = line.partition(" why=")
        kv = dict(w.split("=", 1) for w in head.split())
        if why:
            kv["why"] = why
        res[int(kv["port"])] = kv
    return res


def capture_port(exe, sockdir, log, work):
    """Port 1's capture from the middle of a run: exactly the frames port
    1 received (dropped ones too) and was sent, byte for byte, none of
    the other ports', none from before it started or after it stopped."""
    sw, (a, b, c), ctl = impair_start(exe, sockdir, log)
    path = f"{work}/port1.pcap"
    before = a.send(b.mac, "before-capture")
    q = until_sentinel(a, (a, b, c))
    check("capture: a frame before the capture reaches B",
          q[1] is not None and before in q[1], qtags(q))

    t0 = int(time.time())
    out = ctl(f"capture port=1 file={path}")
    check("capture: start answers its line",
          out == [f"port=1 file={path} state=running frames=0 bytes=0 "
                  "errors=0"], out)
    want = []

    def sentinel(g):
        """The broadcast until_sentinel() just had g send."""
        return g.frame(BCAST, f"sentinel-{_sentinels}")
    # Egress to B: unicast from A, then a broadcast from C; each
    # sentinel is a broadcast B gets too.
    sent = [a.send(b.mac, f"ab-{i}", size=60 + 100 * i) for i in range(4)]
    q = until_sentinel(a, (a, b, c))
    check("capture: B got A's frames", q[1] == sent, qtags(q))
    want += sent + [sentinel(a)]
    sent = [c.send(BCAST, "bcast-c")]
    q = until_sentinel(c, (a, b, c))
    check("capture: B got C's broadcast", q[1] == sent, qtags(q))
    want += sent + [sentinel(c)]
    # Ingress from B, its sentinel too.  A frame for a MAC behind its own
    # port is dropped (filtered), but it entered the pipeline at port 1.
    ingress = [b.send(a.mac, f"ba-{i}", size=64 + 50 * i) for i in range(3)]
    ingress.append(b.send(b.mac, "to-itself"))
    q = until_sentinel(b, (a, b, c))
    check("capture: A got B's frames, the filtered one not",
          q[0] == ingress[:3] and q[2] == [], qtags(q))
    want += ingress + [sentinel(b)]
    # Unrelated: A <-> C, unicast, never through port 1.
    ca = c.send(a.mac, "ca")
    ac = a.send(c.mac, "ac")
    check("capture: A <-> C go on", a.recv() == [ca] and c.recv() == [ac])
    # Lost at port 1's egress (A's frame and A's sentinel): past the
    # capture point's impairments, the guest never gets them, so the
    # capture does not either.
    ctl("impair port=1 dir=egress loss=100%")
    a.send(b.mac, "lost-at-egress")
    q = until_sentinel(a, (a, c))
    ctl("impair port=1 dir=egress loss=0%")
    check("capture: the frame lost at B's egress reaches nobody",
          q[2] is not None and q[2] == [], qtags(q))
    got_b = b.recv(0.2)
    check("capture: ... not B either", got_b == [], tags(got_b))
    listed = capture_lines(ctl)
    check("capture: list counts what it wrote",
          list(listed) == [1] and
          listed[1]["frames"] == str(len(want)) and
          listed[1]["bytes"] == str(sum(len(f) for f in want)) and
          listed[1]["state"] == "running", listed)
    out = ctl("capture stop port=1")
    check("capture: stop answers the last counters",
          out == [f"port=1 file={path} state=stopped frames={len(want)} "
                  f"bytes={sum(len(f) for f in want)} errors=0"], out)
    check("capture: none listed after stop", capture_lines(ctl) == {})
    size = os.path.getsize(path)
    a.send(b.mac, "after-stop")
    b.recv(0.2)
    check("capture: nothing written after stop",
          os.path.getsize(path) == size)

    hdr, recs, whole = read_pcap(path)
    check("capture: pcap header", hdr == (0xA1B2C3D4, 2, 4, MAX_FRAME, 1),
          hdr)
    frames = [r[2] for r in recs]
    check("capture: exactly port 1's frames, both ways, in order, byte "
          "for byte", whole and frames == want,
          f"got {tags(frames)} want {tags(want)}")
    check("capture: full lengths, stamps from its start, in order",
          all(r[3] == len(r[2]) for r in recs) and
          all(r[0] >= t0 for r in recs) and
          [(r[0], r[1]) for r in recs] == sorted((r[0], r[1])
                                                  for r in recs))
    impair_stop(sw, gs=(a, b, c), ctl=ctl)


def capture_errors(exe, sockdir, log, work):
    """Every bad request is refused with its reason and starts nothing;
    at most SW_MAX_CAPTURES at once; --pcap's file is not a port's."""
    log.seek(0)
    log.truncate()
    allp = f"{work}/all.pcap"
    sw = start_switch(exe, sockdir, ["--ports", "10", "--pcap", allp], log)
    ctl = swctl.SwitchCtl(f"{sockdir}/ctl.sock")
    open(f"{work}/plain", "w").close()
    p0 = f"{work}/c0.pcap"
    ctl(f"capture port=0 file={p0}")
    bad = [
        (f"capture port=10 file={work}/x.pcap", "ports 0..9"),
        (f"capture port=x file={work}/x.pcap", "not a port number"),
        (f"capture port=1,2 file={work}/x.pcap", "one port at a time"),
        (f"capture port=all file={work}/x.pcap", "one port at a time"),
        (f"capture file={work}/x.pcap", "give port=N"),
        ("capture port=1 file=x.pcap", "give an absolute path"),
        (f"capture port=1 file={work}/no-dir/x.pcap",
         "No such file or directory"),
        (f"capture port=1 file={work}/plain/x.pcap", "Not a directory"),
        (f"capture port=1 file={work}", "not a regular file"),
        ("capture port=1 file=/dev/null", "not a regular file"),
        (f"capture port=0 file={work}/x.pcap", "port 0 is captured already"),
        (f"capture port=1 file={p0}", "another capture writes it"),
        (f"capture port=1 file={allp}", "another capture writes it"),
        ("capture stop port=1", "port 1 has no capture to stop"),
        ("capture stop", "give port=N"),
        (f"capture port=1 file={work}/x.pcap stop", "give one of"),
        ("capture port=1 now", "unknown word 'now'"),
        ("capture port=1 fil=/x", "unknown key 'fil'"),
    ]
    wrong = []
    for cmd, want in bad:
        ok, out, err = ctl.request(cmd)
        if ok or want not in (err or ""):
            wrong.append(f"{cmd!r}: {'ok' if ok else err}")
    check(f"capture: {len(bad)} bad requests each answer a clear error",
          not wrong, "; ".join(wrong))
    check("capture: ... and start nothing",
          list(capture_lines(ctl)) == [0] and
          not os.path.exists(f"{work}/x.pcap"), capture_lines(ctl))
    for i in range(1, 8):
        ctl(f"capture port={i} file={work}/c{i}.pcap")
    ok, out, err = ctl.request(f"capture port=8 file={work}/c8.pcap")
    check("capture: a ninth capture is refused",
          not ok and "8 captures run already" in (err or "") and
          not os.path.exists(f"{work}/c8.pcap"), err)
    check("capture: eight listed, each its own file",
          sorted(capture_lines(ctl)) == list(range(8)) and
          len({v["file"] for v in capture_lines(ctl).values()}) == 8)
    ctl("capture stop port=3")
    ok, out, err = ctl.request(f"capture port=8 file={work}/c8.pcap")
    check("capture: one stopped makes room for another", ok, err)
    check("capture: list port=8 shows only port 8's",
          list(capture_lines(ctl, "port=8")) == [8])
    ctl.close()
    stop_switch(sw)
    _, recs, whole = read_pcap(allp)
    check("capture: --pcap's file is still a pcap", whole)


def capture_failure(exe, sockdir, log, work):
    """A capture whose file fails (here the switch's file size limit)
    stops itself, says why, and forwarding goes on."""
    import resource
    log.seek(0)
    log.truncate()
    limit = 32 << 10

    def fsize():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    pidfile = f"{sockdir}/switch.pid"
    sw = subprocess.Popen([exe, "--dir", sockdir, "--ports", "3",
                           "--pidfile", pidfile], stdout=log, stderr=log,
                          preexec_fn=fsize)
    deadline = time.time() + 5
    while not os.path.exists(pidfile):
        if time.time() > deadline or sw.poll() is not None:
            raise SystemExit("switch did not start")
        time.sleep(0.01)
    gs = [Guest(sockdir, i) for i in range(3)]
    a, b, c = gs
    for g in gs:
        g.send(BCAST, f"hello-{g.idx}")
    for g in gs:
        g.recv(0.1)
    ctl = swctl.SwitchCtl(f"{sockdir}/ctl.sock")
    path = f"{work}/big.pcap"
    ctl(f"capture port=1 file={path}")
    n = 0
    for chunk in range(8):
        sent = [a.send(b.mac, f"big-{chunk}-{i}", size=1000)
                for i in range(10)]
        n += len(sent)
        got = b.recv(0.2)
        if got != sent:
            break
    check("capture: forwarding goes on past the file's failure",
          n == 80 and got == sent, f"{n} sent, {len(got)} got")
    cap = capture_lines(ctl).get(1, {})
    check("capture: the failed capture is listed with its reason",
          cap.get("state") == "failed" and cap.get("errors") == "1" and
          cap.get("why") == "File too large", cap)
    check("capture: ... and the switch said so",
          f"pcap {path}: File too large; capture stopped" in
          open(log.name).read())
    check("capture: the file stops at the limit",
          os.path.getsize(path) <= limit)
    out = ctl("capture stop port=1")
    check("capture: stopping it answers its error",
          len(out) == 1 and "state=failed" in out[0] and
          out[0].endswith("why=File too large"), out)
    ok, _, err = ctl.request(f"capture port=1 file={work}/again.pcap")
    check("capture: the port can be captured again", ok, err)
    ctl("capture stop port=1")
    impair_stop(sw, gs, ctl)


def capture_channel(exe, sockdir, log, work):
    """A rocx NIC's port: the frames of its bundles, one record each,
    both ways."""
    fresh_log(log)
    sw = start_switch(exe, sockdir, ["--ports", "2"], log)
    a = chanpeer.Chan(sockdir, 0)
    a.hello(None)
    g = Guest(sockdir, 1)
    ctl = swctl.SwitchCtl(f"{sockdir}/ctl.sock")
    path = f"{work}/chan.pcap"
    ctl(f"capture port=0 file={path}")
    sent = [chframe(a.mac, f"c{i}", 64 + 300 * i) for i in range(3)]
    a.frames_untimed(sent[:1])
    a.frames_untimed(sent[1:])
    got = g.recv()
    back = [g.send(a.mac, f"back{i}", size=100 + i) for i in range(4)]
    a.until(lambda c: len(c.frames) >= 4)
    out = ctl("capture stop port=0")
    _, recs, whole = read_pcap(path)
    check("capture: a channel port's frames, bundles split, both ways",
          got == sent and [f for _, f in a.frames] == back and whole and
          [r[2] for r in recs] == sent + back,
          f"{tags([r[2] for r in recs])} {out}")
    ctl.close()
    a.close()
    g.close()
    stop_switch(sw)


def captures(exe, sockdir, log, work):
    capture_port(exe, sockdir, log, work)
    capture_channel(exe, sockdir, log, work)
    capture_errors(exe, sockdir, log, work)
    capture_failure(exe, sockdir, log, work)


def lossless(exe, sockdir, log, work):
    qos_defaults(exe, sockdir, log)
    qos_rate(exe, sockdir, log)
    qos_backlog(exe, sockdir, log)
    qos_lost_split(exe, sockdir, log)
    qos_pfc_rx(exe, sockdir, log)
    qos_pfc_tx(exe, sockdir, log)
    qos_buffer(exe, sockdir, log)
    qos_headroom(exe, sockdir, log)
    qos_headroom_returned(exe, sockdir, log)
    qos_ets(exe, sockdir, log)
    qos_red(exe, sockdir, log)
    qos_trust(exe, sockdir, log)
    qos_series(exe, sockdir, log, work)


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
    q = until_sentinel(a, (a, b, c))
    forwarded += 1
    check("no reflection to ingress A (before A's sentinel reached B, C)",
          q == {0: [], 1: [], 2: []}, qtags(q))

    # Learning: A was learned above; B -> A is now known unicast.
    b.send(a.mac, "ba")
    forwarded += 1
    q = until_sentinel(b, (a, b, c))
    forwarded += 1
    check("learned: B->A reaches A", q[0] is not None and
          tags(q[0]) == ["ba"])
    check("learned: B->A not flooded to C (before B's sentinel)",
          q[2] == [] and q[1] == [], qtags(q))
    a.send(b.mac, "ab")
    forwarded += 1
    q = until_sentinel(a, (a, b, c))
    forwarded += 1
    check("learned: A->B reaches B only (before A's sentinel)",
          q[1] is not None and tags(q[1]) == ["ab"] and q[2] == [] and
          q[0] == [], qtags(q))

    # A frame for a MAC behind its own ingress port is filtered, not sent back.
    a.send(a.mac, "self", src=mac(7))
    q = until_sentinel(a, (a, b, c))
    forwarded += 1
    check("frame to a MAC on the ingress port goes nowhere (before A's "
          "sentinel)", q == {0: [], 1: [], 2: []}, qtags(q))
    # The spoofed source 02:..:17 now lives on port 0; B's frame to it goes
    # to A alone.
    b.send(mac(7), "to-moved")
    forwarded += 1
    q = until_sentinel(b, (a, b, c))
    forwarded += 1
    check("station learned from any source (C has nothing before B's "
          "sentinel)", q[0] is not None and tags(q[0]) == ["to-moved"]
          and q[2] == [], qtags(q))

    # Malformed and oversize frames are dropped and counted.
    a.send_raw(b"\x01" * 13)
    a.send_raw(b"")
    big = a.frame(b.mac, "jumbo", MAX_FRAME)
    a.send_raw(big)
    forwarded += 1
    a.send_raw(a.frame(b.mac, "toobig", MAX_FRAME + 1))
    q = until_sentinel(a, (b, c))
    forwarded += 1
    got = q[1] or []
    check("jumbo 9216-byte frame forwarded intact",
          len(got) == 1 and got[0] == big, f"got {[len(x) for x in got]}")
    check("runt and oversize frames dropped (before A's sentinel)",
          q[2] == [], qtags(q))

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
    # C comes back on the same path (a restarted QEMU).  Until the switch
    # lets go of the old socket the kernel refuses C's frames (EPERM);
    # the directory's watch makes that a moment, not the second's timer.
    c.open()
    t0 = time.monotonic()
    while True:
        try:
            c.s.sendto(c.frame(a.mac, "c-back"), c.sw)
            break
        except PermissionError:
            if time.monotonic() - t0 > 5:
                break
            time.sleep(0.001)
    refused = time.monotonic() - t0
    check(f"a restarted guest may send within 0.1 s ({refused:.3f} s)",
          refused < 0.1)
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
    # B's two frames and its two sentinels.
    check("counters: B rx bytes", p1.get("rx_bytes") == str(64 * 4),
          p1.get("rx_bytes"))

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
    fresh = until_sentinel(a, (b, c))[c.idx] == []
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
    multicast_groups(exe, sockdir, log)
    impairments(exe, sockdir, log)
    lossless(exe, sockdir, log, work)
    captures(exe, sockdir, log, work)
    channel(exe, sockdir, log, work)

    print(f"switch: {passed} passed, {failed} failed")
    return 1 if failed else 0



# ---------------------------------------------------------------------
# The fabric channel and timed mode (Documentation/rocx-device.rst,
# "Fabric channel", "Timed mode"; Documentation/rocx-switch.rst, "Timed
# mode").  Peers are chanpeer.Chan: SOCK_SEQPACKET ends of DIR/chK.sock.

def ser_ns(nbytes, mbps):
    """Serialisation of a frame at mbps, rounded up to a whole ns."""
    bits = (nbytes + 20) * 8
    rate = int(mbps * 1e6)
    return (bits * 10**9 + rate - 1) // rate


# A promise of forever, as the switch sends it: the NICs keep time in an
# int64.
FOREVER = 2**63 - 1
# A timed switch's rate for a port without one (--rate's default), Mb/s.
DEF_RATE = 25000


def chframe(src_mac, tag, size=1000, dst=BCAST):
    return (dst + src_mac + struct.pack("!H", ETH_TEST) +
            tag.encode()).ljust(size, b"\0")


def chtags(frames):
    return [f[14:].rstrip(b"\0").decode(errors="replace") for _, f in frames]


def switch_stats(sw, log):
    stop_switch(sw)
    log.seek(0)
    return parse_stats(log.read())


def fresh_log(log):
    log.seek(0)
    log.truncate()


def timed_delivery(exe, sockdir, log):
    """Join, promises on an idle link, delivery at stamp + L + serialisation,
    the hold of a peer that stops promising, and BYE."""
    L, E = 1000, 5000
    fresh_log(log)
    sw = start_switch(exe, sockdir, [
        "--ports", "2", "--timed", "--latency", str(L), "--rate", "10000",
        "--epoch", str(E), "--qos", "port=1 rate=1000"], log)
    a, b = chanpeer.Chan(sockdir, 0), chanpeer.Chan(sockdir, 1)
    ack_a, ack_b = a.hello(1000), b.hello(7000)
    check("timed: HELLO_ACK timed, epoch max(NIC, --epoch), latency",
          ack_a == (fabric.F_TIMED, E, L) and ack_b == (fabric.F_TIMED,
                                                        7000, L),
          f"{ack_a} {ack_b}")
    # A promised 5000 by joining, B 7000.  What the switch can send A is
    # what arrives from B, from 7000 + L, and a frame takes at least a
    # 14-byte serialisation: it promises A 8028 (6028 while B had not
    # joined yet).  B's bound, 5000 + L + 28, is below B's epoch.
    m0 = ser_ns(14, 10000)
    a.until(lambda c: c.syncs and c.syncs[-1] >= 7000 + L + m0)
    b.drain(0.2)
    check("timed: idle link: the switch promises the other ports' horizon "
          "plus a serialisation",
          a.syncs[-1] == 7000 + L + m0 and
          set(a.syncs) <= {E + L + m0, 7000 + L + m0} and b.syncs == [],
          f"{a.syncs} {b.syncs}")
    # Two 1000-byte frames from A, clocked out at 10 Gb/s, to port 1 at
    # 1 Gb/s: they arrive at stamp + L and leave one serialisation apart.
    s1, s2 = 8000, 8000 + ser_ns(1000, 10000)
    a.bundle([(s1, chframe(a.mac, "t1")), (s2, chframe(a.mac, "t2"))])
    a.sync(100000)
    b.sync(100000)
    d1 = s1 + L + ser_ns(1000, 1000)
    d2 = max(d1, s2 + L) + ser_ns(1000, 1000)
    b.until(lambda c: len(c.frames) >= 2 and c.syncs and
            c.syncs[-1] >= 100000 + L)
    got = [(s, t) for (s, _), t in zip(b.frames, chtags(b.frames))]
    check("timed: delivery at stamp + L + serialisation, to the ns",
          got == [(d1, "t1"), (d2, "t2")], f"{got} want {d1} {d2}")
    m1 = ser_ns(14, 1000)
    check("timed: then A's horizon plus a serialisation promised to B",
          b.syncs[-1] == 100000 + L + m1 and sorted(b.syncs) == b.syncs,
          f"{b.syncs}")
    # A stops promising after a burst of 20: the switch may run up to
    # A's last stamp + L and no further, however far B promises.
    b.sync(10**9)
    base = 100000
    gap = ser_ns(1000, 10000)
    burst = [(base + k * gap, chframe(a.mac, f"h{k}")) for k in range(20)]
    a.bundle(burst)
    hold = burst[-1][0] + L
    n0 = len(b.frames)
    b.until(lambda c: c.syncs and c.syncs[-1] >= hold, 1.0)
    b.drain(0.5)
    held = b.frames[n0:]
    # Arrivals from base + L, one every gap; port 1 sends one every
    # ser_ns(1000, 1000), starting when the first arrives.
    deps = [base + L + (k + 1) * ser_ns(1000, 1000) for k in range(20)]
    check("timed: held at a silent peer's promise + L",
          [s for s, _ in held] == [d for d in deps if d < hold] and
          b.syncs[-1] == hold + m1 and max(b.syncs) == hold + m1,
          f"frames {[s for s, _ in held]} syncs {b.syncs[-3:]} hold {hold}")
    a.sync(10**9)
    b.until(lambda c: len(c.frames) >= n0 + 20)
    check("timed: released by the next promise, every departure exact",
          [s for s, _ in b.frames[n0:]] == deps and
          chtags(b.frames[n0:]) == [f"h{k}" for k in range(20)],
          f"{[s for s, _ in b.frames[n0:]][:4]}")
    # BYE: A promises forever; B has no PFC, so nothing can reach B any
    # more, and the switch promises it forever (INT64_MAX).
    a.bye()
    b.sync(2 * 10**9)
    b.until(lambda c: c.syncs[-1] >= FOREVER)
    check("timed: BYE releases the switch", b.syncs[-1] == FOREVER,
          f"{b.syncs[-2:]}")
    check("timed: no stamp below a promise, no promise going back",
          not a.below and not b.below, f"{a.below} {b.below}")
    b.close()
    a.close()
    st = switch_stats(sw, log)
    p0, p1 = st.get(0, {}), st.get(1, {})
    check("timed: counters", p0.get("rx_frames") == "22" and
          p1.get("tx_frames") == "22" and p0.get("ch") == "left" and
          p0.get("rx_fab_err") == "0", f"{p0.get('rx_frames')} "
          f"{p1.get('tx_frames')} {p0.get('ch')}")


def timed_leave_eof(exe, sockdir, log):
    """End of file releases the switch as BYE does; unjoined ports hold it
    at --epoch + L."""
    L = 2000
    fresh_log(log)
    sw = start_switch(exe, sockdir, ["--ports", "3", "--timed",
                                     "--latency", str(L)], log)
    a, b = chanpeer.Chan(sockdir, 0), chanpeer.Chan(sockdir, 1)
    a.hello(0)
    b.hello(0)
    a.sync(50000)
    b.sync(50000)
    b.drain(0.3)
    m = ser_ns(14, DEF_RATE)
    check("timed: a port not joined holds the switch at --epoch + L",
          max(b.syncs, default=0) == L + m, f"{b.syncs}")
    c = chanpeer.Chan(sockdir, 2)
    c.hello(0)
    a.close()
    c.close()
    b.sync(80000)
    b.until(lambda x: x.syncs and x.syncs[-1] == FOREVER)
    check("timed: end of file releases the switch",
          b.syncs[-1] == FOREVER, f"{b.syncs[-3:]}")
    b.close()
    stop_switch(sw)


def timed_refusals(exe, sockdir, log):
    fresh_log(log)
    sw = start_switch(exe, sockdir, ["--ports", "2", "--timed"], log)
    a = chanpeer.Chan(sockdir, 0)
    ack = a.hello(None)
    a.recv_raw(1.0)
    check("timed switch refuses an untimed HELLO, then closes",
          ack is not None and ack[0] & fabric.F_REFUSED and a.eof, f"{ack}")
    a.close()
    # A second connection on a port: closed at once.
    a = chanpeer.Chan(sockdir, 0)
    a.hello(0)
    a2 = chanpeer.Chan(sockdir, 0)
    a2.recv_raw(1.0)
    check("a second connection on a port is closed", a2.eof)
    a2.close()
    # Datagrams to a timed switch carry no time: dropped and counted.
    g = Guest(sockdir, 1)
    g.send(BCAST, "untimed")
    time.sleep(0.2)
    # A stamp going back in time is a protocol error: the link closes.
    a.sync(10000)
    a.sync(9999)
    a.recv_raw(1.0)
    a.drain(0.2)
    check("timed: a promise going back closes the link", a.eof)
    a.close()
    g.close()
    st = switch_stats(sw, log)
    log.seek(0)
    text = log.read()
    check("timed: refusals, dgram drops and the error counted",
          st[0].get("ch_refused") == "2" and st[0].get("rx_fab_err") == "1"
          and st[1].get("rx_dgram_timed") == "1" and
          "dropping datagrams" in text, f"{st[0]} {st[1]}")

    fresh_log(log)
    sw = start_switch(exe, sockdir, ["--ports", "1"], log)
    a = chanpeer.Chan(sockdir, 0)
    ack = a.hello(0)
    a.recv_raw(1.0)
    check("untimed switch refuses a timed HELLO, then closes",
          ack is not None and ack[0] & fabric.F_REFUSED and a.eof, f"{ack}")
    a.close()
    stop_switch(sw)


def channel_untimed(exe, sockdir, log):
    """An untimed channel port forwards like a dgram port, both ways."""
    fresh_log(log)
    sw = start_switch(exe, sockdir, ["--ports", "2"], log)
    a = chanpeer.Chan(sockdir, 0)
    ack = a.hello(None)
    check("untimed channel: HELLO_ACK without TIMED, RINGS as offered",
          ack is not None and ack[0] == 0 and a.ack_flags ==
          (fabric.F_RINGS if chanpeer.RINGS else 0), f"{ack} {a.ack_flags}")
    g = Guest(sockdir, 1)
    a.frames_untimed([chframe(a.mac, "c1", 64)])
    a.frames_untimed([chframe(a.mac, "c2", 64), chframe(a.mac, "c3", 64)])
    got = tags(g.recv())
    check("untimed channel: bundles of one and two reach a dgram port",
          got == ["c1", "c2", "c3"], f"{got}")
    for i in range(5):
        g.send(a.mac, f"back{i}")
    a.until(lambda c: len(c.frames) >= 5)
    check("untimed channel: a dgram port's frames come back in BUNDLEs",
          chtags(a.frames) == [f"back{i}" for i in range(5)] and
          all(s is None for s, _ in a.frames), f"{chtags(a.frames)}")
    # Damage closes the link and counts.
    bad = bytearray(fabric.header(fabric.BUNDLE, 1) + fabric.entries(
        [chframe(a.mac, "x", 64)]))
    bad[fabric.FIELDS["magic"][0]] ^= 1
    a.send(bytes(bad))
    a.recv_raw(1.0)
    eof_magic = a.eof
    a.close()
    a = chanpeer.Chan(sockdir, 0)
    a.hello(None)
    a.send(fabric.header(fabric.BUNDLE, 2) +
           fabric.entries([chframe(a.mac, "short", 64)]))
    a.recv_raw(1.0)
    check("untimed channel: a bad magic and a short BUNDLE close the link",
          eof_magic and a.eof)
    a.close()
    g.send(BCAST, "after")
    g.close()
    st = switch_stats(sw, log)
    check("untimed channel: errors counted, nothing of the damage forwarded",
          st[0].get("rx_fab_err") == "2" and st[0].get("rx_frames") == "3",
          f"{st[0].get('rx_fab_err')} {st[0].get('rx_frames')}")


def timed_scenario(exe, sockdir, log, work, run, chunk, extra=False):
    """Two senders into a slower port with RED dropping at random: the
    series, the capture and the delivered stamps of one run.  chunk: how
    many frames a record carries, which must change nothing; extra: B
    sends into A's port, which has RED too, and must not move port 1's
    draws."""
    fresh_log(log)
    series, pcap = f"{work}/ts{run}.json", f"{work}/ts{run}.pcap"
    evlog = f"{work}/ts{run}.events"
    sw = start_switch(exe, sockdir, ["--event-log", evlog,
        "--ports", "3", "--timed", "--latency", "1500", "--rate", "10000",
        "--seed", "7", "--series", series, "--series-interval", "50us",
        "--pcap", pcap, "--qos", "port=0,1 rate=2000 prio=0 kmin=4000 "
        "kmax=40000 pmax=0.2"], log)
    a, b, c = (chanpeer.Chan(sockdir, i) for i in range(3))
    for p in (a, b, c):
        p.hello(0)
    # Known to the switch before the others send: unicast, which RED
    # judges (a flooded frame it leaves alone).
    hello_b = [(1000, chframe(b.mac, "b", 64))]
    if extra:
        hello_b += [(30000 + k * 1000, chframe(b.mac, f"e{k}", dst=a.mac))
                    for k in range(200)]
    for i in range(0, len(hello_b), 50):
        b.bundle(hello_b[i:i + 50])
    b.sync(10**8)
    gap = ser_ns(1000, 10000)
    sends = {a: [(10000 + k * gap, chframe(a.mac, f"a{k}", dst=b.mac))
                 for k in range(300)],
             c: [(10300 + k * gap, chframe(c.mac, f"c{k}", dst=b.mac))
                 for k in range(300)]}
    for p, frames in sends.items():
        for i in range(0, len(frames), chunk):
            p.bundle(frames[i:i + chunk])
            if chunk == 1:
                p.sync(frames[i][0] + 1)
    for p in (a, c):
        p.sync(5 * 10**6)
    b.until(lambda x: x.syncs and x.syncs[-1] >= 5 * 10**6, 10)
    for p in (a, b, c):
        p.close()
    st = switch_stats(sw, log)
    red = (int(st[1]["q_drop"].split(",")[0]) - int(st[1]["tx_qfull"]),
           int(st[0]["q_drop"].split(",")[0]) - int(st[0]["tx_qfull"]))
    with open(series, "rb") as f:
        s = f.read()
    with open(pcap, "rb") as f:
        cap = f.read()
    with open(evlog, "rb") as f:
        ev = f.read()
    return s, cap, [(s, f[14:20]) for s, f in b.frames], b.below, ev, red


def timed_determinism(exe, sockdir, log, work):
    s1, p1, d1, below1, e1, r1 = timed_scenario(exe, sockdir, log, work, 1,
                                                50)
    s2, p2, d2, below2, e2, _ = timed_scenario(exe, sockdir, log, work, 2, 1)
    _, _, d3, _, _, r3 = timed_scenario(exe, sockdir, log, work, 3, 50,
                                        extra=True)
    lines = s1.count(b"\n")
    dropped = 600 - len(d1)
    check("timed: a run's series has a line per 50 virtual us",
          lines == 100, f"{lines}")
    check("timed: RED dropped some, not all", 0 < r1[0] <= dropped < 600,
          f"{r1} {dropped}")
    check("timed: RED draws per port: another port's drops do not move "
          "this one's", r3[1] > 0 and d3 == d1, f"{r1} {r3}")
    check("timed: same seed and inputs, other record boundaries: the same "
          "series, capture and stamps",
          s1 == s2 and p1 == p2 and d1 == d2 and len(d1) > 0,
          f"{len(d1)} {len(d2)} series {s1 == s2} pcap {p1 == p2}")
    arrivals = e1.count(b" arrive ")
    check("timed: the same events in the same order, each frame's arrival "
          "logged", e1 == e2 and arrivals == 601,
          f"{len(e1)} {len(e2)} arrivals {arrivals}")
    check("timed: pcap stamps are virtual",
          struct.unpack_from("<II", p1, 24) == (0, 2500 // 1000),
          f"{struct.unpack_from('<II', p1, 24)}")
    check("timed: busy run never below a promise", not below1 and not below2)


def timed_stall(exe, sockdir, log):
    fresh_log(log)
    sw = start_switch(exe, sockdir, ["--ports", "2", "--timed",
                                     "--stall-ms", "400"], log)
    a = chanpeer.Chan(sockdir, 0)
    a.hello(0)
    # Port 1 is still booting: the switch waits for it, repeating its
    # promise to A, and that is not a stall.
    a.drain(0.2, 0.7)
    alive = sw.poll() is None
    check("timed: waiting on an unjoined port repeats the promise, no stall",
          alive and len(a.syncs) >= 2 and len(set(a.syncs)) == 1,
          f"alive {alive} syncs {a.syncs}")
    b = chanpeer.Chan(sockdir, 1)
    b.hello(0)
    # A talks on (the same promise, again and again); B, which holds the
    # horizon, is silent: that is the stall, and B's link is named.
    end = time.time() + 3
    rc = None
    while time.time() < end and rc is None:
        try:
            a.sync(10**6)
        except OSError:
            pass
        time.sleep(0.05)
        rc = sw.poll()
    if rc is None:
        stop_switch(sw)
    # Meanwhile A, waiting on the switch that B held, heard the same
    # promise again and again: no NIC calls a slow guest's silence the
    # switch's stall; the switch alone judges it.
    a.syncs = []
    a.drain(0.1, 0.3)
    check("timed: a joined link holding the horizon: the others hear the "
          "switch's promise repeated",
          len(a.syncs) >= 2 and len(set(a.syncs)) == 1, f"syncs {a.syncs}")
    log.seek(0)
    text = log.read()
    check("timed: a joined link silent past --stall-ms fails the run, "
          "named, though another talks",
          rc == 1 and "stalled: port 1 holds the horizon" in text and
          "port1 ch=up latency=1000 epoch=0 promise_rx=0 promise_tx="
          f"{10**6 + 1000 + ser_ns(14, DEF_RATE)}" in text, f"rc {rc}")
    a.close()
    b.close()


def timed_stall_before_epoch(exe, sockdir, log):
    """A NIC that joined before the epoch runs towards it with no horizon
    and says nothing until it gets there: however long that takes in wall
    time, the switch waits as for a guest still booting.  Once it has
    promised past the epoch, its silence is a stall again."""
    E = 10**9
    fresh_log(log)
    sw = start_switch(exe, sockdir, ["--ports", "2", "--timed",
                                     "--stall-ms", "400", "--epoch",
                                     str(E)], log)
    a, b = chanpeer.Chan(sockdir, 0), chanpeer.Chan(sockdir, 1)
    a.hello(0)
    b.hello(5)
    a.sync(E + 5000)
    end = time.time() + 1.2
    while time.time() < end:
        a.drain(0.1, 0.2)
    alive = sw.poll() is None
    check("timed: a port joined before its epoch and silent since is "
          "booting, not stalled", alive, f"rc {sw.poll()}")
    b.sync(E + 10)
    end = time.time() + 3
    rc = None
    while time.time() < end and rc is None:
        a.drain(0.05, 0.1)
        rc = sw.poll()
    if rc is None:
        stop_switch(sw)
    log.seek(0)
    text = log.read()
    check("timed: once it promised past its epoch, its silence is a stall",
          rc == 1 and "stalled: port 1 holds the horizon" in text, f"rc {rc}")
    a.close()
    b.close()


def pause_ns(quanta, mbps):
    """A PFC pause of quanta at mbps, rounded up to a whole ns."""
    return (quanta * 512 * 1000 + mbps - 1) // mbps


def timed_pfc(exe, sockdir, log):
    """PFC on the virtual clock: a pause takes effect at its arrival and
    lasts its quanta at the port's speed; XOFF and XON leave when the
    ingress bytes cross xoff and xon, serialised like any frame."""
    L = 1000
    fresh_log(log)
    sw = start_switch(exe, sockdir, [
        "--ports", "2", "--timed", "--latency", str(L), "--rate", "10000",
        "--qos", "port=0 rate=1000 prio=0 pfc=on",
        "--qos", "port=1 prio=0 pfc=on xoff=2500 xon=500"], log)
    a, b = chanpeer.Chan(sockdir, 0), chanpeer.Chan(sockdir, 1)
    a.hello(0)
    b.hello(0)
    a.bundle([(10000, pfc_frame(a, {0: 100}))])
    b.bundle([(11500, chframe(b.mac, "p1"))])
    end = 11000 + pause_ns(100, 1000)
    want = end + ser_ns(1000, 1000)
    a.sync(10**6)
    b.sync(10**6)
    a.until(lambda c: c.frames)
    check("timed PFC: a pause holds the port its quanta from its arrival",
          [s for s, _ in a.frames] == [want], f"{a.frames[:1]} want {want}")
    gap = ser_ns(1000, 10000)
    base = 2 * 10**6
    b.bundle([(base + k * gap, chframe(b.mac, f"x{k}")) for k in range(3)])
    b.sync(3 * 10**6)
    a.sync(3 * 10**6)
    b.until(lambda c: len(c.frames) >= 2)
    pfc = [(s, pfc_parse(f)) for s, f in b.frames]
    xoff_t = base + 2 * gap + L + ser_ns(60, 10000)
    deps = [base + L + (k + 1) * ser_ns(1000, 1000) for k in range(3)]
    xon_t = deps[2] + ser_ns(60, 10000)
    check("timed PFC: XOFF at the frame crossing xoff, XON when the last "
          "leaves, each serialised",
          pfc == [(xoff_t, (1, [0xFFFF] + [0] * 7)),
                  (xon_t, (1, [0] * 8))],
          f"{pfc} want {xoff_t} {xon_t}")
    a.until(lambda c: len(c.frames) >= 4)
    check("timed PFC: the frames behind it leave at the egress rate",
          [s for s, _ in a.frames[1:]] == deps, f"{a.frames[1:]}")
    a.close()
    b.close()
    stop_switch(sw)


def timed_bounds(exe, sockdir, log):
    """What a timed switch takes from its control socket and a peer that
    runs too far ahead."""
    fresh_log(log)
    sw = start_switch(exe, sockdir, [
        "--ports", "2", "--timed", "--queue-limit", "16",
        "--qos", "port=1 latency=3us"], log)
    ctl = swctl.SwitchCtl(f"{sockdir}/ctl.sock")
    q = ctl.qshow("port=1")
    ok_lat, _, err_lat = ctl.request("qos port=0 latency=500")
    ok_rate, _, err_rate = ctl.request("qos port=0 rate=0")
    check("timed: per-port latency at start; not while running; no rate 0",
          q[(1, None)].get("latency") == "3000" and not ok_lat and
          not ok_rate, f"{q[(1, None)].get('latency')} {err_lat} {err_rate}")
    a, b = chanpeer.Chan(sockdir, 0), chanpeer.Chan(sockdir, 1)
    a.hello(0)
    ack = b.hello(0)
    # 100 frames far ahead of a switch held at B's promise: 4 queue
    # limits (64) wait, the rest are dropped and counted; the switch
    # keeps serving.
    a.bundle([(10**6 + k, chframe(a.mac, f"f{k}", 64)) for k in range(100)])
    time.sleep(0.2)
    a.sync(2 * 10**6)
    b.sync(2 * 10**6)
    b.until(lambda c: c.syncs and c.syncs[-1] >= 2 * 10**6)
    ctl.close()
    st = switch_stats(sw, log)
    check("timed: HELLO_ACK carries the port's latency", ack[2] == 3000,
          f"{ack}")
    check("timed: a peer's frames ahead of the switch are bounded",
          st[0].get("rx_err") == "36" and
          len(b.frames) + int(st[1].get("tx_qfull", -1)) == 64,
          f"{st[0].get('rx_err')} {len(b.frames)} {st[1].get('tx_qfull')}")
    a.close()
    b.close()


def timed_lookahead(exe, sockdir, log):
    """The switch promises a port what the other ports can cause: an idle
    peer's far promise lets a busy one run far per round trip."""
    L = 1000
    m0 = ser_ns(14, 10000)
    fresh_log(log)
    sw = start_switch(exe, sockdir, [
        "--ports", "2", "--timed", "--latency", str(L), "--rate", "10000"],
        log)
    a, b = chanpeer.Chan(sockdir, 0), chanpeer.Chan(sockdir, 1)
    a.hello(0)
    b.hello(0)
    far = 10**9
    b.sync(far)
    # A runs exactly to its horizon and promises it, as a NIC does.  By
    # the rule A's promise back is B's P + L + m, about 1 s: one round
    # once B's SYNC is in, after at most two on promises from before it
    # (the epoch, and B's epoch + L + m).  A bound of the least horizon
    # over all ports (A's P + L) would take 10 ms / 2 L = 5000 rounds.
    goal, rounds, sent = 10**7, 0, 0
    while sent < goal and rounds < 100:
        if not a.until(lambda c: c.promise is not None and
                       c.promise + L > sent, 2.0):
            break
        sent = a.promise + L
        a.sync(sent)
        rounds += 1
    check("timed: an idle port's far promise: 10 ms of A in at most 3 "
          "rounds (not 5000)", sent >= goal and rounds <= 3,
          f"{rounds} rounds, A at {sent}")
    check("timed: A is promised B's horizon plus a serialisation",
          a.syncs and a.syncs[-1] == far + L + m0, f"{a.syncs[-2:]}")
    b.until(lambda c: c.syncs and c.syncs[-1] == sent + L + m0, 1.0)
    check("timed: B is promised A's horizon plus a serialisation",
          b.syncs and b.syncs[-1] == sent + L + m0,
          f"{b.syncs[-2:]} want {sent + L + m0}")
    # A broadcast from A floods to B only, and a frame A sends to its own
    # address is filtered: nothing comes back out of the port a frame
    # came in on, which is what lets A's promise ignore A's own.
    t0 = sent
    a.bundle([(t0, chframe(a.mac, "bc")),
              (t0 + 1000, chframe(a.mac, "self", dst=a.mac))])
    a.sync(t0 + 10**6)
    b.sync(2 * far)
    b.until(lambda c: c.frames, 1.0)
    a.until(lambda c: c.promise >= 2 * far + L, 1.0)
    a.drain(0.2)
    check("timed: a broadcast reaches B at its stamp + L + serialisation",
          [(s_, t) for (s_, _), t in zip(b.frames, chtags(b.frames))] ==
          [(t0 + L + ser_ns(1000, 10000), "bc")], f"{b.frames[:1]}")
    check("timed: nothing comes back to the port it came in on",
          a.frames == [] and a.syncs[-1] == 2 * far + L + m0,
          f"{len(a.frames)} frames, {a.syncs[-1:]}")
    check("timed lookahead: no stamp below a promise",
          not a.below and not b.below, f"{a.below} {b.below}")
    a.close()
    b.close()
    st = switch_stats(sw, log)
    log.seek(0)
    text = log.read()
    check("timed lookahead: A's frame to itself filtered; none late",
          st[0].get("rx_filtered") == "1" and st[0].get("tx_frames") == "0"
          and " 0 late" in text, f"{st[0].get('rx_filtered')} "
          f"{st[0].get('tx_frames')}")


def timed_idle(exe, sockdir, log):
    """Idle bounds: a quiet switch promises every port the least idle
    bound + L + m; a bound lapses with a frame sent to its port; a frame
    stamped below a bound the switch relied on ends the link."""
    L = 1000
    m0 = ser_ns(14, 10000)
    fresh_log(log)
    sw = start_switch(exe, sockdir, [
        "--ports", "2", "--timed", "--latency", str(L), "--rate", "10000"],
        log)
    a, b = chanpeer.Chan(sockdir, 0), chanpeer.Chan(sockdir, 1)
    a.hello(0)
    b.hello(0)
    # Only A idle: not quiet, B's promise + L + m as without bounds.
    a.sync(5000, idle=10**6)
    b.sync(5000)
    a.until(lambda c: c.syncs and c.syncs[-1] == 5000 + L + m0, 1.0)
    check("timed idle: one idle port alone changes no promise",
          a.syncs and a.syncs[-1] == 5000 + L + m0, f"{a.syncs[-2:]}")
    # Both idle: nothing moves before 1 ms, so both are promised that.
    b.sync(6000, idle=2 * 10**6)
    a.until(lambda c: c.syncs and c.syncs[-1] == 10**6 + L + m0, 1.0)
    b.until(lambda c: c.syncs and c.syncs[-1] == 10**6 + L + m0, 1.0)
    check("timed idle: both idle: each promised the least bound + L + m",
          a.syncs[-1:] == [10**6 + L + m0] and
          b.syncs[-1:] == [10**6 + L + m0],
          f"{a.syncs[-2:]} {b.syncs[-2:]}")
    # B sends at its bound; A promises below the frame's arrival there,
    # so A's bound, made before the frame reached it, does not count.
    t0 = 2 * 10**6
    dep = t0 + L + ser_ns(1000, 10000)
    b.bundle([(t0, chframe(b.mac, "wake"))])
    b.sync(t0 + 5000, idle=5 * 10**6)
    a.sync(t0 + L + 10, idle=3 * 10**6)
    a.until(lambda c: c.frames, 1.0)
    check("timed idle: B's frame at its bound reaches A at stamp + L + "
          "serialisation", [s_ for s_, _ in a.frames] == [dep],
          f"{[s_ for s_, _ in a.frames]} want {dep}")
    b.until(lambda c: c.promise is not None and
            c.promise >= t0 + 2 * L + 10 + m0, 1.0)
    b.drain(0.2)
    check("timed idle: a bound made before a frame reached it is not used",
          b.promise == t0 + 2 * L + 10 + m0, f"{b.syncs[-3:]}")
    a.sync(dep + L + 1, idle=3 * 10**6)
    b.until(lambda c: c.promise == 3 * 10**6 + L + m0, 1.0)
    check("timed idle: made after the frame arrived, it is",
          b.promise == 3 * 10**6 + L + m0, f"{b.syncs[-3:]}")
    # The switch relied on A's bound of 3 ms: a frame below it is an error.
    a.bundle([(dep + L + 2, chframe(a.mac, "early"))])
    a.until(lambda c: c.eof, 1.0)
    check("timed idle: a frame below a bound relied on ends the link",
          a.eof and not b.frames, f"eof={a.eof} {len(b.frames)}")
    check("timed idle: no stamp below a promise",
          not a.below and not b.below, f"{a.below} {b.below}")
    a.close()
    b.close()
    switch_stats(sw, log)
    log.seek(0)
    text = log.read()
    check("timed idle: the switch names the broken idle bound",
          "below the sender's idle bound" in text, text[-300:])


def timed_lookahead_pfc(exe, sockdir, log):
    """A port whose ingress has PFC is still bounded by its own promise,
    and the XOFF and XON its frames cause leave at their instants."""
    L = 1000
    m0 = ser_ns(14, 10000)
    fresh_log(log)
    sw = start_switch(exe, sockdir, [
        "--ports", "2", "--timed", "--latency", str(L), "--rate", "10000",
        "--qos", "port=0 prio=0 pfc=on xoff=2500 xon=500",
        "--qos", "port=1 rate=1000"], log)
    a, b = chanpeer.Chan(sockdir, 0), chanpeer.Chan(sockdir, 1)
    a.hello(0)
    b.hello(0)
    b.sync(10**9)
    a.sync(5000)
    a.until(lambda c: c.syncs and c.syncs[-1] >= 5000 + L + m0, 1.0)
    a.drain(0.2)
    check("timed PFC lookahead: a PFC port is promised its own P + L + m, "
          "not the idle port's 1 s", a.syncs[-1] == 5000 + L + m0,
          f"{a.syncs[-3:]}")
    gap = ser_ns(1000, 10000)
    base = 10000
    a.bundle([(base + k * gap, chframe(a.mac, f"x{k}")) for k in range(3)])
    top = 10**6
    a.sync(top)
    a.until(lambda c: len(c.frames) >= 2, 2.0)
    a.until(lambda c: c.promise is not None and c.promise >= top + L, 1.0)
    pfc = [(s_, pfc_parse(f)) for s_, f in a.frames]
    # B's 1 Gb/s egress holds A's frames: the third crosses xoff at its
    # arrival, the last leaving B brings the ingress to xon.
    xoff_t = base + 2 * gap + L + ser_ns(60, 10000)
    deps = [base + L + (k + 1) * ser_ns(1000, 1000) for k in range(3)]
    xon_t = deps[2] + ser_ns(60, 10000)
    check("timed PFC lookahead: XOFF and XON from A's own frames at their "
          "instants", pfc == [(xoff_t, (1, [0xFFFF] + [0] * 7)),
                              (xon_t, (1, [0] * 8))],
          f"{pfc} want {xoff_t} {xon_t}")
    check("timed PFC lookahead: A's promise never past its own + L + m",
          max(a.syncs) == top + L + m0 and not a.below and not b.below,
          f"{a.syncs[-2:]} {a.below} {b.below}")
    b.until(lambda c: len(c.frames) >= 3, 1.0)
    check("timed PFC lookahead: B gets A's frames at its rate",
          [s_ for s_, _ in b.frames] == deps, f"{b.frames[:1]}")
    a.close()
    b.close()
    stop_switch(sw)
    log.seek(0)
    check("timed PFC lookahead: none late", " 0 late" in log.read())


def timed_late(exe, sockdir, log):
    """A control command outside the promises' reckoning: a rate raised
    after a promise would bring a frame below it; the switch holds the
    frame to the promise and counts it late."""
    L = 1000
    fresh_log(log)
    sw = start_switch(exe, sockdir, [
        "--ports", "2", "--timed", "--latency", str(L), "--rate", "10000",
        "--qos", "port=1 rate=1000"], log)
    ctl = swctl.SwitchCtl(f"{sockdir}/ctl.sock")
    a, b = chanpeer.Chan(sockdir, 0), chanpeer.Chan(sockdir, 1)
    a.hello(0)
    b.hello(0)
    a.sync(5000)
    p = 5000 + L + ser_ns(14, 1000)
    b.until(lambda c: c.syncs and c.syncs[-1] >= p, 1.0)
    ok, _, err = ctl.request("qos port=1 rate=100000")
    # Stamped at A's promise, a 60-byte frame would leave B at 100 Gb/s
    # at 5000 + L + 7, below the promise of 5000 + L + 272.
    a.bundle([(5000, chframe(a.mac, "late", 60))])
    a.sync(10**6)
    b.sync(10**6)
    b.until(lambda c: c.frames, 1.0)
    check("timed: a frame a command brings below a promise leaves at it",
          ok and b.syncs[-1] == p and
          [s_ for s_, _ in b.frames] == [p] and not b.below,
          f"{ok} {err} {b.syncs[-2:]} {b.frames[:1]} want {p}")
    ctl.close()
    a.close()
    b.close()
    stop_switch(sw)
    log.seek(0)
    check("timed: and the exit summary counts it late",
          " 1 late" in log.read())


def timed_impair(exe, sockdir, log):
    """A delay line in virtual ns: a frame delayed at egress is clocked out
    the delay after it arrived."""
    L = 1000
    fresh_log(log)
    sw = start_switch(exe, sockdir, [
        "--ports", "2", "--timed", "--latency", str(L), "--rate", "10000",
        "--seed", "3", "--impair", "port=1 dir=egress delay=5us"], log)
    a, b = chanpeer.Chan(sockdir, 0), chanpeer.Chan(sockdir, 1)
    a.hello(0)
    b.hello(0)
    gap = ser_ns(1000, 10000)
    a.bundle([(4000 + k * gap, chframe(a.mac, f"d{k}")) for k in range(3)])
    a.sync(10**6)
    b.sync(10**6)
    b.until(lambda c: len(c.frames) >= 3)
    want = [4000 + k * gap + L + 5000 + ser_ns(1000, 10000)
            for k in range(3)]
    check("timed: an egress delay of 5 us, in virtual ns",
          [s for s, _ in b.frames] == want, f"{b.frames[:1]} want {want}")
    a.close()
    b.close()
    stop_switch(sw)
    log.seek(0)
    check("timed: the exit summary states the virtual time reached",
          f"timed: {want[-1] / 1e9:.9f} s virtual in " in log.read())


def channel(exe, sockdir, log, work):
    """Every case on the socket, then again with the NICs' records in
    shared-memory rings ("Shared-memory rings"): the records are the
    same, so the switch must behave the same."""
    global prefix
    for with_rings in (False, True):
        chanpeer.RINGS = with_rings
        prefix = "rings: " if with_rings else ""
        channel_untimed(exe, sockdir, log)
        timed_refusals(exe, sockdir, log)
        timed_delivery(exe, sockdir, log)
        timed_leave_eof(exe, sockdir, log)
        timed_pfc(exe, sockdir, log)
        timed_bounds(exe, sockdir, log)
        timed_impair(exe, sockdir, log)
        timed_lookahead(exe, sockdir, log)
        timed_idle(exe, sockdir, log)
        timed_lookahead_pfc(exe, sockdir, log)
        timed_late(exe, sockdir, log)
        timed_determinism(exe, sockdir, log, work)
        timed_stall(exe, sockdir, log)
        timed_stall_before_epoch(exe, sockdir, log)
    chanpeer.RINGS = False
    prefix = ""
    channel_rings(exe, sockdir, log)
    channel_direct(exe, sockdir, log)


class ShortOffer(rings.Rings):
    """An offer that passes its memory and one eventfd only."""

    def fds(self):
        return super().fds()[:2]


def ring_damage(ch, how):
    """Write damage into ring 0 as a broken or hostile NIC could."""
    r = ch.rings
    base, off = r.data(0), r.head % r.size
    if how == "head":
        r.put_raw_head(r.head + 12)
        return
    n = 0 if how == "zero" else r.size
    struct.pack_into("=I", r.m, base + off, n)
    r.put_raw_head(r.head + 8)


def channel_rings(exe, sockdir, log):
    """The rings themselves ("Shared-memory rings"): offers refused for
    what is wrong with them, rings that wrap both ways with every frame in
    order, a full ring that holds the switch's frames rather than losing
    them, and a damaged ring closing the link."""
    fresh_log(log)
    sw = start_switch(exe, sockdir, ["--ports", "2"], log)
    size = rings.F.ROCX_RING_MIN
    offers = [
        ("a bad magic", rings.Rings(magic=0)),
        ("a size not a power of two", rings.Rings(size=3 * 65536)),
        ("memory of another size", rings.Rings(
            map_bytes=rings.CTL + 2 * size + 4096)),
        ("two descriptors", ShortOffer()),
    ]
    nonempty = rings.Rings()
    nonempty.set_u32(rings.head_off(0), 8)
    offers.append(("a ring not empty", nonempty))
    for what, offer in offers:
        a = chanpeer.Chan(sockdir, 0)
        ack = a.hello(None, offer=offer)
        a.recv_raw(1.0)
        check(f"rings: an offer with {what} is refused and the link closed",
              ack is not None and ack[0] & fabric.F_REFUSED and a.eof,
              f"{ack} {a.eof}")
        a.close()

    a = chanpeer.Chan(sockdir, 0, rings_offer=True)
    ack = a.hello(None)
    check("rings: an untimed switch takes a good offer",
          ack == (0, None, None) and a.ack_flags == fabric.F_RINGS and
          a.rings is not None, f"{ack} {a.ack_flags}")
    g = Guest(sockdir, 1)
    got = []
    n = 400
    for i in range(n):
        a.frames_untimed([chframe(a.mac, f"r{i}", 1000)])
        if i % 40 == 39:
            got += g.recv(0.2)
    got += g.recv(0.3)
    check(f"rings: {n} KB through a {size >> 10} KiB ring 0, wrapping, "
          "arrive whole and in order",
          tags(got) == [f"r{i}" for i in range(n)] and
          got[0] == chframe(a.mac, "r0", 1000),
          f"{len(got)} {tags(got)[:3]}")
    m = 300
    for i in range(m):
        g.send(a.mac, f"b{i}", size=1000)
    time.sleep(0.3)
    a.until(lambda c: len(c.frames) >= m, 5.0)
    check(f"rings: {m} KB held for a NIC that does not read: ring 1 fills, "
          "the switch waits for room, nothing is lost or reordered",
          chtags(a.frames) == [f"b{i}" for i in range(m)],
          f"{len(a.frames)} {chtags(a.frames)[:3]}")
    check("rings: the switch wakes a NIC that sleeps", a.rings.kicks > 0,
          f"{a.rings.kicks}")
    a.close()
    got = []
    for how in ("head", "zero", "past"):
        a = chanpeer.Chan(sockdir, 0, rings_offer=True)
        a.hello(None)
        a.frames_untimed([chframe(a.mac, f"ok-{how}", 64)])
        # Taken before the damage: a head that is already wrong spoils
        # the ring as a whole.
        got += tags(g.recv(0.3))
        ring_damage(a, how)
        a.recv_raw(2.0)
        check(f"rings: damage ({how}) closes the link", a.eof)
        a.close()
    g.close()
    st = switch_stats(sw, log)
    check("rings: refusals and damage counted, the frames before the "
          "damage forwarded",
          st[0].get("ch_refused") == "5" and st[0].get("rx_fab_err") == "3"
          and got == ["ok-head", "ok-zero", "ok-past"],
          f"{st[0].get('ch_refused')} {st[0].get('rx_fab_err')} {got}")


def direct_join(a, b, what):
    """Both NICs take DIRECT, answer, and get DIRECT_GO: each writes the
    other's ring 1 from then on.  The direct producers, or None."""
    offers = [c.recv_sock(5.0) for c in (a, b)]
    ok = all(o is not None and o[0] == fabric.DIRECT and len(o[2]) == 2 and
             o[1] == fabric.BUNDLE_MAX for o in offers)
    check(f"direct: {what}: DIRECT to both NICs, with the peer's memory "
          "and eventfd", ok, f"{offers}")
    if not ok:
        return None
    for c in (a, b):
        c.direct_ack()
    gos = [c.recv_sock(2.0) for c in (a, b)]
    check(f"direct: {what}: DIRECT_GO to both once they answered",
          all(g is not None and g[0] == fabric.DIRECT_GO and not g[2]
              for g in gos), f"{gos}")
    # a writes b's ring 1 with b's memory, and the other way round.
    return (rings.Rings.direct(offers[0][2], a.rings),
            rings.Rings.direct(offers[1][2], b.rings))


def direct_end(a, b, what):
    ends = [c.recv_sock(2.0) for c in (a, b)]
    check(f"direct: {what}: DIRECT_END to both NICs",
          all(e is not None and e[0] == fabric.DIRECT_END for e in ends),
          f"{ends}")


def direct_frames(c, src, tag, n, size=1000):
    """n frames written straight into the peer's ring 1, a bundle each."""
    for i in range(n):
        src.put(fabric.header(fabric.BUNDLE, 1, src=c.mac) +
                fabric.entries([chframe(c.mac, f"{tag}{i}", size)]))


def channel_direct(exe, sockdir, log):
    """Direct rings ("Direct rings"): two NICs with rings and nothing set
    between them write each other's ring 1; the switch lends a ring only
    once what it held for it is in, takes it back after DIRECT_END_ACK,
    and nothing is lost or reordered across either change; a setting, a
    third port or a NIC leaving ends it; a wake for room is passed on."""
    fresh_log(log)
    sw = start_switch(exe, sockdir, ["--ports", "3", "--direct"], log)
    ctl = swctl.SwitchCtl(f"{sockdir}/ctl.sock")
    a = chanpeer.Chan(sockdir, 0, rings_offer=True)
    b = chanpeer.Chan(sockdir, 1, rings_offer=True)
    a.hello(None)
    b.hello(None)
    # Through the switch until DIRECT_GO: these come first at b.
    a.frames_untimed([chframe(a.mac, f"s{i}", 1000) for i in range(10)])
    pair = direct_join(a, b, "two NICs")
    if pair is None:
        stop_switch(sw)
        return
    ab, ba = pair
    for k in range(4):
        direct_frames(a, ab, f"d{k}-", 50)
        b.until(lambda c: len(c.frames) >= 60 + 50 * k, 5.0)
    direct_frames(b, ba, "r", 5)
    a.until(lambda c: len(c.frames) >= 5, 5.0)
    check("direct: what came through the switch, then 200 KB straight "
          "into the peer's ring, wrapping, in order",
          chtags(b.frames) == [f"s{i}" for i in range(10)] +
          [f"d{k}-{i}" for k in range(4) for i in range(50)] and
          chtags(a.frames) == [f"r{i}" for i in range(5)],
          f"{chtags(b.frames)[:12]} {chtags(a.frames)}")
    show = ctl("stats")
    st = parse_stats("\n".join(show))
    check("direct: the switch reports both lent, and saw the first 10 only",
          st[0].get("direct") == "lent" and st[1].get("direct") == "lent" and
          st[0].get("direct_go") == "1" and st[0].get("rx_frames") == "10",
          f"{st.get(0)}")

    # A peer that waits for room: b takes a record and wakes the switch,
    # which wakes a.
    pw = rings.pwait_off(1)
    while True:
        try:
            os.eventfd_read(a.rings.nic_wake)
        except BlockingIOError:
            break
    ab.set_u32(pw, 1)
    direct_frames(a, ab, "w", 1)
    ab.set_u32(pw, 1)
    b.until(lambda c: len(c.frames) >= 211, 5.0)
    r, _, _ = select.select([a.rings.nic_wake], [], [], 2.0)
    check("direct: a peer's wake for room reaches the NIC that waits",
          bool(r))
    ab.set_u32(pw, 0)

    # A setting between them ends it; what the NIC wrote before its
    # answer arrives before what it sends through the switch after.
    b.frames.clear()
    ctl("impair port=1 dir=egress delay=1ms")
    direct_end(a, b, "an impairment set")
    direct_frames(a, ab, "e", 3)
    a.direct_end_ack()
    b.direct_end_ack()
    a.frames_untimed([chframe(a.mac, f"f{i}", 1000) for i in range(5)])
    b.until(lambda c: len(c.frames) >= 8, 5.0)
    check("direct: ended by a setting, no frame lost or overtaken",
          chtags(b.frames) == ["e0", "e1", "e2"] +
          [f"f{i}" for i in range(5)], f"{chtags(b.frames)}")
    ab.close()
    ba.close()

    # Cleared: offered again.  A third port ends it.
    ctl("impair port=1 dir=egress clear")
    pair = direct_join(a, b, "the setting cleared")
    if pair is not None:
        ab, ba = pair
        # A guest is seen when it sends: its frame waits in the switch
        # for the rings to come back.
        g = Guest(sockdir, 2)
        g.send(BCAST, "hi")
        direct_end(a, b, "a third port")
        a.frames.clear()
        b.frames.clear()
        a.direct_end_ack()
        b.direct_end_ack()
        ab.close()
        ba.close()
        a.frames_untimed([chframe(a.mac, "three", 100)])
        b.until(lambda c: len(c.frames) >= 2, 3.0)
        a.until(lambda c: len(c.frames) >= 1, 3.0)
        got = tags(g.recv(0.5))
        check("direct: a third port ends it, what it sent meanwhile waits "
              "for the rings, and frames reach everyone again",
              chtags(b.frames) == ["hi", "three"] and
              chtags(a.frames) == ["hi"] and got == ["three"],
              f"{chtags(b.frames)} {chtags(a.frames)} {got}")
        g.close()

    # With the third gone: again.  A NIC that leaves ends its peer's.
    pair = direct_join(a, b, "the third port gone")
    if pair is not None:
        ab, ba = pair
        b.close()
        e = a.recv_sock(2.0)
        check("direct: a NIC that leaves ends its peer's direct writes",
              e is not None and e[0] == fabric.DIRECT_END, f"{e}")
        a.direct_end_ack()
        ab.close()
        ba.close()
    a.close()

    # A NIC that declines is not asked again; one that answers what was
    # not asked loses its link.
    a = chanpeer.Chan(sockdir, 0, rings_offer=True)
    b = chanpeer.Chan(sockdir, 1, rings_offer=True)
    a.hello(None)
    b.hello(None)
    oa, ob = a.recv_sock(2.0), b.recv_sock(2.0)
    a.direct_ack(refused=True)
    b.direct_ack(refused=True)
    again = a.recv_sock(0.5)
    a.frames_untimed([chframe(a.mac, "declined", 100)])
    b.until(lambda c: len(c.frames) >= 1, 3.0)
    check("direct: a NIC that declines is not asked again and its frames "
          "go through the switch",
          oa is not None and ob is not None and again is None and
          chtags(b.frames) == ["declined"], f"{again} {chtags(b.frames)}")
    for fd in (oa or (0, 0, []))[2] + (ob or (0, 0, []))[2]:
        os.close(fd)
    a.direct_ack()
    a.recv_raw(1.0)
    check("direct: a DIRECT_ACK to no DIRECT closes the link", a.eof)
    a.close()
    b.close()
    ctl.close()
    st = switch_stats(sw, log)
    check("direct: lent three times, given back three times, one error",
          st[0].get("direct_go") == "3" and st[0].get("direct_end") == "3"
          and st[0].get("rx_fab_err") == "1",
          f"{st[0].get('direct_go')} {st[0].get('direct_end')} "
          f"{st[0].get('rx_fab_err')}")


if __name__ == "__main__":
    sys.exit(main())
