#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The device's transport counters through `rdma statistic show link`,
and `rdma resource show qp` for UD, UC and SRQ QPs.

  verbs_stats.py

Each check reads the counters of this guest's port before and after
provoking an event and asks that exactly the expected ones moved, by the
expected amounts (a counter that should stay must stay).  With two
guests, guest 1 is the requester and guest 0 the responder: RDMA READs
and WRITEs (data verified) move rx_read_requests and rx_write_requests
at guest 0 only; a WRITE with a bad R_Key moves req_remote_access_errors
at guest 1 and resp_remote_access_errors at guest 0; a READ to a QP
without remote read moves the invalid request pair the same way.  In
each guest alone (loopback): a SEND with no receive and rnr_retry 0
moves rnr_nak_retry_err; a SEND to a QP that is gone times out retry_cnt
+ 1 times and moves local_ack_timeout_err and
req_transport_retries_exceeded.
"""
import json
import subprocess
import time

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import SGE, SendWR

import verbs_lib as vl

SIZE = 16384
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ)
# The counters this part reads: the transport ones of the contract.
COUNTERS = ('rx_write_requests', 'rx_read_requests', 'rx_atomic_requests',
            'out_of_sequence', 'packet_seq_err', 'duplicate_request',
            'local_ack_timeout_err', 'rnr_nak_retry_err',
            'implied_nak_seq_err', 'req_remote_access_errors',
            'req_remote_invalid_request', 'resp_remote_access_errors',
            'resp_remote_invalid_request', 'req_transport_retries_exceeded',
            'roce_tx_mtu_drops')
NREADS = 4
NWRITES = 3


def counters(env):
    """This port's counters, from `rdma -j statistic show link DEV/1`."""
    # ib_core keeps what it read for RDMA_HW_STATS_DEFAULT_LIFESPAN (10 ms).
    time.sleep(0.05)
    out = subprocess.run(['rdma', '-j', 'statistic', 'show', 'link',
                          f'{env.ibdev}/1'], capture_output=True, text=True,
                         check=False)
    found = {}

    def walk(v):
        if isinstance(v, dict):
            for k, x in v.items():
                if k in COUNTERS and isinstance(x, int):
                    found[k] = x
                else:
                    walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    try:
        walk(json.loads(out.stdout))
    except ValueError:
        pass
    if len(found) != len(COUNTERS):
        missing = sorted(set(COUNTERS) - set(found))
        raise RuntimeError(f'rdma statistic: {missing} missing: '
                           f'{out.stdout} {out.stderr}')
    return found


def moved(tap, what, before, after, want):
    """ok() if every counter moved by want.get(name, 0)."""
    got = {k: after[k] - before[k] for k in COUNTERS}
    bad = {k: (got[k], want.get(k, 0)) for k in COUNTERS
           if got[k] != want.get(k, 0)}
    return tap.ok(not bad, what, f'(moved, expected): {bad}')


class End:
    """One RC QP with its CQ and a registered buffer."""

    def __init__(self, ctx, pd, srq=None):
        self.cq = CQ(ctx, 64)
        cap = QPCap(max_send_wr=16, max_recv_wr=0 if srq else 16)
        self.qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq,
                                    rcq=self.cq, cap=cap, srq=srq))
        self.mr = MR(pd, SIZE, ACCESS)

    def info(self, ctx, gid_index, psn):
        return {'qpn': self.qp.qp_num, 'psn': psn,
                'gid': vl.gid_of(ctx, gid_index),
                'addr': self.mr.buf, 'rkey': self.mr.rkey}


def post_wait(end, wr):
    """Post wr and return the status of its completion, or None."""
    end.qp.post_send(wr)
    wcs = vl.poll(end.cq, 1, timeout_s=30)
    return wcs[0].status if wcs else None


def rdma_wr(end, opcode, length, rkey, addr):
    wr = SendWR(opcode=opcode, num_sge=1,
                sg=[SGE(end.mr.buf, length, end.mr.lkey)])
    wr.set_wr_rdma(rkey, addr)
    return wr


