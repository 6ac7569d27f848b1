#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A QP's rate limit (IB_QP_RATE_LIMIT, the device's per-QP pacer).

  verbs_sched.py

Each guest's RC QP writes to one of the other guest's across the switch:
RDMA WRITEs of 64 KiB, kept 32 deep, run for a few seconds of the
guest's clock unlimited, then with a rate limit of RATE_KBPS, then
unlimited again.  The QP's requests carry DSCP 26, which the switch
counts as priority 3 of this guest's port, where nothing else of the
guest's goes (the other QP's ACKs leave with DSCP 0): the rates checked
are the switch's rx_bytes there (frames as the pacer counts them) over
the guest's clock, sampled every WINDOW_S / 3 seconds, so the device's
own clock and counters decide nothing.  The paced rate must be within
-10%/+10% of the limit in the median of the (at least 3) windows, no
more than 10% above it over the whole paced span, and the unlimited
rates at least twice the limit, or the limit proved nothing.  The
device's figures (the completions' timestamps, 64-byte CQEs) are only
shown.  The data of the last WRITE is verified at the other guest; a
rate limit in INIT, or above the port's largest rate, is refused.
"""
import sys
import threading
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
WINDOW_S = 6.0
# DSCP 26 (the GRH's traffic class 104): the switch's priority 3.
TCLASS = 26 << 2
PRIO = 3
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


class Sampler(threading.Thread):
    """switch_sample of this guest's port and PRIO: count of them, every
    `every` seconds of the guest's clock from the start, then one when
    stopped (which the caller does `every` seconds after the last, so no
    window is short)."""

    def __init__(self, env, every, count):
        super().__init__(daemon=True)
        self.env, self.every, self.count = env, every, count
        self.samples, self.errors = [], []
        self.halt = threading.Event()

    def take(self):
        try:
            self.samples.append(vl.switch_sample(self.env, self.env.me,
                                                 PRIO, 'rx_bytes'))
        except RuntimeError as ex:
            self.errors.append(str(ex))

    def run(self):
        start = time.monotonic()
        self.take()
        for k in range(1, self.count):
            if self.halt.wait(max(0.0, start + k * self.every -
                                  time.monotonic())):
                return
            self.take()

    def stop(self):
        """The last sample, once (later calls do nothing)."""
        if self.halt.is_set():
            return
        self.halt.set()
        self.join()
        self.take()


def measure(a, b_info, seconds, sampler):
    """WRITEs kept DEPTH deep for seconds, sampler sampling the switch
    while they are; returns (bytes/s by the device clock, bytes/s by the
    guest's, bytes/s of the median WRITE by the device clock, errors).

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
    sampler.start()
    first = last = None
    g_first = g_last = None
    stamps = []
    while time.monotonic() < end or outstanding:
        while outstanding < DEPTH and time.monotonic() < end:
            a.qp.post_send(wr)
            outstanding += 1
        # The last sample while the queue is still kept full.
        if time.monotonic() >= end:
            sampler.stop()
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
    sampler.stop()
    errors += sampler.errors
    if first is None or last <= first or g_last <= g_first:
        return 0, 0, 0, errors or ['nothing completed']
    gaps = sorted(t - p for p, t in zip(stamps, stamps[1:]))
    median = gaps[len(gaps) // 2]
    # Completions after the first: each took its own time on the pacer.
    return (done * SIZE * 1e9 / (last - first),
            done * SIZE / (g_last - g_first),
            SIZE * 1e9 / median if median > 0 else 0, errors)


def wire_rate(sampler, least=False):
    """Bytes/s by the switch's samples over their whole span, between
    their answers, or (least) the least their times allow: from the
    first request's leaving to the last answer's arrival."""
    if len(sampler.samples) < 2:
        return None
    _, rate, low, _ = vl.switch_windows([sampler.samples[0],
                                         sampler.samples[-1]])[0]
    return low if least else rate


def main(tap):
    env = vl.Env()
    if env.peer is None:
        tap.ok(False, 'two guests, one on each side of the switch')
        return
    gidx = env.gids['v2']
    ctx = env.context()
    pd = PD(ctx)
    # a writes to the other guest's b, paced; b takes the other's WRITEs.
    a, b = End(ctx, pd), End(ctx, pd)
    env.put(f'sched.{env.me}', {'a': a.info(ctx, gidx, 100),
                                'b': b.info(ctx, gidx, 200)})
    theirs = env.get(f'sched.{env.peer}')
    vl.rc_connect(a.qp, gidx, theirs['b'], my_psn=100,
                  traffic_class=TCLASS)
    vl.rc_connect(b.qp, gidx, theirs['a'], my_psn=200)
    a.mr.write(vl.pattern(SIZE, 31), SIZE)
    env.barrier('sched.connected')
    bi = theirs['b']

    limit = RATE_KBPS * 1000 / 8            # frame bytes/s, as the switch
    data_limit = limit * SIZE / WIRE
    sw = Sampler(env, 1.5, 1)
    free, _, _, err = measure(a, bi, 1.5, sw)
    tap.ok(not err, 'unlimited WRITEs complete', err)
    free_w = wire_rate(sw, least=True) or 0
    tap.diag(f'unlimited: {free_w * 8 / 1e6:.1f} Mb/s on the wire by the '
             f'switch, {free / 1e6:.2f} MB/s of data by the device clock')
    tap.ok(free_w >= 2 * limit,
           f'unlimited rate at least twice {RATE_KBPS} kb/s (the '
           f'switch\'s bytes over the guest\'s clock, the least its '
           f'samples allow)',
           f'{free_w * 8 / 1000:.0f} kb/s')

    tap.check(f'ibv_modify_qp RATE_LIMIT {RATE_KBPS} kb/s in RTS',
              set_rate, a.qp, RATE_KBPS)
    sw = Sampler(env, WINDOW_S / 3, 3)
    rate, g_rate, paced, err = measure(a, bi, WINDOW_S, sw)
    tap.ok(not err, 'rate-limited WRITEs complete', err)
    tap.diag(f'limited, by the device: {rate / 1e6:.3f} MB/s of data by its '
             f'clock ({g_rate / 1e6:.3f} by the guest\'s), the median WRITE '
             f'{paced / 1e6:.3f}, the limit allows {data_limit / 1e6:.3f}')
    wins = vl.switch_windows(sw.samples)
    for d, r, lo, hi in wins:
        tap.diag(f'switch window {d:.2f} s: {r * 8 / 1000:.0f} kb/s '
                 f'({lo * 8 / 1000:.0f}-{hi * 8 / 1000:.0f})')
    rates = sorted(r for _, r, _, _ in wins)
    median = rates[(len(rates) - 1) // 2] if rates else 0
    tap.ok(len(wins) >= 3, 'the switch sampled at least 3 windows of the '
           'paced WRITEs', f'{len(sw.samples)} samples')
    tap.ok(0.90 * limit <= median <= 1.10 * limit,
           f'the QP is paced at {RATE_KBPS} kb/s (+-10%: the median of '
           f'{len(wins)} windows of the switch\'s bytes over the guest\'s '
           f'clock)', f'{median * 8 / 1000:.0f} kb/s on the wire')
    whole = wire_rate(sw) or float('inf')
    tap.ok(whole <= 1.10 * limit,
           f'the QP never averages more than {RATE_KBPS} kb/s (+10%: the '
           f'switch\'s bytes over the whole paced span)',
           f'{whole * 8 / 1000:.0f} kb/s on the wire')
    env.barrier('sched.limited')
    err = vl.verify(b.mr.read(SIZE, 0), SIZE, 31)
    tap.ok(err is None, 'the paced WRITEs\' data arrived intact', err)

    tap.check('rate limit 0: no limit again', set_rate, a.qp, 0)
    sw = Sampler(env, 1.5, 1)
    _, _, _, err = measure(a, bi, 1.5, sw)
    again = wire_rate(sw, least=True) or 0
    tap.ok(not err and again >= 2 * limit, 'unlimited again (the switch\'s '
           'bytes over the guest\'s clock, the least its samples allow)',
           f'{again * 8 / 1000:.0f} kb/s {err}')
    env.barrier('sched.done')

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
