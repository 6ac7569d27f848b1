#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The extended verbs over one GID kind: ibv_create_cq_ex and its read
functions with completion timestamps, ibv_create_qp_ex and every ibv_wr_*
opcode the device has, ibv_query_qp and `rdma resource show` against what
was set, data verified.

  verbs_ext.py KIND      KIND one of v2, v6, v1 (verbs_lib.GID_KINDS)

In each guest between two QPs of the device (looped back inside it), then,
with two guests, between them: guest 0's QP against guest 1's.
"""
import json
import os
import socket
import subprocess
import sys
import time

import pyverbs.enums as e
from pyverbs.cq import CQEX, CqInitAttrEx, PollCqAttr
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import DataBuffer, QPCap, QPEx, QPInitAttrEx
from pyverbs.wr import SGE, RecvWR

import verbs_lib as vl

SIZE = 16384
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ)
OPS = (e.IBV_QP_EX_WITH_SEND | e.IBV_QP_EX_WITH_SEND_WITH_IMM |
       e.IBV_QP_EX_WITH_RDMA_WRITE | e.IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
       e.IBV_QP_EX_WITH_RDMA_READ)
WC_FLAGS = e.IBV_WC_STANDARD_FLAGS | e.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP
SEND_SGE = 4
ROCX_VERR_NAK_ACCESS = 7        # enum rocx_vendor_err


class End:
    """One extended QP with its extended CQ and a registered buffer."""

    def __init__(self, ctx, pd):
        self.cq = CQEX(ctx, CqInitAttrEx(cqe=256, wc_flags=WC_FLAGS))
        cap = QPCap(max_send_wr=64, max_recv_wr=64, max_send_sge=SEND_SGE,
                    max_recv_sge=1, max_inline_data=128)
        attr = QPInitAttrEx(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq,
                            cap=cap, pd=pd, send_ops_flags=OPS,
                            comp_mask=(e.IBV_QP_INIT_ATTR_PD |
                                       e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
        self.qp = QPEx(ctx, attr)
        self.mr = MR(pd, SIZE, ACCESS)
        self.wr_id = 1000

    def info(self, ctx, gid_index, psn):
        return {'qpn': self.qp.qp_num, 'psn': psn,
                'gid': vl.gid_of(ctx, gid_index),
                'addr': self.mr.buf, 'rkey': self.mr.rkey}

    def post_recv(self, n=1):
        for _ in range(n):
            self.qp.post_recv(RecvWR(wr_id=self.wr_id, num_sge=1,
                                     sg=[SGE(self.mr.buf, SIZE,
                                             self.mr.lkey)]))
            self.wr_id += 1

    def next_wr_id(self):
        self.wr_id += 1
        return self.wr_id


def poll_ex(cq, n, timeout_s=10.0):
    """Up to n completions of an extended CQ, each a dict of everything
    the read functions tell."""
    out = []
    deadline = time.monotonic() + timeout_s
    while len(out) < n and time.monotonic() < deadline:
        if cq.start_poll(PollCqAttr()) != 0:
            time.sleep(0.0005)
            continue
        while True:
            out.append({'wr_id': cq.wr_id, 'status': cq.status,
                        'opcode': cq.read_opcode(),
                        'vendor_err': cq.read_vendor_err(),
                        'byte_len': cq.read_byte_len(),
                        'imm': socket.ntohl(cq.read_imm_data()),
                        'qp_num': cq.read_qp_num(),
                        'src_qp': cq.read_src_qp(),
                        'wc_flags': cq.read_wc_flags(),
                        'slid': cq.read_slid(), 'sl': cq.read_sl(),
                        'path_bits': cq.read_dlid_path_bits(),
                        'ts': cq.read_timestamp()})
            if len(out) >= n or cq.poll_next() != 0:
                break
        cq.end_poll()
    return out


def check_wc(tap, what, wcs, want):
    """One completion expected, with the fields of want."""
    if not tap.ok(len(wcs) == 1, f'{what}: one completion',
                  f'got {wcs}'):
        return None
    wc = wcs[0]
    bad = {k: (wc[k], v) for k, v in want.items() if wc[k] != v}
    tap.ok(not bad, f'{what}: read functions give what was sent',
           f'(got, want): {bad}')
    return wc


class Sender:
    """The ibv_wr_* side of a test: a's QP towards the end b_info
    describes, and what its CQ must show."""

    def __init__(self, tap, where, a, b_info):
        self.tap, self.where, self.a, self.b = tap, where, a, b_info
        self.ts = []            # (timestamp, guest ns) of a's completions

    def complete(self, what, opcode, byte_len=None):
        wcs = poll_ex(self.a.cq, 1)
        want = {'wr_id': self.a.wr_id, 'status': e.IBV_WC_SUCCESS,
                'opcode': opcode, 'qp_num': self.a.qp.qp_num,
                'vendor_err': 0, 'wc_flags': 0, 'src_qp': 0, 'slid': 0,
                'sl': 0, 'path_bits': 0}
        if byte_len is not None:
            want['byte_len'] = byte_len
        wc = check_wc(self.tap, f'{self.where}: {what} (sender)', wcs, want)
        if wc:
            self.ts.append((wc['ts'], time.monotonic_ns()))
        return wc is not None

    def start(self, flags=e.IBV_SEND_SIGNALED):
        qp = self.a.qp
        qp.wr_start()
        qp.wr_id = self.a.next_wr_id()
        qp.wr_flags = flags


def traffic(tap, where, a, b_info, b_seen):
    """a uses every ibv_wr_* opcode towards b; b_seen(what, seed, length,
    want) checks what arrived at b (and its receive completion, want)."""
    s = Sender(tap, where, a, b_info)
    qp = a.qp
    t0 = time.monotonic_ns()

    # SEND of one SGE.
    a.mr.write(vl.pattern(SIZE, 21), SIZE)
    s.start()
    qp.wr_send()
    qp.wr_set_sge(SGE(a.mr.buf, 3000, a.mr.lkey))
    qp.wr_complete()
    if s.complete('wr_send', e.IBV_WC_SEND):
        tap.ok(b_seen('send', 21, 3000, {'opcode': e.IBV_WC_RECV,
                                          'byte_len': 3000, 'wc_flags': 0}),
               f'{where}: wr_send data and receive completion')

    # SEND with immediate, inline data.
    imm = 0x12345678
    s.start(e.IBV_SEND_SIGNALED | e.IBV_SEND_INLINE)
    qp.wr_send_imm(imm)
    qp.wr_set_inline_data(a.mr.buf + 100, 100)
    qp.wr_complete()
    if s.complete('wr_send_imm, inline', e.IBV_WC_SEND):
        tap.ok(b_seen('send_imm', (21, 100), 100,
                      {'opcode': e.IBV_WC_RECV, 'byte_len': 100,
                       'wc_flags': e.IBV_WC_WITH_IMM, 'imm': imm}),
               f'{where}: wr_send_imm data, immediate and receive completion')

    # RDMA WRITE from an SGE list.
    a.mr.write(vl.pattern(SIZE, 22), SIZE)
    s.start()
    qp.wr_rdma_write(b_info['rkey'], b_info['addr'])
    qp.wr_set_sge_list(3, [SGE(a.mr.buf, 1000, a.mr.lkey),
                           SGE(a.mr.buf + 1000, 5000, a.mr.lkey),
                           SGE(a.mr.buf + 6000, 2192, a.mr.lkey)])
    qp.wr_complete()
    if s.complete('wr_rdma_write, 3 SGEs', e.IBV_WC_RDMA_WRITE):
        tap.ok(b_seen('write', 22, 8192, None),
               f'{where}: wr_rdma_write data arrived intact')

    # RDMA WRITE with immediate, inline list.
    imm = 0xfedcba98
    s.start(e.IBV_SEND_SIGNALED | e.IBV_SEND_INLINE)
    qp.wr_rdma_write_imm(b_info['rkey'], b_info['addr'], imm)
    qp.wr_set_inline_data_list(2, [DataBuffer(a.mr.buf, 40),
                                   DataBuffer(a.mr.buf + 40, 60)])
    qp.wr_complete()
    if s.complete('wr_rdma_write_imm, inline list', e.IBV_WC_RDMA_WRITE):
        tap.ok(b_seen('write_imm', 22, 100,
                      {'opcode': e.IBV_WC_RECV_RDMA_WITH_IMM,
                       'wc_flags': e.IBV_WC_WITH_IMM, 'imm': imm}),
               f'{where}: wr_rdma_write_imm data, immediate and completion')

    # RDMA READ back what the first WRITE left at b.
    a.mr.write(bytes(SIZE), SIZE)
    s.start()
    qp.wr_rdma_read(b_info['rkey'], b_info['addr'] + 100)
    qp.wr_set_sge(SGE(a.mr.buf, 8000, a.mr.lkey))
    qp.wr_complete()
    if s.complete('wr_rdma_read', e.IBV_WC_RDMA_READ, 8000):
        want = vl.pattern(8192, 22)[100:8100]
        got = bytes(a.mr.read(8000, 0))
        tap.ok(got == want, f'{where}: wr_rdma_read brought the data back')

    # A batch: 8 WRITEs, only the last signalled, one doorbell.
    a.mr.write(vl.pattern(SIZE, 23), SIZE)
    qp.wr_start()
    for i in range(8):
        qp.wr_id = a.next_wr_id()
        qp.wr_flags = e.IBV_SEND_SIGNALED if i == 7 else 0
        qp.wr_rdma_write(b_info['rkey'], b_info['addr'] + i * 2048)
        qp.wr_set_sge(SGE(a.mr.buf + i * 2048, 2048, a.mr.lkey))
    qp.wr_complete()
    if s.complete('a batch of 8 WRITEs', e.IBV_WC_RDMA_WRITE):
        tap.ok(b_seen('write', 23, SIZE, None),
               f'{where}: the batch\'s data arrived intact')

    # wr_abort: nothing goes out; a batch refused by wr_complete neither.
    max_sge = qp.query(e.IBV_QP_CAP)[1].cap.max_send_sge
    s.start()
    qp.wr_rdma_write(b_info['rkey'], b_info['addr'])
    qp.wr_set_sge(SGE(a.mr.buf, 64, a.mr.lkey))
    qp.wr_abort()
    s.start()
    qp.wr_send()
    qp.wr_set_sge_list(max_sge + 1,
                       [SGE(a.mr.buf, 8, a.mr.lkey)] * (max_sge + 1))
    try:
        qp.wr_complete()
        refused = False
    except Exception:  # pylint: disable=broad-except
        refused = True
    tap.ok(refused, f'{where}: wr_complete refuses more SGEs than the QP has')
    tap.ok(not poll_ex(a.cq, 1, 0.3),
           f'{where}: aborted and refused batches complete nothing')
    s.start()
    qp.wr_rdma_write(b_info['rkey'], b_info['addr'])
    qp.wr_set_sge(SGE(a.mr.buf, 64, a.mr.lkey))
    qp.wr_complete()
    s.complete('a WRITE after them', e.IBV_WC_RDMA_WRITE)

    # Timestamps: the device clock, increasing, moving with guest time.
    elapsed = time.monotonic_ns() - t0
    ts = [t for t, _ in s.ts]
    tap.ok(all(x < y for x, y in zip(ts, ts[1:])),
           f'{where}: completion timestamps increase', f'{ts}')
    span = ts[-1] - ts[0] if len(ts) > 1 else 0
    tap.ok(0 < span <= elapsed + 2_000_000,
           f'{where}: timestamps span no more than the guest saw elapse',
           f'span {span} ns, guest {elapsed} ns')
    # Guest time between two polls bounds the device time between the CQEs
    # from above (each was written before its poll) only loosely; between
    # the first poll and the last, the device saw at least the span of all
    # completions but the first.
    gspan = s.ts[-1][1] - s.ts[0][1]
    tap.ok(abs(span - gspan) <= max(gspan // 2, 20_000_000),
           f'{where}: device and guest clocks run at the same rate',
           f'device {span} ns, guest {gspan} ns')


def query_checks(tap, where, end, gidx, theirs, my_psn):
    """ibv_query_qp and rdma resource show against what rc_connect set."""
    attr, init = end.qp.query(0x1fffff)
    got = {'state': attr.qp_state, 'dest_qp_num': attr.dest_qp_num,
           'rq_psn': attr.rq_psn, 'sq_psn': attr.sq_psn,
           'path_mtu': attr.path_mtu, 'timeout': attr.timeout,
           'retry_cnt': attr.retry_cnt, 'rnr_retry': attr.rnr_retry,
           'min_rnr_timer': attr.min_rnr_timer,
           'max_rd_atomic': attr.max_rd_atomic,
           'max_dest_rd_atomic': attr.max_dest_rd_atomic,
           'access': attr.qp_access_flags, 'pkey_index': attr.pkey_index,
           'port_num': attr.port_num,
           'dgid': str(attr.ah_attr.dgid),
           'sgid_index': attr.ah_attr.sgid_index,
           'hop_limit': attr.ah_attr.hop_limit,
           'is_global': attr.ah_attr.is_global,
           'max_send_wr': init.cap.max_send_wr,
           'max_send_sge': init.cap.max_send_sge,
           'max_inline_data': init.cap.max_inline_data,
           'qp_type': init.qp_type}
    want = {'state': e.IBV_QPS_RTS, 'dest_qp_num': theirs['qpn'],
            'rq_psn': theirs['psn'], 'sq_psn': my_psn,
            'path_mtu': e.IBV_MTU_1024, 'timeout': 14, 'retry_cnt': 7,
            'rnr_retry': 7, 'min_rnr_timer': 12, 'max_rd_atomic': 1,
            'max_dest_rd_atomic': 1,
            'access': (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
                       e.IBV_ACCESS_REMOTE_READ |
                       e.IBV_ACCESS_REMOTE_ATOMIC),
            'pkey_index': 0, 'port_num': 1, 'dgid': theirs['gid'],
            'sgid_index': gidx, 'hop_limit': 64, 'is_global': 1,
            'qp_type': e.IBV_QPT_RC}
    bad = {k: (got[k], v) for k, v in want.items() if got[k] != v}
    tap.ok(not bad, f'{where}: ibv_query_qp returns what was set',
           f'(got, want): {bad}')
    tap.ok(got['max_send_wr'] >= 64 and got['max_send_sge'] >= SEND_SGE and
           got['max_inline_data'] >= 128,
           f'{where}: ibv_query_qp returns capabilities at least those asked',
           f'{got}')

    env = vl.Env()
    out = subprocess.run(['rdma', '-j', '-dd', 'resource', 'show', 'qp',
                          'lqpn', str(end.qp.qp_num)],
                         capture_output=True, text=True, check=False)
    try:
        rows = [r for r in json.loads(out.stdout)
                if r.get('lqpn') == end.qp.qp_num and
                r.get('ifname', '').startswith(env.ibdev)]
    except ValueError:
        rows = []
    if not tap.ok(len(rows) == 1, f'{where}: rdma resource show qp lists it',
                  out.stdout + out.stderr):
        return
    r = rows[0]
    got = {k: r.get(k) for k in ('rqpn', 'rq-psn', 'sq-psn', 'type', 'state',
                                 'drv_sq_wr', 'drv_sq_sge')}
    want = {'rqpn': theirs['qpn'], 'rq-psn': theirs['psn'],
            'sq-psn': my_psn, 'type': 'RC', 'state': 'RTS',
            'drv_sq_wr': init.cap.max_send_wr,
            'drv_sq_sge': init.cap.max_send_sge}
    bad = {k: (got[k], v) for k, v in want.items() if got[k] != v}
    tap.ok(not bad, f'{where}: rdma resource show qp: remote QPN, PSNs, '
           'type, state, queues', f'(got, want): {bad}; {r}')
    cc_checks(tap, where, env, r)


def sysfs_int(path):
    """A number a sysfs file holds, in decimal or 0x hex."""
    with open(path, encoding='utf-8') as f:
        return int(f.read().strip(), 0)


def cc_checks(tap, where, env, row):
    """rdma resource show qp: an RC QP no CNP reached is at line rate.

    Nothing in this group marks ECN, so the device's reaction point has
    never cut this QP's rate: the rates are the port's speed and alpha is
    the initial value cc_param holds, as the device reports them.
    """
    dev = f'/sys/class/infiniband/{env.ibdev}'
    nets = os.listdir(f'{dev}/device/net')
    speed = sysfs_int(f'/sys/class/net/{nets[0]}/speed')
    alpha = sysfs_int(f'{dev}/ports/1/cc_param/rp_initial_alpha_value')
    got = {k: row.get(k) for k in ('drv_cc_cur_rate', 'drv_cc_tgt_rate',
                                    'drv_cc_alpha')}
    want = {'drv_cc_cur_rate': speed, 'drv_cc_tgt_rate': speed,
            'drv_cc_alpha': alpha}
    bad = {k: (got[k], v) for k, v in want.items() if got[k] != v}
    tap.ok(not bad, f'{where}: rdma resource show qp: an uncongested QP '
           'at line rate, alpha initial', f'(got, want): {bad}')


def key(v):
    """A key as rdma -j prints it: a string of hex digits."""
    return int(v, 16) if isinstance(v, str) else v


def restrack_objects(tap, end):
    """rdma resource show cq, mr and pd list this program's objects."""
    env = vl.Env()

    def show(kind):
        out = subprocess.run(['rdma', '-j', '-dd', 'resource', 'show', kind],
                             capture_output=True, text=True, check=False)
        try:
            return [r for r in json.loads(out.stdout)
                    if r.get('ifname', '').startswith(env.ibdev) and
                    r.get('pid') == os.getpid()]
        except ValueError:
            return []

    mrs = [r for r in show('mr') if key(r.get('rkey')) == end.mr.rkey]
    tap.ok(len(mrs) == 1 and key(mrs[0].get('lkey')) == end.mr.lkey and
           mrs[0].get('mrlen') == SIZE and
           mrs[0].get('drv_mr_index') == end.mr.rkey >> 8 and
           mrs[0].get('drv_key_variant') == end.mr.rkey & 0xff,
           'rdma resource show mr: key, length, index and variant', f'{mrs}')
    cqs = show('cq')
    tap.ok(any(r.get('drv_cqe_size') == 64 and r.get('cqe', 0) >= 256
               for r in cqs),
           'rdma resource show cq: a 64-byte CQE ring of the CQs asked',
           f'{cqs}')
    pds = show('pd')
    tap.ok(len(pds) >= 1 and all(r.get('users', 0) >= 1 for r in pds),
           'rdma resource show pd: the PD, in use', f'{pds}')