def pair(tap, env, ctx, pd, gidx):
    """Guest 1 asks, guest 0 answers; each checks its own counters."""
    good, norw = End(ctx, pd), End(ctx, pd)
    mine = {'good': good.info(ctx, gidx, 0x100 + env.me),
            'norw': norw.info(ctx, gidx, 0x200 + env.me)}
    env.put(f'stats.pair.{env.me}', mine)
    theirs = env.get(f'stats.pair.{env.peer}')
    vl.rc_connect(good.qp, gidx, theirs['good'], my_psn=mine['good']['psn'])
    # Guest 0's second QP takes no remote READ or WRITE.
    vl.rc_connect(norw.qp, gidx, theirs['norw'], my_psn=mine['norw']['psn'],
                  access=e.IBV_ACCESS_LOCAL_WRITE if env.me == 0 else ACCESS)
    if env.me == 0:
        good.mr.write(vl.pattern(SIZE, 21), SIZE)
    env.barrier('stats.pair.ready')

    steps = (
        ('reads', f'{NREADS} RDMA READs',
         {0: {'rx_read_requests': NREADS}, 1: {}}),
        ('writes', f'{NWRITES} RDMA WRITEs',
         {0: {'rx_write_requests': NWRITES}, 1: {}}),
        # In sequence, so taken (rocx-device.rst): counted before its
        # R_Key is.  The READ below is refused before, by the QP's rights.
        ('badkey', 'a WRITE with a bad R_Key',
         {0: {'resp_remote_access_errors': 1, 'rx_write_requests': 1},
          1: {'req_remote_access_errors': 1}}),
        ('noread', 'a READ to a QP without remote read',
         {0: {'resp_remote_invalid_request': 1},
          1: {'req_remote_invalid_request': 1}}),
    )
    for step, what, want in steps:
        before = counters(env)
        env.barrier(f'stats.{step}.before')
        if env.me == 1:
            provoke(tap, step, good, norw, theirs)
        env.barrier(f'stats.{step}.after')
        moved(tap, f'two guests, {what}: the counters of guest {env.me} '
              'moved as they should', before, counters(env), want[env.me])
    if env.me == 0:
        err = vl.verify(good.mr.read(SIZE, 0), SIZE, 22)
        tap.ok(err is None, 'two guests: the WRITEs\' data arrived intact',
               err)
    env.barrier('stats.pair.done')


def provoke(tap, step, good, norw, theirs):
    """The requester's side of a pair step (guest 1)."""
    peer = theirs['good']
    if step == 'reads':
        for i in range(NREADS):
            good.mr.write(bytes(SIZE), SIZE)
            st = post_wait(good, rdma_wr(good, e.IBV_WR_RDMA_READ, SIZE,
                                         peer['rkey'], peer['addr']))
            err = vl.verify(good.mr.read(SIZE, 0), SIZE, 21)
            tap.ok(st == e.IBV_WC_SUCCESS and err is None,
                   f'two guests: READ {i + 1} completes, data intact',
                   f'status {st}, {err}')
    elif step == 'writes':
        good.mr.write(vl.pattern(SIZE, 22), SIZE)
        for i in range(NWRITES):
            st = post_wait(good, rdma_wr(good, e.IBV_WR_RDMA_WRITE, SIZE,
                                         peer['rkey'], peer['addr']))
            tap.ok(st == e.IBV_WC_SUCCESS, f'two guests: WRITE {i + 1} '
                   'completes', f'status {st}')
    elif step == 'badkey':
        st = post_wait(good, rdma_wr(good, e.IBV_WR_RDMA_WRITE, 64,
                                     peer['rkey'] ^ 0x100, peer['addr']))
        tap.ok(st == e.IBV_WC_REM_ACCESS_ERR, 'two guests: a WRITE with a '
               'bad R_Key completes with IBV_WC_REM_ACCESS_ERR',
               f'status {st}')
    elif step == 'noread':
        peer = theirs['norw']
        st = post_wait(norw, rdma_wr(norw, e.IBV_WR_RDMA_READ, 64,
                                     peer['rkey'], peer['addr']))
        tap.ok(st == e.IBV_WC_REM_INV_REQ_ERR, 'two guests: a READ to a QP '
               'without remote read completes with IBV_WC_REM_INV_REQ_ERR',
               f'status {st}')


