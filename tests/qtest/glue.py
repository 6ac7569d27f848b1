#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check the rocx QEMU glue (qemu/hw/net/rocx/rocx-pci.c) without a guest.

Starts build/qemu-system-x86_64 with the qtest accelerator, plays the guest
through the qtest protocol (PCI config cycles, MMIO, guest RAM), watches the
netdev from the other end of a unix datagram socket and drives set_link,
system_reset and migrate over QMP.  Prints one line per case and
"qtest: N passed, N failed" last.

Usage: glue.py [--qemu BIN] [-v] [CASE...]  (or tests/qtest/run.sh)
"""
import argparse
import json
import os
import select
import socket
import struct
import subprocess
import sys
import tempfile
import time
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'lib'))
import fabric  # noqa: E402  (include/rocx/rocx_fabric.h)
import rings  # noqa: E402  (the channel's shared-memory rings)

MAC = bytes.fromhex('525400abcdef')
SLOT = 4
BAR0, BAR2, BAR4 = 0xe0000000, 0xe0100000, 0xe0200000
RAM = 0x100000          # guest RAM we use, well above the BIOS areas
SQ, CQ, EQ = RAM + 0x0000, RAM + 0x1000, RAM + 0x2000
TX, RX = RAM + 0x3000, RAM + 0x4000
BUF = RAM + 0x10000     # frames, identify
MSI = RAM + 0x8000      # MSI-X messages land here: vector v at MSI + 4 v

# Registers (include/rocx/rocx_hw.h).
R_ID, R_GERR_COUNT, R_LAST_GERR, R_LINK = 0x000, 0x018, 0x01c, 0x028
R_SCRATCH, R_TEST_IRQ = 0x040, 0x044
R_TDMA_LO, R_TDMA_HI, R_TDMA_LEN, R_TDMA_CTRL, R_TDMA_STATUS = \
    0x048, 0x04c, 0x050, 0x054, 0x058
R_SQ_LO, R_SQ_HI, R_CQ_LO, R_CQ_HI, R_AQ_CTRL, R_AQ_STATUS, R_AQ_DB, \
    R_AQ_HEAD = 0x100, 0x104, 0x108, 0x10c, 0x110, 0x114, 0x118, 0x11c
GERR_ACCESS_SIZE, GERR_DB_OFFSET = 3, 5
DB_EQ, DB_TX, DB_RX = 0x20, 0x28, 0x30


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


class Qemu:
    def __init__(self, qemu, tmp, verbose, bundle=False, chan=False):
        self.qemu = qemu
        self.tmp = tmp
        self.verbose = verbose
        self.sock_qemu = os.path.join(tmp, 'qemu.sock')
        self.sock_test = os.path.join(tmp, 'test.sock')
        self.qmp_path = os.path.join(tmp, 'qmp.sock')
        self.log = os.path.join(tmp, 'qemu.log')
        self.net = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.net.bind(self.sock_test)
        # The device's own fabric channel (fabric=PATH): the case plays
        # rocx-switch on a listening SOCK_SEQPACKET socket, and the
        # device connects to it while QEMU starts.
        self.chan_path = os.path.join(tmp, 'ch0.sock')
        self.chan_listen = self.chan = None
        if chan:
            self.chan_listen = socket.socket(socket.AF_UNIX,
                                             socket.SOCK_SEQPACKET)
            self.chan_listen.bind(self.chan_path)
            self.chan_listen.listen(1)
            self.chan_listen.settimeout(20)
            link = ['-device', 'rocx,id=nic,fabric=%s,addr=%02x.0,mac=%s' %
                    (self.chan_path, SLOT,
                     ':'.join('%02x' % b for b in MAC))]
        else:
            link = ['-netdev', 'dgram,id=n0,local.type=unix,local.path=%s,'
                    'remote.type=unix,remote.path=%s' % (self.sock_qemu,
                                                          self.sock_test),
                    # Bundles only where a case asks: the others talk to
                    # the device frame by frame, as on any Ethernet.
                    '-device', 'rocx,id=nic,netdev=n0,addr=%02x.0,mac=%s,'
                    'bundle=%s' %
                    (SLOT, ':'.join('%02x' % b for b in MAC),
                     'on' if bundle else 'off')]
        args = [qemu, '-machine', 'pc', '-accel', 'qtest', '-m', '64',
                '-nodefaults', '-display', 'none',
                '-L', '/usr/share/seabios', '-L', '/usr/share/qemu',
                '-qtest', 'stdio', '-qtest-log', '/dev/null',
                '-qmp', 'unix:%s,server=on,wait=off' % self.qmp_path,
                '-d', 'guest_errors', '-D', self.log] + link
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE,
                                  stderr=open(os.path.join(tmp, 'stderr'),
                                              'w'))
        self.buf = b''
        self.qmp = None

    def close(self):
        # QEMU does not exit on EOF from qtest; SIGTERM is its clean quit.
        self.p.terminate()
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.p.stdin.close()
        self.p.stdout.close()
        self.net.close()
        for sock in (self.chan, self.chan_listen):
            if sock:
                sock.close()
        if self.qmp:
            self.qmp.close()

    def stderr(self):
        with open(os.path.join(self.tmp, 'stderr')) as f:
            return f.read()

    # ---- qtest protocol ----

    def _line(self, timeout=20):
        deadline = time.monotonic() + timeout
        while b'\n' not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Fail('qtest: no answer from QEMU')
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if r:
                data = os.read(self.p.stdout.fileno(), 65536)
                if not data:
                    raise Fail('qtest: QEMU exited (rc %s)' % self.p.poll())
                self.buf += data
        line, self.buf = self.buf.split(b'\n', 1)
        return line.decode()

    def cmd(self, line):
        self.p.stdin.write((line + '\n').encode())
        self.p.stdin.flush()
        while True:
            r = self._line()
            if r.startswith('IRQ'):
                continue
            if r.startswith('OK'):
                return r[2:].strip()
            raise Fail('qtest: %s -> %s' % (line, r))

    def rd(self, width, addr):
        return int(self.cmd('read%s 0x%x' % (width, addr)), 16)

    def wr(self, width, addr, val):
        self.cmd('write%s 0x%x 0x%x' % (width, addr, val))

    def memread(self, addr, n):
        return bytes.fromhex(self.cmd('read 0x%x %d' % (addr, n))[2:])

    def memwrite(self, addr, data):
        self.cmd('write 0x%x %d 0x%s' % (addr, len(data), data.hex()))

    def cfg_addr(self, reg):
        return 0x80000000 | (SLOT << 11) | (reg & 0xfc)

    def cfg_rd(self, reg):
        self.cmd('outl 0xcf8 0x%x' % self.cfg_addr(reg))
        v = int(self.cmd('inl 0xcfc'), 16)
        return v >> (8 * (reg & 3))

    def cfg_wr(self, reg, val):
        self.cmd('outl 0xcf8 0x%x' % self.cfg_addr(reg))
        self.cmd('outl 0xcfc 0x%x' % val)

    # ---- device helpers ----

    def reg(self, off):
        return self.rd('l', BAR0 + off)

    def setreg(self, off, val):
        self.wr('l', BAR0 + off, val)

    def wait(self, cond, what, tries=200):
        """Poll: the engine runs from a bottom half between commands."""
        for _ in range(tries):
            if cond():
                return
            time.sleep(0.005)
        raise Fail('timed out waiting for ' + what)

    def qmp_cmd(self, execute, **arguments):
        if not self.qmp:
            self.qmp = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.qmp.settimeout(20)
            self.qmp.connect(self.qmp_path)
            self.qmpf = self.qmp.makefile('rw')
            json.loads(self.qmpf.readline())
            self.qmp_cmd('qmp_capabilities')
        msg = {'execute': execute}
        if arguments:
            msg['arguments'] = arguments
        self.qmpf.write(json.dumps(msg) + '\n')
        self.qmpf.flush()
        while True:
            r = json.loads(self.qmpf.readline())
            if 'return' in r or 'error' in r:
                return r


# ================= Cases =================

def t_pci_identity(q):
    check(q.cfg_rd(0x00) & 0xffff == 0x1af4, 'vendor')
    check(q.cfg_rd(0x02) & 0xffff == 0x10f0, 'device')
    check(q.cfg_rd(0x08) & 0xff == 0x01, 'revision')
    check(q.cfg_rd(0x08) >> 8 == 0x020000, 'class 0x020000')
    check(q.cfg_rd(0x2c) == 0x10f01af4, 'subsystem 1af4:10f0')
    check(q.cfg_rd(0x3d) & 0xff == 0, 'no INTx pin')


def bar_size(q, reg):
    old = q.cfg_rd(reg)
    q.cfg_wr(reg, 0xffffffff)
    lo = q.cfg_rd(reg)
    q.cfg_wr(reg, old)
    return lo


def t_bars_64bit(q):
    for reg, size in ((0x10, 0x4000), (0x18, 0x100000), (0x20, 0x1000)):
        v = bar_size(q, reg)
        check(v & 0x7 == 0x4, 'BAR at 0x%x is 64-bit memory (0x%x)' % (reg, v))
        check((~(v & ~0xf) + 1) & 0xffffffff == size,
              'BAR at 0x%x size 0x%x (0x%x)' % (reg, size, v))


def enable(q):
    q.cfg_wr(0x10, BAR0)
    q.cfg_wr(0x14, 0)
    q.cfg_wr(0x18, BAR2)
    q.cfg_wr(0x1c, 0)
    q.cfg_wr(0x20, BAR4)
    q.cfg_wr(0x24, 0)
    q.cfg_wr(0x04, 0x6)         # memory space + bus master


def msix_setup(q):
    cap = q.cfg_rd(0x34) & 0xff
    while cap and q.cfg_rd(cap) & 0xff != 0x11:
        cap = q.cfg_rd(cap + 1) & 0xff
    check(cap, 'MSI-X capability present')
    ctrl = q.cfg_rd(cap + 2) & 0xffff
    check(ctrl & 0x7ff == 7, '8 MSI-X vectors (table size field %d)' %
          (ctrl & 0x7ff))
    table = q.cfg_rd(cap + 4)
    check(table & 7 == 4 and table & ~7 == 0, 'table in BAR4 at 0')
    check(q.cfg_rd(cap + 8) & 7 == 4, 'PBA in BAR4')
    for v in range(8):
        e = BAR4 + 16 * v
        q.wr('l', e, MSI + 4 * v)
        q.wr('l', e + 4, 0)
        q.wr('l', e + 8, 0x1000 + v)
        q.wr('l', e + 12, 0)
    # Enable MSI-X: bit 15 of the message control word.
    dw = q.cfg_rd(cap) & 0xffff
    q.cfg_wr(cap, dw | (ctrl | 0x8000) << 16)
    q.memwrite(MSI, bytes(32))


def msi_count(q, v):
    return struct.unpack('<I', q.memread(MSI + 4 * v, 4))[0]


def t_registers_and_access_sizes(q):
    enable(q)
    check(q.reg(R_ID) == 0x58434f52, 'ID reads "ROCX"')
    check(q.reg(0x030) == 0xab005452 and q.reg(0x034) == 0xefcd,
          'MAC_LO/HI follow mac=')
    q.setreg(R_SCRATCH, 0x12345678)
    check(q.reg(R_SCRATCH) == 0x12345678, 'scratch')
    n = q.reg(R_GERR_COUNT)
    check(q.rd('q', BAR0 + R_SCRATCH) == 0, '8-byte read returns 0')
    check(q.rd('w', BAR0 + R_SCRATCH) == 0, '2-byte read returns 0')
    q.wr('b', BAR0 + R_SCRATCH, 0xff)
    check(q.reg(R_SCRATCH) == 0x12345678, '1-byte write ignored')
    check(q.reg(R_GERR_COUNT) == n + 3, 'three access-size guest errors')
    check(q.reg(R_LAST_GERR) == (GERR_ACCESS_SIZE | R_SCRATCH << 16),
          'LAST_GUEST_ERR names ACCESS_SIZE at SCRATCH')
    # Doorbells: reads are 0, a 4-byte write is a guest error.
    check(q.rd('q', BAR2) == 0, 'doorbell read is 0')
    q.wr('l', BAR2 + DB_TX, 1)
    check(q.reg(R_LAST_GERR) & 0xffff == GERR_ACCESS_SIZE,
          '4-byte doorbell write is ACCESS_SIZE')
    q.wr('q', BAR2 + 0x40, 0)
    check(q.reg(R_LAST_GERR) & 0xffff == GERR_DB_OFFSET,
          'doorbell at 0x40 is DB_OFFSET')
    with open(q.log) as f:
        log = f.read()
    check('guest error 3' in log, 'guest errors in the -d guest_errors log')


def t_msix_test_irq(q):
    enable(q)
    msix_setup(q)
    for v in (0, 5, 7):
        q.setreg(R_TEST_IRQ, v)
        q.wait(lambda: msi_count(q, v) == 0x1000 + v,
               'MSI-X message of vector %d' % v)
    # Masked in the MSI-X table: pending in the PBA, delivered on unmask.
    q.memwrite(MSI + 8, bytes(4))
    q.memwrite(MSI + 4 * 5, bytes(4))
    q.wr('l', BAR4 + 16 * 2 + 12, 1)
    q.setreg(R_TEST_IRQ, 2)
    # Vector 5, raised after it, as a sentinel: the device raises them in
    # order, so once 5's message is there 2's would be too, however slow
    # the host.
    q.setreg(R_TEST_IRQ, 5)
    q.wait(lambda: msi_count(q, 5) == 0x1005, 'sentinel vector 5')
    check(msi_count(q, 2) == 0, 'masked vector not delivered')
    check(q.rd('q', BAR4 + 0x800) & 4, 'PBA bit 2 pending')
    q.wr('l', BAR4 + 16 * 2 + 12, 0)
    q.wait(lambda: msi_count(q, 2) == 0x1002, 'pending vector on unmask')


def t_test_dma(q):
    enable(q)
    data = bytes(range(256)) * 16
    q.memwrite(BUF, data)
    q.setreg(R_TDMA_LO, BUF)
    q.setreg(R_TDMA_HI, 0)
    q.setreg(R_TDMA_LEN, 4096)
    q.setreg(R_TDMA_CTRL, 1)
    q.wait(lambda: q.reg(R_TDMA_STATUS) == 2, 'TEST_DMA DONE')
    check(q.memread(BUF, 4096) == bytes(b ^ 0xff for b in data),
          'buffer complemented')
    # Bus mastering off: the DMA faults, the device says ERROR.
    q.cfg_wr(0x04, 0x2)
    q.setreg(R_TDMA_CTRL, 1)
    q.wait(lambda: q.reg(R_TDMA_STATUS) == 3, 'TEST_DMA ERROR')
    q.cfg_wr(0x04, 0x6)


class Aq:
    def __init__(self, q):
        self.q, self.pi, self.ld = q, 0, 4
        q.memwrite(SQ, bytes(64 * 16))
        q.memwrite(CQ, bytes(16 * 16))
        q.setreg(R_AQ_CTRL, 0)
        q.setreg(R_SQ_LO, SQ)
        q.setreg(R_SQ_HI, 0)
        q.setreg(R_CQ_LO, CQ)
        q.setreg(R_CQ_HI, 0)
        q.setreg(R_AQ_CTRL, self.ld | 0x100)
        check(q.reg(R_AQ_STATUS) == 1, 'AQ enabled')

    def run(self, opcode, body=b''):
        slot = self.pi % 16
        cmd = struct.pack('<HHI', opcode, 0x100 + self.pi, 0) + body
        self.q.memwrite(SQ + 64 * slot, cmd.ljust(64, b'\0'))
        self.pi += 1
        self.q.setreg(R_AQ_DB, self.pi & 0xffff)
        self.q.wait(lambda: self.q.reg(R_AQ_HEAD) == self.pi, 'AQ_HEAD')
        cid, status, flags, res, res64 = struct.unpack(
            '<HBBIQ', self.q.memread(CQ + 16 * slot, 16))
        check(cid == 0x100 + self.pi - 1, 'cmd_id echoed')
        check(flags & 1 == ((self.pi - 1) >> self.ld & 1) ^ 1, 'phase bit')
        return status, res, res64


def bring_up(q):
    enable(q)
    msix_setup(q)
    aq = Aq(q)
    q.memwrite(EQ, bytes(16 * 16))
    st, _, _ = aq.run(0x08, struct.pack('<QHBB', EQ, 0, 4, 0))
    check(st == 0, 'CREATE_EQ 0')
    st, _, _ = aq.run(0x0a, struct.pack('<QBBBBH', TX, 0, 0, 6, 1, 0))
    check(st == 0, 'CREATE_ETH_RING TX')
    st, _, _ = aq.run(0x0a, struct.pack('<QBBBBH', RX, 1, 0, 6, 1, 2048))
    check(st == 0, 'CREATE_ETH_RING RX')
    st, _, _ = aq.run(0x02, struct.pack('<IH6sBB', 4, 0, bytes(6), 1, 0))
    check(st == 0, 'SET_PORT admin up')
    check(q.reg(R_LINK) & 7 == 7, 'link up')
    return aq


def t_admin_queue(q):
    enable(q)
    aq = Aq(q)
    check(aq.run(0x00)[0] == 0, 'NOP')
    q.memwrite(BUF, bytes(256))
    st, _, _ = aq.run(0x01, struct.pack('<QI', BUF, 256))
    check(st == 0, 'IDENTIFY')
    ident = q.memread(BUF, 32)
    check(struct.unpack('<I', ident[0:4])[0] == 0x00010002, 'version 1.2')
    check(ident[12:18] == MAC, 'identify MAC')
    st, res, res64 = aq.run(0x03)
    check(st == 0 and res64 == 1500 and res & 2, 'QUERY_PORT')
    check(aq.run(0xff)[0] == 1, 'unknown opcode: UNSUPPORTED')
    check(aq.run(0x28)[0] == 2, 'CREATE_SRQ of zeroes: INVALID')
    check(aq.run(0x24)[0] == 2, 'CREATE_QP of zeroes: INVALID')
    st, _, _ = aq.run(0x01, struct.pack('<QI', 0xfff00000000, 256))
    check(st == 5, 'IDENTIFY to unbacked memory: DMA_ERROR')


def t_tx(q):
    bring_up(q)
    q.net.settimeout(5)
    frames = [bytes([0xff] * 6) + MAC + b'\x08\x00' + bytes(range(46)),
              b'\x02\x00\x00\x00\x00\x09' + MAC + b'\x88\xb5' +
              bytes(i & 0xff for i in range(9004))]
    for i, f in enumerate(frames):
        q.memwrite(BUF + 0x4000 * i, f)
        q.memwrite(TX + 16 * i, struct.pack('<QHHHH', BUF + 0x4000 * i,
                                            len(f), 0, 0, 0))
    q.wr('q', BAR2 + DB_TX, 2 << 32)
    for i, f in enumerate(frames):
        got = q.net.recv(65536)
        check(got == f, 'frame %d sent exactly (%d bytes)' % (i, len(f)))
    q.wait(lambda: struct.unpack('<H', q.memread(TX + 16 + 12, 2))[0] == 1,
           'TX status DONE')
    q.wait(lambda: msi_count(q, 1) == 0x1001, 'TX interrupt on vector 1')


def rx_post(q, first, n):
    for i in range(first, first + n):
        q.memwrite(RX + 16 * i, struct.pack('<QHHHH', BUF + 0x1000 * i,
                                            0, 0, 0, 0))
    q.wr('q', BAR2 + DB_RX, (first + n) << 32)


STATS = BUF + 0x9000            # GET_STATS' counters, past the RX buffers
ST_RX_NO_BUFFER = 12            # enum rocx_stat (include/rocx/rocx_if.h)


def stat(q, aq, index):
    """One device counter, through GET_STATS."""
    n = index + 1
    st, _, _ = aq.run(0x04, struct.pack('<QI', STATS, 8 * n))
    check(st == 0, 'GET_STATS')
    return struct.unpack('<Q', q.memread(STATS + 8 * index, 8))[0]


def t_rx_and_hold(q):
    aq = bring_up(q)
    frame = MAC + b'\x02\x00\x00\x00\x00\x07' + b'\x08\x00' + bytes(range(86))
    # No buffer posted yet: the frame waits in the device (not in QEMU).
    q.net.sendto(frame, q.sock_qemu)
    # The device counts a frame that found no descriptor when it takes
    # it: once counted, it has been decided on, however slow the host,
    # and a write to the ring would be there already.
    q.wait(lambda: stat(q, aq, ST_RX_NO_BUFFER) == 1,
           'the frame taken and counted as waiting for a buffer')
    check(q.memread(RX + 12, 2) == b'\0\0', 'nothing written without buffers')
    rx_post(q, 0, 4)
    q.wait(lambda: struct.unpack('<H', q.memread(RX + 12, 2))[0] == 1,
           'held frame delivered once buffers are posted')
    check(struct.unpack('<H', q.memread(RX + 10, 2))[0] == len(frame),
          'pkt_len')
    check(q.memread(BUF, len(frame)) == frame, 'frame bytes in the buffer')
    # Another to our MAC goes straight in; one for another MAC is filtered.
    q.net.sendto(b'\x02' * 6 + frame[6:], q.sock_qemu)
    q.net.sendto(frame, q.sock_qemu)
    q.wait(lambda: struct.unpack('<H', q.memread(RX + 16 + 12, 2))[0] == 1,
           'second frame delivered')
    check(q.memread(RX + 32 + 12, 2) == b'\0\0', 'foreign frame filtered')
    q.wait(lambda: msi_count(q, 1) == 0x1001, 'RX interrupt on vector 1')


def t_set_link(q):
    bring_up(q)
    r = q.qmp_cmd('set_link', name='n0', up=False)
    check('return' in r, 'set_link off: %s' % r)
    q.wait(lambda: q.reg(R_LINK) & 3 == 0, 'carrier and UP clear')
    r = q.qmp_cmd('set_link', name='n0', up=True)
    q.wait(lambda: q.reg(R_LINK) & 7 == 7, 'link back up')
    types = []
    for i in range(3):
        typ, _, flags, data = struct.unpack('<HBBI',
                                            q.memread(EQ + 16 * i, 8))
        types.append((typ, flags, data & 1))
    check(types == [(2, 1, 1), (2, 1, 0), (2, 1, 1)],
          'LINK_CHANGE events up, down, up: %s' % types)


# ---- RoCE: a QP sends over the netdev; we play its peer ----

PEER_MAC = bytes.fromhex('020000000002')
LAZY_DB_NS = 100000     # ROCX_CORE_LAZY_DB_NS: a deferred doorbell's bound
OUR_IP, PEER_IP = bytes([198, 18, 0, 1]), bytes([198, 18, 0, 2])
V4MAPPED = bytes(10) + b'\xff\xff'
MRP, CQR, QPB, ATTR = RAM + 0x20000, RAM + 0x21000, RAM + 0x22000, \
    RAM + 0x23000
PEER_QPN, SQ_PSN = 0x123, 0x456


def ip_csum(h):
    s = sum(struct.unpack('!10H', h))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def icrc_v4(l3):
    """ICRC of a RoCE v2/IPv4 packet from its IP header to its end."""
    m = bytearray(l3[:-4])
    m[1] = 0xff                 # TOS
    m[8] = 0xff                 # TTL
    m[10:12] = b'\xff\xff'      # IP checksum
    m[26:28] = b'\xff\xff'      # UDP checksum
    m[32] = 0xff                # BTH resv8a
    return zlib.crc32(bytes(m), zlib.crc32(b'\xff' * 8)) & 0xffffffff


def roce_frame(bth_and_rest):
    """Peer to us: Ethernet, IPv4, UDP around a BTH..payload, + ICRC."""
    tot = 20 + 8 + len(bth_and_rest) + 4
    ip = bytearray(struct.pack('!BBHHHBBH4s4s', 0x45, 0, tot, 0, 0x4000,
                               64, 17, 0, PEER_IP, OUR_IP))
    ip[10:12] = struct.pack('!H', ip_csum(bytes(ip)))
    udp = struct.pack('!HHHH', 0xc001, 4791, tot - 20, 0)
    l3 = bytes(ip) + udp + bth_and_rest + bytes(4)
    return MAC + PEER_MAC + b'\x08\x00' + l3[:-4] + \
        struct.pack('<I', icrc_v4(l3))


def qp_attr(valid, state, **kw):
    av = V4MAPPED + PEER_IP + PEER_MAC + struct.pack('<HIBBBB', 0xffff, 0,
                                                     0, 64, 0, 1)
    return (struct.pack('<IBBBBBBBBBBHIIIII', valid, state, 0,
                        kw.get('mtu', 3), kw.get('timeout', 14), 7, 7, 0,
                        1, 1, 0, 0, kw.get('access', 0), 0, 0,
                        kw.get('sq_psn', 0), PEER_QPN) + av).ljust(128, b'\0')


def t_roce_send_retransmit(q):
    """A SEND goes out as RoCE v2 with a correct ICRC; without an ACK it
    is resent when the local ACK timeout expires on QEMU_CLOCK_VIRTUAL
    (which qtest moves only by clock_step); our ACK completes it."""
    aq = bring_up(q)
    st, _, _ = aq.run(0x10, struct.pack('<HBBH6s16s', 0, 1, 0, 0xffff, MAC,
                                        V4MAPPED + OUR_IP))
    check(st == 0, 'SET_GID ::ffff:198.18.0.1')
    st, pdn, _ = aq.run(0x14, struct.pack('<II', 0, 0))
    check(st == 0, 'CREATE_PD')
    q.memwrite(MRP, b'x' * 4096)
    st, key, _ = aq.run(0x20, struct.pack('<IIQQIIQIBBH', pdn, 1, MRP, 4096,
                                          0, 0, MRP, 1, 12, 0, 0))
    check(st == 0, 'REG_MR')
    q.memwrite(CQR, bytes(4096))
    st, cqn, _ = aq.run(0x22, struct.pack('<IBBHQIBBH', 0, 4, 0, 0, CQR, 1,
                                          12, 0, 0))
    check(st == 0, 'CREATE_CQ')
    q.memwrite(QPB, bytes(4096))
    st, qpn, _ = aq.run(0x24, struct.pack('<BBBBBBHIIIIIIQIBBH', 0, 0, 2, 1,
                                          7, 4, 0, pdn, cqn, cqn,
                                          0xffffffff, 0, 0, QPB, 1, 12, 0,
                                          0))
    check(st == 0, 'CREATE_QP')
    for attr in (qp_attr(0x7, 1, access=1),
                 qp_attr(0x1 | 0x10 | 0x20 | 0x200 | 0x4000, 2),
                 qp_attr(0x1 | 0x40 | 0x1000, 3, sq_psn=SQ_PSN)):
        q.memwrite(ATTR, attr)
        st, _, _ = aq.run(0x25, struct.pack('<IIQ', qpn, 0, ATTR))
        check(st == 0, 'MODIFY_QP to state %d' % attr[4])
    # SEND, signalled, 5 bytes inline (WQEs of 128 bytes).
    q.memwrite(QPB, struct.pack('<BBBB4sIHH', 0, 0x9, 0, 0, bytes(4), 5, 0,
                                0).ljust(64, b'\0') + b'hello')
    q.net.settimeout(5)
    q.wr('q', BAR2 + 0x00, qpn | 1 << 32)
    f = q.net.recv(65536)
    check(f[:12] == PEER_MAC + MAC and f[12:14] == b'\x08\x00',
          'Ethernet header')
    l3 = f[14:]
    check(struct.unpack('!H', l3[22:24])[0] == 4791, 'UDP port 4791')
    bth = l3[28:]
    check(bth[0] == 0x04 and bth[5:8] == PEER_QPN.to_bytes(3, 'big') and
          bth[9:12] == SQ_PSN.to_bytes(3, 'big'),
          'BTH: SEND ONLY to the peer QP at the SQ PSN')
    check(bth[12:17] == b'hello', 'payload')
    check(struct.unpack('<I', l3[-4:])[0] == icrc_v4(l3), 'ICRC')
    # No ACK: nothing until the virtual clock passes the timeout.  The
    # clock goes to 1 ms short of it, then a second SEND is posted: the
    # QP sends in PSN order, so a resend already due would leave before
    # it; the second SEND arriving first shows there was none, however
    # slow the host (a quiet socket for a while would not).  The device
    # may defer a doorbell of a QP that waits for an ACK, for at most
    # LAZY_DB_NS of its clock (rocx-device.rst, "Doorbells"): the clock
    # moves that far, not to the timeout.
    rto = 4096 << 14
    q.cmd('clock_step %d' % (rto - 1000000))
    q.memwrite(QPB + 128, struct.pack('<BBBB4sIHH', 0, 0x9, 0, 0, bytes(4),
                                      5, 1, 0).ljust(64, b'\0') + b'world')
    q.wr('q', BAR2 + 0x00, qpn | 2 << 32)
    q.cmd('clock_step %d' % LAZY_DB_NS)
    f1 = q.net.recv(65536)
    bth1 = f1[14 + 28:]
    check(bth1[9:12] != SQ_PSN.to_bytes(3, 'big'),
          'resent before the timeout')
    check(bth1[0] == 0x04 and bth1[9:12] == (SQ_PSN + 1).to_bytes(3, 'big')
          and bth1[12:17] == b'world',
          'the second SEND next, at the next PSN')
    q.cmd('clock_step %d' % (1000000 - LAZY_DB_NS))
    f2 = q.net.recv(65536)
    check(f2 == f, 'the same packet again after the local ACK timeout')
    # ...and our ACK completes the SEND.  (QEMU holds every frame while
    # the Ethernet RX ring is empty, RoCE too: post buffers as a driver.)
    rx_post(q, 0, 4)
    ack = struct.pack('!BBHB3sB3s', 0x11, 0, 0xffff, 0,
                      qpn.to_bytes(3, 'big'), 0,
                      SQ_PSN.to_bytes(3, 'big')) + b'\x1f\x00\x00\x01'
    q.net.sendto(roce_frame(ack), q.sock_qemu)
    q.wait(lambda: q.memread(CQR + 19, 1)[0] & 1, 'CQE')
    cqe = q.memread(CQR, 32)
    check(cqe[15] == 0 and cqe[11] == 0 and cqe[16:18] == b'\0\0',
          'CQE: success, SEND, WQE 0 (%s)' % cqe.hex())


def t_migration_blocked(q):
    enable(q)
    r = q.qmp_cmd('migrate', uri='exec:cat >/dev/null')
    check('error' in r and 'rocx' in r['error'].get('desc', ''),
          'migration refused naming rocx: %s' % r)


def t_fabric_bundle(q):
    """bundle=on on a dgram netdev: HELLO at link-up; after our
    HELLO_ACK the frames of one engine run arrive as one bundle, and a
    bundle we send is split into the RX ring."""
    q.net.settimeout(5)
    bring_up(q)
    h = q.net.recv(fabric.BUNDLE_MAX)
    check(h == fabric.control(fabric.HELLO, src=MAC),
          'HELLO at link-up (%s)' % h[:fabric.HLEN].hex())
    # Buffers first: QEMU holds every frame while the RX ring is empty.
    rx_post(q, 0, 4)
    q.net.sendto(fabric.control(fabric.HELLO_ACK), q.sock_qemu)
    # A frame behind the HELLO_ACK, as a sentinel: the device takes what
    # the socket brings in order, so once this frame is in the RX ring
    # the HELLO_ACK has been taken too, however slow the host.
    sentinel = bytes([0xff] * 6) + PEER_MAC + b'\x08\x00' + bytes([6] * 46)
    q.net.sendto(sentinel, q.sock_qemu)
    q.wait(lambda: struct.unpack('<HH', q.memread(RX + 10, 4)) ==
           (len(sentinel), 1), 'the frame sent after HELLO_ACK received')
    # Three frames on the TX ring, one doorbell: one bundle.
    frames = [bytes([0xff] * 6) + MAC + b'\x08\x00' + bytes([i] * (60 + i))
              for i in range(3)]
    for i, f in enumerate(frames):
        q.memwrite(BUF + 0x4000 * i, f)
        q.memwrite(TX + 16 * i, struct.pack('<QHHHH', BUF + 0x4000 * i,
                                            len(f), 0, 0, 0))
    q.wr('q', BAR2 + DB_TX, 3 << 32)
    b = q.net.recv(fabric.BUNDLE_MAX)
    want = fabric.bundle(frames, src=MAC)
    check(b == want, 'one bundle of the three frames (%d bytes)' % len(b))
    # A bundle of two frames for us: both land in the RX ring.
    inner = [bytes([0xff] * 6) + PEER_MAC + b'\x08\x00' + bytes([7] * 50),
             bytes([0xff] * 6) + PEER_MAC + b'\x08\x00' + bytes([8] * 70)]
    q.net.sendto(fabric.bundle(inner), q.sock_qemu)
    q.wait(lambda: struct.unpack('<HH', q.memread(RX + 32 + 10, 4)) ==
           (len(inner[1]), 1), 'second frame of the bundle received')
    check(struct.unpack('<HH', q.memread(RX + 16 + 10, 4)) ==
          (len(inner[0]), 1), 'first frame of the bundle received')
    check(q.memread(BUF + 0x2000, len(inner[1])) == inner[1],
          'its bytes in the third buffer (the sentinel took the first)')


t_fabric_bundle.bundle = True


def t_aq_stall(q):
    """x-aq-stall through QMP's qom-set: the next command of the opcode
    is fetched and never completed; DEV_CTRL.RESET ends the stall and
    turns the knob off."""
    path = '/machine/peripheral/nic'
    enable(q)
    aq = Aq(q)
    r = q.qmp_cmd('qom-get', path=path, property='x-aq-stall')
    check(r.get('return') == -1, 'off by default: %s' % r)
    r = q.qmp_cmd('qom-set', path=path, property='x-aq-stall', value=70000)
    check('error' in r, 'out of range refused: %s' % r)
    r = q.qmp_cmd('qom-set', path=path, property='x-aq-stall', value=0x03)
    check('return' in r, 'qom-set x-aq-stall QUERY_PORT: %s' % r)
    check(aq.run(0x00)[0] == 0, 'NOP still runs')
    slot = aq.pi % 16
    q.memwrite(SQ + 64 * slot, struct.pack('<HHI', 0x03, 0x200, 0).ljust(
        64, b'\0'))
    aq.pi += 1
    q.setreg(R_AQ_DB, aq.pi)
    q.wait(lambda: q.reg(R_AQ_HEAD) == aq.pi, 'QUERY_PORT fetched')
    # A NOP behind it, then TEST_DMA as a sentinel: the engine pass that
    # runs TEST_DMA runs the admin queue too, so once TEST_DMA is DONE
    # the queue has had its turn after the stall, however slow the host,
    # and a completion or the NOP's fetch would be there.
    nslot = aq.pi % 16
    q.memwrite(SQ + 64 * nslot, struct.pack('<HHI', 0x00, 0x201, 0).ljust(
        64, b'\0'))
    aq.pi += 1
    q.setreg(R_AQ_DB, aq.pi)
    q.memwrite(BUF, bytes(64))
    q.setreg(R_TDMA_LO, BUF)
    q.setreg(R_TDMA_HI, 0)
    q.setreg(R_TDMA_LEN, 64)
    q.setreg(R_TDMA_CTRL, 1)
    q.wait(lambda: q.reg(R_TDMA_STATUS) == 2, 'TEST_DMA after the stall')
    check(q.memread(CQ + 16 * slot, 16) == bytes(16), 'and never completed')
    check(q.reg(R_AQ_HEAD) == aq.pi - 1 and
          q.memread(CQ + 16 * nslot, 16) == bytes(16),
          'the NOP behind it neither fetched nor completed')
    check(q.qmp_cmd('qom-get', path=path,
                    property='x-aq-stall').get('return') == 3, 'knob armed')
    q.setreg(0x010, 1)          # DEV_CTRL.RESET
    check(q.qmp_cmd('qom-get', path=path,
                    property='x-aq-stall').get('return') == -1,
          'reset turns the knob off')
    aq = Aq(q)
    check(aq.run(0x03)[0] == 0, 'QUERY_PORT runs after the reset')


def t_system_reset(q):
    bring_up(q)
    q.setreg(R_SCRATCH, 0x55)
    r = q.qmp_cmd('system_reset')
    check('return' in r, 'system_reset')
    q.wait(lambda: q.cfg_rd(0x04) & 0x6 == 0, 'PCI command register reset')
    enable(q)
    check(q.reg(R_SCRATCH) == 0, 'scratch cleared')
    check(q.reg(R_AQ_STATUS) == 0, 'admin queue off')
    check(q.reg(R_LINK) & 7 == 2, 'admin down, carrier kept')


def t_delay_props(q):
    """cnp-delay and db-delay are properties of any device; tx-delay and
    rx-delay act on the timed channel's stamps, so a device without
    timed=on refuses to start with them, as with a delay above 100 us."""
    path = '/machine/peripheral/nic'
    enable(q)
    for prop in ('cnp-delay', 'db-delay'):
        r = q.qmp_cmd('qom-get', path=path, property=prop)
        check(r.get('return') == 0, '%s 0 by default: %s' % (prop, r))
    for prop, value, want in (('tx-delay', 5, 'need timed=on'),
                              ('rx-delay', 5, 'need timed=on'),
                              ('cnp-delay', 100001, 'above 100000 ns'),
                              ('db-delay', 100001, 'above 100000 ns')):
        p = subprocess.run(
            [q.qemu, '-machine', 'pc', '-accel', 'qtest', '-m', '64',
             '-nodefaults', '-display', 'none', '-qtest', 'null',
             '-L', '/usr/share/seabios', '-L', '/usr/share/qemu',
             '-device', 'rocx,%s=%d' % (prop, value)],
            stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=30)
        check(p.returncode == 1 and want in p.stderr,
              '%s=%d refused (%d: %s)' % (prop, value, p.returncode,
                                          p.stderr.strip()[-200:]))


# ---- The device's own fabric channel (fabric=PATH), untimed ----

def chan_accept(q):
    """Take the device's connection and its HELLO, as rocx-switch does."""
    q.chan, _ = q.chan_listen.accept()
    q.chan.settimeout(5)
    h = q.chan.recv(fabric.BUNDLE_MAX)
    ftype, flags, t, _, _ = fabric.parse_record(h)
    check(ftype == fabric.HELLO and t is None and
          not flags & fabric.F_TIMED,
          'an untimed HELLO first (%s)' % h[:fabric.HLEN].hex())
    check(fabric.get(h, 'src') == MAC, 'HELLO from the device\'s MAC')


