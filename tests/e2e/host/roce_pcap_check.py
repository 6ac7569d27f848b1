#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks of the RoCE v2 frames in a rocx-switch capture (run-guests --pcap).

  roce_pcap_check.py decode PCAP         tshark decodes every frame to UDP
                                         4791 as InfiniBand with a BTH: no
                                         malformed or warned frame, BTH
                                         version 0, default P_Key 0xffff,
                                         over IPv4 or IPv6
  roce_pcap_check.py icrc PCAP           every RoCE v2 frame's IPv4 header
                                         checksum, IP/UDP lengths, pad count
                                         and ICRC are right, over IPv4 and
                                         IPv6 (computed here: tshark 4.0
                                         shows the ICRC field but does not
                                         check it)
  roce_pcap_check.py icrc6 PCAP          the same, and there are frames over
                                         IPv6
  roce_pcap_check.py qpn PCAP FILE...    the BTH destination QP of every
                                         frame is a QPN its destination IP
                                         reported (FILE: "IP QPN" lines) and
                                         every reported QPN received frames;
                                         only frames before the first mark
                                         (a UDP datagram to port 9 starting
                                         "rocx-pcap-mark"), if there is one
  roce_pcap_check.py opcodes PCAP IP...  each IP sent RC SEND, RDMA WRITE and
                                         RDMA READ requests of several
                                         packets, READ responses and ACKs
  roce_pcap_check.py v1 PCAP cm|rc|data  RoCE v1 frames (EtherType 0x8915,
                                         a GRH) decode cleanly; cm: they
                                         are ib_cm REQs to QP1 only, sent
                                         more than once (a peer that never
                                         answers); rc: ib_cm's REQ, REP and
                                         RTU and RC traffic to other QPs;
                                         data: traffic to QPs other than
                                         QP1

Prints what it found as "# " lines and exits 1 when a check fails.

A group runs several of these checks on one capture, which can hold most
of a million frames: the first reads it once, tshark dissecting every
RoCE frame for all the checks' fields and the ICRCs computed here, and
keeps what every check needs to know, a few kilobytes, beside it
(PCAP.digest); the others read that while the capture's size and time
stay the same.
"""
import json
import os
import struct
import subprocess
import sys
import zlib

ROCE_PORT = 4791
MARK = "udp.dstport == 9 && udp.payload[0:14] == 72:6f:63:78:2d:70:63:61:70:2d:6d:61:72:6b"
# RC opcodes (IBTA vol. 1, 9.2): what every side of tests/e2e/guest/rxe.sh
# sends, multi-packet messages at path MTU 1024.
RC_OPS = {
    0x00: "SEND First", 0x01: "SEND Middle", 0x02: "SEND Last",
    0x06: "RDMA WRITE First", 0x07: "RDMA WRITE Middle",
    0x08: "RDMA WRITE Last", 0x0c: "RDMA READ Request",
    0x0d: "RDMA READ Response First", 0x0e: "RDMA READ Response Middle",
    0x0f: "RDMA READ Response Last", 0x11: "Acknowledge",
}
MAX_SHOWN = 5
ZERO_UDP_CSUM = "Illegal checksum value (0)"
# Expert severities (Wireshark epan/proto.h): PI_WARN and above fail.
PI_WARN = 0x00600000
ETH_P_IPV6 = b"\x86\xdd"
# ib_cm's MADs (IBTA vol. 1, 12.6): management class and attribute IDs.
CM_CLASS = 0x07
CM_ATTRS = {0x0010: "REQ", 0x0013: "REP", 0x0014: "RTU", 0x0012: "REJ",
            0x0015: "DREQ", 0x0016: "DREP"}


def say(msg):
    print("# " + msg)


def tshark_rows(pcap, filt, fields):
    """Rows of FIELDS of the frames that match FILT, as tshark prints
    them (a field that occurs more than once: values joined by commas),
    read as they come."""
    # RPC-over-RDMA's heuristic takes some payloads for its own and then
    # calls them malformed: our payloads are perftest's random bytes.  So
    # does XNS IDP, which the InfiniBand dissector hands a payload that
    # starts like EtherType 0x0600 with two zero bytes after it.
    cmd = ["tshark", "-n", "-r", pcap, "--disable-protocol", "rpcordma",
           "--disable-protocol", "idp",
           "-Y", filt, "-T", "fields", "-E", "separator=\t"]
    for f in fields:
        cmd += ["-e", f]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as proc:
        for line in proc.stdout:
            line = line.rstrip("\n")
            if line:
                r = line.split("\t")
                yield r + [""] * (len(fields) - len(r))
        err = proc.stderr.read()
    if proc.returncode != 0:
        raise SystemExit("tshark failed: " + err.strip())


# What the checks read of a frame, in one tshark pass over the RoCE v2
# frames, the RoCE v1 frames and the marks.
FIELDS = ["frame.number", "frame.protocols", "_ws.expert.severity",
          "_ws.expert.message", "infiniband.bth.tver", "infiniband.bth.p_key",
          "ip.src", "ip.dst", "infiniband.bth.destqp", "infiniband.bth.opcode",
          "eth.type", "udp.dstport", "infiniband.grh.ipver",
          "infiniband.mad.mgmtclass", "infiniband.mad.attributeid"]
ROWS = "udp.dstport == %d || eth.type == 0x8915 || (%s)" % (ROCE_PORT, MARK)


def has(value, number):
    """Some occurrence in tshark's VALUE is NUMBER."""
    return any(v and int(v, 0) == number for v in value.split(","))


