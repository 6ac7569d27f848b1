#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Retransmissions in a rocx-switch capture, phase by phase.

  roce_retrans.py PCAP CTL_LOG [--clean NAME]...

PCAP is the switch's capture (run-guests --pcap), taken at ingress: it
holds every frame the guests sent, before any egress impairment.  CTL_LOG
is host/switch_ctl.sh's log; the requests "# phase NAME" and "# end NAME"
in it mark each phase's start and end.  In every stream of RC packets
(source, destination, destination QP; requests apart from READ responses,
ACKs left out) a packet whose PSN is not past the highest PSN the stream
sent before is a retransmission: go-back-N resends from the oldest
unacknowledged PSN, and a READ is asked for again from its first missing
response.  Prints each phase's counts as "# " lines; exits 1 unless every
phase resent something, or, for a phase named with --clean, nothing.
"""
import re
import struct
import sys

ROCE_PORT = 4791
READ_RESPONSES = range(0x0d, 0x11)
ACKS = (0x11, 0x12)
PSN_MOD = 1 << 24


def records(path):
    """(time, frame) of each record of a classic pcap file."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack_from("<I", data)[0]
    end = {0xa1b2c3d4: "<", 0xd4c3b2a1: ">"}.get(magic)
    if not end:
        raise SystemExit(f"{path}: not a classic microsecond pcap file")
    off = 24
    while off + 16 <= len(data):
        sec, usec, incl, _ = struct.unpack_from(end + "IIII", data, off)
        yield sec + usec / 1e6, data[off + 16:off + 16 + incl]
        off += 16 + incl


def bth(frame):
    """(src ip, dst ip, opcode, dest QP, PSN) of a RoCE v2 frame, or None."""
    if len(frame) < 14 + 20 + 8 + 12 or frame[12:14] != b"\x08\x00":
        return None
    ip = frame[14:]
    ihl = (ip[0] & 0x0f) * 4
    if ip[0] >> 4 != 4 or ip[9] != 17 or len(ip) < ihl + 8 + 12:
        return None
    if struct.unpack_from("!H", ip, ihl + 2)[0] != ROCE_PORT:
        return None
    b = ip[ihl + 8:]
    return (ip[12:16], ip[16:20], b[0], int.from_bytes(b[5:8], "big"),
            int.from_bytes(b[9:12], "big"))


def phases(log):
    """[(name, start, end)] from the control log's marks."""
    start, out = {}, []
    pat = re.compile(r"^(\d+\.\d+) guest\d+ # (phase|end) (\S+)$")
    with open(log) as f:
        for line in f:
            m = pat.match(line.rstrip("\n"))
            if not m:
                continue
            t, what, name = float(m.group(1)), m.group(2), m.group(3)
            if what == "phase":
                start[name] = t
            elif name in start:
                out.append((name, start.pop(name), t))
    return out


def main():
    args = sys.argv[1:]
    clean = set()
    while "--clean" in args:
        i = args.index("--clean")
        clean.add(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        raise SystemExit(__doc__)
    windows = phases(args[1])
    if not windows:
        print("# no phases marked in " + args[1])
        return 1
    count = {name: [0, 0, 0] for name, _, _ in windows}
    high = {}
    for t, frame in records(args[0]):
        h = bth(frame)
        if not h:
            continue
        src, dst, op, qp, psn = h
        name = next((n for n, s, e in windows if s <= t <= e), None)
        if name:
            count[name][0] += 1
        if op in ACKS:
            continue
        resp = op in READ_RESPONSES
        key = (src, dst, qp, resp)
        last = high.get(key)
        if last is not None:
            diff = (psn - last + PSN_MOD // 2) % PSN_MOD - PSN_MOD // 2
            if diff <= 0:
                if name:
                    count[name][2 if resp else 1] += 1
                continue
        high[key] = psn
    fail = False
    for name, s, e in windows:
        n, req, rsp = count[name]
        want_none = name in clean
        bad = (req + rsp > 0) if want_none else (req + rsp == 0)
        fail |= bad
        note = " (want none)" if want_none else ""
        print(f"# phase {name} ({e - s:.1f} s): {n} RoCE frames; resent "
              f"{req} requests and {rsp} READ responses{note}"
              f"{'  <- FAIL' if bad else ''}")
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
