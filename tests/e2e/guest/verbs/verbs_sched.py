#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A QP's rate limit (IB_QP_RATE_LIMIT, the device's per-QP pacer).

  verbs_sched.py

Between two RC QPs of the device (looped back inside it, which the pacer
paces as any QP): RDMA WRITEs of 64 KiB, kept 32 deep, run for a few
seconds of the guest's clock unlimited, then with a rate limit of
RATE_KBPS, and the test measures the rate itself from the completions.
The time is the device's: the completions' timestamps (64-byte CQEs,
the device clock, which runs on QEMU's virtual clock as the pacer does);
a TCG guest's own clock may run a tenth off it (its TSC is calibrated
against emulated timers), so it is only shown.  The pacer's rate, from
the median interval between completions (a loaded host may let the
queue run dry now and then, which lowers the average but not the
pacer), must be within -10%/+10% of the limit, the average no more than
10% above it, and the unlimited rate at least twice the limit, or the
limit proved nothing.  The data of the last WRITE is verified; a rate limit in INIT,
or above the port's largest rate, is refused.
"""
import sys
import time

import pyverbs.enums as e
from pyverbs.cq import CQEX, CqInitAttrEx, PollCqAttr
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QPAttr, QPCap, QPEx, QPInitAttrEx
from pyverbs.wr import SGE, SendWR

import verbs_lib as vl

SIZE = 65536
DEPTH = 32
RATE_KBPS = 20000               # 20 Mb/s: 2.5 MB/s on the wire
# The pacer counts frames: at path MTU 1024 a 64 KiB WRITE is 64 packets
# of Ethernet 14, IPv4 20, UDP 8, BTH 12 and ICRC 4 bytes around the
# payload, and one RETH of 16.
WIRE = SIZE + 64 * (14 + 20 + 8 + 12 + 4) + 16
WINDOW_S = 4.0
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ)


class End:
    """One QP with its CQ and a registered buffer."""

    def __init__(self, ctx, pd):
        self.cq = CQEX(ctx, CqInitAttrEx(
            cqe=64, wc_flags=(e.IBV_WC_STANDARD_FLAGS |
                              e.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)))
        cap = QPCap(max_send_wr=DEPTH, max_recv_wr=4)
        self.qp = QPEx(ctx, QPInitAttrEx(
            qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq, cap=cap, pd=pd,
            comp_mask=e.IBV_QP_INIT_ATTR_PD))
        self.mr = MR(pd, SIZE, ACCESS)

    def info(self, ctx, gid_index, psn):
        return {'qpn': self.qp.qp_num, 'psn': psn,
                'gid': vl.gid_of(ctx, gid_index),
                'addr': self.mr.buf, 'rkey': self.mr.rkey}


def set_rate(qp, kbps):
    attr = QPAttr()
    attr.rate_limit = kbps
    qp.modify(attr, e.IBV_QP_RATE_LIMIT)


def poll_ts(cq, timeout_s=30.0):
    """[(status, device timestamp ns)] of the completions there are,
    waiting up to timeout_s for the first."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if cq.start_poll(PollCqAttr()) != 0:
            time.sleep(0.0005)
            continue
        out = []
        while True:
            out.append((cq.status, cq.read_timestamp()))
            if cq.poll_next() != 0:
                break
        cq.end_poll()
        return out
    return []


