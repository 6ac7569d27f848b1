#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""SRQs over one GID kind: several QPs sharing one SRQ, data verified.

  verbs_srq.py KIND     KIND one of v2, v6, v1 (verbs_lib.GID_KINDS)

In each guest (QPs looped back inside it): three RC QPs receive from one
SRQ what three others send, interleaved; every receive completes once,
under its wr_id, with the data its sender sent.  Then the SRQ limit event
(armed at 7 of 10 entries: nothing after three receives, one event after
the fourth, disarmed after it), and IBV_EVENT_QP_LAST_WQE_REACHED when one
of the QPs goes to the error state, which flushes none of the SRQ's
entries: the others still receive into them.  With two guests, guest 1's
SRQ serves two QPs that guest 0's two QPs send to.
"""
import os
import select
import sys

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

import verbs_lib as vl

SLOT = 8192             # bytes of one SRQ receive buffer
NSLOT = 32
MSGS = 8                # per sender
ACCESS = e.IBV_ACCESS_LOCAL_WRITE


def msg_len(i, k):
    """Length of sender i's k-th message: 0 B to a whole slot."""
    return (i * MSGS + k) * 1231 % (SLOT + 1)


def msg_seed(i, k):
    return 1 + i * MSGS + k


class Receiver:
    """An SRQ with a CQ and one MR of NSLOT receive buffers."""

    def __init__(self, ctx, pd):
        self.cq = CQ(ctx, 256)
        self.srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=NSLOT, max_sge=1)))
        self.mr = MR(pd, SLOT * NSLOT, ACCESS)
        self.posted = set()

    def qp(self, pd):
        cap = QPCap(max_send_wr=4, max_recv_wr=0, max_recv_sge=0)
        return QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq,
                                 rcq=self.cq, srq=self.srq, cap=cap))

    def post(self, slots):
        for s in slots:
            sge = SGE(self.mr.buf + s * SLOT, SLOT, self.mr.lkey)
            self.srq.post_recv(RecvWR(wr_id=s, num_sge=1, sg=[sge]))
            self.posted.add(s)


class Sender:
    """An RC QP with its CQ and a buffer for one message."""

    def __init__(self, ctx, pd):
        self.cq = CQ(ctx, 64)
        cap = QPCap(max_send_wr=MSGS, max_recv_wr=1)
        self.qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq,
                                    rcq=self.cq, cap=cap))
        self.mrs = [MR(pd, SLOT, ACCESS) for _ in range(MSGS)]

    def send(self, i, k):
        n = msg_len(i, k)
        mr = self.mrs[k % MSGS]
        if n:
            mr.write(vl.pattern(n, msg_seed(i, k)), n)
        self.qp.post_send(SendWR(wr_id=k, opcode=e.IBV_WR_SEND, num_sge=1,
                                 sg=[SGE(mr.buf, n, mr.lkey)],
                                 send_flags=e.IBV_SEND_SIGNALED))


def info(ctx, qp, gidx, psn):
    return {'qpn': qp.qp_num, 'psn': psn, 'gid': vl.gid_of(ctx, gidx)}


def async_fds():
    """The context's async event fd (the process opens no other uverbs
    event file): pyverbs blocks in get_async_event, so we select first."""
    fds = []
    for fd in os.listdir('/proc/self/fd'):
        try:
            if 'infinibandevent' in os.readlink(f'/proc/self/fd/{fd}'):
                fds.append(int(fd))
        except OSError:
            pass
    return fds


def next_event(ctx, timeout_s):
    """The next async event's type, or None within timeout_s."""
    ready, _, _ = select.select(async_fds(), [], [], timeout_s)
    if not ready:
        return None
    ev = ctx.get_async_event()
    ev.ack()
    return ev.event_type


def check_receives(tap, where, rx, qp_index, got, start, nmsgs):
    """got: receive completions; qp_index: qpn -> sender i.  Each
    sender's messages arrive in order from its start[i]-th on."""
    nxt = dict(start)
    errs = []
    seen = set()
    for wc in got:
        if wc.status != e.IBV_WC_SUCCESS:
            errs.append(f'wr_id {wc.wr_id}: status {wc.status}')
            continue
        if wc.wr_id in seen or wc.wr_id not in rx.posted:
            errs.append(f'wr_id {wc.wr_id} unexpected or twice')
            continue
        seen.add(wc.wr_id)
        rx.posted.discard(wc.wr_id)
        i = qp_index.get(wc.qp_num)
        if i is None:
            errs.append(f'completion of QP {wc.qp_num}')
            continue
        k = nxt[i]
        nxt[i] += 1
        n = msg_len(i, k)
        if wc.byte_len != n:
            errs.append(f'sender {i} message {k}: {wc.byte_len} B, not {n}')
            continue
        err = n and vl.verify(rx.mr.read(n, wc.wr_id * SLOT), n,
                              msg_seed(i, k))
        if err:
            errs.append(f'sender {i} message {k} in slot {wc.wr_id}: {err}')
    tap.ok(len(got) == nmsgs and not errs,
           f'{where}: {nmsgs} receives through one SRQ, each once, data intact',
           f'{len(got)} completions; ' + '; '.join(errs[:5]))