def device_checks(tap, ctx):
    attr = ctx.query_device_ex()
    tap.ok(attr.completion_timestamp_mask == (1 << 64) - 1 and
           attr.hca_core_clock == 1000000,
           'ibv_query_device_ex: 64-bit timestamps at 1 GHz',
           f'mask {attr.completion_timestamp_mask:#x}, '
           f'clock {attr.hca_core_clock} kHz')


def error_completion(tap, ctx, pd, gidx):
    """A WRITE to a bad rkey: REM_ACCESS_ERR through the read functions."""
    a, b = End(ctx, pd), End(ctx, pd)
    ai, bi = a.info(ctx, gidx, 500), b.info(ctx, gidx, 600)
    vl.rc_connect(a.qp, gidx, bi, my_psn=ai['psn'])
    vl.rc_connect(b.qp, gidx, ai, my_psn=bi['psn'])
    qp = a.qp
    qp.wr_start()
    qp.wr_id = 4242
    qp.wr_flags = e.IBV_SEND_SIGNALED
    qp.wr_rdma_write(bi['rkey'] ^ 0x100, bi['addr'])
    qp.wr_set_sge(SGE(a.mr.buf, 64, a.mr.lkey))
    qp.wr_complete()
    check_wc(tap, 'WRITE to a bad rkey', poll_ex(a.cq, 1),
             {'wr_id': 4242, 'status': e.IBV_WC_REM_ACCESS_ERR,
              'vendor_err': ROCX_VERR_NAK_ACCESS, 'qp_num': a.qp.qp_num})


