#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The rest of the extended verbs over one GID kind, data verified:
ibv_wr_atomic_cmp_swp and ibv_wr_atomic_fetch_add, a type 2 window bound
with ibv_wr_bind_mw, invalidated with ibv_wr_local_inv and with
ibv_wr_send_inv (then refused at once), ibv_resize_cq while completions
are outstanding, an SRQ grown with entries posted, and the device clock
through ibv_query_rt_values_ex and wall-clock completion timestamps.

  verbs_ext_atomic_mw.py KIND  KIND one of v2, v6, v1 (verbs_lib.GID_KINDS)

In each guest between two QPs of the device (looped back inside it);
with two guests also guest 0's atomics on guest 1's memory.
"""
import struct
import sys
import time

import pyverbs.enums as e
from pyverbs.base import inc_rkey
from pyverbs.cq import CQ, CQEX, CqInitAttrEx, PollCqAttr
from pyverbs.mr import MR, MW, MWBindInfo
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPCap, QPEx, QPInitAttr, QPInitAttrEx
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

import verbs_lib as vl

SIZE = 8192
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC |
          e.IBV_ACCESS_MW_BIND)
OPS = (e.IBV_QP_EX_WITH_SEND | e.IBV_QP_EX_WITH_RDMA_WRITE |
       e.IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
       e.IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
       e.IBV_QP_EX_WITH_BIND_MW | e.IBV_QP_EX_WITH_LOCAL_INV |
       e.IBV_QP_EX_WITH_SEND_WITH_INV)
WALL = e.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK


def u64(mr, off):
    return struct.unpack('<Q', bytes(mr.read(8, off)))[0]


def set_u64(mr, off, value):
    mr.write(struct.pack('<Q', value), 8, off)


class End:
    """An extended RC QP with an extended CQ (wall-clock timestamps) and a
    registered buffer."""

    def __init__(self, ctx, pd):
        self.cq = CQEX(ctx, CqInitAttrEx(cqe=64, wc_flags=(
            e.IBV_WC_STANDARD_FLAGS | WALL)))
        cap = QPCap(max_send_wr=32, max_recv_wr=16, max_send_sge=1,
                    max_recv_sge=1)
        attr = QPInitAttrEx(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq,
                            cap=cap, pd=pd, send_ops_flags=OPS,
                            comp_mask=(e.IBV_QP_INIT_ATTR_PD |
                                       e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
        self.qp = QPEx(ctx, attr)
        self.mr = MR(pd, SIZE, ACCESS)
        self.wr_id = 1

    def info(self, ctx, gid_index, psn):
        return {'qpn': self.qp.qp_num, 'psn': psn,
                'gid': vl.gid_of(ctx, gid_index),
                'addr': self.mr.buf, 'rkey': self.mr.rkey}

    def start(self):
        self.wr_id += 1
        self.qp.wr_start()
        self.qp.wr_id = self.wr_id
        self.qp.wr_flags = e.IBV_SEND_SIGNALED

    def poll(self, n=1, timeout_s=10.0):
        """n completions: (wr_id, status, opcode, wc_flags, inv_rkey,
        wall-clock ns)."""
        out = []
        deadline = time.monotonic() + timeout_s
        while len(out) < n and time.monotonic() < deadline:
            if self.cq.start_poll(PollCqAttr()) != 0:
                time.sleep(0.0005)
                continue
            while True:
                flags = self.cq.read_wc_flags()
                out.append((self.cq.wr_id, self.cq.status,
                            self.cq.read_opcode(), flags,
                            # The invalidated rkey, in host order.
                            self.cq.read_imm_data()
                            if flags & e.IBV_WC_WITH_INV else None,
                            self.cq.read_completion_wallclock_ns()))
                if len(out) >= n or self.cq.poll_next() != 0:
                    break
            self.cq.end_poll()
        return out

    def done(self, tap, what, opcode, status=e.IBV_WC_SUCCESS):
        wcs = self.poll()
        ok = len(wcs) == 1 and wcs[0][:3] == (self.wr_id, status, opcode)
        tap.ok(ok, f'{what}: completes with status {status}',
               f'got {wcs}, want wr_id {self.wr_id} opcode {opcode}')
        return wcs[0] if ok else None


def atomics(tap, where, a, b_info, b_read, b_write):
    """a's atomics on the 8 bytes at b_info's address + 64; b_read and
    b_write read and set them at b."""
    target = b_info['addr'] + 64
    b_write(0x1111222233334444)
    a.start()
    a.qp.wr_atomic_cmp_swp(b_info['rkey'], target, 0x1111222233334444,
                           0x5555666677778888)
    a.qp.wr_set_sge(SGE(a.mr.buf, 8, a.mr.lkey))
    a.qp.wr_complete()
    if a.done(tap, f'{where}: wr_atomic_cmp_swp (equal)', e.IBV_WC_COMP_SWAP):
        tap.ok(u64(a.mr, 0) == 0x1111222233334444 and
               b_read() == 0x5555666677778888,
               f'{where}: compare-and-swap returned the old value and swapped',
               f'returned {u64(a.mr, 0):#x}, target {b_read():#x}')
    a.start()
    a.qp.wr_atomic_cmp_swp(b_info['rkey'], target, 1, 2)
    a.qp.wr_set_sge(SGE(a.mr.buf + 8, 8, a.mr.lkey))
    a.qp.wr_complete()
    if a.done(tap, f'{where}: wr_atomic_cmp_swp (different)',
              e.IBV_WC_COMP_SWAP):
        tap.ok(u64(a.mr, 8) == 0x5555666677778888 and
               b_read() == 0x5555666677778888,
               f'{where}: compare-and-swap of another value left it')
    for i in range(3):
        a.start()
        a.qp.wr_atomic_fetch_add(b_info['rkey'], target, 0x100000001)
        a.qp.wr_set_sge(SGE(a.mr.buf + 16 + 8 * i, 8, a.mr.lkey))
        a.qp.wr_complete()
        a.done(tap, f'{where}: wr_atomic_fetch_add {i}', e.IBV_WC_FETCH_ADD)
    got = [u64(a.mr, 16 + 8 * i) for i in range(3)]
    want = [0x5555666677778888 + i * 0x100000001 for i in range(3)]
    tap.ok(got == want and b_read() == want[2] + 0x100000001,
           f'{where}: fetch-and-add returned each old value and added',
           f'returned {[hex(x) for x in got]}, target {b_read():#x}')
    # An atomic takes one 8-byte SGE: anything else is refused at once.
    a.start()
    a.qp.wr_atomic_fetch_add(b_info['rkey'], target, 1)
    a.qp.wr_set_sge(SGE(a.mr.buf, 16, a.mr.lkey))
    try:
        a.qp.wr_complete()
        refused = False
    except PyverbsRDMAError:
        refused = True
    tap.ok(refused and not a.poll(1, 0.3),
           f'{where}: an atomic with a 16-byte SGE is refused, nothing sent')


def windows(tap, where, pd, a, b, bi):
    """b binds a type 2 window on its MR; a writes through it; b
    invalidates it locally and binds it again; a invalidates it with
    SEND_WITH_INV, and its next write through it fails."""
    mw = MW(pd, e.IBV_MW_TYPE_2)
    win = bi['addr'] + 4096
    key = inc_rkey(mw.rkey)
    b.start()
    b.qp.wr_bind_mw(mw, key, MWBindInfo(b.mr, win, 2048,
                                        e.IBV_ACCESS_REMOTE_WRITE))
    b.qp.wr_complete()
    b.done(tap, f'{where}: wr_bind_mw', e.IBV_WC_BIND_MW)

    def write(seed, rkey, status=e.IBV_WC_SUCCESS):
        a.mr.write(vl.pattern(1024, seed), 1024, 1024)
        a.start()
        a.qp.wr_rdma_write(rkey, win + 512)
        a.qp.wr_set_sge(SGE(a.mr.buf + 1024, 1024, a.mr.lkey))
        a.qp.wr_complete()
        return a.done(tap, f'{where}: WRITE through the window (seed {seed})',
                      e.IBV_WC_RDMA_WRITE, status)

    if write(31, key):
        tap.ok(vl.verify(b.mr.read(1024, 4096 + 512), 1024, 31) is None,
               f'{where}: the WRITE through the window arrived intact')
    b.start()
    b.qp.wr_local_inv(key)
    b.qp.wr_complete()
    b.done(tap, f'{where}: wr_local_inv', e.IBV_WC_LOCAL_INV)
    key = inc_rkey(key)
    b.start()
    b.qp.wr_bind_mw(mw, key, MWBindInfo(b.mr, win, 2048,
                                        e.IBV_ACCESS_REMOTE_WRITE))
    b.qp.wr_complete()
    b.done(tap, f'{where}: wr_bind_mw again, new key', e.IBV_WC_BIND_MW)
    if write(32, key):
        tap.ok(vl.verify(b.mr.read(1024, 4096 + 512), 1024, 32) is None,
               f'{where}: the WRITE through the rebound window arrived')
    b.qp.post_recv(RecvWR(wr_id=77, num_sge=1,
                          sg=[SGE(b.mr.buf, 256, b.mr.lkey)]))
    a.mr.write(vl.pattern(100, 33), 100)
    a.start()
    a.qp.wr_send_inv(key)
    a.qp.wr_set_sge(SGE(a.mr.buf, 100, a.mr.lkey))
    a.qp.wr_complete()
    a.done(tap, f'{where}: wr_send_inv (sender)', e.IBV_WC_SEND)
    wcs = b.poll()
    tap.ok(len(wcs) == 1 and wcs[0][:3] == (77, e.IBV_WC_SUCCESS,
                                           e.IBV_WC_RECV) and
           wcs[0][3] & e.IBV_WC_WITH_INV and wcs[0][4] == key and
           vl.verify(b.mr.read(100, 0), 100, 33) is None,
           f'{where}: the receive names the invalidated key, data intact',
           f'{wcs}')
    # The window is invalid at once: the next WRITE is refused.
    write(34, key, e.IBV_WC_REM_ACCESS_ERR)
    tap.ok(vl.verify(b.mr.read(1024, 4096 + 512), 1024, 32) is None,
           f'{where}: the refused WRITE left the window\'s memory alone')


def wallclock(tap, where, end, remote):
    """Completion wall-clock timestamps: in order, and within a second of
    the guest's CLOCK_REALTIME."""
    wcs = []
    for _ in range(2):
        end.start()
        end.qp.wr_rdma_write(remote['rkey'], remote['addr'] + 6144)
        end.qp.wr_set_sge(SGE(end.mr.buf, 64, end.mr.lkey))
        end.qp.wr_complete()
        wcs += end.poll()
    now = time.time_ns()
    ts = [w[5] for w in wcs]
    tap.ok(len(ts) == 2 and ts[0] <= ts[1] and
           all(abs(now - t) < 1_000_000_000 for t in ts),
           f'{where}: wall-clock completion timestamps are the time of day',
           f'{ts}, now {now}')


