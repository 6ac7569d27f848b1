# SPDX-License-Identifier: GPL-2.0-or-later
"""Fabric bundles (include/rocx/rocx_fabric.h) for the Python tests: build
and take apart HELLO, HELLO_ACK and BUNDLE frames from the header's own
constants and struct layout, so that a change to the format reaches every
test at once."""
import struct

import contract

F = contract.load("rocx_fabric.h")

DST = F.ROCX_FAB_DST_MAC
SWITCH_MAC = F.ROCX_FAB_SWITCH_MAC
HELLO, HELLO_ACK, BUNDLE = F.ROCX_FAB_HELLO, F.ROCX_FAB_HELLO_ACK, \
    F.ROCX_FAB_BUNDLE
HLEN = F.ROCX_FAB_HLEN
CTRL_LEN = F.ROCX_FAB_CTRL_LEN
BUNDLE_MAX = F.ROCX_FAB_BUNDLE_MAX

# Where each field sits in a frame and how wide it is: the structs'
# layout, which must agree with the ROCX_FAB_OFF_* offsets (the C
# compilers check the same with static asserts).
_ETH, _HDR = F.layout("rocx_fab_eth"), F.layout("rocx_fab_hdr")
FIELDS = {name: (off, size) for name, (off, size) in _ETH.items() if name}
FIELDS.update({name: (F.ROCX_FAB_ETH_HLEN + off, size)
               for name, (off, size) in _HDR.items() if name})
for _name, (_off, _) in FIELDS.items():
    assert getattr(F, "ROCX_FAB_OFF_" + _name.upper()) == _off, _name
assert F.sizeof("rocx_fab_eth") == F.ROCX_FAB_ETH_HLEN
assert F.ROCX_FAB_ETH_HLEN + F.sizeof("rocx_fab_hdr") == HLEN
_ENTRY = F.layout("rocx_fab_entry")["len"]
assert _ENTRY == (0, F.ROCX_FAB_ENTRY_HLEN)
_FMT = {1: "B", 2: ">H", 4: ">I"}


def _put(b, name, value):
    off, size = FIELDS[name]
    if isinstance(value, bytes):
        assert len(value) == size, name
        b[off:off + size] = value
    else:
        struct.pack_into(_FMT[size], b, off, value)


def get(frame, name):
    """A header field of a fabric frame: an int, or bytes for addresses."""
    off, size = FIELDS[name]
    if name in ("dst", "src"):
        return bytes(frame[off:off + size])
    return struct.unpack_from(_FMT[size], frame, off)[0]


def header(ftype, count=0, max_len=BUNDLE_MAX, src=SWITCH_MAC):
    """The HLEN bytes of a fabric frame's headers."""
    b = bytearray(HLEN)
    _put(b, "dst", DST)
    _put(b, "src", src)
    _put(b, "ethertype", F.ROCX_FAB_ETHERTYPE)
    _put(b, "magic", F.ROCX_FAB_MAGIC)
    _put(b, "type", ftype)
    _put(b, "flags", 0)
    _put(b, "count", count)
    _put(b, "max_len", max_len)
    return bytes(b)


def control(ftype, max_len=BUNDLE_MAX, src=SWITCH_MAC):
    """A HELLO or HELLO_ACK as sent: the headers, zero-padded."""
    return header(ftype, 0, max_len, src).ljust(CTRL_LEN, b"\0")


def entries(frames):
    """The entries of a BUNDLE: each frame's length, then the frame."""
    n = F.ROCX_FAB_ENTRY_HLEN
    return b"".join(len(f).to_bytes(n, "big") + f for f in frames)


def bundle(frames, src=SWITCH_MAC, max_len=BUNDLE_MAX):
    return header(BUNDLE, len(frames), max_len, src) + entries(frames)


def is_fabric(d):
    """Whether a datagram is a fabric frame (any type)."""
    return (len(d) >= HLEN and get(d, "dst") == DST and
            get(d, "ethertype") == F.ROCX_FAB_ETHERTYPE and
            get(d, "magic") == F.ROCX_FAB_MAGIC)


