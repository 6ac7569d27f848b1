#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""UC SEND, SEND with immediate, RDMA WRITE and WRITE with immediate over
one GID kind, data verified; a WRITE to a QP without REMOTE_WRITE dropped.

  verbs_uc.py KIND      KIND one of v2, v6, v1 (verbs_lib.GID_KINDS)

In each guest between two QPs of the device (looped back inside it), then,
with two guests, guest 0's QP sending to guest 1's.  UC has no flow
control: every receive is posted before the sender is told to go.

A UC RDMA WRITE completes nothing at the responder, and the sender's
completion says only that it went out.  So the sender follows each WRITE
with a SEND of FENCE bytes on the same QP, received past the WRITE's
SIZE bytes: UC delivers a QP's messages in order, so the responder reads
its memory only once that SEND's completion proves the WRITE arrived.

The refused WRITE: the responder QP lacks IBV_ACCESS_REMOTE_WRITE.  The
sender's WRITE and WRITE with immediate complete (UC never hears back),
the responder's memory stays as it was, the receive posted for the
immediate is not consumed and no completion or async event appears; a
SEND afterwards lands in that very receive, so the QP still works.
"""
import sys

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

import verbs_lib as vl

SIZE = 20000            # 20 packets at path MTU 1024, the last one short
IMM = 0x1234abcd
ACCESS = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE
QUIET_S = 0.5           # how long "nothing arrives" is watched for
FENCE = 64              # the SEND behind a WRITE, at offset SIZE


class End:
    """One UC QP with its CQ and a registered buffer."""

    def __init__(self, ctx, pd):
        self.cq = CQ(ctx, 64)
        cap = QPCap(max_send_wr=16, max_recv_wr=16)
        self.qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UC, scq=self.cq,
                                    rcq=self.cq, cap=cap))
        self.mr = MR(pd, SIZE + FENCE, ACCESS)

    def info(self, ctx, gid_index, psn):
        return {'qpn': self.qp.qp_num, 'psn': psn,
                'gid': vl.gid_of(ctx, gid_index),
                'addr': self.mr.buf, 'rkey': self.mr.rkey}

    def post_recv(self):
        self.qp.post_recv(RecvWR(num_sge=1,
                                 sg=[SGE(self.mr.buf, SIZE, self.mr.lkey)]))

    def post_fence_recv(self):
        self.qp.post_recv(RecvWR(num_sge=1,
                                 sg=[SGE(self.mr.buf + SIZE, FENCE,
                                         self.mr.lkey)]))

    def post_recv_for(self, wc_op):
        """The receive a message of OPS needs: its own, or the fence's."""
        if wc_op is None:
            self.post_fence_recv()
        else:
            self.post_recv()


OPS = (('SEND', e.IBV_WR_SEND, e.IBV_WC_RECV, False),
       ('SEND with immediate', e.IBV_WR_SEND_WITH_IMM, e.IBV_WC_RECV, True),
       ('RDMA WRITE', e.IBV_WR_RDMA_WRITE, None, False),
       ('RDMA WRITE with immediate', e.IBV_WR_RDMA_WRITE_WITH_IMM,
        e.IBV_WC_RECV_RDMA_WITH_IMM, True))


def post(a, opcode, b_info, seed, fence=False):
    """a sends SIZE bytes of pattern seed to b_info with opcode, then, if
    fence, the FENCE bytes of a SEND; the send's completions."""
    a.mr.write(vl.pattern(SIZE, seed), SIZE)
    wr = SendWR(opcode=opcode, num_sge=1,
                sg=[SGE(a.mr.buf, SIZE, a.mr.lkey)])
    if opcode in (e.IBV_WR_RDMA_WRITE, e.IBV_WR_RDMA_WRITE_WITH_IMM):
        wr.set_wr_rdma(b_info['rkey'], b_info['addr'])
    if opcode in (e.IBV_WR_SEND_WITH_IMM, e.IBV_WR_RDMA_WRITE_WITH_IMM):
        wr.imm_data = IMM
    a.qp.post_send(wr)
    if not fence:
        return vl.poll(a.cq, 1)
    a.mr.write(vl.pattern(FENCE, seed), FENCE, SIZE)
    a.qp.post_send(SendWR(opcode=e.IBV_WR_SEND, num_sge=1,
                          sg=[SGE(a.mr.buf + SIZE, FENCE, a.mr.lkey)]))
    return vl.poll(a.cq, 2)


