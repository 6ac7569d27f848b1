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


class Chan:
    def __init__(self, sockdir, idx, src=None):
        self.idx = idx
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

    def send(self, rec):
        self.s.send(rec)

    def hello(self, t=None, max_len=fabric.BUNDLE_MAX, timeout=2.0):
        """HELLO (timed when t is given); the answer's (flags, time,
        latency), or None when the switch closed without one."""
        self.send(fabric.record(fabric.HELLO, time=t, src=self.mac,
                                max_len=max_len).ljust(fabric.CTRL_LEN,
                                                       b"\0"))
        d = self.recv_raw(timeout)
        if d is None:
            return None
        ftype, flags, rt, lat, _ = fabric.parse_record(d)
        if ftype != fabric.HELLO_ACK:
            raise ValueError(f"answer of type {ftype}")
        if rt is not None:
            self.promise = rt
        return flags, rt, lat

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

    def bye(self, t=None):
        self.send(fabric.record(fabric.BYE, time=t, src=self.mac))

    def recv_raw(self, timeout):
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
