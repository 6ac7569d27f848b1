# SPDX-License-Identifier: GPL-2.0-or-later
"""Either end of a fabric channel's shared-memory rings
(Documentation/rocx-device.rst, "Shared-memory rings"): Rings() is a
NIC's, which creates them; Rings.attach(fds) the switch's, over what a
NIC passed.  Written from the specification alone so that the switch's C side (include/rocx/
rocx_ring.h) is checked against the text rather than against itself.

Python has no memory barriers, so this peer never relies on the other
side's wait flags to skip a wake: it writes the peer's eventfd after
every record and waits for the peer in bounded slices.  That is a
legal, over-eager peer; the economy of skipped wakes is the model's."""
import mmap
import os
import select
import struct
import time

import contract

F = contract.load("rocx_fabric.h")
CTL = F.ROCX_RING_CTL_BYTES
WRAP = F.ROCX_RING_WRAP
ALIGN = F.ROCX_RING_ALIGN


def head_off(k):
    return 64 + 128 * k


def pwait_off(k):
    return 68 + 128 * k


def tail_off(k):
    return 128 + 128 * k


def cwait_off(k):
    return 132 + 128 * k


def align(n):
    return (4 + n + ALIGN - 1) & ~(ALIGN - 1)


class Rings:
    def __init__(self, size=F.ROCX_RING_MIN, map_bytes=None, magic=None):
        self.size = size
        self.memfd = os.memfd_create("rocx-test-rings", os.MFD_CLOEXEC)
        n = map_bytes if map_bytes is not None else CTL + 2 * size
        os.ftruncate(self.memfd, n)
        self.m = mmap.mmap(self.memfd, n)
        struct.pack_into("=II", self.m, 0,
                         F.ROCX_RING_MAGIC if magic is None else magic, size)
        flags = os.EFD_NONBLOCK | os.EFD_CLOEXEC
        self.sw_wake = os.eventfd(0, flags)
        self.nic_wake = os.eventfd(0, flags)
        self._side(0, self.nic_wake, self.sw_wake)

    def _side(self, out_k, wake, peer_wake):
        self.out_k, self.in_k = out_k, 1 - out_k
        self.wake, self.peer_wake = wake, peer_wake
        self.head = 0           # ours, in the ring we write
        self.tail = 0           # ours, in the ring we read
        self.kicks = 0          # wakes the peer sent us

    @classmethod
    def attach(cls, fds):
        """The switch's end, over the memory and eventfds a NIC passed."""
        r = cls.__new__(cls)
        r.memfd, r.sw_wake, r.nic_wake = fds
        r.m = mmap.mmap(r.memfd, os.fstat(r.memfd).st_size)
        r.size = struct.unpack_from("=I", r.m, 4)[0]
        r._side(1, r.sw_wake, r.nic_wake)
        return r

    @classmethod
    def direct(cls, fds, own):
        """A NIC's end of its peer's ring 1 ("Direct rings"), over what
        DIRECT passed (the peer's memory and its wake eventfd), from
        DIRECT_GO on: it produces where the switch did, from the head it
        finds.  own is the NIC's Rings, whose eventfd the switch wakes
        when the peer has room again."""
        r = cls.__new__(cls)
        r.memfd, r.nic_wake = fds
        r.sw_wake = None
        r.m = mmap.mmap(r.memfd, os.fstat(r.memfd).st_size)
        r.size = struct.unpack_from("=I", r.m, 4)[0]
        r._side(1, own.nic_wake, r.nic_wake)
        r.head = r.u32(head_off(1))
        return r

    def fds(self):
        return [self.memfd, self.sw_wake, self.nic_wake]

    def close(self):
        self.m.close()
        for fd in self.fds():
            if fd is not None:
                os.close(fd)

    def u32(self, off):
        return struct.unpack_from("=I", self.m, off)[0]

    def set_u32(self, off, v):
        struct.pack_into("=I", self.m, off, v & 0xffffffff)

    def data(self, k):
        return CTL + k * self.size

    def put(self, rec, timeout=5.0):
        """One record into our ring, waiting for room up to timeout."""
        k = self.out_k
        need = align(len(rec))
        off = self.head % self.size
        total = need + (self.size - off if off + need > self.size else 0)
        end = time.time() + timeout
        while (self.head - self.u32(tail_off(k))) % 2**32 + total > \
                self.size:
            if time.time() > end:
                raise TimeoutError(f"ring {k} stayed full")
            self.set_u32(pwait_off(k), 1)
            select.select([self.wake], [], [], 0.01)
            self._clear(self.wake)
        self.set_u32(pwait_off(k), 0)
        base = self.data(k)
        if off + need > self.size:
            struct.pack_into("=I", self.m, base + off, WRAP)
            self.head += self.size - off
            off = 0
        struct.pack_into("=I", self.m, base + off, len(rec))
        self.m[base + off + 4:base + off + 4 + len(rec)] = rec
        self.head += need
        self.set_u32(head_off(k), self.head)
        os.eventfd_write(self.peer_wake, 1)

    def put_raw_head(self, head):
        """Damage: announce bytes that were never written."""
        self.set_u32(head_off(self.out_k), head)
        os.eventfd_write(self.peer_wake, 1)

    @staticmethod
    def _clear(fd):
        try:
            os.eventfd_read(fd)
            return True
        except BlockingIOError:
            return False

    def take(self, timeout, sock=None):
        """One record from the peer's ring, or None after timeout; 'eof'
        if sock (the channel's socket) reports the peer's end first."""
        k = self.in_k
        end = time.time() + timeout
        while True:
            head = self.u32(head_off(k))
            if head != self.tail:
                base = self.data(k)
                off = self.tail % self.size
                (n,) = struct.unpack_from("=I", self.m, base + off)
                if n == WRAP:
                    self.tail += self.size - off
                    continue
                if n == 0 or n > F.ROCX_FAB_BUNDLE_MAX or \
                        off + align(n) > self.size:
                    raise ValueError(f"ring {k}: a record of length {n}")
                rec = bytes(self.m[base + off + 4:base + off + 4 + n])
                self.tail += align(n)
                self.set_u32(tail_off(k), self.tail)
                if self.u32(pwait_off(k)):
                    os.eventfd_write(self.peer_wake, 1)
                return rec
            left = end - time.time()
            if left <= 0:
                return None
            self.set_u32(cwait_off(k), 1)
            if self.u32(head_off(k)) == self.tail:
                r, _, _ = select.select(
                    [self.wake] + ([sock] if sock else []), [], [],
                    min(left, 0.01))
                if self._clear(self.wake):
                    self.kicks += 1
                if sock is not None and sock in r and \
                        self.u32(head_off(k)) == self.tail:
                    return "eof"
            self.set_u32(cwait_off(k), 0)