def sent_ok(tap, wcs, what, n=1):
    """The n completions of one post() (2 with its fence), all good."""
    return tap.ok(len(wcs) == n and
                  all(w.status == e.IBV_WC_SUCCESS for w in wcs),
                  f'{what} completes at the sender',
                  f'completions: {[(w.status, w.opcode) for w in wcs]}')


def fenced(wc_op):
    """Whether a message of OPS is followed by a fence SEND (no
    completion of its own at the responder)."""
    return wc_op is None


def received(end, wc_op, imm, seed):
    """What the receiving end saw of one message: None if right.  For
    a WRITE (wc_op None), its memory is read once the fence arrived."""
    if fenced(wc_op):
        wcs = vl.poll(end.cq, 1)
        if not (len(wcs) == 1 and wcs[0].status == e.IBV_WC_SUCCESS and
                wcs[0].opcode == e.IBV_WC_RECV and
                wcs[0].byte_len == FENCE):
            return ('no SEND behind the WRITE: '
                    f'{[(w.status, w.opcode, w.byte_len) for w in wcs]}')
        err = vl.verify(end.mr.read(FENCE, SIZE), FENCE, seed)
        if err:
            return f'the SEND behind the WRITE: {err}'
    else:
        wcs = vl.poll(end.cq, 1)
        if not (len(wcs) == 1 and wcs[0].status == e.IBV_WC_SUCCESS and
                wcs[0].opcode == wc_op and wcs[0].byte_len == SIZE):
            return ('receive completion: '
                    f'{[(w.status, w.opcode, w.byte_len) for w in wcs]}')
        if imm and not wcs[0].wc_flags & e.IBV_WC_WITH_IMM:
            return 'no immediate data flag'
        # Both sides hold it as the wire's bytes: no byte swap here.
        if imm and wcs[0].imm_data != IMM:
            return f'immediate {wcs[0].imm_data:#x}, expected {IMM:#x}'
    return vl.verify(end.mr.read(SIZE, 0), SIZE, seed)


def quiet(end):
    """None if end's CQ stays empty for QUIET_S, else what came."""
    wcs = vl.poll(end.cq, 1, timeout_s=QUIET_S)
    return None if not wcs else \
        f'unexpected completion: {[(w.status, w.opcode) for w in wcs]}'


def main(tap, kind):
    env = vl.Env()
    gidx = env.gids[kind]
    ctx = env.context()
    pd = PD(ctx)

    # Loopback: a -> b, and a -> c (no REMOTE_WRITE), inside this guest.
    a, b, c = End(ctx, pd), End(ctx, pd), End(ctx, pd)
    a2 = End(ctx, pd)
    ai, bi, ci = (a.info(ctx, gidx, 100), b.info(ctx, gidx, 200),
                  c.info(ctx, gidx, 300))
    a2i = a2.info(ctx, gidx, 400)
    vl.rc_connect(a.qp, gidx, bi, my_psn=ai['psn'])
    vl.rc_connect(b.qp, gidx, ai, my_psn=bi['psn'])
    vl.rc_connect(a2.qp, gidx, ci, my_psn=a2i['psn'])
    vl.rc_connect(c.qp, gidx, a2i, my_psn=ci['psn'],
                  access=e.IBV_ACCESS_LOCAL_WRITE)
    where = f'loopback over the {kind} GID'
    for seed, (name, op, wc_op, imm) in enumerate(OPS, 11):
        b.post_recv_for(wc_op)
        if sent_ok(tap, post(a, op, bi, seed, fenced(wc_op)),
                   f'{where}: UC {name}', 1 + fenced(wc_op)):
            err = received(b, wc_op, imm, seed)
            tap.ok(err is None, f'{where}: UC {name} arrived intact', err)
    refused_write(tap, where, a2, ci, lambda: c.mr.write(bytes(SIZE), SIZE),
                  c.post_recv, lambda: quiet(c),
                  lambda seed: received(c, e.IBV_WC_RECV, False, seed),
                  lambda: zeros(c.mr.read(SIZE, 0)))

    if env.peer is None:
        return
    two_guests(tap, env, ctx, pd, gidx, kind)