def resize_cq(tap, where, ctx, pd, gidx):
    """ibv_resize_cq with completions outstanding: refused below their
    number, kept in order above it, and the CQ works at its new sizes."""
    cq = CQ(ctx, 4)
    cap = QPCap(max_send_wr=64, max_recv_wr=1)
    qps = [QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap))
           for _ in range(2)]
    mr = MR(pd, SIZE, ACCESS)
    info = [{'qpn': q.qp_num, 'psn': 10 * i, 'gid': vl.gid_of(ctx, gidx)}
            for i, q in enumerate(qps)]
    vl.rc_connect(qps[0], gidx, info[1], my_psn=0)
    vl.rc_connect(qps[1], gidx, info[0], my_psn=10)
    wr_id = 0

    def writes(n):
        nonlocal wr_id
        for _ in range(n):
            wr_id += 1
            wr = SendWR(wr_id=wr_id, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                        sg=[SGE(mr.buf, 64, mr.lkey)])
            wr.set_wr_rdma(mr.rkey, mr.buf + 4096)
            qps[0].post_send(wr)

    writes(3)
    # Written by the device, not yet polled (loopback ACKs take little).
    time.sleep(0.3)
    try:
        cq.resize(1)
        refused = None
    except PyverbsRDMAError as ex:
        refused = ex.error_code
    tap.ok(refused == 22, f'{where}: ibv_resize_cq below 3 outstanding '
           'completions fails with EINVAL', f'{refused}')
    cq.resize(40)
    tap.ok(cq.cqe >= 40, f'{where}: ibv_resize_cq to 40 holds 40',
           f'cqe {cq.cqe}')
    writes(30)
    wcs = vl.poll(cq, 33)
    tap.ok([w.wr_id for w in wcs] == list(range(1, 34)) and
           all(w.status == e.IBV_WC_SUCCESS for w in wcs),
           f'{where}: the 3 completions from before and 30 after arrive '
           'in order', f'{[(w.wr_id, w.status) for w in wcs]}')
    cq.resize(2)
    writes(2)
    wcs = vl.poll(cq, 2)
    tap.ok([w.wr_id for w in wcs] == [34, 35] and
           all(w.status == e.IBV_WC_SUCCESS for w in wcs) and
           not vl.poll(cq, 1, 0.2),
           f'{where}: a CQ shrunk to 2 completes what it can hold',
           f'{[(w.wr_id, w.status) for w in wcs]}')