def t_chan_untimed(q):
    """fabric=PATH without timed=on, to a switch that takes no rings (a
    HELLO_ACK without RINGS): QEMU's start waits for our HELLO_ACK; the
    records stay on the socket: one engine run's frames leave as one BUNDLE record,
    a bundle we send lands in the RX ring, and end of file from us takes
    the carrier down with a LINK_CHANGE event and a warning."""
    q.net.settimeout(5)
    chan_accept(q)
    q.chan.send(fabric.record(fabric.HELLO_ACK))
    bring_up(q)
    rx_post(q, 0, 4)
    frames = [bytes([0xff] * 6) + MAC + b'\x08\x00' + bytes([i] * (60 + i))
              for i in range(3)]
    for i, f in enumerate(frames):
        q.memwrite(BUF + 0x4000 * i, f)
        q.memwrite(TX + 16 * i, struct.pack('<QHHHH', BUF + 0x4000 * i,
                                            len(f), 0, 0, 0))
    q.wr('q', BAR2 + DB_TX, 3 << 32)
    ftype, _, t, _, got = fabric.parse_record(q.chan.recv(fabric.BUNDLE_MAX))
    check(ftype == fabric.BUNDLE and t is None,
          'an untimed BUNDLE record (type %d)' % ftype)
    check([f for _, f in got] == frames,
          'the three frames in one record, in order (%d)' % len(got))
    inner = [bytes([0xff] * 6) + PEER_MAC + b'\x08\x00' + bytes([7] * 50),
             bytes([0xff] * 6) + PEER_MAC + b'\x08\x00' + bytes([8] * 70)]
    q.chan.send(fabric.bundle(inner))
    q.wait(lambda: struct.unpack('<HH', q.memread(RX + 16 + 10, 4)) ==
           (len(inner[1]), 1), 'second frame of our bundle received')
    check(q.memread(BUF, len(inner[0])) == inner[0] and
          q.memread(BUF + 0x1000, len(inner[1])) == inner[1],
          'both frames\' bytes in the RX buffers')
    q.chan.close()
    q.chan = None
    q.wait(lambda: q.reg(R_LINK) & 3 == 0, 'carrier and UP clear at end of file')
    check(q.reg(R_LINK) & 4, 'the port stays administratively up')
    events = [struct.unpack('<HBBI', q.memread(EQ + 16 * i, 8))
              for i in range(2)]
    check([(typ, data & 1) for typ, _, _, data in events] == [(2, 1), (2, 0)],
          'LINK_CHANGE events up, then down: %s' % events)
    q.wait(lambda: 'the switch went away' in q.stderr(),
           'QEMU warns that the switch went away')