def zeros(data):
    """None if data is all zero bytes (what a refused WRITE leaves)."""
    data = bytes(data)
    i = next((i for i, v in enumerate(data) if v), None)
    return None if i is None else f'byte {i} is {data[i]:#04x}, not 0'


def refused_write(tap, where, a, b_info, b_clear, b_post_recv, b_quiet,
                  b_recv_check, b_zero):
    """a WRITEs (and WRITEs with immediate) to a QP without REMOTE_WRITE."""
    b_clear()
    b_post_recv()
    for seed, op, name in ((21, e.IBV_WR_RDMA_WRITE, 'RDMA WRITE'),
                           (22, e.IBV_WR_RDMA_WRITE_WITH_IMM,
                            'RDMA WRITE with immediate')):
        sent_ok(tap, post(a, op, b_info, seed),
                f'{where}: UC {name} to a QP without REMOTE_WRITE')
    err = b_quiet()
    tap.ok(err is None, f'{where}: the refused WRITEs complete nothing at '
           'the responder', err)
    err = b_zero()
    tap.ok(err is None, f'{where}: the refused WRITEs leave its memory '
           'untouched', err)
    if sent_ok(tap, post(a, e.IBV_WR_SEND, b_info, 23),
               f'{where}: UC SEND to that QP afterwards'):
        err = b_recv_check(23)
        tap.ok(err is None, f'{where}: the SEND lands in the receive the '
               'WRITE with immediate left', err)


def two_guests(tap, env, ctx, pd, gidx, kind):
    """Guest 0 sends to guest 1, which posts, checks and answers."""
    end, refuser = End(ctx, pd), End(ctx, pd)
    mine = {'end': end.info(ctx, gidx, 500 + env.me),
            'refuser': refuser.info(ctx, gidx, 600 + env.me)}
    env.put(f'uc.{kind}.{env.me}', mine)
    theirs = env.get(f'uc.{kind}.{env.peer}')
    vl.rc_connect(end.qp, gidx, theirs['end'], my_psn=mine['end']['psn'])
    # Guest 1's second QP has no REMOTE_WRITE; guest 0's sends to it.
    vl.rc_connect(refuser.qp, gidx, theirs['refuser'],
                  my_psn=mine['refuser']['psn'],
                  access=(ACCESS if env.me == 0 else
                          e.IBV_ACCESS_LOCAL_WRITE))
    env.barrier(f'uc.{kind}.ready')
    where = f'two guests over the {kind} GID'
    if env.me == 0:
        def ask(what, *args):
            env.put(f'uc.{kind}.ask.{what}', list(args))
            return env.get(f'uc.{kind}.answer.{what}')

        for seed, (name, op, wc_op, _) in enumerate(OPS, 31):
            ask(f'post.{seed}')         # its receive is posted
            if sent_ok(tap, post(end, op, theirs['end'], seed,
                                 fenced(wc_op)),
                       f'{where}: UC {name}', 1 + fenced(wc_op)):
                err = ask(f'check.{seed}')
                tap.ok(err is None, f'{where}: UC {name} arrived intact',
                       err)
            else:
                ask(f'check.{seed}')
        refused_write(tap, where, refuser, theirs['refuser'],
                      lambda: ask('clear'), lambda: None,
                      lambda: ask('quiet'),
                      lambda seed: ask(f'recv.{seed}'),
                      lambda: ask('zero'))
    else:
        def answer(what, fn):
            env.get(f'uc.{kind}.ask.{what}')
            env.put(f'uc.{kind}.answer.{what}', fn())

        for seed, (_, _, wc_op, imm) in enumerate(OPS, 31):
            end.post_recv_for(wc_op)
            answer(f'post.{seed}', lambda: None)
            answer(f'check.{seed}',
                   lambda s=seed, w=wc_op, i=imm: received(end, w, i, s))

        def clear():
            refuser.mr.write(bytes(SIZE), SIZE)
            refuser.post_recv()

        answer('clear', clear)
        answer('quiet', lambda: quiet(refuser))
        answer('zero', lambda: zeros(refuser.mr.read(SIZE, 0)))
        answer('recv.23',
               lambda: received(refuser, e.IBV_WC_RECV, False, 23))
    env.barrier(f'uc.{kind}.done')


if __name__ == '__main__':
    TAP = vl.Tap(f'uc {sys.argv[1]}')
    TAP.run(main, TAP, sys.argv[1])