def unbundle(d):
    """The frames of a well-formed BUNDLE datagram, or None."""
    if not is_fabric(d) or get(d, "type") != BUNDLE:
        return None
    n = F.ROCX_FAB_ENTRY_HLEN
    off, out = HLEN, []
    for _ in range(get(d, "count")):
        if off + n > len(d):
            return None
        flen = int.from_bytes(d[off:off + n], "big")
        out.append(bytes(d[off + n:off + n + flen]))
        off += n + flen
    return out if off == len(d) else None


# The fabric channel and its timed extension ("Fabric channel", "Timed
# mode"): records of a SOCK_SEQPACKET connection.
SYNC, BYE = F.ROCX_FAB_SYNC, F.ROCX_FAB_BYE
DIRECT, DIRECT_ACK, DIRECT_GO = F.ROCX_FAB_DIRECT, F.ROCX_FAB_DIRECT_ACK, \
    F.ROCX_FAB_DIRECT_GO
DIRECT_END, DIRECT_END_ACK = F.ROCX_FAB_DIRECT_END, F.ROCX_FAB_DIRECT_END_ACK
F_TIMED, F_REFUSED = F.ROCX_FAB_F_TIMED, F.ROCX_FAB_F_REFUSED
F_RINGS = F.ROCX_FAB_F_RINGS
TIMED_HLEN, TENTRY_HLEN = F.ROCX_FAB_TIMED_HLEN, F.ROCX_FAB_TENTRY_HLEN
JOIN_MS, STALL_MS = F.ROCX_FAB_JOIN_MS, F.ROCX_FAB_STALL_MS
_TIMED = {name: (HLEN + off, size)
          for name, (off, size) in F.layout("rocx_fab_timed").items() if name}
assert _TIMED["time"][0] == F.ROCX_FAB_OFF_TIME
assert _TIMED["latency"][0] == F.ROCX_FAB_OFF_LATENCY
assert HLEN + F.sizeof("rocx_fab_timed") == TIMED_HLEN
_TENTRY = F.layout("rocx_fab_tentry")
assert (_TENTRY["offset"], _TENTRY["len"]) == ((0, 4), (4, 2))


def record(ftype, flags=0, count=0, time=None, latency=0, src=SWITCH_MAC,
           max_len=BUNDLE_MAX, idle=0):
    """A channel record's headers; with a time, the timed extension too
    (a SYNC's idle bound in place of latency and reserved)."""
    b = bytearray(header(ftype, count, max_len, src))
    b[FIELDS["flags"][0]] = flags | (F_TIMED if time is not None else 0)
    if time is not None and idle:
        b += struct.pack(">QQ", time, idle)
    elif time is not None:
        b += struct.pack(">QII", time, latency, 0)
    return bytes(b)


def tbundle(stamped, src=SWITCH_MAC):
    """A timed BUNDLE of (stamp, frame) pairs, stamps not decreasing."""
    t0 = stamped[0][0]
    body = b"".join(struct.pack(">IH", s - t0, len(f)) + f
                    for s, f in stamped)
    return record(BUNDLE, count=len(stamped), time=t0, src=src) + body


def parse_record(d):
    """(type, flags, time or None, latency, [(stamp or None, frame)]) of a
    channel record; raises ValueError when it is damaged."""
    if not is_fabric(d):
        raise ValueError("not a fabric frame")
    ftype, flags = get(d, "type"), get(d, "flags")
    t = lat = None
    off = HLEN
    if flags & F_TIMED:
        if len(d) < TIMED_HLEN:
            raise ValueError("short timed record")
        t, lat, _ = struct.unpack_from(">QII", d, HLEN)
        off = TIMED_HLEN
    frames = []
    if ftype == BUNDLE:
        for _ in range(get(d, "count")):
            if t is not None:
                o, n = struct.unpack_from(">IH", d, off)
                off += TENTRY_HLEN
                stamp = t + o
            else:
                (n,) = struct.unpack_from(">H", d, off)
                off += F.ROCX_FAB_ENTRY_HLEN
                stamp = None
            if off + n > len(d):
                raise ValueError("entry past the end")
            frames.append((stamp, bytes(d[off:off + n])))
            off += n
        if off != len(d):
            raise ValueError("bytes after the last entry")
    return ftype, flags, t, lat, frames