def loopback(tap, kind, env, ctx, pd, gidx):
    where = f'loopback over the {kind} GID'
    rx = Receiver(ctx, pd)
    tx = [Sender(ctx, pd) for _ in range(3)]
    qps = [rx.qp(pd) for _ in range(3)]
    for i in range(3):
        vl.rc_connect(tx[i].qp, gidx, info(ctx, qps[i], gidx, 500 + i),
                      my_psn=100 + i)
        vl.rc_connect(qps[i], gidx, info(ctx, tx[i].qp, gidx, 100 + i),
                      my_psn=500 + i)
    qp_index = {q.qp_num: i for i, q in enumerate(qps)}
    rx.post(range(3 * MSGS))
    # Interleaved: every sender's messages are in flight together.
    for k in range(MSGS):
        for i in range(3):
            tx[i].send(i, k)
    sent = [vl.poll(t.cq, MSGS) for t in tx]
    tap.ok(all(len(s) == MSGS and all(w.status == e.IBV_WC_SUCCESS for w in s)
               for s in sent), f'{where}: {3 * MSGS} SENDs complete',
           [[w.status for w in s] for s in sent])
    got = vl.poll(rx.cq, 3 * MSGS)
    check_receives(tap, where, rx, qp_index, got, {0: 0, 1: 0, 2: 0},
                   3 * MSGS)

    # The limit: armed at 7 of 10 entries.
    rx.post(range(10))
    rx.srq.modify(SrqAttr(srq_limit=7), e.IBV_SRQ_LIMIT)
    tap.ok(rx.srq.query().srq_limit == 7, f'{where}: the SRQ limit reads 7')
    while next_event(ctx, 0):
        pass
    nxt = {0: MSGS, 1: MSGS, 2: MSGS}

    def send_some(n):
        start = dict(nxt)
        for j in range(n):
            i = j % 3
            tx[i].send(i, nxt[i])
            nxt[i] += 1
        for j in range(n):
            vl.poll(tx[j % 3].cq, 1)
        got = vl.poll(rx.cq, n)
        check_receives(tap, where, rx, qp_index, got, start, n)

    send_some(3)
    tap.ok(next_event(ctx, 0.5) is None,
           f'{where}: no limit event while 7 entries remain')
    send_some(1)
    ev = next_event(ctx, 10)
    tap.ok(ev == e.IBV_EVENT_SRQ_LIMIT_REACHED,
           f'{where}: IBV_EVENT_SRQ_LIMIT_REACHED when 6 remain',
           f'event {ev}')
    tap.ok(rx.srq.query().srq_limit == 0,
           f'{where}: the limit is disarmed after its event')
    send_some(1)
    tap.ok(next_event(ctx, 0.5) is None, f'{where}: no second limit event')

    # One QP to ERR: QP_LAST_WQE, and the SRQ's 5 entries stay.
    qps[0].modify(QPAttr(qp_state=e.IBV_QPS_ERR), e.IBV_QP_STATE)
    ev = next_event(ctx, 10)
    tap.ok(ev == e.IBV_EVENT_QP_LAST_WQE_REACHED,
           f'{where}: IBV_EVENT_QP_LAST_WQE_REACHED when a QP enters ERR',
           f'event {ev}')
    tap.ok(not vl.poll(rx.cq, 1, timeout_s=0.5),
           f'{where}: the QP in ERR flushes none of the SRQ\'s entries')
    start = dict(nxt)
    for i in (1, 2, 1, 2, 1):
        tx[i].send(i, nxt[i])
        nxt[i] += 1
    for i in (1, 2, 1, 2, 1):
        vl.poll(tx[i].cq, 1)
    got = vl.poll(rx.cq, 5)
    check_receives(tap, f'{where}, after one QP failed', rx, qp_index, got,
                   start, 5)


def two_guests(tap, kind, env, ctx, pd, gidx):
    where = f'two guests over the {kind} GID'
    if env.me == 1:
        rx = Receiver(ctx, pd)
        qps = [rx.qp(pd) for _ in range(2)]
        for i, q in enumerate(qps):
            env.put(f'srq.{kind}.rx{i}', info(ctx, q, gidx, 700 + i))
        for i, q in enumerate(qps):
            vl.rc_connect(q, gidx, env.get(f'srq.{kind}.tx{i}'),
                          my_psn=700 + i)
        rx.post(range(2 * MSGS))
        env.barrier(f'srq.{kind}.ready')
        got = vl.poll(rx.cq, 2 * MSGS, timeout_s=60)
        check_receives(tap, where, rx, {q.qp_num: i for i, q in enumerate(qps)},
                       got, {0: 0, 1: 0}, 2 * MSGS)
    else:
        tx = [Sender(ctx, pd) for _ in range(2)]
        for i, t in enumerate(tx):
            env.put(f'srq.{kind}.tx{i}', info(ctx, t.qp, gidx, 900 + i))
        for i, t in enumerate(tx):
            vl.rc_connect(t.qp, gidx, env.get(f'srq.{kind}.rx{i}'),
                          my_psn=900 + i)
        env.barrier(f'srq.{kind}.ready')
        for k in range(MSGS):
            for i in range(2):
                tx[i].send(i, k)
        sent = [vl.poll(t.cq, MSGS, timeout_s=60) for t in tx]
        tap.ok(all(len(s) == MSGS and
                   all(w.status == e.IBV_WC_SUCCESS for w in s) for s in sent),
               f'{where}: {2 * MSGS} SENDs to one SRQ complete',
               [[w.status for w in s] for s in sent])
    env.barrier(f'srq.{kind}.done')


def main(tap, kind):
    env = vl.Env()
    gidx = env.gids[kind]
    ctx = env.context()
    attr = ctx.query_device()
    if not tap.ok(attr.max_srq > 0 and attr.max_srq_wr >= NSLOT,
                  'the device offers SRQs',
                  f'max_srq {attr.max_srq}, max_srq_wr {attr.max_srq_wr}'):
        return
    pd = PD(ctx)
    loopback(tap, kind, env, ctx, pd, gidx)
    if env.peer is not None:
        two_guests(tap, kind, env, ctx, pd, gidx)


if __name__ == '__main__':
    TAP = vl.Tap(f'srq {sys.argv[1]}')
    TAP.run(main, TAP, sys.argv[1])