t_chan_untimed.chan = True


def chan_accept_rings(q):
    """Take the connection and a HELLO that offers rings: the switch's
    end of them."""
    q.chan, _ = q.chan_listen.accept()
    q.chan.settimeout(5)
    h, fds, _, _ = socket.recv_fds(q.chan, fabric.BUNDLE_MAX, 4)
    ftype, flags, t, _, _ = fabric.parse_record(h)
    check(ftype == fabric.HELLO and t is None and flags == fabric.F_RINGS
          and len(fds) == 3,
          'fabric-rings=on: an untimed HELLO with RINGS and three '
          'descriptors (flags %#x, %d)' % (flags, len(fds)))
    r = rings.Rings.attach(fds)
    check(r.size == 4 << 20 and
          len(r.m) == rings.CTL + 2 * r.size,
          'rings of 4 MiB each way (%d)' % r.size)
    q.chan.send(fabric.record(fabric.HELLO_ACK, flags=fabric.F_RINGS))
    return r


def t_chan_rings(q):
    """A switch that takes the rings: one engine run's frames arrive as
    one BUNDLE record in ring 0, a bundle we put in ring 1 lands in the RX
    ring though the device slept (its eventfd woke it), nothing more
    comes on the socket, and the socket's end of file still takes the
    carrier down."""
    q.net.settimeout(5)
    r = chan_accept_rings(q)
    bring_up(q)
    rx_post(q, 0, 4)
    frames = [bytes([0xff] * 6) + MAC + b'\x08\x00' + bytes([i] * (60 + i))
              for i in range(3)]
    for i, f in enumerate(frames):
        q.memwrite(BUF + 0x4000 * i, f)
        q.memwrite(TX + 16 * i, struct.pack('<QHHHH', BUF + 0x4000 * i,
                                            len(f), 0, 0, 0))
    q.wr('q', BAR2 + DB_TX, 3 << 32)
    rec = r.take(5)
    check(rec is not None, 'a record in ring 0')
    ftype, _, t, _, got = fabric.parse_record(rec)
    check(ftype == fabric.BUNDLE and [f for _, f in got] == frames,
          'the three frames in one BUNDLE record, in order (%d)' % len(got))
    time.sleep(0.2)
    inner = [bytes([0xff] * 6) + PEER_MAC + b'\x08\x00' + bytes([7] * 50),
             bytes([0xff] * 6) + PEER_MAC + b'\x08\x00' + bytes([8] * 70)]
    r.put(fabric.bundle(inner))
    q.wait(lambda: struct.unpack('<HH', q.memread(RX + 16 + 10, 4)) ==
           (len(inner[1]), 1), 'second frame of our ring\'s bundle received')
    check(q.memread(BUF, len(inner[0])) == inner[0] and
          q.memread(BUF + 0x1000, len(inner[1])) == inner[1],
          'both frames\' bytes in the RX buffers')
    q.chan.settimeout(0.3)
    try:
        stray = q.chan.recv(fabric.BUNDLE_MAX)
    except socket.timeout:
        stray = None
    check(stray is None, 'nothing on the socket after HELLO_ACK (%r)' %
          (stray[:16] if stray else stray))
    q.chan.close()
    q.chan = None
    q.wait(lambda: q.reg(R_LINK) & 3 == 0, 'carrier and UP clear at end of file')
    q.wait(lambda: 'the switch went away' in q.stderr(),
           'QEMU warns that the switch went away')
    r.close()


