#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Memory windows (type 1 and 2) and ibv_rereg_mr over one GID kind.

  verbs_mw.py KIND      KIND one of v2, v6, v1 (verbs_lib.GID_KINDS)

A target T owns a buffer whose MR allows binding windows; a client C
reaches it only through windows (and, after ibv_rereg_mr, through the MR).
In each guest both roles run here, over two QPs looped back inside the
device; with two guests, guest 1 is T and guest 0 is C.  Every phase
uses a fresh pair of QPs, since each refused access moves both to ERR:

  1. T binds a type 1 window (ibv_bind_mw) and a type 2 window
     (IBV_WR_BIND_MW); C writes through both and reads back through the
     type 1, T checks the data; C sends with invalidate of the type 2
     key, T's receive reports it; C's next WRITE through it fails.
  2. T binds the type 1 window again over 4 KiB, read only; C reads in
     it (data checked), then a READ across its end fails.
  3. T binds the type 2 window on the new QP and invalidates it locally
     (IBV_WR_LOCAL_INV); C's WRITE through it fails.
  4. T unbinds the type 1 window (zero-length bind); C's WRITE fails.
  5. T re-registers the MR over a new buffer with remote write
     (IBV_REREG_MR_CHANGE_TRANSLATION | _ACCESS); C's WRITE through the
     same rkey lands in the new buffer.
  6. (loopback only) T registers a read-only shared mapping of a file on
     a tmpfs for remote read; C reads it.  ibv_rereg_mr that adds write
     access must fail with EACCES: the pages were pinned without write
     access, so the device must not get it through the old pages (the
     kernel's ib_umem_check_rereg()).  C's WRITE to the rkey then fails
     and the file keeps its bytes.  With a new translation over the same
     mapping, pinning for write fails with EFAULT.
"""
import ctypes
import errno
import mmap
import os
import subprocess
import sys
import tempfile

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.mr import MR, MW, MWBind, MWBindInfo
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

import verbs_lib as vl

SIZE = 65536
HALF = SIZE // 2
WIN = 4096
LOCAL = e.IBV_ACCESS_LOCAL_WRITE
REMOTE = e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
RO_SIZE = 2 * 4096

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.mmap.restype = ctypes.c_void_p
LIBC.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long)
LIBC.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)


class Link:
    """Who plays which role, and how values pass between the roles."""

    def __init__(self, env, kind, loop):
        self.env, self.kind, self.loop = env, kind, loop
        self.vals = {}

    def plays(self, role):
        return self.loop or role == ('T' if self.env.me == 1 else 'C')

    def put(self, key, value):
        if self.loop:
            self.vals[key] = value
        else:
            self.env.put(f'mw.{self.kind}.{key}', value)

    def get(self, key):
        if self.loop:
            return self.vals[key]
        return self.env.get(f'mw.{self.kind}.{key}')


class End:
    """One role's QP and CQ of a phase."""

    def __init__(self, ctx, pd):
        self.cq = CQ(ctx, 32)
        cap = QPCap(max_send_wr=8, max_recv_wr=8)
        self.qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq,
                                    rcq=self.cq, cap=cap))

    def close(self):
        self.qp.close()
        self.cq.close()


def wc_str(wcs):
    return f'completions: {[(w.status, w.opcode) for w in wcs]}'


def one_wc(tap, end, what, status=e.IBV_WC_SUCCESS, opcode=None):
    wcs = vl.poll(end.cq, 1)
    good = len(wcs) == 1 and wcs[0].status == status and \
        (opcode is None or wcs[0].opcode == opcode)
    tap.ok(good, what, wc_str(wcs))
    return wcs[0] if wcs else None


