#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""RC SEND, RDMA WRITE and RDMA READ over one GID kind, data verified.

  verbs_rc.py KIND      KIND one of v2, v6, v1 (verbs_lib.GID_KINDS)

In each guest between two QPs of the device (looped back inside it), then,
with two guests, between them: guest 0's QP against guest 1's.
"""
import sys

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

import verbs_lib as vl

SIZE = 65536
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ)


class End:
    """One QP with its CQ and a registered buffer."""

    def __init__(self, ctx, pd):
        self.cq = CQ(ctx, 64)
        cap = QPCap(max_send_wr=16, max_recv_wr=16)
        self.qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq,
                                    rcq=self.cq, cap=cap))
        self.mr = MR(pd, SIZE, ACCESS)

    def info(self, ctx, gid_index, psn):
        return {'qpn': self.qp.qp_num, 'psn': psn,
                'gid': vl.gid_of(ctx, gid_index),
                'addr': self.mr.buf, 'rkey': self.mr.rkey}


def send_wait(tap, end, wr, what):
    end.qp.post_send(wr)
    wcs = vl.poll(end.cq, 1)
    return tap.ok(len(wcs) == 1 and wcs[0].status == e.IBV_WC_SUCCESS,
                  what, f'completions: {[(w.status, w.opcode) for w in wcs]}')


def traffic(tap, where, a, b_info, b_seen):
    """a does SEND, WRITE and READ to the end described by b_info;
    b_seen(seed, length) reads what arrived at b."""
    sge = SGE(a.mr.buf, SIZE, a.mr.lkey)
    a.mr.write(vl.pattern(SIZE, 11), SIZE)
    if send_wait(tap, a, SendWR(opcode=e.IBV_WR_SEND, num_sge=1, sg=[sge]),
                 f'{where}: SEND of {SIZE} B completes'):
        err = b_seen('send', 11, SIZE)
        tap.ok(err is None, f'{where}: SEND data arrived intact', err)
    a.mr.write(vl.pattern(SIZE, 12), SIZE)
    wr = SendWR(opcode=e.IBV_WR_RDMA_WRITE, num_sge=1, sg=[sge])
    wr.set_wr_rdma(b_info['rkey'], b_info['addr'])
    if send_wait(tap, a, wr, f'{where}: RDMA WRITE of {SIZE} B completes'):
        err = b_seen('write', 12, SIZE)
        tap.ok(err is None, f'{where}: WRITE data arrived intact', err)
    a.mr.write(bytes(SIZE), SIZE)
    wr = SendWR(opcode=e.IBV_WR_RDMA_READ, num_sge=1, sg=[sge])
    wr.set_wr_rdma(b_info['rkey'], b_info['addr'])
    if send_wait(tap, a, wr, f'{where}: RDMA READ of {SIZE} B completes'):
        err = vl.verify(a.mr.read(SIZE, 0), SIZE, 12)
        tap.ok(err is None, f'{where}: READ brought the WRITE\'s data', err)


def post_recv(end):
    end.qp.post_recv(RecvWR(num_sge=1,
                            sg=[SGE(end.mr.buf, SIZE, end.mr.lkey)]))


def main(tap, kind):
    env = vl.Env()
    gidx = env.gids[kind]
    ctx = env.context()
    pd = PD(ctx)

    # Loopback: a -> b inside this guest.
    a, b = End(ctx, pd), End(ctx, pd)
    ai, bi = a.info(ctx, gidx, 100), b.info(ctx, gidx, 200)
    vl.rc_connect(a.qp, gidx, bi, my_psn=ai['psn'])
    vl.rc_connect(b.qp, gidx, ai, my_psn=bi['psn'])
    post_recv(b)

    def seen_b(what, seed, length):
        if what == 'send':
            wcs = vl.poll(b.cq, 1)
            if not (wcs and wcs[0].status == e.IBV_WC_SUCCESS and
                    wcs[0].byte_len == length):
                return f'receive completion: {[(w.status, w.byte_len) for w in wcs]}'
        return vl.verify(b.mr.read(length, 0), length, seed)

    traffic(tap, f'loopback over the {kind} GID', a, bi, seen_b)

    if env.peer is None:
        return
    # Two guests: guest 0 sends to guest 1, which checks and answers.
    end = End(ctx, pd)
    mine = end.info(ctx, gidx, 300 + env.me)
    env.put(f'rc.{kind}.{env.me}', mine)
    theirs = env.get(f'rc.{kind}.{env.peer}')
    vl.rc_connect(end.qp, gidx, theirs, my_psn=mine['psn'])
    post_recv(end)
    env.barrier(f'rc.{kind}.ready')
    if env.me == 0:
        def seen_peer(what, seed, length):
            env.put(f'rc.{kind}.ask.{what}', [seed, length])
            return env.get(f'rc.{kind}.answer.{what}')
        traffic(tap, f'two guests over the {kind} GID', end, theirs,
                seen_peer)
    else:
        for what in ('send', 'write'):
            seed, length = env.get(f'rc.{kind}.ask.{what}')
            err = None
            if what == 'send':
                wcs = vl.poll(end.cq, 1)
                if not (wcs and wcs[0].status == e.IBV_WC_SUCCESS):
                    err = f'receive completion: {[w.status for w in wcs]}'
            err = err or vl.verify(end.mr.read(length, 0), length, seed)
            env.put(f'rc.{kind}.answer.{what}', err)
    env.barrier(f'rc.{kind}.done')


if __name__ == '__main__':
    TAP = vl.Tap(f'rc {sys.argv[1]}')
    TAP.run(main, TAP, sys.argv[1])