t_chan_rings.chan = True


def tx_frames(q, first, n, fill):
    """n broadcast frames at TX slots first.., and the doorbell."""
    frames = [bytes([0xff] * 6) + MAC + b'\x08\x00' + bytes([fill + i] * 64)
              for i in range(n)]
    for i, f in enumerate(frames):
        slot = first + i
        q.memwrite(BUF + 0x4000 * slot, f)
        q.memwrite(TX + 16 * slot, struct.pack('<QHHHH', BUF + 0x4000 * slot,
                                               len(f), 0, 0, 0))
    q.wr('q', BAR2 + DB_TX, (first + n) << 32)
    return frames


def direct_rec(ftype, max_len=fabric.BUNDLE_MAX):
    return fabric.record(ftype, max_len=max_len)


def t_chan_direct(q):
    """Direct rings ("Direct rings"): a DIRECT whose peer takes shorter
    bundles is declined; a good one is answered with DIRECT_ACK in ring 0,
    the engine's frames are held until DIRECT_GO and then go into the
    peer's ring 1, waking it; DIRECT_END is answered in ring 0 and the
    frames come back through it; a DIRECT_GO nobody asked for ends QEMU
    naming it."""
    q.net.settimeout(5)
    r = chan_accept_rings(q)
    bring_up(q)
    peer = rings.Rings()
    socket.send_fds(q.chan, [direct_rec(fabric.DIRECT, 2048)],
                    [peer.memfd, peer.nic_wake])
    ack = r.take(5)
    check(ack is not None and
          fabric.parse_record(ack)[:2] == (fabric.DIRECT_ACK,
                                           fabric.F_REFUSED),
          'a peer of shorter bundles is declined (%r)' % (ack and ack[:24]))
    q.wait(lambda: 'declined a direct link' in q.stderr(),
           'QEMU says why it declined')
    socket.send_fds(q.chan, [direct_rec(fabric.DIRECT)],
                    [peer.memfd, peer.nic_wake])
    ack = r.take(5)
    check(ack is not None and
          fabric.parse_record(ack)[:2] == (fabric.DIRECT_ACK, 0),
          'DIRECT answered with DIRECT_ACK in ring 0 (%r)' %
          (ack and ack[:24]))
    held = tx_frames(q, 0, 3, 1)
    check(r.take(0.5) is None and peer.take(0.1) is None,
          'nothing leaves between DIRECT_ACK and DIRECT_GO')
    q.chan.send(direct_rec(fabric.DIRECT_GO))
    got = []
    while len(got) < 3:
        rec = peer.take(5)
        check(rec is not None, 'the held frames in the peer\'s ring 1 (%d)'
              % len(got))
        got += [f for _, f in fabric.parse_record(rec)[4]]
    check(got == held, 'the held frames whole and in order')
    direct = tx_frames(q, 3, 2, 10)
    rec = peer.take(5)
    check(rec is not None and
          [f for _, f in fabric.parse_record(rec)[4]] == direct,
          'frames sent after DIRECT_GO go straight to the peer')
    check(peer.kicks > 0, 'the device wakes the peer that sleeps')
    check(r.take(0.2) is None, 'nothing in ring 0 while direct')
    q.chan.send(direct_rec(fabric.DIRECT_END))
    ack = r.take(5)
    check(ack is not None and
          fabric.parse_record(ack)[0] == fabric.DIRECT_END_ACK,
          'DIRECT_END answered with DIRECT_END_ACK in ring 0')
    back = tx_frames(q, 5, 2, 20)
    rec = r.take(5)
    check(rec is not None and
          [f for _, f in fabric.parse_record(rec)[4]] == back and
          peer.take(0.2) is None,
          'after DIRECT_END the frames go through ring 0 again')
    q.chan.send(direct_rec(fabric.DIRECT_GO))
    try:
        rc = q.p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        raise Fail('QEMU still runs after a DIRECT_GO nobody asked for')
    err = q.stderr()
    check(rc == 1 and 'DIRECT_GO to no DIRECT_ACK' in err,
          'QEMU exits 1 naming the stray DIRECT_GO (%s): %s' %
          (rc, err.strip()[-300:]))
    peer.close()
    r.close()