def resize_srq(tap, where, ctx, pd, gidx):
    """An SRQ of 4 with 4 receives posted grows to 16; 16 SENDs arrive,
    each in its own receive, under its wr_id, data intact."""
    cq = CQ(ctx, 64)
    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=4, max_sge=1)))
    mr = MR(pd, 16 * 512, e.IBV_ACCESS_LOCAL_WRITE)
    smr = MR(pd, 16 * 512, e.IBV_ACCESS_LOCAL_WRITE)
    recv = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, srq=srq,
                             cap=QPCap(max_send_wr=1, max_recv_wr=0,
                                       max_recv_sge=0)))
    send = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                             cap=QPCap(max_send_wr=32, max_recv_wr=1)))
    g = vl.gid_of(ctx, gidx)
    vl.rc_connect(recv, gidx, {'qpn': send.qp_num, 'psn': 5, 'gid': g},
                  my_psn=7)
    vl.rc_connect(send, gidx, {'qpn': recv.qp_num, 'psn': 7, 'gid': g},
                  my_psn=5)

    def post(i):
        srq.post_recv(RecvWR(wr_id=100 + i, num_sge=1,
                             sg=[SGE(mr.buf + 512 * i, 512, mr.lkey)]))

    for i in range(4):
        post(i)
    try:
        post(4)
        full = False
    except PyverbsRDMAError:
        full = True
    tap.ok(full, f'{where}: an SRQ of 4 takes no fifth receive')
    srq.modify(SrqAttr(max_wr=16), e.IBV_SRQ_MAX_WR)
    tap.ok(srq.query().max_wr >= 16, f'{where}: the SRQ grew to 16',
           f'max_wr {srq.query().max_wr}')
    for i in range(4, 16):
        post(i)
    for i in range(16):
        smr.write(vl.pattern(100 + i, 40 + i), 100 + i, 512 * i)
        send.post_send(SendWR(wr_id=i, opcode=e.IBV_WR_SEND, num_sge=1,
                              sg=[SGE(smr.buf + 512 * i, 100 + i,
                                      smr.lkey)]))
    wcs = vl.poll(cq, 32)
    rx = sorted(w.wr_id for w in wcs if w.opcode & e.IBV_WC_RECV)
    bad = [w for w in wcs if w.status != e.IBV_WC_SUCCESS]
    data = [vl.verify(mr.read(100 + i, 512 * i), 100 + i, 40 + i)
            for i in range(16)]
    tap.ok(rx == list(range(100, 116)) and not bad and
           all(d is None for d in data),
           f'{where}: 16 SENDs into the grown SRQ, each once, data intact',
           f'receives {rx}, errors {bad}, data {data}')


