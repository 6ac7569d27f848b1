#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""XRC over one GID kind: an initiator sends into the SRQ each WR names.

  verbs_xrc.py KIND     KIND one of v2, v6, v1 (verbs_lib.GID_KINDS)

In each guest (looped back inside it): an XRC domain with two XRC SRQs,
each completing on a CQ of its own, and one XRC receive (target) QP; an
XRC send QP connected to it sends messages alternately to the two SRQs.
Every receive completes once, on its SRQ's CQ, under its wr_id, with the
data sent, byte for byte.  RDMA WRITE and READ through the same QPs move
data verified both ways.  A SEND naming an SRQ of another XRC domain is
refused by the target: the initiator's completion is
IBV_WC_REM_INV_REQ_ERR and the SRQ receives nothing.  With two guests,
guest 1's SRQs and target QP take what guest 0's send QP sends.
"""
import os
import stat
import sys
import tempfile

import pyverbs.enums as e
from pyverbs.addr import AHAttr, GID, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttrEx
from pyverbs.srq import SRQ, SrqInitAttrEx
from pyverbs.wr import SGE, RecvWR, SendWR
from pyverbs.xrcd import XRCD, XRCDInitAttr

import verbs_lib as vl

SLOT = 8192
NSLOT = 16
MSGS = 12
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ)


def msg_len(k):
    """Message k: 0 B to a whole slot, several packets at MTU 1024."""
    return k * 1531 % (SLOT + 1)


def open_xrcd(ctx):
    """An XRC domain on a file of its own (as ibv_xsrq_pingpong does)."""
    tmp = tempfile.NamedTemporaryFile()
    fd = os.open(tmp.name, os.O_RDONLY | os.O_CREAT, stat.S_IRUSR)
    xrcd = XRCD(ctx, XRCDInitAttr(e.IBV_XRCD_INIT_ATTR_FD |
                                  e.IBV_XRCD_INIT_ATTR_OFLAGS,
                                  os.O_CREAT, fd))
    return xrcd, tmp, fd


class Target:
    """An XRC domain with two XRC SRQs (a CQ each) and a receive QP."""

    def __init__(self, ctx, pd, nsrq=2):
        self.xrcd, self._tmp, self._fd = open_xrcd(ctx)
        self.cqs = [CQ(ctx, 64) for _ in range(nsrq)]
        self.srqs = []
        for cq in self.cqs:
            a = SrqInitAttrEx(max_wr=NSLOT, max_sge=1)
            a.srq_type = e.IBV_SRQT_XRC
            a.pd = pd
            a.xrcd = self.xrcd
            a.cq = cq
            a.comp_mask = (e.IBV_SRQ_INIT_ATTR_TYPE | e.IBV_SRQ_INIT_ATTR_PD |
                           e.IBV_SRQ_INIT_ATTR_CQ | e.IBV_SRQ_INIT_ATTR_XRCD)
            self.srqs.append(SRQ(ctx, a))
        self.mrs = [MR(pd, SLOT * NSLOT, ACCESS) for _ in range(nsrq)]
        attr = QPAttr(port_num=1)
        attr.pkey_index = 0
        attr.qp_access_flags = ACCESS
        self.qp = QP(ctx, QPInitAttrEx(qp_type=e.IBV_QPT_XRC_RECV,
                                       comp_mask=e.IBV_QP_INIT_ATTR_XRCD,
                                       xrcd=self.xrcd), attr)
        self.posted = [set() for _ in range(nsrq)]

    def srqn(self, i):
        return self.srqs[i].get_srq_num()

    def post(self, i, slots):
        for s in slots:
            sge = SGE(self.mrs[i].buf + s * SLOT, SLOT, self.mrs[i].lkey)
            self.srqs[i].post_recv(RecvWR(wr_id=s, num_sge=1, sg=[sge]))
            self.posted[i].add(s)


class Initiator:
    """An XRC send QP with its CQ and one MR of message buffers."""

    def __init__(self, ctx, pd):
        self.cq = CQ(ctx, 64)
        cap = QPCap(max_send_wr=MSGS + 4, max_recv_wr=0, max_recv_sge=0)
        attr = QPAttr(port_num=1)
        attr.pkey_index = 0
        attr.qp_access_flags = 0
        self.qp = QP(ctx, QPInitAttrEx(qp_type=e.IBV_QPT_XRC_SEND,
                                       comp_mask=e.IBV_QP_INIT_ATTR_PD, pd=pd,
                                       scq=self.cq, cap=cap), attr)
        self.mr = MR(pd, SLOT * MSGS, ACCESS)

    def send(self, k, srqn, seed):
        n = msg_len(k)
        if n:
            self.mr.write(vl.pattern(n, seed), n, k * SLOT)
        wr = SendWR(wr_id=k, opcode=e.IBV_WR_SEND, num_sge=1,
                    sg=[SGE(self.mr.buf + k * SLOT, n, self.mr.lkey)],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_qp_type_xrc(srqn)
        self.qp.post_send(wr)

    def rdma(self, opcode, k, n, raddr, rkey, srqn):
        wr = SendWR(wr_id=100 + k, opcode=opcode, num_sge=1,
                    sg=[SGE(self.mr.buf + k * SLOT, n, self.mr.lkey)],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_rdma(rkey, raddr)
        wr.set_qp_type_xrc(srqn)
        self.qp.post_send(wr)


def info(ctx, qp, gidx, psn):
    return {'qpn': qp.qp_num, 'psn': psn, 'gid': vl.gid_of(ctx, gidx)}


def connect(qp, gidx, remote, my_psn):
    """RTR and RTS with what ib_core asks of each XRC type."""
    gr = GlobalRoute(dgid=GID(remote['gid']), sgid_index=gidx, hop_limit=64)
    attr = QPAttr(qp_state=e.IBV_QPS_RTR)
    attr.path_mtu = e.IBV_MTU_1024
    attr.dest_qp_num = remote['qpn']
    attr.rq_psn = remote['psn']
    attr.ah_attr = AHAttr(gr=gr, is_global=1, port_num=1)
    mask = (e.IBV_QP_STATE | e.IBV_QP_AV | e.IBV_QP_PATH_MTU |
            e.IBV_QP_DEST_QPN | e.IBV_QP_RQ_PSN)
    if qp.qp_type == e.IBV_QPT_XRC_RECV:
        attr.max_dest_rd_atomic = 1
        attr.min_rnr_timer = 12
        mask |= e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER
    qp.modify(attr, mask)
    attr = QPAttr(qp_state=e.IBV_QPS_RTS)
    attr.sq_psn = my_psn
    attr.timeout = 14
    attr.retry_cnt = 7
    attr.rnr_retry = 7
    attr.max_rd_atomic = 1
    qp.modify(attr, e.IBV_QP_STATE | e.IBV_QP_SQ_PSN | e.IBV_QP_TIMEOUT |
              e.IBV_QP_RETRY_CNT | e.IBV_QP_RNR_RETRY |
              e.IBV_QP_MAX_QP_RD_ATOMIC)


def check_receives(tap, where, tgt, tgt_qpn, got, want):
    """got[i]: completions of SRQ i's CQ; want[i]: [(k, seed)] in order."""
    errs = []
    for i in range(len(want)):
        if len(got[i]) != len(want[i]):
            errs.append(f'SRQ {i}: {len(got[i])} completions, '
                        f'not {len(want[i])}')
        for wc, (k, seed) in zip(got[i], want[i]):
            n = msg_len(k)
            if wc.status != e.IBV_WC_SUCCESS:
                errs.append(f'SRQ {i} message {k}: status {wc.status}')
                continue
            if wc.wr_id not in tgt.posted[i]:
                errs.append(f'SRQ {i}: wr_id {wc.wr_id} unexpected or twice')
                continue
            tgt.posted[i].discard(wc.wr_id)
            if wc.qp_num != tgt_qpn or wc.byte_len != n:
                errs.append(f'SRQ {i} message {k}: QP {wc.qp_num}, '
                            f'{wc.byte_len} B, not QP {tgt_qpn}, {n} B')
                continue
            err = n and vl.verify(tgt.mrs[i].read(n, wc.wr_id * SLOT), n,
                                  seed)
            if err:
                errs.append(f'SRQ {i} message {k}: {err}')
    tap.ok(not errs, f'{where}: {sum(map(len, want))} SENDs land in the '
           'SRQ each names, on its CQ, data intact', '; '.join(errs[:5]))