t_chan_direct.chan = True


def t_chan_ring_damage(q):
    """A damaged ring 1 (a head that is not a whole record ahead) ends
    QEMU with a message naming the channel and the damage."""
    r = chan_accept_rings(q)
    bring_up(q)
    r.put_raw_head(12)
    try:
        rc = q.p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        raise Fail('QEMU still runs after the damage')
    err = q.stderr()
    check(rc == 1 and q.chan_path in err and 'protocol error' in err and
          'head is out of range' in err,
          'QEMU exits 1 naming the channel and the damage (%s): %s' %
          (rc, err.strip()[-300:]))
    r.close()


t_chan_ring_damage.chan = True


def t_chan_refused(q):
    """A HELLO_ACK that refuses the device (a timed switch refusing an
    untimed NIC) ends QEMU with a message naming the channel, rather than
    a guest whose link never comes up."""
    chan_accept(q)
    q.chan.send(fabric.record(fabric.HELLO_ACK, flags=fabric.F_REFUSED))
    try:
        rc = q.p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        raise Fail('QEMU still runs after the refusal')
    err = q.stderr()
    check(rc == 1, 'QEMU exits with status 1 (%s)' % rc)
    check(q.chan_path in err and 'refused by the switch' in err and
          'the switch is timed' in err,
          'the message names the channel and the refusal: %s' %
          err.strip()[-300:])


