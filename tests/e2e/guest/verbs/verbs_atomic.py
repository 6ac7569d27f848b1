#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""RC atomics (compare-and-swap, fetch-and-add), values verified.

  verbs_atomic.py ops KIND   CAS hit and miss and FAA wrapping 2^64, in
                             this guest (loopback) and between the guests
                             over GID kind KIND (verbs_lib.GID_KINDS)
  verbs_atomic.py errors     the statuses of a misaligned target, a bad
                             R_Key, an MR and a QP without REMOTE_ATOMIC
  verbs_atomic.py counter    QPs in both guests (two in guest 0 looped
                             back, two in guest 1) on one counter in
                             guest 0: FAAs whose results are exactly the
                             numbers 0..total-1, then a lock taken with
                             CAS around READ and WRITE of a second counter

The device is atomic against its own atomics (IBV_ATOMIC_HCA), not the
CPU's: no check here touches a target with the CPU while atomics run.
"""
import struct
import sys
import time

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.wr import SGE, SendWR

import verbs_lib as vl

ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)
NO_ATOMIC = ACCESS & ~e.IBV_ACCESS_REMOTE_ATOMIC
MASK64 = (1 << 64) - 1
# Concurrency: FAAs per QP, QPs per guest, lock rounds per QP.
N_FAA = 150
N_QP = 2
N_LOCK = 15
WINDOW = 4          # atomics each QP keeps in flight (max_rd_atomic)
# The words CAS and FAA work on, in the target's buffer: apart from the
# results the same buffer receives when its QP is the requester.
TGT = 2048


STATUS = {e.IBV_WC_REM_INV_REQ_ERR: 'REM_INV_REQ_ERR',
          e.IBV_WC_REM_ACCESS_ERR: 'REM_ACCESS_ERR'}


def u64(mr, off):
    return struct.unpack('<Q', mr.read(8, off))[0]


def put64(mr, off, val):
    mr.write(struct.pack('<Q', val & MASK64), 8, off)


class End:
    """One RC QP with its CQ and a 4 KiB registered buffer."""

    def __init__(self, ctx, pd, cq=None, mr_access=ACCESS, size=4096):
        self.cq = cq or CQ(ctx, 256)
        cap = QPCap(max_send_wr=64, max_recv_wr=4)
        self.qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq,
                                    rcq=self.cq, cap=cap))
        self.mr = MR(pd, size, mr_access)

    def info(self, ctx, gid_index, psn, mr=None):
        mr = mr or self.mr
        return {'qpn': self.qp.qp_num, 'psn': psn,
                'gid': vl.gid_of(ctx, gid_index),
                'addr': mr.buf, 'rkey': mr.rkey}


def atomic_wr(end, opcode, loc_off, raddr, rkey, compare_add, swap=0,
              wr_id=0):
    sge = SGE(end.mr.buf + loc_off, 8, end.mr.lkey)
    wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=1, sg=[sge],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_atomic(rkey=rkey, addr=raddr, compare_add=compare_add,
                     swap=swap)
    return wr


def wc_str(wcs):
    return [(w.wr_id, w.status, w.opcode, w.byte_len) for w in wcs]


def run_ops(tap, where, a, target, read_target):
    """a's CAS (hit, miss) and FAA (wrapping, of 0) on target; the
    target's words 0..2 hold 0x1111222233334444, 2^64 - 16 and 77, and
    read_target(i) returns word i afterwards."""
    base, rkey = target['addr'] + TGT, target['rkey']
    ops = [
        ('CAS that hits', e.IBV_WR_ATOMIC_CMP_AND_SWP, 0,
         0x1111222233334444, 0x5555666677778888, 0x1111222233334444),
        ('CAS that misses', e.IBV_WR_ATOMIC_CMP_AND_SWP, 0,
         0x1111222233334444, 1, 0x5555666677778888),
        ('FAA that wraps 2^64', e.IBV_WR_ATOMIC_FETCH_AND_ADD, 8,
         0x25, 0, MASK64 - 15),
        ('FAA of 0', e.IBV_WR_ATOMIC_FETCH_AND_ADD, 16, 0, 0, 77),
    ]
    for i in range(len(ops)):
        put64(a.mr, 8 * i, 0xeeeeeeeeeeeeeeee)
    for i, (_, opc, roff, cmp_add, swap, _) in enumerate(ops):
        a.qp.post_send(atomic_wr(a, opc, 8 * i, base + roff, rkey, cmp_add,
                                 swap, wr_id=i))
    wcs = vl.poll(a.cq, len(ops))
    for i, (name, opc, _, _, _, want) in enumerate(ops):
        wc = wcs[i] if i < len(wcs) else None
        want_op = (e.IBV_WC_COMP_SWAP if opc == e.IBV_WR_ATOMIC_CMP_AND_SWP
                   else e.IBV_WC_FETCH_ADD)
        ok = (wc is not None and wc.wr_id == i and
              wc.status == e.IBV_WC_SUCCESS and wc.opcode == want_op and
              wc.byte_len == 8)
        got = u64(a.mr, 8 * i)
        tap.ok(ok and got == want, f'{where}: {name} returns {want:#x}',
               f'completions {wc_str(wcs)}, value {got:#x}')
    mem = [read_target(i) for i in range(3)]
    want = [0x5555666677778888, 0x15, 77]
    tap.ok(mem == want, f'{where}: target memory as CAS and FAA left it',
           f'{[hex(m) for m in mem]}, expected {[hex(w) for w in want]}')


def init_target(mr):
    put64(mr, TGT, 0x1111222233334444)
    put64(mr, TGT + 8, MASK64 - 15)
    put64(mr, TGT + 16, 77)


def ops(tap, kind):
    env = vl.Env()
    gidx = env.gids[kind]
    ctx = env.context()
    tap.ok(ctx.query_device().atomic_caps == e.IBV_ATOMIC_HCA,
           f'{kind}: the device reports IBV_ATOMIC_HCA')
    pd = PD(ctx)

    a, b = End(ctx, pd), End(ctx, pd)
    ai, bi = a.info(ctx, gidx, 100), b.info(ctx, gidx, 200)
    vl.rc_connect(a.qp, gidx, bi, my_psn=ai['psn'], rd_atomic=4)
    vl.rc_connect(b.qp, gidx, ai, my_psn=bi['psn'], rd_atomic=4)
    init_target(b.mr)
    run_ops(tap, f'loopback over the {kind} GID', a, bi,
            lambda i: u64(b.mr, TGT + 8 * i))

    if env.peer is None:
        return
    # Each guest's QP works on the other's memory; the owner reads it.
    end = End(ctx, pd)
    init_target(end.mr)
    mine = end.info(ctx, gidx, 300 + env.me)
    env.put(f'at.{kind}.{env.me}', mine)
    theirs = env.get(f'at.{kind}.{env.peer}')
    vl.rc_connect(end.qp, gidx, theirs, my_psn=mine['psn'], rd_atomic=4)
    env.barrier(f'at.{kind}.ready')
    done = {}

    def read_peer(i):
        # Once both guests' atomics completed: each reads its own memory
        # for the other.
        if 'mem' not in done:
            env.barrier(f'at.{kind}.ops')
            env.put(f'at.{kind}.mem.{env.me}',
                    [u64(end.mr, TGT + 8 * j) for j in range(3)])
            done['mem'] = env.get(f'at.{kind}.mem.{env.peer}')
        return done['mem'][i]

    run_ops(tap, f'two guests over the {kind} GID', end, theirs, read_peer)
    env.barrier(f'at.{kind}.done')


def error_pair(ctx, pd, gidx, qp_access=ACCESS):
    a, b = End(ctx, pd), End(ctx, pd)
    b.mr2 = MR(pd, 4096, NO_ATOMIC)
    ai, bi = a.info(ctx, gidx, 10), b.info(ctx, gidx, 20)
    vl.rc_connect(a.qp, gidx, bi, my_psn=ai['psn'], rd_atomic=4)
    vl.rc_connect(b.qp, gidx, ai, my_psn=bi['psn'], rd_atomic=4,
                  access=qp_access)
    for mr in (b.mr, b.mr2):
        for off in range(0, 64, 8):
            put64(mr, off, 0x42)
    return a, b, bi


def errors(tap):
    env = vl.Env()
    gidx = env.gids['v2']
    ctx = env.context()
    pd = PD(ctx)
    faa, cas = e.IBV_WR_ATOMIC_FETCH_AND_ADD, e.IBV_WR_ATOMIC_CMP_AND_SWP
    cases = [
        ('FAA to a misaligned address', faa, 4, False, ACCESS,
         e.IBV_WC_REM_INV_REQ_ERR),
        ('CAS to a misaligned address', cas, 9, False, ACCESS,
         e.IBV_WC_REM_INV_REQ_ERR),
        ('FAA with a bad R_Key', faa, 8, False, ACCESS,
         e.IBV_WC_REM_ACCESS_ERR),
        ('CAS to an MR without REMOTE_ATOMIC', cas, 8, True, ACCESS,
         e.IBV_WC_REM_ACCESS_ERR),
        ('FAA to a QP without REMOTE_ATOMIC', faa, 8, False, NO_ATOMIC,
         e.IBV_WC_REM_INV_REQ_ERR),
    ]
    for name, opc, off, use_mr2, qacc, status in cases:
        a, b, bi = error_pair(ctx, pd, gidx, qacc)
        mr = b.mr2 if use_mr2 else b.mr
        rkey = mr.rkey
        if name.endswith('bad R_Key'):
            rkey ^= 0x80
        wr = atomic_wr(a, opc, 0, mr.buf + off, rkey, 0x42, 7)

        def untouched(mr=mr):
            words = [u64(mr, o) for o in range(0, 64, 8)]
            return None if words == [0x42] * 8 else f'target {words}'
        a.qp.post_send(wr)
        wcs = vl.poll(a.cq, 1)
        tap.ok(len(wcs) == 1 and wcs[0].status == status,
               f'loopback: {name}: {STATUS[status]}',
               f'completions {wc_str(wcs)}')
        err = untouched()
        tap.ok(err is None, f'loopback: {name}: memory untouched', err)

    # A local SGE that is not 8 bytes: refused when posted.
    a, _, bi = error_pair(ctx, pd, gidx)
    wr = SendWR(opcode=faa, num_sge=1, sg=[SGE(a.mr.buf, 4, a.mr.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_atomic(rkey=bi['rkey'], addr=bi['addr'], compare_add=1, swap=0)
    try:
        a.qp.post_send(wr)
        refused = False
    except Exception:  # pylint: disable=broad-except
        refused = True
    tap.ok(refused, 'an atomic with a 4-byte SGE is refused by post_send')


class Requester:
    """A QP doing FAAs of 1 on a counter, WINDOW of them in flight."""

    def __init__(self, end, target, n, index):
        self.end, self.target, self.left, self.index = end, target, n, index
        self.inflight = 0
        self.results = []
        self.posted = 0

    def post(self):
        while self.left and self.inflight < WINDOW:
            slot = self.posted % 64
            wr = atomic_wr(self.end, e.IBV_WR_ATOMIC_FETCH_AND_ADD,
                           8 * slot, self.target['addr'],
                           self.target['rkey'], 1,
                           wr_id=self.index << 16 | slot)
            self.end.qp.post_send(wr)
            self.posted += 1
            self.left -= 1
            self.inflight += 1


def faa_storm(tap, reqs, cq, where):
    """Run every requester to its end; returns the values FAA returned."""
    deadline = time.monotonic() + 120
    bad = []
    for r in reqs:
        r.post()
    while any(r.left or r.inflight for r in reqs) and \
            time.monotonic() < deadline:
        got, wcs = cq.poll(16)
        if not got:
            time.sleep(0.0002)
            continue
        for wc in wcs[:got]:
            r = reqs[wc.wr_id >> 16]
            if wc.status != e.IBV_WC_SUCCESS or wc.byte_len != 8:
                bad.append((wc.wr_id, wc.status, wc.byte_len))
            r.results.append(u64(r.end.mr, 8 * (wc.wr_id & 0xffff)))
            r.inflight -= 1
            r.post()
    tap.ok(not bad and not any(r.left or r.inflight for r in reqs),
           f'{where}: every FAA completed', f'bad {bad[:5]}')
    return [v for r in reqs for v in r.results]


def cas_lock(tap, env, ends, lock, where):
    """N_LOCK increments of the counter after lock by each end, under the
    lock, taken with CAS 0 -> owner and given back with CAS owner -> 0."""
    owner_base = 1 + env.me * 16
    spins = 0
    for _ in range(N_LOCK):
        for i, end in enumerate(ends):
            me = owner_base + i
            while True:
                end.qp.post_send(atomic_wr(end, e.IBV_WR_ATOMIC_CMP_AND_SWP,
                                           0, lock['addr'], lock['rkey'], 0,
                                           me))
                wcs = vl.poll(end.cq, 1)
                if not (wcs and wcs[0].status == e.IBV_WC_SUCCESS):
                    tap.ok(False, f'{where}: lock CAS completes',
                           wc_str(wcs))
                    return
                if u64(end.mr, 0) == 0:
                    break
                spins += 1
            # Locked: read, add one, write; then unlock.
            sge = SGE(end.mr.buf + 8, 8, end.mr.lkey)
            rd = SendWR(opcode=e.IBV_WR_RDMA_READ, num_sge=1, sg=[sge],
                        send_flags=e.IBV_SEND_SIGNALED)
            rd.set_wr_rdma(lock['rkey'], lock['addr'] + 8)
            end.qp.post_send(rd)
            wcs = vl.poll(end.cq, 1)
            put64(end.mr, 8, u64(end.mr, 8) + 1)
            wr = SendWR(opcode=e.IBV_WR_RDMA_WRITE, num_sge=1, sg=[sge],
                        send_flags=e.IBV_SEND_SIGNALED)
            wr.set_wr_rdma(lock['rkey'], lock['addr'] + 8)
            end.qp.post_send(wr)
            wcs += vl.poll(end.cq, 1)
            end.qp.post_send(atomic_wr(end, e.IBV_WR_ATOMIC_CMP_AND_SWP, 16,
                                       lock['addr'], lock['rkey'], me, 0))
            wcs += vl.poll(end.cq, 1)
            if not (len(wcs) == 3 and
                    all(w.status == e.IBV_WC_SUCCESS for w in wcs) and
                    u64(end.mr, 16) == me):
                tap.ok(False, f'{where}: locked READ, WRITE, unlock',
                       f'{wc_str(wcs)}, unlock found {u64(end.mr, 16)}')
                return
    tap.ok(True, f'{where}: {N_LOCK * len(ends)} increments under a CAS '
           f'lock ({spins} retries)')


def counter(tap):
    env = vl.Env()
    gidx = env.gids['v2']
    ctx = env.context()
    pd = PD(ctx)
    # Guest 0 holds the counters: word 0 FAA'd, word 8 the lock, word 16
    # the counter the lock protects (at +8 of data's address).
    cq = CQ(ctx, 256)
    ends = [End(ctx, pd, cq) for _ in range(N_QP)]
    targets = []
    if env.me == 0:
        home = MR(pd, 4096, ACCESS)
        for off in range(0, 32, 8):
            put64(home, off, 0)
        # Looped-back requesters, and the QPs guest 1's connect to.
        peers = [End(ctx, pd, cq, size=64) for _ in range(N_QP)]
        for i, end in enumerate(ends):
            ei = end.info(ctx, gidx, 1000 + i)
            pi = peers[i].info(ctx, gidx, 2000 + i)
            vl.rc_connect(end.qp, gidx, pi, my_psn=ei['psn'], rd_atomic=4)
            vl.rc_connect(peers[i].qp, gidx, ei, my_psn=pi['psn'],
                          rd_atomic=4)
            targets.append({'addr': home.buf, 'rkey': home.rkey})
        if env.peer is not None:
            remotes = [End(ctx, pd, cq, size=64) for _ in range(N_QP)]
            env.put('at.counter.home',
                    [r.info(ctx, gidx, 3000 + i, mr=home)
                     for i, r in enumerate(remotes)])
            theirs = env.get('at.counter.req')
            for r, t in zip(remotes, theirs):
                vl.rc_connect(r.qp, gidx, t, my_psn=3000, rd_atomic=4)
    else:
        home_info = env.get('at.counter.home')
        env.put('at.counter.req', [end.info(ctx, gidx, 3000)
                                   for end in ends])
        for end, t in zip(ends, home_info):
            vl.rc_connect(end.qp, gidx, t, my_psn=3000, rd_atomic=4)
            targets.append({'addr': t['addr'], 'rkey': t['rkey']})
    env.barrier('at.counter.ready')

    where = ('loopback and two guests' if env.peer is not None
             else 'loopback')
    reqs = [Requester(end, t, N_FAA, i)
            for i, (end, t) in enumerate(zip(ends, targets))]
    vals = faa_storm(tap, reqs, cq, f'{where}: {N_QP} QPs x {N_FAA} FAAs')
    env.put(f'at.counter.vals.{env.me}', vals)
    env.barrier('at.counter.faa')
    if env.me == 0:
        allv = list(vals)
        if env.peer is not None:
            allv += env.get('at.counter.vals.1')
        total = len(allv)
        final = u64(home, 0)
        tap.ok(final == total and total == env.nguests * N_QP * N_FAA,
               f'{where}: the counter ends at exactly {total}',
               f'counter {final}, FAAs {total}')
        tap.ok(sorted(allv) == list(range(total)),
               f'{where}: FAAs returned each of 0..{total - 1} once',
               f'{len(set(allv))} distinct of {total}')

    lock = {'addr': targets[0]['addr'] + 8, 'rkey': targets[0]['rkey']}
    cas_lock(tap, env, ends, lock, f'{where}: CAS lock')
    env.barrier('at.counter.lock')
    if env.me == 0:
        want = env.nguests * N_QP * N_LOCK
        got, lk = u64(home, 16), u64(home, 8)
        tap.ok(got == want and lk == 0,
               f'{where}: the locked counter ends at exactly {want}',
               f'counter {got}, lock {lk}')
    env.barrier('at.counter.done')


if __name__ == '__main__':
    WHAT = sys.argv[1]
    TAP = vl.Tap(f'atomic {" ".join(sys.argv[1:])}')
    if WHAT == 'ops':
        TAP.run(ops, TAP, sys.argv[2])
    elif WHAT == 'errors':
        TAP.run(errors, TAP)
    else:
        TAP.run(counter, TAP)
