# SPDX-License-Identifier: GPL-2.0
"""Shared helpers of the verbs group's check programs (guest/verbs/verbs_*.py).

The programs run in a guest under guest/verbs.sh, with PYTHONPATH naming
rdma-core's pyverbs and this directory; they print TAP lines ("ok - ",
"not ok - ", "# ") which tests/e2e/run.sh counts, and exit 1 if any check
failed.  What they share:

  Tap              ok/skip/diag and the exit status
  Env              the guest's device, GID indices, index and peer
  Env.put/get      exchange a JSON value with the other guest through the
                   run's shared directory (as scripts/guest/guest_lib.sh's
                   rocx_put/rocx_get), Env.barrier
  pattern/verify   data that differs per byte and per seed, and its check
  poll             completions of a CQ within a deadline
  rc_connect       move a connected QP (RC, UC) through INIT, RTR and RTS
  switch_ctl       a request to the switch's control socket (a group with
                   host_cmd="bash tests/e2e/host/switch_ctl.sh")
  switch_sample    a per-priority switch counter, with the guest's clock
                   around its reading

The GID kinds are 'v2' (RoCE v2, IPv4-mapped ROCX_IP), 'v6' (RoCE v2,
ROCX_IP6) and 'v1' (RoCE v1, ROCX_IP6).
"""

import json
import os
import sys
import time
import traceback

import pyverbs.enums as e
from pyverbs.addr import GID, AHAttr, GlobalRoute
from pyverbs.device import Context
from pyverbs.qp import QPAttr

import switch_lib

GID_KINDS = ('v2', 'v6', 'v1')


class Tap:
    """TAP output; the exit status says whether every check passed."""

    def __init__(self, prog):
        self.prog = prog
        self.failed = 0

    def ok(self, cond, name, detail=None):
        if cond:
            print(f'ok - {self.prog}: {name}', flush=True)
        else:
            self.failed += 1
            if detail:
                self.diag(detail)
            print(f'not ok - {self.prog}: {name}', flush=True)
        return bool(cond)

    def skip(self, name, why):
        print(f'ok - {self.prog}: {name} # SKIP {why}', flush=True)

    def diag(self, text):
        for line in str(text).splitlines():
            print(f'# {line}', flush=True)

    def check(self, name, fn, *args, **kw):
        """ok() on fn(*args) not raising; returns its value or None."""
        try:
            val = fn(*args, **kw)
        except Exception as ex:  # pylint: disable=broad-except
            self.ok(False, name, f'{type(ex).__name__}: {ex}')
            return None
        self.ok(True, name)
        return val

    def done(self):
        sys.exit(1 if self.failed else 0)

    def run(self, main, *args):
        """main(*args), an exception in it counted as a failed check."""
        try:
            main(*args)
        except SystemExit:
            raise
        except Exception:  # pylint: disable=broad-except
            self.ok(False, 'ran to its end', traceback.format_exc())
        self.done()


class Env:
    """What guest/verbs.sh tells its parts, from the environment."""

    def __init__(self):
        self.ibdev = os.environ['ROCX_IBDEV']
        self.gids = {'v2': int(os.environ['ROCX_GID_V2']),
                     'v6': int(os.environ['ROCX_GID_V6']),
                     'v1': int(os.environ['ROCX_GID_V1'])}
        self.me = int(os.environ.get('ROCX_GUEST_INDEX', '0'))
        self.nguests = int(os.environ.get('ROCX_NGUESTS', '1'))
        self.shared = os.environ.get('ROCX_SHARED', '/rocx-shared')
        self.wait_s = float(os.environ.get('ROCX_WAIT', '120'))
        self.peer = (1 - self.me) if self.nguests >= 2 else None

    def context(self):
        return Context(name=self.ibdev)

    def put(self, key, value):
        path = os.path.join(self.shared, f'val.py.{key}')
        tmp = f'{path}.tmp.{self.me}'
        with open(tmp, 'w', encoding='utf-8') as f:
            json.dump(value, f)
        os.rename(tmp, path)

    def get(self, key):
        path = os.path.join(self.shared, f'val.py.{key}')
        deadline = time.monotonic() + self.wait_s
        while time.monotonic() < deadline:
            try:
                with open(path, encoding='utf-8') as f:
                    return json.load(f)
            except FileNotFoundError:
                time.sleep(0.05)
        raise TimeoutError(f'no value for {key} after {self.wait_s} s')

    def barrier(self, name, count=None):
        count = count or self.nguests
        path = os.path.join(self.shared, f'barrier.py.{name}')
        os.makedirs(path, exist_ok=True)
        open(os.path.join(path, str(self.me)), 'w', encoding='utf-8').close()
        deadline = time.monotonic() + self.wait_s
        while len(os.listdir(path)) < count:
            if time.monotonic() > deadline:
                raise TimeoutError(f'barrier {name}: {len(os.listdir(path))}'
                                   f' of {count} after {self.wait_s} s')
            time.sleep(0.05)