def severe(sev):
    """An expert severity in tshark's SEV is a warning or worse."""
    return any(int(v, 0) >= PI_WARN for v in sev.split(",") if v)


def number(value):
    """tshark's first VALUE as a number; -1 if the frame has none."""
    v = value.split(",")[0]
    return int(v, 0) if v else -1


def first(tally, what, num):
    """Count frame NUM under WHAT in TALLY, keeping the first numbers."""
    t = tally.setdefault(what, [0, []])
    t[0] += 1
    if len(t[1]) < MAX_SHOWN:
        t[1].append(num)


def decode_fault(layers, sev, msg, tver, pkey):
    """What is wrong with a RoCE v2 frame as tshark decoded it: a list of
    faults, or None if its payload was taken for another protocol."""
    # The InfiniBand dissector guesses what a payload is: one that starts
    # like an EtherType and two zero bytes is decoded as a frame of that
    # type (an 8-byte WRITE of the value 8 looks like IPv4), and that
    # decode then fails.  The payload is the consumer's bytes, which the
    # transport never reads; the headers before it were decoded, and the
    # ICRC check covers the whole packet.  So what a guessed payload layer
    # reports does not count against the frame.
    if "infiniband" in layers and \
            layers[layers.index("infiniband") + 1:] not in ([], ["data"]):
        return None
    # RoCE v2 sends UDP checksum 0 over IPv6 too (rxe and rocx alike; the
    # ICRC covers the packet), which tshark flags.
    if "ipv6" in layers and msg and all(
            m == ZERO_UDP_CSUM for m in msg.split(",")):
        return []
    return [what for what, bad in (
        ("no BTH", tver == ""),
        ("malformed or warned", "_ws.malformed" in layers or severe(sev)),
        ("BTH version not 0", tver not in ("", "0")),
        ("P_Key not 0xffff", pkey != "" and int(pkey, 0) != 0xffff),
        ("neither IPv4 nor IPv6",
         "ip" not in layers and "ipv6" not in layers)) if bad]