def loopback(tap, env, ctx, pd, gidx):
    """Errors that need one device only, between two of its QPs."""
    # No receive posted and rnr_retry 0: the first RNR NAK ends the QP.
    a, b = End(ctx, pd), End(ctx, pd)
    ai, bi = a.info(ctx, gidx, 0x300), b.info(ctx, gidx, 0x400)
    vl.rc_connect(a.qp, gidx, bi, my_psn=ai['psn'], rnr_retry=0)
    vl.rc_connect(b.qp, gidx, ai, my_psn=bi['psn'])
    before = counters(env)
    st = post_wait(a, SendWR(opcode=e.IBV_WR_SEND, num_sge=1,
                             sg=[SGE(a.mr.buf, 64, a.mr.lkey)]))
    tap.ok(st == e.IBV_WC_RNR_RETRY_EXC_ERR, 'loopback: a SEND with no '
           'receive and rnr_retry 0 completes with IBV_WC_RNR_RETRY_EXC_ERR',
           f'status {st}')
    moved(tap, 'loopback, RNR retries exceeded: rnr_nak_retry_err moved by 1',
          before, counters(env), {'rnr_nak_retry_err': 1})

    # A peer QP that is gone answers nothing: retry_cnt 1 gives two ACK
    # timeouts (the first try and one retry), then RETRY_EXC.
    a, b = End(ctx, pd), End(ctx, pd)
    ai, bi = a.info(ctx, gidx, 0x500), b.info(ctx, gidx, 0x600)
    b.qp.close()
    vl.rc_connect(a.qp, gidx, bi, my_psn=ai['psn'], timeout=12, retry_cnt=1)
    before = counters(env)
    st = post_wait(a, SendWR(opcode=e.IBV_WR_SEND, num_sge=1,
                             sg=[SGE(a.mr.buf, 64, a.mr.lkey)]))
    tap.ok(st == e.IBV_WC_RETRY_EXC_ERR, 'loopback: a SEND to a QP that is '
           'gone completes with IBV_WC_RETRY_EXC_ERR', f'status {st}')
    moved(tap, 'loopback, transport retries exceeded: two ACK timeouts, '
          'one retries exceeded', before, counters(env),
          {'local_ack_timeout_err': 2, 'req_transport_retries_exceeded': 1})


def restrack_qp(qpn):
    out = subprocess.run(['rdma', '-j', 'resource', 'show', 'qp', 'lqpn',
                          str(qpn)], capture_output=True, text=True,
                         check=False)
    try:
        rows = [r for r in json.loads(out.stdout) if r.get('lqpn') == qpn]
    except ValueError:
        rows = []
    return rows[0] if len(rows) == 1 else {'error': out.stdout + out.stderr}


def restrack(tap, env, ctx, pd, gidx):
    """rdma resource show qp for the QP types verbs_ext.py does not see."""
    def check(what, qpn, want):
        r = restrack_qp(qpn)
        bad = {k: (r.get(k), v) for k, v in want.items() if r.get(k) != v}
        tap.ok(not bad, f'rdma resource show qp, {what}: '
               f'{", ".join(want)} as set', f'(got, want): {bad}; {r}')

    # UD: no remote QPN or RQ PSN, the SQ PSN it was given.
    cq = CQ(ctx, 8)
    attr = QPAttr()
    attr.qkey = 0x1234
    attr.port_num = 1
    attr.pkey_index = 0
    ud = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq,
                           cap=QPCap(max_send_wr=4, max_recv_wr=4)))
    ud.to_init(attr)
    ud.to_rtr(QPAttr())
    rts = QPAttr()
    rts.sq_psn = 0x777
    ud.to_rts(rts)
    check('UD', ud.qp_num, {'type': 'UD', 'state': 'RTS', 'sq-psn': 0x777})

    # UC: connected, so remote QPN and both PSNs.
    uc = [QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UC, scq=cq, rcq=cq,
                            cap=QPCap(max_send_wr=4, max_recv_wr=4)))
          for _ in range(2)]
    vl.rc_connect(uc[0], gidx, {'qpn': uc[1].qp_num, 'psn': 0x4321,
                                'gid': vl.gid_of(ctx, gidx)}, my_psn=0x1234)
    check('UC', uc[0].qp_num, {'type': 'UC', 'state': 'RTS',
                               'rqpn': uc[1].qp_num, 'rq-psn': 0x4321,
                               'sq-psn': 0x1234})

    # RC on an SRQ: as any RC QP.
    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=8, max_sge=1)))
    a = End(ctx, pd, srq=srq)
    vl.rc_connect(a.qp, gidx, {'qpn': uc[1].qp_num, 'psn': 0x2468,
                               'gid': vl.gid_of(ctx, gidx)}, my_psn=0x1357)
    check('RC on an SRQ', a.qp.qp_num, {'type': 'RC', 'state': 'RTS',
                                        'rqpn': uc[1].qp_num,
                                        'rq-psn': 0x2468, 'sq-psn': 0x1357})


def main(tap):
    env = vl.Env()
    gidx = env.gids['v2']
    ctx = env.context()
    pd = PD(ctx)
    if env.peer is not None:
        pair(tap, env, ctx, pd, gidx)
    loopback(tap, env, ctx, pd, gidx)
    restrack(tap, env, ctx, pd, gidx)


if __name__ == '__main__':
    TAP = vl.Tap('stats')
    TAP.run(main, TAP)