t_chan_refused.chan = True


CASES = [t_pci_identity, t_bars_64bit, t_registers_and_access_sizes,
         t_msix_test_irq, t_test_dma, t_admin_queue, t_tx, t_rx_and_hold,
         t_set_link, t_roce_send_retransmit, t_migration_blocked,
         t_system_reset, t_fabric_bundle, t_aq_stall, t_chan_untimed,
         t_chan_rings, t_chan_direct, t_chan_ring_damage, t_chan_refused,
         t_delay_props]


def main():
    ap = argparse.ArgumentParser()
    repo = os.path.abspath(os.path.join(os.path.dirname(__file__), '../..'))
    ap.add_argument('--qemu', default=os.path.join(
        repo, 'build/qemu-system-x86_64'))
    ap.add_argument('-v', action='store_true')
    ap.add_argument('cases', nargs='*')
    a = ap.parse_args()
    passed = failed = 0
    for case in CASES:
        name = case.__name__[2:]
        if a.cases and name not in a.cases:
            continue
        with tempfile.TemporaryDirectory(prefix='rocx-qtest.') as tmp:
            q = Qemu(a.qemu, tmp, a.v, getattr(case, 'bundle', False),
                     getattr(case, 'chan', False))
            try:
                case(q)
                print('ok   qtest_%s' % name)
                passed += 1
            except (Fail, OSError, ValueError) as e:
                print('FAIL qtest_%s: %s' % (name, e))
                with open(os.path.join(tmp, 'stderr')) as f:
                    err = f.read().strip()
                if err:
                    print('  QEMU stderr: ' + err[-2000:])
                failed += 1
            finally:
                q.close()
    print('qtest: %d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