def send_all(tap, where, ini, tgt, srqns):
    """MSGS SENDs alternately to srqns[0] and srqns[1]; returns want."""
    want = [[], []]
    for k in range(MSGS):
        ini.send(k, srqns[k % 2], 1 + k)
        want[k % 2].append((k, 1 + k))
    sent = vl.poll(ini.cq, MSGS, timeout_s=60)
    tap.ok(len(sent) == MSGS and
           all(w.status == e.IBV_WC_SUCCESS for w in sent),
           f'{where}: {MSGS} XRC SENDs complete',
           [w.status for w in sent])
    return want


def loopback(tap, kind, ctx, pd, gidx):
    where = f'loopback over the {kind} GID'
    tgt = Target(ctx, pd)
    ini = Initiator(ctx, pd)
    connect(ini.qp, gidx, info(ctx, tgt.qp, gidx, 300), 100)
    connect(tgt.qp, gidx, info(ctx, ini.qp, gidx, 100), 300)
    srqns = [tgt.srqn(0), tgt.srqn(1)]
    tap.ok(srqns[0] != srqns[1], f'{where}: two XRC SRQ numbers', srqns)
    for i in range(2):
        tgt.post(i, range(MSGS // 2))
    want = send_all(tap, where, ini, tgt, srqns)
    got = [vl.poll(cq, MSGS // 2) for cq in tgt.cqs]
    check_receives(tap, where, tgt, tgt.qp.qp_num, got, want)

    # WRITE into SRQ 1's MR, READ it back, through the same QPs.
    n = 5000
    ini.mr.write(vl.pattern(n, 77), n, 0)
    ini.rdma(e.IBV_WR_RDMA_WRITE, 0, n, tgt.mrs[1].buf, tgt.mrs[1].rkey,
             srqns[1])
    ini.rdma(e.IBV_WR_RDMA_READ, 1, n, tgt.mrs[1].buf, tgt.mrs[1].rkey,
             srqns[1])
    wcs = vl.poll(ini.cq, 2)
    tap.ok(len(wcs) == 2 and all(w.status == e.IBV_WC_SUCCESS for w in wcs),
           f'{where}: XRC RDMA WRITE and READ complete',
           [w.status for w in wcs])
    err = vl.verify(tgt.mrs[1].read(n, 0), n, 77) or \
        vl.verify(ini.mr.read(n, SLOT), n, 77)
    tap.ok(not err, f'{where}: WRITE and READ data intact', err)
    tap.ok(not any(vl.poll(cq, 1, timeout_s=0.2) for cq in tgt.cqs),
           f'{where}: WRITE and READ consume no receive')

    # An SRQ of another domain: refused, nothing received.
    other = Target(ctx, pd, nsrq=1)
    other.post(0, range(2))
    ini.send(0, other.srqn(0), 9)
    wcs = vl.poll(ini.cq, 1)
    tap.ok(len(wcs) == 1 and wcs[0].status == e.IBV_WC_REM_INV_REQ_ERR,
           f'{where}: a SEND to an SRQ of another XRC domain fails with '
           'IBV_WC_REM_INV_REQ_ERR', [w.status for w in wcs])
    tap.ok(not vl.poll(other.cqs[0], 1, timeout_s=0.3) and
           not any(vl.poll(cq, 1, timeout_s=0.2) for cq in tgt.cqs),
           f'{where}: the refused SEND reaches no SRQ')


def two_guests(tap, kind, env, ctx, pd, gidx):
    where = f'two guests over the {kind} GID'
    if env.me == 1:
        tgt = Target(ctx, pd)
        for i in range(2):
            tgt.post(i, range(MSGS // 2))
        env.put(f'xrc.{kind}.tgt', dict(info(ctx, tgt.qp, gidx, 700),
                                        srqn=[tgt.srqn(0), tgt.srqn(1)]))
        connect(tgt.qp, gidx, env.get(f'xrc.{kind}.ini'), 700)
        env.barrier(f'xrc.{kind}.ready')
        want = [[(k, 1 + k) for k in range(i, MSGS, 2)] for i in range(2)]
        got = [vl.poll(cq, MSGS // 2, timeout_s=60) for cq in tgt.cqs]
        check_receives(tap, where, tgt, tgt.qp.qp_num, got, want)
    else:
        ini = Initiator(ctx, pd)
        env.put(f'xrc.{kind}.ini', info(ctx, ini.qp, gidx, 900))
        remote = env.get(f'xrc.{kind}.tgt')
        connect(ini.qp, gidx, remote, 900)
        env.barrier(f'xrc.{kind}.ready')
        send_all(tap, where, ini, None, remote['srqn'])
    env.barrier(f'xrc.{kind}.done')


def main(tap, kind):
    env = vl.Env()
    gidx = env.gids[kind]
    ctx = env.context()
    attr = ctx.query_device()
    if not attr.device_cap_flags & e.IBV_DEVICE_XRC:
        tap.ok(False, f'{kind}: the device offers XRC (IBV_DEVICE_XRC)')
        return
    pd = PD(ctx)
    tap.check(f'{kind}: loopback', loopback, tap, kind, ctx, pd, gidx)
    if env.peer is not None:
        tap.check(f'{kind}: two guests', two_guests, tap, kind, env, ctx, pd,
                  gidx)


if __name__ == '__main__':
    TAP = vl.Tap(f'xrc {sys.argv[1]}')
    TAP.run(main, TAP, sys.argv[1])