def main(tap, kind):
    env = vl.Env()
    gidx = env.gids[kind]
    ctx = env.context()
    pd = PD(ctx)

    if kind == 'v2':
        device_checks(tap, ctx)

    # Loopback: a -> b inside this guest.
    a, b = End(ctx, pd), End(ctx, pd)
    ai, bi = a.info(ctx, gidx, 100), b.info(ctx, gidx, 0xfffff0)
    vl.rc_connect(a.qp, gidx, bi, my_psn=ai['psn'])
    vl.rc_connect(b.qp, gidx, ai, my_psn=bi['psn'])
    query_checks(tap, f'loopback {kind}', a, gidx, bi, ai['psn'])
    if kind == 'v2':
        restrack_objects(tap, a)
    b.post_recv(4)

    def seen_b(what, seed, length, want):
        err = None
        if want is not None:
            wcs = poll_ex(b.cq, 1)
            full = dict(want, status=e.IBV_WC_SUCCESS, qp_num=b.qp.qp_num)
            if len(wcs) != 1:
                err = f'receive completions: {wcs}'
            else:
                bad = {k: (wcs[0][k], v) for k, v in full.items()
                       if wcs[0][k] != v}
                err = f'(got, want): {bad}' if bad else None
        if err is None:
            if isinstance(seed, tuple):
                data = vl.pattern(SIZE, seed[0])[seed[1]:seed[1] + length]
                got = bytes(b.mr.read(length, 0))
                err = None if got == data else 'inline data differs'
            else:
                err = vl.verify(b.mr.read(length, 0), length, seed)
        if err:
            tap.diag(f'{what}: {err}')
        return err is None

    traffic(tap, f'loopback over the {kind} GID', a, bi, seen_b)
    if kind == 'v2':
        error_completion(tap, ctx, pd, gidx)

    if env.peer is None:
        return
    # Two guests: guest 0 sends to guest 1, which checks and answers.
    end = End(ctx, pd)
    mine = end.info(ctx, gidx, 300 + env.me)
    env.put(f'ext.{kind}.{env.me}', mine)
    theirs = env.get(f'ext.{kind}.{env.peer}')
    vl.rc_connect(end.qp, gidx, theirs, my_psn=mine['psn'])
    query_checks(tap, f'two guests {kind}', end, gidx, theirs, mine['psn'])
    end.post_recv(4)
    env.barrier(f'ext.{kind}.ready')
    asks = ('send', 'send_imm', 'write', 'write_imm', 'write')
    if env.me == 0:
        n = {}

        def seen_peer(what, seed, length, want):
            n[what] = n.get(what, 0) + 1
            key = f'{what}.{n[what]}'
            env.put(f'ext.{kind}.ask.{key}', [seed, length, want])
            err = env.get(f'ext.{kind}.answer.{key}')
            if err:
                tap.diag(f'{what}: {err}')
            return err is None
        traffic(tap, f'two guests over the {kind} GID', end, theirs,
                seen_peer)
    else:
        n = {}
        for what in asks:
            n[what] = n.get(what, 0) + 1
            key = f'{what}.{n[what]}'
            seed, length, want = env.get(f'ext.{kind}.ask.{key}')
            err = None
            if want is not None:
                wcs = poll_ex(end.cq, 1)
                full = dict(want, status=e.IBV_WC_SUCCESS,
                            qp_num=end.qp.qp_num)
                if len(wcs) != 1:
                    err = f'receive completions: {wcs}'
                else:
                    bad = {k: (wcs[0][k], v) for k, v in full.items()
                           if wcs[0][k] != v}
                    err = f'(got, want): {bad}' if bad else None
            if err is None:
                if isinstance(seed, list):
                    data = vl.pattern(SIZE, seed[0])[seed[1]:seed[1] + length]
                    got = bytes(end.mr.read(length, 0))
                    err = None if got == data else 'inline data differs'
                else:
                    err = vl.verify(end.mr.read(length, 0), length, seed)
            env.put(f'ext.{kind}.answer.{key}', err)
    env.barrier(f'ext.{kind}.done')


if __name__ == '__main__':
    TAP = vl.Tap(f'ext {sys.argv[1]}')
    TAP.run(main, TAP, sys.argv[1])
