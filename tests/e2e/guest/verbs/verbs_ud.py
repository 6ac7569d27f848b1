#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""UD SEND (with and without immediate) over one GID kind, data verified.

  verbs_ud.py KIND      KIND one of v2, v6, v1 (verbs_lib.GID_KINDS)

In each guest between two UD QPs of the device (looped back inside it),
then, with two guests, between them.  Every receive is checked: the data
after the 40-byte GRH area, the GRH area itself (the GRH or IPv6 header
with both GIDs, or 20 zero bytes and the IPv4 header), the completion's
byte_len, src_qp, IBV_WC_GRH and immediate data.  A SEND with a wrong
Q_Key is not delivered; a message longer than the port's active MTU
completes with IBV_WC_LOC_LEN_ERR.
"""
import ipaddress
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AH, GID, AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

import verbs_lib as vl

GRH = 40
QKEY = 0x1a2b3c4d
IMM = 0x5eed1234
NRECV = 8


def mtu_bytes(mtu):
    return 128 << mtu


class End:
    """One UD QP in RTS with its CQ and a registered buffer of NRECV
    receive slots (GRH area + max_msg bytes each) and one send slot."""

    def __init__(self, ctx, pd, max_msg, qkey=QKEY):
        self.slot = GRH + max_msg
        # Apart, so that a receive never hides the send's completion.
        self.scq = CQ(ctx, 32)
        self.rcq = CQ(ctx, 32)
        cap = QPCap(max_send_wr=16, max_recv_wr=NRECV, max_send_sge=1,
                    max_recv_sge=1)
        attr = QPAttr()
        attr.qkey = qkey
        attr.port_num = 1
        attr.pkey_index = 0
        self.qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=self.scq,
                                    rcq=self.rcq, cap=cap), attr)
        self.mr = MR(pd, self.slot * (NRECV + 1), e.IBV_ACCESS_LOCAL_WRITE)
        self.posted = 0

    def post_recv(self, n=1):
        for _ in range(n):
            i = self.posted % NRECV
            self.mr.write(b'\xee' * self.slot, self.slot, i * self.slot)
            self.qp.post_recv(RecvWR(wr_id=self.posted, num_sge=1, sg=[
                SGE(self.mr.buf + i * self.slot, self.slot, self.mr.lkey)]))
            self.posted += 1

    def send(self, ah, qpn, length, seed, imm=False, qkey=QKEY):
        off = NRECV * self.slot
        self.mr.write(vl.pattern(length, seed), length, off)
        wr = SendWR(wr_id=seed, opcode=e.IBV_WR_SEND_WITH_IMM if imm else
                    e.IBV_WR_SEND, num_sge=1, imm_data=IMM if imm else 0,
                    sg=[SGE(self.mr.buf + off, length, self.mr.lkey)])
        wr.set_wr_ud(ah, qpn, qkey)
        self.qp.post_send(wr)

    def info(self, ctx, gid_index):
        return {'qpn': self.qp.qp_num, 'gid': vl.gid_of(ctx, gid_index)}


def make_ah(pd, gid_index, gid):
    gr = GlobalRoute(dgid=GID(gid), sgid_index=gid_index, hop_limit=64)
    return AH(pd, attr=AHAttr(gr=gr, is_global=1, port_num=1))


def grh_error(kind, area, src_gid, dst_gid):
    """None if the GRH area holds the network header of a packet from
    src_gid to dst_gid over kind, else a description."""
    src = ipaddress.IPv6Address(src_gid).packed
    dst = ipaddress.IPv6Address(dst_gid).packed
    area = bytes(area)
    if kind == 'v2':
        ip = area[20:]
        if area[:20] != bytes(20):
            return f'first 20 bytes not zero: {area[:20].hex()}'
        if ip[0] != 0x45 or ip[9] != 17:
            return f'not an IPv4/UDP header: {ip.hex()}'
        if ip[12:16] != src[12:] or ip[16:20] != dst[12:]:
            return f'IPv4 addresses {ip[12:20].hex()}, want {src[12:].hex()} {dst[12:].hex()}'
        return None
    if area[0] >> 4 != 6:
        return f'not an IPv6 header or GRH: {area.hex()}'
    if area[6] != (17 if kind == 'v6' else 0x1b):
        return f'next header {area[6]:#x}'
    if area[8:24] != src or area[24:40] != dst:
        return f'GIDs {area[8:40].hex()}'
    return None


def check_recv(tap, where, end, wc, length, seed, imm, src_qpn, src_gid,
               dst_gid, kind):
    """Check one receive completion of end and the data it names."""
    ok = tap.ok(wc.status == e.IBV_WC_SUCCESS and
                wc.opcode == e.IBV_WC_RECV and wc.byte_len == GRH + length,
                f'{where}: receive of {length} B completes with byte_len '
                f'{GRH + length}',
                f'status {wc.status} opcode {wc.opcode} byte_len {wc.byte_len}')
    if not ok:
        return
    tap.ok(wc.src_qp == src_qpn and wc.wc_flags & e.IBV_WC_GRH,
           f'{where}: completion has src_qp and IBV_WC_GRH',
           f'src_qp {wc.src_qp} (want {src_qpn}), wc_flags {wc.wc_flags:#x}')
    tap.ok(bool(wc.wc_flags & e.IBV_WC_WITH_IMM) == imm and
           (not imm or wc.imm_data == IMM),
           f'{where}: immediate data {"carried" if imm else "absent"}',
           f'wc_flags {wc.wc_flags:#x} imm {wc.imm_data:#x}')
    base = (wc.wr_id % NRECV) * end.slot
    err = grh_error(kind, end.mr.read(GRH, base), src_gid, dst_gid)
    tap.ok(err is None, f'{where}: GRH area filled', err)
    err = vl.verify(end.mr.read(length, base + GRH), length, seed)
    tap.ok(err is None, f'{where}: data arrived intact', err)


def wait_send(tap, where, end, seed):
    wcs = vl.poll(end.scq, 1)
    return tap.ok(len(wcs) == 1 and wcs[0].status == e.IBV_WC_SUCCESS and
                  wcs[0].opcode == e.IBV_WC_SEND and wcs[0].wr_id == seed,
                  f'{where}: SEND completes',
                  f'completions: {[(w.status, w.opcode, w.wr_id) for w in wcs]}')


def loopback(tap, kind, ctx, pd, gidx, max_msg):
    where = f'loopback over the {kind} GID'
    a, b = End(ctx, pd, max_msg), End(ctx, pd, max_msg)
    gid = vl.gid_of(ctx, gidx)
    ah = make_ah(pd, gidx, gid)
    b.post_recv(4)
    for i, (length, imm) in enumerate(((max_msg, False), (1, True),
                                       (0, False), (777, True))):
        seed = 10 + i
        a.send(ah, b.qp.qp_num, length, seed, imm)
        if not wait_send(tap, f'{where}, {length} B', a, seed):
            continue
        wcs = vl.poll(b.rcq, 1)
        if tap.ok(len(wcs) == 1, f'{where}, {length} B: received'):
            check_recv(tap, f'{where}, {length} B', b, wcs[0], length, seed,
                       imm, a.qp.qp_num, gid, gid, kind)

    # A wrong Q_Key: sent, never delivered; the WQE waits for the next.
    b.post_recv()
    a.send(ah, b.qp.qp_num, 64, 20, qkey=QKEY ^ 1)
    wait_send(tap, f'{where}, wrong Q_Key', a, 20)
    time.sleep(0.2)
    tap.ok(not vl.poll(b.rcq, 1, 0.3), f'{where}: a wrong Q_Key is not delivered')
    a.send(ah, b.qp.qp_num, 64, 21)
    wait_send(tap, f'{where}, right Q_Key', a, 21)
    wcs = vl.poll(b.rcq, 1)
    if tap.ok(len(wcs) == 1 and wcs[0].wr_id == 4,
              f'{where}: the next right Q_Key takes the waiting receive',
              f'{[(w.status, w.wr_id) for w in wcs]}'):
        check_recv(tap, f'{where}, after a wrong Q_Key', b, wcs[0], 64, 21,
                   False, a.qp.qp_num, gid, gid, kind)

    # Longer than the port's active MTU: a local length error.
    a.send(ah, b.qp.qp_num, max_msg + 1, 22)
    wcs = vl.poll(a.scq, 1)
    tap.ok(len(wcs) == 1 and wcs[0].status == e.IBV_WC_LOC_LEN_ERR,
           f'{where}: {max_msg + 1} B (over the active MTU) is IBV_WC_LOC_LEN_ERR',
           f'{[(w.status, w.wr_id) for w in wcs]}')


def two_guests(tap, env, kind, ctx, pd, gidx, max_msg):
    where = f'two guests over the {kind} GID'
    end = End(ctx, pd, max_msg)
    mine = end.info(ctx, gidx)
    env.put(f'ud.{kind}.{env.me}', mine)
    theirs = env.get(f'ud.{kind}.{env.peer}')
    ah = make_ah(pd, gidx, theirs['gid'])
    end.post_recv(3)
    env.barrier(f'ud.{kind}.ready')
    # Both guests send at once; each checks what it received.
    sends = ((max_msg, False), (100, True), (max_msg, True))
    for i, (length, imm) in enumerate(sends):
        seed = 40 + 4 * i + env.peer
        end.send(ah, theirs['qpn'], length, 40 + 4 * i + env.me, imm)
        wait_send(tap, f'{where}, {length} B', end, 40 + 4 * i + env.me)
        wcs = vl.poll(end.rcq, 1, 30)
        if tap.ok(len(wcs) == 1, f'{where}, {length} B: received'):
            check_recv(tap, f'{where}, {length} B', end, wcs[0], length,
                       seed, imm, theirs['qpn'], theirs['gid'], mine['gid'],
                       kind)
    env.barrier(f'ud.{kind}.sent')
    # A wrong Q_Key from the peer is not delivered.
    end.post_recv()
    env.barrier(f'ud.{kind}.wrong')
    end.send(ah, theirs['qpn'], 32, 60, qkey=QKEY + 1)
    wait_send(tap, f'{where}, wrong Q_Key', end, 60)
    env.barrier(f'ud.{kind}.wrong.sent')
    time.sleep(0.3)
    tap.ok(not vl.poll(end.rcq, 1, 0.5),
           f'{where}: a wrong Q_Key from the peer is not delivered')
    env.barrier(f'ud.{kind}.done')


def main(tap, kind):
    env = vl.Env()
    gidx = env.gids[kind]
    ctx = env.context()
    pd = PD(ctx)
    max_msg = mtu_bytes(ctx.query_port(1).active_mtu)
    loopback(tap, kind, ctx, pd, gidx, max_msg)
    if env.peer is not None:
        two_guests(tap, env, kind, ctx, pd, gidx, max_msg)


if __name__ == '__main__':
    TAP = vl.Tap(f'ud {sys.argv[1]}')
    TAP.run(main, TAP, sys.argv[1])
