# SPDX-License-Identifier: GPL-2.0
"""A fabric channel peer for the switch's host tests: one end of
DIR/chK.sock as a rocx NIC would hold it (Documentation/rocx-device.rst,
"Fabric channel", "Timed mode").

It keeps what the switch sent: the frames with their stamps, every
promise (a SYNC's time, a BUNDLE's last stamp), and each record that went
below the switch's last promise on the link, which a correct switch never
sends."""
import os
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import fabric  # noqa: E402
import rings  # noqa: E402

# Whether a Chan offers shared-memory rings in HELLO unless told; the
# switch's tests run the channel's cases once each way.
RINGS = False


class Chan:
    def __init__(self, sockdir, idx, src=None, rings_offer=None):
        self.idx = idx
        self.offer = RINGS if rings_offer is None else rings_offer
        self.rings = None       # once HELLO_ACK took them
        self.ack_flags = None
        self.mac = src or bytes([0x02, 0, 0, 0, 0, 0x10 + idx])
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.s.connect(f"{sockdir}/ch{idx}.sock")
        self.frames = []        # (stamp or None, frame)
        self.syncs = []         # times of the SYNCs received
        self.promise = None     # the switch's last promise
        self.below = []         # records below the last promise
        self.eof = False
        self.records = 0

    def close(self):
        self.s.close()
        if self.rings:
            self.rings.close()

    def send(self, rec):
        if self.rings:
            self.rings.put(rec)
        else:
            self.s.send(rec)

    def hello(self, t=None, max_len=fabric.BUNDLE_MAX, timeout=2.0,
              offer=None):
        """HELLO (timed when t is given), with a rings offer when this
        Chan makes one (offer: a rings.Rings to pass instead of a good
        one); the answer's (flags, time, latency) with RINGS masked out
        (ack_flags keeps it), or None when the switch closed without
        one."""
        if offer is None and self.offer:
            offer = rings.Rings()
        rec = fabric.record(fabric.HELLO, time=t, src=self.mac,
                            max_len=max_len,
                            flags=fabric.F_RINGS if offer else 0)
        rec = rec.ljust(fabric.CTRL_LEN, b"\0")
        if offer:
            socket.send_fds(self.s, [rec], offer.fds())
        else:
            self.s.send(rec)
        d = self.recv_raw(timeout)
        if d is None:
            if offer:
                offer.close()
            return None
        ftype, flags, rt, lat, _ = fabric.parse_record(d)
        if ftype != fabric.HELLO_ACK:
            raise ValueError(f"answer of type {ftype}")
        self.ack_flags = flags
        if offer and flags & fabric.F_RINGS:
            self.rings = offer
        elif offer:
            offer.close()
        if rt is not None:
            self.promise = rt
        return flags & ~fabric.F_RINGS, rt, lat

    def sync(self, t, idle=0):
        """A promise of t; with idle, the idle bound too."""
        self.send(fabric.record(fabric.SYNC, time=t, src=self.mac,
                                idle=idle))

    def bundle(self, stamped):
        """A timed BUNDLE of (stamp, frame) pairs."""
        self.send(fabric.tbundle(stamped, src=self.mac))

    def frames_untimed(self, frames):
        self.send(fabric.header(fabric.BUNDLE, len(frames), src=self.mac) +
                  fabric.entries(frames))

    def recv_sock(self, timeout=2.0):
        """A record on the socket of a rings link ("Direct rings"):
        (type, max_len, descriptors), or None."""
        self.s.settimeout(timeout)
        try:
            d, fds, _, _ = socket.recv_fds(self.s, fabric.BUNDLE_MAX + 1, 4)
        except socket.timeout:
            return None
        if not d:
            self.eof = True
            return None
        return (fabric.get(d, "type"), fabric.get(d, "max_len"), fds)

    def direct_ack(self, refused=False):
        self.send(fabric.record(fabric.DIRECT_ACK, src=self.mac,
                                flags=fabric.F_REFUSED if refused else 0))

    def direct_end_ack(self):
        self.send(fabric.record(fabric.DIRECT_END_ACK, src=self.mac))

    def bye(self, t=None):
        self.send(fabric.record(fabric.BYE, time=t, src=self.mac))

    def recv_raw(self, timeout):
        if self.rings:
            d = self.rings.take(timeout, self.s)
            if d == "eof":
                self.eof = True
                return None
            if d is not None:
                self.records += 1
            return d
        self.s.settimeout(timeout)
        try:
            d = self.s.recv(fabric.BUNDLE_MAX + 1)
        except socket.timeout:
            return None
        except ConnectionResetError:
            d = b""
        if not d:
            self.eof = True
            return None
        self.records += 1
        return d

    def take(self, d):
        ftype, flags, t, _, frames = fabric.parse_record(d)
        if ftype == fabric.SYNC:
            if self.promise is not None and t < self.promise:
                self.below.append(("SYNC", t, self.promise))
            self.syncs.append(t)
            self.promise = t
        elif ftype == fabric.BUNDLE:
            for stamp, f in frames:
                if (stamp is not None and self.promise is not None and
                        stamp < self.promise):
                    self.below.append(("BUNDLE", stamp, self.promise))
                if stamp is not None:
                    self.promise = stamp
                self.frames.append((stamp, f))
        return ftype

    def until(self, cond, timeout=2.0):
        """Take records until cond(self) holds; whether it did."""
        end = time.time() + timeout
        while not cond(self):
            left = end - time.time()
            if left <= 0 or self.eof:
                return False
            d = self.recv_raw(left)
            if d is not None:
                self.take(d)
        return True

    def drain(self, quiet=0.2, most=2.0):
        """Take records until none comes for @quiet seconds, or for @most
        seconds in all (a switch waiting on a boot repeats its promise)."""
        end = time.time() + most
        while time.time() < end:
            d = self.recv_raw(min(quiet, max(end - time.time(), 0.001)))
            if d is None:
                return
            self.take(d)