def dissect(pcap):
    """What every check needs to know of PCAP, from one tshark pass."""
    d = {"v2": 0, "guessed": [0, []], "faults": {}, "mark": None,
         "dest": {}, "sent": {}, "v1": 0, "v1_bad": [0, []], "cm": {},
         "v1_other": 0}
    for r in tshark_rows(pcap, ROWS, FIELDS):
        (num, protos, sev, msg, tver, pkey, src, dst, qp, op, etype, dport,
         grh, cls, attr) = r
        layers = protos.split(":")
        if has(dport, ROCE_PORT):
            d["v2"] += 1
            faults = decode_fault(layers, sev, msg, tver, pkey)
            if faults is None:
                first(d, "guessed", num)
            for what in faults or []:
                first(d["faults"], what, num)
            # QPs reached before the first mark, by destination address.
            if d["mark"] is None:
                key = "%s %d" % (dst, number(qp))
                d["dest"][key] = d["dest"].get(key, 0) + 1
            ops = d["sent"].setdefault(src, {})
            ops[str(number(op))] = ops.get(str(number(op)), 0) + 1
        elif has(etype, 0x8915):
            d["v1"] += 1
            if not grh or not op or "_ws.malformed" in layers or severe(sev):
                first(d, "v1_bad", num)
            if number(qp) == 1 and number(cls) == CM_CLASS:
                name = CM_ATTRS.get(number(attr), "attribute " + attr)
                d["cm"][name] = d["cm"].get(name, 0) + 1
            else:
                d["v1_other"] += 1
        elif has(dport, 9) and d["mark"] is None:
            d["mark"] = int(num)
    d["icrc"] = icrc_tally(pcap)
    return d


def digest(pcap):
    """dissect(PCAP), kept in PCAP.digest for the next check."""
    path = pcap + ".digest"
    st = os.stat(pcap)
    key = "%d %d" % (st.st_size, st.st_mtime_ns)
    try:
        with open(path) as f:
            got = json.load(f)
        if got.get("key") == key:
            return got["digest"]
    except (OSError, ValueError):
        pass
    d = dissect(pcap)
    try:
        with open(path + ".tmp", "w") as f:
            json.dump({"key": key, "digest": d}, f)
        os.replace(path + ".tmp", path)
    except OSError:
        pass
    return d


def check_decode(pcap):
    d = digest(pcap)
    say("%d frames to UDP port %d" % (d["v2"], ROCE_PORT))
    n, nums = d["guessed"]
    if n:
        say("%d frames whose payload tshark decoded as another protocol, "
            "not judged here, first: %s" % (n, " ".join(nums)))
    for what, (n, nums) in d["faults"].items():
        say("%d frames %s, first: %s" % (n, what, " ".join(nums)))
    return d["v2"] > 0 and not d["faults"]


def frames(pcap):
    """(number, bytes) of each frame of a classic pcap file."""
    with open(pcap, "rb") as f:
        data = f.read()
    magic = struct.unpack_from("<I", data)[0]
    if magic == 0xa1b2c3d4:
        end = "<"
    elif magic == 0xd4c3b2a1:
        end = ">"
    else:
        raise SystemExit("%s: not a classic pcap file" % pcap)
    if struct.unpack_from(end + "I", data, 20)[0] != 1:
        raise SystemExit("%s: not an Ethernet capture" % pcap)
    off, n = 24, 0
    while off + 16 <= len(data):
        incl = struct.unpack_from(end + "I", data, off + 8)[0]
        n += 1
        yield n, data[off + 16:off + 16 + incl]
        off += 16 + incl