def measure(a, b_info, seconds):
    """WRITEs kept DEPTH deep for seconds; returns (bytes/s by the
    device clock, bytes/s by the guest's, bytes/s of the median WRITE by
    the device clock, errors).

    The first two are averages over the window, and fall short of the
    pacer's rate whenever the guest, descheduled on a loaded host, lets
    the queue run dry.  The third is what the pacer itself allows: a
    WRITE that waited behind the one before completes one pacing interval
    after it, and such WRITEs are most of them, so the median interval
    between completions is the pacer's and gaps of an empty queue fall
    outside it."""
    sge = SGE(a.mr.buf, SIZE, a.mr.lkey)
    wr = SendWR(opcode=e.IBV_WR_RDMA_WRITE, num_sge=1, sg=[sge])
    wr.set_wr_rdma(b_info['rkey'], b_info['addr'])
    errors = []
    outstanding = 0
    done = 0
    start = time.monotonic()
    end = start + seconds
    first = last = None
    g_first = g_last = None
    stamps = []
    while time.monotonic() < end or outstanding:
        while outstanding < DEPTH and time.monotonic() < end:
            a.qp.post_send(wr)
            outstanding += 1
        wcs = poll_ts(a.cq)
        if not wcs:
            errors.append('no completion in 30 s')
            break
        for status, ts in wcs:
            outstanding -= 1
            if status != e.IBV_WC_SUCCESS:
                errors.append(f'status {status}')
                continue
            now = time.monotonic()
            stamps.append(ts)
            if first is None:
                first, g_first = ts, now
            else:
                done += 1
            last, g_last = ts, now
    if first is None or last <= first or g_last <= g_first:
        return 0, 0, 0, errors or ['nothing completed']
    gaps = sorted(t - p for p, t in zip(stamps, stamps[1:]))
    median = gaps[len(gaps) // 2]
    # Completions after the first: each took its own time on the pacer.
    return (done * SIZE * 1e9 / (last - first),
            done * SIZE / (g_last - g_first),
            SIZE * 1e9 / median if median > 0 else 0, errors)


def main(tap):
    env = vl.Env()
    gidx = env.gids['v2']
    ctx = env.context()
    pd = PD(ctx)
    a, b = End(ctx, pd), End(ctx, pd)
    ai, bi = a.info(ctx, gidx, 100), b.info(ctx, gidx, 200)
    vl.rc_connect(a.qp, gidx, bi, my_psn=ai['psn'])
    vl.rc_connect(b.qp, gidx, ai, my_psn=bi['psn'])
    a.mr.write(vl.pattern(SIZE, 31), SIZE)

    limit = RATE_KBPS * 1000 / 8 * SIZE / WIRE
    free, _, _, err = measure(a, bi, 1.5)
    tap.ok(not err, 'unlimited WRITEs complete', err)
    tap.diag(f'unlimited: {free / 1e6:.2f} MB/s')
    tap.ok(free >= 2 * limit,
           f'unlimited rate at least twice {RATE_KBPS} kb/s',
           f'{free:.0f} B/s')

    tap.check(f'ibv_modify_qp RATE_LIMIT {RATE_KBPS} kb/s in RTS',
              set_rate, a.qp, RATE_KBPS)
    rate, g_rate, paced, err = measure(a, bi, WINDOW_S)
    tap.ok(not err, 'rate-limited WRITEs complete', err)
    tap.diag(f'limited: {rate / 1e6:.3f} MB/s of data by the device clock '
             f'({g_rate / 1e6:.3f} by the guest\'s), the median WRITE '
             f'{paced / 1e6:.3f}, the limit allows {limit / 1e6:.3f}')
    tap.ok(0.90 * limit <= paced <= 1.10 * limit,
           f'the QP is paced at {RATE_KBPS} kb/s (+-10%)',
           f'{paced * WIRE / SIZE * 8 / 1000:.0f} kb/s on the wire')
    tap.ok(rate <= 1.10 * limit,
           f'the QP never averages more than {RATE_KBPS} kb/s (+10%)',
           f'{rate * WIRE / SIZE * 8 / 1000:.0f} kb/s on the wire')
    err = vl.verify(b.mr.read(SIZE, 0), SIZE, 31)
    tap.ok(err is None, 'the paced WRITEs\' data arrived intact', err)

    tap.check('rate limit 0: no limit again', set_rate, a.qp, 0)
    again, _, _, err = measure(a, bi, 1.5)
    tap.ok(not err and again >= 2 * limit, 'unlimited again',
           f'{again:.0f} B/s {err}')

    try:
        set_rate(a.qp, 400000001)
        tap.ok(False, 'a rate above the port\'s largest is refused')
    except PyverbsRDMAError as ex:
        tap.ok(True, f'a rate above the port\'s largest is refused ({ex})')
    idle = End(ctx, pd)
    attr = QPAttr(qp_state=e.IBV_QPS_INIT, port_num=1)
    attr.qp_access_flags = ACCESS
    idle.qp.to_init(attr)
    try:
        set_rate(idle.qp, RATE_KBPS)
        tap.ok(False, 'a rate limit in INIT is refused')
    except PyverbsRDMAError as ex:
        tap.ok(True, f'a rate limit in INIT is refused ({ex})')


if __name__ == '__main__':
    TAP = vl.Tap('sched')
    TAP.run(main, TAP)