class Mw:
    """Both roles of one GID kind."""

    def __init__(self, tap, env, link, ctx, gidx, where):
        self.tap, self.env, self.link = tap, env, link
        self.ctx, self.gidx, self.where = ctx, gidx, where
        self.pd = PD(ctx)
        self.phase = 0
        self.t = self.c = None
        if link.plays('T'):
            self.mr = MR(self.pd, SIZE, LOCAL | e.IBV_ACCESS_MW_BIND)
            self.mw1 = MW(self.pd, e.IBV_MW_TYPE_1)
            self.mw2 = MW(self.pd, e.IBV_MW_TYPE_2)
        if link.plays('C'):
            self.cmr = MR(self.pd, SIZE, LOCAL)

    def ok(self, cond, what, detail=None):
        return self.tap.ok(cond, f'{self.where}: {what}', detail)

    def connect(self):
        """A fresh QP pair for the next phase."""
        # The other role may still be using this phase's QPs.
        if self.phase and not self.link.loop:
            self.env.barrier(f'mw.{self.link.kind}.{self.phase}.end')
        self.phase += 1
        for end in (self.t, self.c):
            if end:
                end.close()
        self.t = self.c = None
        mine = {}
        for role in ('T', 'C'):
            if self.link.plays(role):
                end = End(self.ctx, self.pd)
                setattr(self, role.lower(), end)
                mine[role] = {'qpn': end.qp.qp_num,
                              'psn': 100 * self.phase + len(mine),
                              'gid': vl.gid_of(self.ctx, self.gidx)}
                self.link.put(f'{self.phase}.qp.{role}', mine[role])
        for role, other in (('T', 'C'), ('C', 'T')):
            if self.link.plays(role):
                end = getattr(self, role.lower())
                vl.rc_connect(end.qp, self.gidx,
                              self.link.get(f'{self.phase}.qp.{other}'),
                              my_psn=mine[role]['psn'])
        if not self.link.loop:
            self.env.barrier(f'mw.{self.link.kind}.{self.phase}')

    # ---- target ----

    def bind1(self, addr, length, access, what):
        bind = MWBind(MWBindInfo(self.mr, addr, length, access),
                      e.IBV_SEND_SIGNALED)
        self.t.qp.bind_mw(self.mw1, bind)
        one_wc(self.tap, self.t, f'{self.where}: {what}',
               opcode=e.IBV_WC_BIND_MW)
        return self.mw1.rkey

    def bind2(self, addr, length, access, what):
        wr = SendWR(opcode=e.IBV_WR_BIND_MW)
        wr.set_bind_wr(self.mw2, MWBindInfo(self.mr, addr, length, access))
        self.t.qp.post_send(wr)
        one_wc(self.tap, self.t, f'{self.where}: {what}',
               opcode=e.IBV_WC_BIND_MW)
        return wr.rkey

    def check_target(self, key, off, length, seed, what):
        if self.link.plays('T'):
            self.link.get(key)
            err = vl.verify(self.mr.read(length, off), length, seed)
            self.ok(err is None, what, err)

    # ---- client ----

    def rdma(self, op, raddr, rkey, length, off=0):
        wr = SendWR(opcode=op, num_sge=1,
                    sg=[SGE(self.cmr.buf + off, length, self.cmr.lkey)])
        wr.set_wr_rdma(rkey, raddr)
        self.c.qp.post_send(wr)
        return vl.poll(self.c.cq, 1)

    def refused(self, op, raddr, rkey, length, what):
        wcs = self.rdma(op, raddr, rkey, length)
        self.ok(len(wcs) == 1 and wcs[0].status == e.IBV_WC_REM_ACCESS_ERR,
                what, wc_str(wcs))

    def written(self, raddr, rkey, length, seed, what):
        self.cmr.write(vl.pattern(length, seed), length)
        wcs = self.rdma(e.IBV_WR_RDMA_WRITE, raddr, rkey, length)
        return self.ok(len(wcs) == 1 and wcs[0].status == e.IBV_WC_SUCCESS,
                       what, wc_str(wcs))

    # ---- phases ----

    def phase1(self):
        self.connect()
        if self.link.plays('T'):
            base = self.mr.buf
            r1 = self.bind1(base, HALF, LOCAL | REMOTE,
                            'type 1 window bound by ibv_bind_mw')
            r2 = self.bind2(base + HALF, HALF, LOCAL | REMOTE,
                            'type 2 window bound by IBV_WR_BIND_MW')
            self.t.qp.post_recv(RecvWR(num_sge=1, sg=[
                SGE(self.mr.buf + HALF, 64, self.mr.lkey)]))
            self.link.put('1.win', {'a1': base, 'r1': r1,
                                    'a2': base + HALF, 'r2': r2})
        win = self.link.get('1.win')
        if self.link.plays('C'):
            self.written(win['a1'] + 100, win['r1'], 20000, 21,
                         'WRITE through the type 1 window')
            self.written(win['a2'], win['r2'], 9000, 22,
                         'WRITE through the type 2 window')
            self.cmr.write(bytes(20000), 20000)
            wcs = self.rdma(e.IBV_WR_RDMA_READ, win['a1'] + 100, win['r1'],
                            20000)
            if self.ok(len(wcs) == 1 and wcs[0].status == e.IBV_WC_SUCCESS,
                       'READ through the type 1 window', wc_str(wcs)):
                err = vl.verify(self.cmr.read(20000, 0), 20000, 21)
                self.ok(err is None, 'READ brought the WRITE\'s data', err)
            self.link.put('1.written', True)
        self.check_target('1.written', 100, 20000, 21,
                          'type 1 window data arrived intact')
        self.check_target('1.written', HALF, 9000, 22,
                          'type 2 window data arrived intact')
        if not self.link.loop:
            self.env.barrier(f'mw.{self.link.kind}.1.checked')
        if self.link.plays('C'):
            wr = SendWR(opcode=e.IBV_WR_SEND_WITH_INV, num_sge=1,
                        sg=[SGE(self.cmr.buf, 32, self.cmr.lkey)])
            wr.imm_data = win['r2']
            self.c.qp.post_send(wr)
            one_wc(self.tap, self.c, f'{self.where}: SEND with invalidate '
                   'completes', opcode=e.IBV_WC_SEND)
            self.link.put('1.sent_inv', True)
        if self.link.plays('T'):
            self.link.get('1.sent_inv')
            wc = one_wc(self.tap, self.t, f'{self.where}: receive of the '
                        'SEND with invalidate', opcode=e.IBV_WC_RECV)
            # imm_data shares its place with invalidated_rkey.
            self.ok(wc is not None and wc.wc_flags & e.IBV_WC_WITH_INV and
                    wc.imm_data == win['r2'],
                    'the receive names the invalidated rkey',
                    wc and f'flags {wc.wc_flags:#x} rkey '
                    f'{wc.imm_data:#x} want {win["r2"]:#x}')
            self.link.put('1.inv_seen', True)
        if self.link.plays('C'):
            self.link.get('1.inv_seen')
            self.refused(e.IBV_WR_RDMA_WRITE, win['a2'], win['r2'], 64,
                         'WRITE through the remotely invalidated window '
                         'fails: remote access error')

    def phase2(self):
        self.connect()
        if self.link.plays('T'):
            self.mr.write(vl.pattern(WIN, 23), WIN)
            r1 = self.bind1(self.mr.buf, WIN, e.IBV_ACCESS_REMOTE_READ,
                            'type 1 window bound again, 4 KiB read only')
            self.link.put('2.win', {'a1': self.mr.buf, 'r1': r1})
        if self.link.plays('C'):
            win = self.link.get('2.win')
            wcs = self.rdma(e.IBV_WR_RDMA_READ, win['a1'], win['r1'], WIN)
            if self.ok(len(wcs) == 1 and wcs[0].status == e.IBV_WC_SUCCESS,
                       'READ of the whole rebound window', wc_str(wcs)):
                err = vl.verify(self.cmr.read(WIN, 0), WIN, 23)
                self.ok(err is None, 'READ data intact', err)
            self.refused(e.IBV_WR_RDMA_READ, win['a1'] + WIN - 8, win['r1'],
                         16, 'READ across the window\'s end fails: remote '
                         'access error')

    def phase3(self):
        self.connect()
        if self.link.plays('T'):
            r2 = self.bind2(self.mr.buf + HALF, HALF, LOCAL | REMOTE,
                            'type 2 window bound to the new QP')
            wr = SendWR(opcode=e.IBV_WR_LOCAL_INV)
            wr.imm_data = r2
            self.t.qp.post_send(wr)
            one_wc(self.tap, self.t, f'{self.where}: LOCAL_INV of the type 2 '
                   'window', opcode=e.IBV_WC_LOCAL_INV)
            self.link.put('3.win', {'a2': self.mr.buf + HALF, 'r2': r2})
        if self.link.plays('C'):
            win = self.link.get('3.win')
            self.refused(e.IBV_WR_RDMA_WRITE, win['a2'], win['r2'], 64,
                         'WRITE through the locally invalidated window fails')

    def phase4(self):
        self.connect()
        if self.link.plays('T'):
            old = self.mw1.rkey
            self.bind1(self.mr.buf, 0, 0, 'type 1 window unbound (length 0)')
            self.link.put('4.win', {'a1': self.mr.buf, 'r1': old,
                                    'r1new': self.mw1.rkey})
        if self.link.plays('C'):
            win = self.link.get('4.win')
            self.refused(e.IBV_WR_RDMA_READ, win['a1'], win['r1new'], 16,
                         'READ through the unbound type 1 window fails')

    def phase5(self):
        self.connect()
        if self.link.plays('T'):
            # Fresh pages that no other MR maps: a second DMA mapping of
            # the same pages is legal verbs, but the debug kernel's
            # DMA-API check takes it for an overlap and reports it.
            self.newmem = mmap.mmap(-1, SIZE)
            self.newbuf = ctypes.addressof(ctypes.c_char.from_buffer(self.newmem))
            old = self.mr.buf
            try:
                self.mr.rereg(e.IBV_REREG_MR_CHANGE_TRANSLATION |
                              e.IBV_REREG_MR_CHANGE_ACCESS, self.pd,
                              self.newbuf, SIZE,
                              LOCAL | e.IBV_ACCESS_REMOTE_WRITE)
                self.ok(True, 'ibv_rereg_mr to a new buffer with remote write')
            except Exception as ex:  # pylint: disable=broad-except
                self.ok(False, 'ibv_rereg_mr to a new buffer with remote '
                        'write', f'{type(ex).__name__}: {ex}')
            self.link.put('5.mr', {'addr': self.newbuf,
                                   'rkey': self.mr.rkey, 'old': old})
        info = self.link.get('5.mr')
        if self.link.plays('C'):
            self.written(info['addr'] + 512, info['rkey'], 30000, 24,
                         'WRITE through the re-registered MR')
            self.link.put('5.written', True)
        if self.link.plays('T'):
            self.link.get('5.written')
            err = vl.verify(bytes(self.newmem[512:512 + 30000]), 30000, 24)
            self.ok(err is None, 'the data is in the new buffer', err)

    def rereg_refused(self, mr, flags, addr, length, access, want, what):
        """ibv_rereg_mr of mr must fail with errno want."""
        try:
            mr.rereg(flags, self.pd, addr, length, access)
            self.ok(False, what, 'ibv_rereg_mr succeeded')
        except PyverbsRDMAError as ex:
            self.ok(ex.error_code == want, what,
                    f'errno {ex.error_code}, want {want}: {ex}')

    def file_intact(self, path, seed, what):
        with open(path, 'rb') as f:
            err = vl.verify(f.read(), RO_SIZE, seed)
        self.ok(err is None, what, err)

    def phase6(self, tmp):
        """A read-only file mapping must not become writable by rereg."""
        path = os.path.join(tmp, 'ro')
        with open(path, 'wb') as f:
            f.write(vl.pattern(RO_SIZE, 25))
        fd = os.open(path, os.O_RDONLY)
        addr = LIBC.mmap(None, RO_SIZE, mmap.PROT_READ, mmap.MAP_SHARED, fd,
                         0)
        os.close(fd)
        if addr in (None, ctypes.c_void_p(-1).value):
            self.ok(False, 'mmap of the file, read only',
                    os.strerror(ctypes.get_errno()))
            return
        try:
            mr = MR(self.pd, RO_SIZE, e.IBV_ACCESS_REMOTE_READ, address=addr)
            try:
                self.rereg_ro(mr, addr, path)
            finally:
                mr.close()
        finally:
            LIBC.munmap(addr, RO_SIZE)
        self.file_intact(path, 25, 'the read-only file kept its bytes')

    def rereg_ro(self, mr, addr, path):
        self.connect()
        wcs = self.rdma(e.IBV_WR_RDMA_READ, addr, mr.rkey, RO_SIZE)
        if self.ok(len(wcs) == 1 and wcs[0].status == e.IBV_WC_SUCCESS,
                   'READ of a read-only file mapping', wc_str(wcs)):
            err = vl.verify(self.cmr.read(RO_SIZE, 0), RO_SIZE, 25)
            self.ok(err is None, 'READ brought the file\'s bytes', err)
        self.rereg_refused(mr, e.IBV_REREG_MR_CHANGE_ACCESS, 0, 0,
                           LOCAL | REMOTE, errno.EACCES,
                           'ibv_rereg_mr adding write access to pages '
                           'pinned read only fails: EACCES')
        self.cmr.write(vl.pattern(RO_SIZE, 26), RO_SIZE)
        self.refused(e.IBV_WR_RDMA_WRITE, addr, mr.rkey, RO_SIZE,
                     'WRITE to the read-only file\'s MR fails: remote '
                     'access error')
        self.file_intact(path, 25, 'the file is unchanged after the WRITE')
        self.rereg_refused(mr, e.IBV_REREG_MR_CHANGE_TRANSLATION |
                           e.IBV_REREG_MR_CHANGE_ACCESS, addr, RO_SIZE,
                           LOCAL | REMOTE, errno.EFAULT,
                           'ibv_rereg_mr with a new translation over the '
                           'read-only mapping, for write, fails: EFAULT')
        self.connect()
        self.refused(e.IBV_WR_RDMA_WRITE, addr, mr.rkey, RO_SIZE,
                     'WRITE after the refused translation change fails')

    def run(self):
        for phase in (self.phase1, self.phase2, self.phase3, self.phase4,
                      self.phase5):
            phase()
        if self.link.loop:
            # A tmpfs of its own: the guest's root is an overlay, and
            # /dev/shm need not be mounted.
            tmp = tempfile.mkdtemp(prefix='verbs_mw.')
            subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=1m',
                            'verbs_mw', tmp], check=True)
            try:
                self.phase6(tmp)
            finally:
                subprocess.run(['umount', tmp], check=False)
                os.rmdir(tmp)
        if not self.link.loop:
            self.env.barrier(f'mw.{self.link.kind}.done')


def main(tap, kind):
    env = vl.Env()
    gidx = env.gids[kind]
    ctx = env.context()
    Mw(tap, env, Link(env, kind, True), ctx, gidx,
       f'loopback over the {kind} GID').run()
    if env.peer is not None:
        Mw(tap, env, Link(env, kind, False), ctx, gidx,
           f'two guests over the {kind} GID').run()


if __name__ == '__main__':
    TAP = vl.Tap(f'mw {sys.argv[1]}')
    TAP.run(main, TAP, sys.argv[1])