def ip_checksum(hdr):
    s = sum(struct.unpack("!%dH" % (len(hdr) // 2), hdr))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s == 0xffff


def icrc(ip_udp_bth_payload, ihl):
    """The ICRC of a RoCE v2 packet (IBTA annex 17): CRC-32 over 64 one
    bits standing for the LRH, then the IP header, UDP header, BTH and
    payload with the fields routers may change set to ones: IPv4 TOS, TTL
    and header checksum, UDP checksum, the BTH's reserved byte before the
    destination QP (FECN, BECN and reserved bits)."""
    p = bytearray(ip_udp_bth_payload)
    p[1] = 0xff                       # type of service (DSCP, ECN)
    p[8] = 0xff                       # time to live
    p[10:12] = b"\xff\xff"            # header checksum
    p[ihl + 6:ihl + 8] = b"\xff\xff"  # UDP checksum
    p[ihl + 8 + 4] = 0xff             # BTH byte 4
    return zlib.crc32(b"\xff" * 8 + bytes(p)) & 0xffffffff


def icrc6(ip_udp_bth_payload):
    """The ICRC of a RoCE v2 packet over IPv6: as icrc(), with the IPv6
    traffic class, flow label and hop limit set to ones."""
    p = bytearray(ip_udp_bth_payload)
    p[0] |= 0x0f                      # traffic class, high nibble
    p[1:4] = b"\xff\xff\xff"          # traffic class low, flow label
    p[7] = 0xff                       # hop limit
    p[40 + 6:40 + 8] = b"\xff\xff"    # UDP checksum
    p[40 + 8 + 4] = 0xff              # BTH byte 4
    return zlib.crc32(b"\xff" * 8 + bytes(p)) & 0xffffffff


def check_icrc6(fr):
    """Why the RoCE v2 frame FR over IPv6 is bad; "" if good; None if it
    is no RoCE v2 frame (no extension headers expected)."""
    ip = fr[14:]
    if len(ip) < 40 + 8 or ip[0] >> 4 != 6 or ip[6] != 17:
        return None
    if struct.unpack_from("!H", ip, 40 + 2)[0] != ROCE_PORT:
        return None
    plen = struct.unpack_from("!H", ip, 4)[0]
    udp_len = struct.unpack_from("!H", ip, 40 + 4)[0]
    if 40 + plen > len(ip) or (len(ip) > 40 + plen and len(fr) > 60):
        return "IPv6 payload length %d, frame holds %d" % (plen, len(ip) - 40)
    if udp_len != plen:
        return "UDP length %d, IPv6 payload %d" % (udp_len, plen)
    if udp_len < 8 + 12 + 4:
        return "UDP payload too short for BTH and ICRC"
    pad = (ip[40 + 8 + 1] >> 4) & 3
    payload = udp_len - 8 - 12 - 4
    end = 40 + plen
    got = struct.unpack_from("<I", ip, end - 4)[0]
    want = icrc6(ip[:end - 4])
    if payload % 4:
        return "transport payload %d B not a multiple of 4" % payload
    if pad > payload:
        return "pad count %d" % pad
    if got != want:
        return "ICRC 0x%08x, computed 0x%08x" % (got, want)
    return ""


def check_icrc(pcap, need6=False):
    n_roce, n_roce6, nbad, bad = digest(pcap)["icrc"]
    say("%d RoCE v2 frames over IPv4, %d over IPv6, %d bad" % (
        n_roce, n_roce6, nbad))
    for b in bad:
        say(b)
    return (n_roce6 if need6 else n_roce) > 0 and not nbad


def icrc_tally(pcap):
    """[RoCE v2 frames over IPv4, over IPv6, bad ones, the first bad]."""
    n_roce, n_roce6, bad = 0, 0, []
    for num, fr in frames(pcap):
        if len(fr) >= 14 + 40 and fr[12:14] == ETH_P_IPV6:
            why = check_icrc6(fr)
            if why is not None:
                n_roce6 += 1
                if why:
                    bad.append("frame %d: %s" % (num, why))
            continue
        if len(fr) < 14 + 20 or fr[12:14] != b"\x08\x00":
            continue
        ip = fr[14:]
        ihl = (ip[0] & 0x0f) * 4
        if ip[0] >> 4 != 4 or ip[9] != 17 or len(ip) < ihl + 8:
            continue
        if struct.unpack_from("!H", ip, ihl + 2)[0] != ROCE_PORT:
            continue
        n_roce += 1
        tot = struct.unpack_from("!H", ip, 2)[0]
        udp_len = struct.unpack_from("!H", ip, ihl + 4)[0]
        why = None
        if tot > len(ip) or (len(ip) > tot and len(fr) > 60):
            why = "IP total length %d, frame holds %d" % (tot, len(ip))
        elif not ip_checksum(ip[:ihl]):
            why = "IPv4 header checksum"
        elif udp_len != tot - ihl:
            why = "UDP length %d, IP payload %d" % (udp_len, tot - ihl)
        elif udp_len < 8 + 12 + 4:
            why = "UDP payload too short for BTH and ICRC"
        else:
            pad = (ip[ihl + 8 + 1] >> 4) & 3
            payload = udp_len - 8 - 12 - 4
            got = struct.unpack_from("<I", ip, tot - 4)[0]
            want = icrc(ip[:tot - 4], ihl)
            if payload % 4:
                why = "transport payload %d B not a multiple of 4" % payload
            elif pad > payload:
                why = "pad count %d" % pad
            elif got != want:
                why = "ICRC 0x%08x, computed 0x%08x" % (got, want)
        if why:
            bad.append("frame %d: %s" % (num, why))
    return [n_roce, n_roce6, len(bad), bad[:MAX_SHOWN]]


def qpn_set(files):
    want = set()
    for name in files:
        with open(name) as f:
            for line in f:
                w = line.split()
                if len(w) == 2:
                    want.add((w[0], int(w[1], 16)))
    return want


def check_qpn(pcap, files):
    want = qpn_set(files)
    if not want:
        say("no QPNs reported")
        return False
    d = digest(pcap)
    if d["mark"] is not None:
        say("frames before the mark in frame %d" % d["mark"])
    seen = {}
    for key, n in d["dest"].items():
        dst, qp = key.split(" ")
        seen[(dst, int(qp))] = n
    stray = sorted(set(seen) - want)
    silent = sorted(want - set(seen))
    say("%d QPs reported, %d destinations in the capture" % (
        len(want), len(seen)))
    for dst, qp in stray[:MAX_SHOWN]:
        say("%d frames to %s QP 0x%x, which it did not report" % (
            seen[(dst, qp)], dst, qp))
    for dst, qp in silent[:MAX_SHOWN]:
        say("no frame to %s QP 0x%x" % (dst, qp))
    return not stray and not silent


def check_opcodes(pcap, ips):
    sent = {}
    for src, ops in digest(pcap)["sent"].items():
        for op, n in ops.items():
            o = int(op)
            sent.setdefault(src, {})
            sent[src][o] = sent[src].get(o, 0) + n
    good = True
    for ip in ips:
        ops = sent.get(ip, {})
        missing = [RC_OPS[o] for o in sorted(RC_OPS) if o not in ops]
        say("%s sent %s" % (ip, ", ".join(
            "%s x%d" % (RC_OPS.get(o, "opcode %d" % o), n)
            for o, n in sorted(ops.items()))))
        if missing:
            say("%s sent no %s" % (ip, ", ".join(missing)))
            good = False
    return good


def check_v1(pcap, what):
    d = digest(pcap)
    say("%d RoCE v1 frames" % d["v1"])
    n, nums = d["v1_bad"]
    if n:
        say("%d RoCE v1 frames without GRH and BTH, malformed or warned, "
            "first: %s" % (n, " ".join(nums)))
    cm, other = d["cm"], d["v1_other"]
    say("ib_cm MADs: %s; %d frames to other QPs" % (
        ", ".join("%s x%d" % kv for kv in sorted(cm.items())) or "none", other))
    if what == "cm":
        return not n and other == 0 and set(cm) == {"REQ"} and cm["REQ"] > 1
    if what == "data":
        return not n and other > 0
    return (not n and other > 0 and
            all(cm.get(c, 0) > 0 for c in ("REQ", "REP", "RTU")))


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, pcap, rest = argv[1], argv[2], argv[3:]
    if cmd == "decode":
        ok = check_decode(pcap)
    elif cmd in ("icrc", "icrc6"):
        ok = check_icrc(pcap, cmd == "icrc6")
    elif cmd == "qpn":
        ok = check_qpn(pcap, rest)
    elif cmd == "opcodes":
        ok = check_opcodes(pcap, rest)
    elif cmd == "v1" and rest in (["cm"], ["rc"], ["data"]):
        ok = check_v1(pcap, rest[0])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
