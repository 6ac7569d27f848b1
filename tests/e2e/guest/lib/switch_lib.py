# SPDX-License-Identifier: GPL-2.0
"""The switch's control socket from a guest's Python (as switch_lib.sh's
switch_ctl from its shell), for a group with
host_cmd="bash tests/e2e/host/switch_ctl.sh".

  switch_ctl       one request, its output
  switch_sample    a per-priority counter, with the guest's clock around
                   its reading
  switch_windows   rates between consecutive samples

env is anything with .me (the guest's index), .shared (the run's shared
directory) and .wait_s (how long to wait for an answer), as
verbs_lib.Env.  Run as a script, `switch_lib.py sample PORT PRIO NAME
EVERY` prints a sample ("T0 T1 VALUE", CLOCK_REALTIME as date +%s.%N)
every EVERY seconds until killed.
"""
import os
import sys
import time


# Shared with guest/lib/switch_lib.sh's switch_ctl: one numbering of a
# guest's requests, whichever language makes them.
SWCTL_SEQ = '/tmp/switch_ctl.seq'


def switch_ctl(env, line):
    """One request to the switch's control socket, through the run's
    shared directory (tests/e2e/host/switch_ctl.sh carries it out); its
    output.  Raises RuntimeError if the switch refused it or no answer
    came within env.wait_s."""
    try:
        with open(SWCTL_SEQ, encoding='utf-8') as f:
            n = int(f.read().strip() or 0)
    except (OSError, ValueError):
        n = 0
    with open(SWCTL_SEQ, 'w', encoding='utf-8') as f:
        f.write(f'{n + 1}\n')
    base = os.path.join(env.shared, f'swctl.{env.me}.{n}')
    with open(base + '.tmp', 'w', encoding='utf-8') as f:
        f.write(line + '\n')
    os.rename(base + '.tmp', base + '.req')
    deadline = time.monotonic() + env.wait_s
    while time.monotonic() < deadline:
        try:
            with open(base + '.ans', encoding='utf-8') as f:
                rc, _, out = f.read().partition('\n')
        except FileNotFoundError:
            # Polled often: the answer's arrival bounds when the switch
            # read its counters (switch_sample).
            time.sleep(0.005)
            continue
        if rc.strip() != '0':
            raise RuntimeError(f'switch_ctl {line}: {out.strip()}')
        return out
    raise RuntimeError(f'switch_ctl {line}: no answer after {env.wait_s} s')


def switch_sample(env, port, prio, name, clock=time.monotonic):
    """(t0, t1, value): the per-priority counter name of `qshow` (e.g.
    rx_bytes, what the port's guest sent on prio) as the switch read it
    between t0 and t1, the guest's clock (monotonic unless clock says
    otherwise) when the request left and when its answer came.  Rates from such samples are the switch's
    bytes over the guest's time: nothing of the device under test."""
    t0 = clock()
    out = switch_ctl(env, f'qshow port={port}')
    t1 = clock()
    for ln in out.splitlines():
        w = ln.split()
        if w[:2] == [f'port{port}', f'prio{prio}']:
            for kv in w[2:]:
                k, _, v = kv.partition('=')
                if k == name:
                    return t0, t1, int(v)
    raise RuntimeError(f'qshow port={port}: no prio{prio} {name}')


def switch_windows(samples):
    """[(seconds, rate, low, high)] per window between consecutive
    samples of switch_sample: the counter's growth per second between
    the samples' answers, and the least and most it can be given when,
    within their intervals, the switch read it.  The answers time the
    readings best: the host picks a request up within 0.1 s
    (host/switch_ctl.sh's poll), then reads and answers at once, and
    switch_ctl sees the answer within milliseconds."""
    out = []
    for (a0, a1, va), (b0, b1, vb) in zip(samples, samples[1:]):
        d = b1 - a1
        out.append((d, (vb - va) / d, (vb - va) / (b1 - a0),
                    (vb - va) / (b0 - a1)))
    return out


class ShellEnv:
    """What a guest script's environment says (scripts/guest/guest_lib.sh)."""

    def __init__(self):
        self.me = int(os.environ['ROCX_GUEST_INDEX'])
        self.shared = os.environ.get('ROCX_SHARED', '/rocx-shared')
        self.wait_s = float(os.environ.get('ROCX_WAIT', '120'))


def main(argv):
    if len(argv) != 6 or argv[1] != 'sample':
        sys.exit('usage: switch_lib.py sample PORT PRIO NAME EVERY')
    env = ShellEnv()
    port, prio, name, every = int(argv[2]), int(argv[3]), argv[4], \
        float(argv[5])
    start = time.monotonic()
    k = 0
    while True:
        t0, t1, v = switch_sample(env, port, prio, name, clock=time.time)
        print(f'{t0:.6f} {t1:.6f} {v}', flush=True)
        k += 1
        time.sleep(max(0.0, start + k * every - time.monotonic()))


if __name__ == '__main__':
    main(sys.argv)