def pattern(length, seed):
    """length bytes that differ from those of any other seed or offset."""
    return bytes(((i * 131 + seed * 7 + (i >> 8)) & 0xff)
                 for i in range(length))


def verify(data, length, seed):
    """None if data holds pattern(length, seed), else a description."""
    want = pattern(length, seed)
    data = bytes(data[:length])
    if data == want:
        return None
    for i, (a, b) in enumerate(zip(data, want)):
        if a != b:
            return f'byte {i} of {length}: {a:#04x}, expected {b:#04x}'
    return f'{len(data)} bytes of {length}'


def poll(cq, n, timeout_s=10.0):
    """Up to n work completions of cq, polling until timeout_s passes."""
    wcs = []
    deadline = time.monotonic() + timeout_s
    while len(wcs) < n and time.monotonic() < deadline:
        got, batch = cq.poll(n - len(wcs))
        if got:
            wcs.extend(batch[:got])
        else:
            time.sleep(0.0005)
    return wcs


def gid_of(ctx, index):
    """The port's GID at index, as the string ibv_query_gid gives."""
    return str(ctx.query_gid(1, index))


def rc_connect(qp, gid_index, remote, my_psn=0, path_mtu=e.IBV_MTU_1024,
               access=(e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
                       e.IBV_ACCESS_REMOTE_READ |
                       e.IBV_ACCESS_REMOTE_ATOMIC),
               timeout=14, retry_cnt=7, rd_atomic=1, rnr_retry=7,
               traffic_class=0):
    """Connect qp (RC or UC) to remote = {'qpn', 'psn', 'gid'}, sending
    from PSN my_psn with traffic_class in its GRH (the IP header's DSCP
    and ECN bits).

    UC takes no timeout, retry or READ/atomic limits: those are left out
    of the modify masks for it.
    """
    uc = qp.qp_type == e.IBV_QPT_UC
    attr = QPAttr(qp_state=e.IBV_QPS_INIT)
    attr.pkey_index = 0
    attr.port_num = 1
    attr.qp_access_flags = access & ~e.IBV_ACCESS_REMOTE_READ & \
        ~e.IBV_ACCESS_REMOTE_ATOMIC if uc else access
    qp.to_init(attr)

    gr = GlobalRoute(dgid=GID(remote['gid']), sgid_index=gid_index,
                     hop_limit=64, traffic_class=traffic_class)
    ah = AHAttr(gr=gr, is_global=1, port_num=1)
    attr = QPAttr(qp_state=e.IBV_QPS_RTR)
    attr.path_mtu = path_mtu
    attr.dest_qp_num = remote['qpn']
    attr.rq_psn = remote['psn']
    attr.ah_attr = ah
    mask = (e.IBV_QP_STATE | e.IBV_QP_AV | e.IBV_QP_PATH_MTU |
            e.IBV_QP_DEST_QPN | e.IBV_QP_RQ_PSN)
    if not uc:
        attr.max_dest_rd_atomic = rd_atomic
        attr.min_rnr_timer = 12
        mask |= e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER
    qp.modify(attr, mask)

    attr = QPAttr(qp_state=e.IBV_QPS_RTS)
    attr.sq_psn = my_psn
    mask = e.IBV_QP_STATE | e.IBV_QP_SQ_PSN
    if not uc:
        attr.timeout = timeout
        attr.retry_cnt = retry_cnt
        attr.rnr_retry = rnr_retry
        attr.max_rd_atomic = rd_atomic
        mask |= (e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT | e.IBV_QP_RNR_RETRY |
                 e.IBV_QP_MAX_QP_RD_ATOMIC)
    qp.modify(attr, mask)


# The switch through the run's shared directory (guest/lib/switch_lib.py).
switch_ctl = switch_lib.switch_ctl
switch_sample = switch_lib.switch_sample
switch_windows = switch_lib.switch_windows
