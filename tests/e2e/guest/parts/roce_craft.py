#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hostile RoCE frames, from this guest's own addresses, at a live RC QP.

    roce_craft.py DEV DST_MAC DST_IP QPN PSN ROUNDS

Sends ROUNDS rounds of crafted frames out of netdev DEV to the RoCE v2
(and v1) GIDs of DST_IP at DST_MAC, aimed at QP QPN with PSNs around PSN,
and prints one line per class, "CLASS N", then "total N".  Every frame is
addressed to the peer's GID, so its device must take each one as RoCE and
drop and count it: as an ICRC error, or as a RoCE frame it refused
(hw_roce_icrc_errors, hw_roce_rx_dropped).  None may touch the QP: they
come from a GID that is not its peer's.

Classes:
  opcode   every one of the 256 BTH opcodes (RC, UC, RD, UD, CNP, XRC and
           undefined), with the extension headers the opcode calls for,
           a valid ICRC, ECN CE on every other one
  icrc     the same frames with a wrong ICRC
  lies     headers that lie: RETH lengths and keys, AETH syndromes, an
           unaligned atomic, pad counts, a short BTH, IPv4 checksum,
           lengths, options and fragments, UDP length
  v1       RoCE v1 (GRH) frames, some with lying GRHs
"""
import os
import socket
import struct
import sys
import time
import zlib

ROCE_PORT = 4791
ETH_P_IP = 0x0800
ETH_P_ROCE_V1 = 0x8915

# Extension headers after the BTH (IBTA table 38), by operation (the low
# five bits) for RC/UC/RD/XRC: RETH, AETH, AtomicETH, AtomicAckETH,
# ImmDt, IETH; lengths in bytes.
RETH, AETH, ATOMETH, ATOMACK, IMM, IETH, DETH, RDETH, XRCETH = \
    16, 4, 28, 8, 4, 4, 8, 4, 4
OP_HDRS = {
    0x00: [], 0x01: [], 0x02: [], 0x03: [IMM], 0x04: [], 0x05: [IMM],
    0x06: [RETH], 0x07: [], 0x08: [], 0x09: [IMM], 0x0a: [RETH],
    0x0b: [RETH, IMM], 0x0c: [RETH], 0x0d: [AETH], 0x0e: [],
    0x0f: [AETH], 0x10: [AETH], 0x11: [AETH], 0x12: [AETH, ATOMACK],
    0x13: [ATOMETH], 0x14: [ATOMETH], 0x16: [IETH], 0x17: [IETH],
}


def icrc_v2(ip_udp_bth_payload):
    """IBTA annex 17: CRC-32 over 64 one bits for the LRH, then the
    packet with the fields routers may change set to ones."""
    p = bytearray(ip_udp_bth_payload)
    ihl = (p[0] & 0x0f) * 4
    p[1] = 0xff
    p[8] = 0xff
    p[10:12] = b"\xff\xff"
    p[ihl + 6:ihl + 8] = b"\xff\xff"
    p[ihl + 8 + 4] = 0xff
    return zlib.crc32(b"\xff" * 8 + bytes(p)) & 0xffffffff


def icrc_v1(grh_bth_payload):
    p = bytearray(grh_bth_payload)
    p[0] |= 0x0f
    p[1:4] = b"\xff\xff\xff"
    p[7] = 0xff
    p[40 + 4] = 0xff
    return zlib.crc32(b"\xff" * 8 + bytes(p)) & 0xffffffff


def ip_sum(hdr):
    s = sum(struct.unpack("!%dH" % (len(hdr) // 2), hdr))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def bth(opcode, qpn, psn, pad=0, ackreq=True):
    return struct.pack("!BBHII", opcode, (pad & 3) << 4, 0xffff,
                       qpn & 0xffffff,
                       (0x80000000 if ackreq else 0) | (psn & 0xffffff))


def ext(opcode, qpn):
    """The extension headers OPCODE calls for, with plausible values."""
    tr, op = opcode & 0xe0, opcode & 0x1f
    out = b""
    if tr == 0xa0:                      # XRC: XRCETH first
        out += struct.pack("!I", 1)
    if tr == 0x40:                      # RD: RDETH, DETH
        out += struct.pack("!I", 1) + struct.pack("!II", 0x11111111, qpn)
    if tr == 0x60:                      # UD: DETH
        out += struct.pack("!II", 0x11111111, 1)
    for h in OP_HDRS.get(op, []) if tr in (0x00, 0x20, 0x40, 0xa0) else []:
        if h == RETH:
            out += struct.pack("!QII", 0x10000, 0x1234, 64)
        elif h == ATOMETH:
            out += struct.pack("!QIQQ", 0x10000, 0x1234, 1, 2)
        elif h == AETH:
            out += struct.pack("!I", 0x1f << 24)
        else:
            out += b"\x00" * h
    return out


class Crafter:
    def __init__(self, dev, dst_mac, dst_ip):
        self.s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self.s.bind((dev, 0))
        self.src_mac = self.s.getsockname()[4][:6]
        self.dst_mac = bytes.fromhex(dst_mac.replace(":", ""))
        self.src_ip = socket.inet_aton(addr_of(dev))
        self.dst_ip = socket.inet_aton(dst_ip)
        self.sent = 0

    def send(self, frame):
        self.s.send(frame)
        self.sent += 1

    def v2(self, transport, ecn=0, good_icrc=True, ip_fix=None,
           udp_len_delta=0, opts=b""):
        """A RoCE v2/IPv4 frame carrying TRANSPORT (BTH onwards, without
        ICRC); ip_fix(bytearray) may lie in the IPv4 header after the
        checksum is computed unless it recomputes it."""
        udp_len = 8 + len(transport) + 4
        ihl = 20 + len(opts)
        ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x40 | ihl // 4,
                                   ecn & 3, ihl + udp_len, 0, 0x4000, 64,
                                   17, 0, self.src_ip, self.dst_ip) + opts)
        ip[10:12] = struct.pack("!H", ip_sum(bytes(ip)))
        udp = struct.pack("!HHHH", 0xc000, ROCE_PORT,
                          udp_len + udp_len_delta, 0)
        pkt = bytes(ip) + udp + transport
        crc = icrc_v2(pkt)
        if not good_icrc:
            crc ^= 0xdeadbeef
        pkt = bytearray(pkt + struct.pack("<I", crc))
        if ip_fix:
            ip_fix(pkt)
        return self.eth(ETH_P_IP) + bytes(pkt)

    def v1(self, transport, next_hdr=0x1b, len_delta=0, good_icrc=True):
        dgid = b"\x00" * 10 + b"\xff\xff" + self.dst_ip
        sgid = b"\x00" * 10 + b"\xff\xff" + self.src_ip
        grh = struct.pack("!IHBB16s16s", 6 << 28,
                          len(transport) + 4 + len_delta, next_hdr, 64,
                          sgid, dgid)
        pkt = grh + transport
        crc = icrc_v1(pkt)
        if not good_icrc:
            crc ^= 0xdeadbeef
        return self.eth(ETH_P_ROCE_V1) + pkt + struct.pack("<I", crc)

    def eth(self, ethertype):
        return self.dst_mac + self.src_mac + struct.pack("!H", ethertype)


def addr_of(dev):
    for line in os.popen(f"ip -4 -o addr show dev {dev}"):
        return line.split()[3].split("/")[0]
    sys.exit(f"roce_craft: {dev} has no IPv4 address")


def transport_for(opcode, qpn, psn, payload=16):
    return bth(opcode, qpn, psn) + ext(opcode, qpn) + b"\x5a" * payload


def build(c, qpn, psn):
    """The classes of frames: [(name, [frame...])]."""
    classes = []

    def cls(name, frames):
        classes.append((name, list(frames)))

    near = [(psn + d) & 0xffffff for d in (-2, -1, 0, 1, 2, 64)]
    cls("opcode", (c.v2(transport_for(op, qpn, near[op % 6]),
                        ecn=3 if op & 1 else 2)
                   for op in range(256)))
    cls("icrc", (c.v2(transport_for(op, qpn, near[op % 6]),
                      good_icrc=False) for op in range(256)))
    lies = []
    # RETH: a huge length, a zero key, a length that is not the payload.
    for va, rkey, ln in ((0, 0x1234, 0xffffffff), (0x10000, 0, 64),
                         (0xfffffffffffff000, 0x1234, 8192)):
        for op in (0x06, 0x0a, 0x0c):
            lies.append(c.v2(bth(op, qpn, psn) +
                             struct.pack("!QII", va, rkey, ln) +
                             b"\x00" * 64))
    # AETH: every syndrome class, MSNs far off.
    for syn in (0x00, 0x1f, 0x20, 0x3f, 0x60, 0x61, 0x62, 0x63, 0x64,
                0x7f, 0x80, 0xff):
        lies.append(c.v2(bth(0x11, qpn, psn) +
                         struct.pack("!I", syn << 24 | 0xffffff)))
    # An atomic at an unaligned address, and one with no payload room.
    lies.append(c.v2(bth(0x14, qpn, psn) +
                     struct.pack("!QIQQ", 0x10003, 0x1234, 1, 2)))
    lies.append(c.v2(bth(0x13, qpn, psn) + b"\x00" * 8))
    # Pad counts beyond the payload, and a BTH cut short.
    for pad in (1, 2, 3):
        lies.append(c.v2(bth(0x04, qpn, psn, pad=pad)))
    lies.append(c.v2(bth(0x04, qpn, psn)[:8]))
    # IPv4 and UDP framing that does not add up.
    t = transport_for(0x04, qpn, psn)

    def bad_sum(p):
        p[10] ^= 0xff

    def long_total(p):
        p[2:4] = struct.pack("!H", len(p) + 40)

    def short_total(p):
        p[2:4] = struct.pack("!H", 28)

    def fragment(p):
        p[6:8] = struct.pack("!H", 0x2000)

    def later_fragment(p):
        p[6:8] = struct.pack("!H", 0x0010)

    for fix in (bad_sum, long_total, short_total, fragment,
                later_fragment):
        lies.append(c.v2(t, ip_fix=fix))
    # Options (four NOPs): a RoCE v2 packet has none.
    lies.append(c.v2(t, opts=b"\x01" * 4))
    for delta in (-8, -4, 4, 64):
        lies.append(c.v2(t, udp_len_delta=delta))
    cls("lies", lies)
    v1 = []
    for op in (0x04, 0x06, 0x0a, 0x11, 0x14, 0x64, 0x81):
        v1.append(c.v1(transport_for(op, qpn, psn)))
        v1.append(c.v1(transport_for(op, qpn, psn), good_icrc=False))
        v1.append(c.v1(transport_for(op, qpn, psn), len_delta=32))
        v1.append(c.v1(transport_for(op, qpn, psn), next_hdr=0x11))
    cls("v1", v1)
    return classes


def main(argv):
    if len(argv) != 7:
        sys.exit(__doc__)
    dev, dst_mac, dst_ip = argv[1:4]
    qpn, psn, rounds = int(argv[4], 0), int(argv[5], 0), int(argv[6])
    start = time.monotonic()
    c = Crafter(dev, dst_mac, dst_ip)
    # Built once (Python under TCG builds a few hundred frames a second),
    # sent ROUNDS times.
    classes = build(c, qpn, psn)
    built = time.monotonic()
    for r in range(rounds):
        for name, frames in classes:
            for f in frames:
                c.send(f)
    for name, frames in classes:
        print(name, len(frames) * rounds)
    print("total", c.sent)
    print("# built in %.1f s, sent in %.1f s" %
          (built - start, time.monotonic() - built), file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