def rt_values(tap, ctx):
    _, t1 = ctx.query_rt_values_ex()
    time.sleep(0.05)
    _, t2 = ctx.query_rt_values_ex()
    tap.ok(40_000_000 <= t2 - t1 <= 2_000_000_000,
           'ibv_query_rt_values_ex: the device clock moves in ns',
           f'{t1} then {t2}')


def main(tap, kind):
    env = vl.Env()
    gidx = env.gids[kind]
    ctx = env.context()
    pd = PD(ctx)
    where = f'loopback {kind}'

    if kind == 'v2':
        rt_values(tap, ctx)
    a, b = End(ctx, pd), End(ctx, pd)
    ai, bi = a.info(ctx, gidx, 200), b.info(ctx, gidx, 0xffff00)
    vl.rc_connect(a.qp, gidx, bi, my_psn=ai['psn'])
    vl.rc_connect(b.qp, gidx, ai, my_psn=bi['psn'])
    atomics(tap, where, a, bi, lambda: u64(b.mr, 64),
            lambda v: set_u64(b.mr, 64, v))
    wallclock(tap, where, a, bi)
    windows(tap, where, pd, a, b, bi)
    resize_cq(tap, where, ctx, pd, gidx)
    resize_srq(tap, where, ctx, pd, gidx)

    if env.peer is None:
        return
    # Two guests: guest 0's atomics on guest 1's memory.
    end = End(ctx, pd)
    mine = end.info(ctx, gidx, 400 + env.me)
    env.put(f'ext_atomic_mw.{kind}.{env.me}', mine)
    theirs = env.get(f'ext_atomic_mw.{kind}.{env.peer}')
    vl.rc_connect(end.qp, gidx, theirs, my_psn=mine['psn'])
    if env.me == 1:
        set_u64(end.mr, 64, 0x1111222233334444)
    env.barrier(f'ext_atomic_mw.{kind}.ready')
    if env.me == 0:
        asked = [0]

        def peer_read():
            """The target's value, read by guest 1 when asked."""
            asked[0] += 1
            env.put(f'ext_atomic_mw.{kind}.ask.{asked[0]}', 'read')
            return env.get(f'ext_atomic_mw.{kind}.value.{asked[0]}')

        # Guest 1 set the target before the barrier; writes are no-ops.
        atomics(tap, f'two guests {kind}', end, theirs, peer_read,
                lambda v: None)
        env.put(f'ext_atomic_mw.{kind}.ask.{asked[0] + 1}', 'stop')
    else:
        n = 0
        while True:
            n += 1
            if env.get(f'ext_atomic_mw.{kind}.ask.{n}') == 'stop':
                break
            env.put(f'ext_atomic_mw.{kind}.value.{n}', u64(end.mr, 64))
    env.barrier(f'ext_atomic_mw.{kind}.done')


if __name__ == '__main__':
    TAP = vl.Tap(f'ext_atomic_mw {sys.argv[1]}')
    TAP.run(main, TAP, sys.argv[1])
