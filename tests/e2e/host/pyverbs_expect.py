#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rdma-core's test suite against an expectation file (tests/e2e/expect/).

  pyverbs_expect.py check EXPECT RESULTS    one TAP line per test: its result
                                            in RESULTS (written by
                                            guest/parts/pyverbs_run.py)
                                            against its line in EXPECT; exit 1
                                            when any differs
  pyverbs_expect.py update EXPECT RESULTS   rewrite EXPECT from RESULTS (for
                                            the developer, never in make
                                            check); exit 1 when a result still
                                            needs a human's reason
  pyverbs_expect.py summary RESULTS         counts by outcome and skip reason

EXPECT has one line per test id, sorted, "#" comments and blank lines aside:
    TEST_ID pass
    TEST_ID skip FEATURE        skipped because the device lacks FEATURE
    TEST_ID error REASON        an expected error (also fail, xfail)
    TEST_ID flaky REASON        passes or errs (fails) by a race the
                                REASON names: for Soft-RoCE's file, where
                                a test races rxe's asynchronous completions;
                                never a way to hide a bug of rocx
A skip's FEATURE is not the test's own message but what that message means
(FEATURES below), so a test that begins to skip for another reason (SRQ
after UD, say) is a difference too.  Skips that the guest could avoid (no
huge pages, no device, no permission) are never expected: each is a
failure that names the message, to be fixed in tests/e2e/guest/pyverbs.sh.

check prints, per test, "ok - pyverbs: ID" for an expected pass, "ok -
pyverbs: ID # SKIP FEATURE" for an expected skip, "not ok - pyverbs: ID #
TODO REASON" for an expected error (TAP: a known failure, counted as a
skip by tests/e2e), "ok" or "not ok - pyverbs: ID # TODO flaky..." for a
flaky test, and "not ok - pyverbs: ID: ..." for every difference: another
outcome, another skip reason, a test the file does not list or one the
run did not report.
"""
import collections
import re
import sys

PREFIX = 'pyverbs'
STATUSES = ('pass', 'skip', 'error', 'fail', 'xfail', 'xpass')
FLAKY = 'flaky'
FLAKY_MATCHES = ('pass', 'error', 'fail')
# When a test reports more than once (a failure, then an error in its
# tearDown), the worst outcome stands.
SEVERITY = {s: i for i, s in enumerate(('pass', 'skip', 'xfail', 'xpass',
                                        'fail', 'error'))}
ENV = 'environment'

QP_TYPES = {'2': 'RC', '3': 'UC', '4': 'UD', '8': 'raw packet QPs',
            '9': 'XRC', '10': 'XRC', '11': 'XRC'}
# IBV_ACCESS_* bits beyond local/remote read/write and atomics.
ACCESS_FEATURES = ((0x10, 'MW'), (0x40, 'ODP'), (0x80, 'huge-page MRs'),
                   (0x100, 'FLUSH'), (0x200, 'FLUSH'), (0x400, 'atomic write'),
                   (1 << 20, 'relaxed ordering'))


def access_feature(m):
    flags = int(m.group(1))
    names = sorted({n for bit, n in ACCESS_FEATURES if flags & bit})
    return ' + '.join(names) or f'MR access flags {flags:#x}'


# Skip messages of rdma-core 56.1's tests/ and what each means; the first
# match wins.  A label is a device feature (what issue 9 and later work
# add), or says the test is for other hardware, or is ENV: the guest
# lacks something it could have, which check always fails.
FEATURES = (
    (r'huge pages of size 2M|Huge pages of size 2M', ENV),
    (r'^Lack of permission', ENV),
    (r'^No IB devices? found|^No supported port is up|^No relevant GID found',
     ENV),
    (r'must be done by root|^Must be run by root', ENV),
    (r'^Port \d+ is not up', ENV),
    (r'non MLX5 device|not an MLX5 device|mlx5', 'mlx5 only'),
    (r'non EFA device|\bEFA\b', 'EFA only'),
    (r'^PCI device must be passed by the user', 'mlx5 only (VFIO)'),
    (r'supported over IB only|skip RoCE test', 'InfiniBand link layer only'),
    (r'^cuda-python|CUDA', 'GPU (CUDA): none in a TCG guest'),
    (r'/dev/dri/renderD\d+ is not present',
     'GPU (amdgpu or i915 render node, for DMA-BUF MRs): none in a TCG guest'),
    (r'^Allocating dmabuf is not supported', 'GPU (amdgpu or i915) DMA-BUF'),
    (r'dma-buf MR|DMABUF MR', 'DMA-BUF MRs'),
    (r'^Atomic operations are not supported|atomic operations', 'atomics'),
    (r'^Create AH is not supported|^Mapping AH', 'UD (address handles)'),
    (r'^Create QP type (\d+) is not supported',
     lambda m: QP_TYPES.get(m.group(1), f'QP type {m.group(1)}')),
    (r'^Create QPEx type (\d+)',
     lambda m: 'extended QP (' + QP_TYPES.get(m.group(1), m.group(1)) + ')'),
    (r'^Create UD QP ', 'UD'),
    # With UC there, its ibv_create_qp_ex test needs what RC's does.
    (r'^Create UC QP (with|without) extended attrs',
     'extended QP (ibv_create_qp_ex create flags)'),
    (r'^Create UC QP ', 'UC'),
    (r'^Create Raw Packet QP ', 'raw packet QPs'),
    (r'^Create XRC', 'XRC'),
    (r'^Create RC QP (with|without) extended attrs',
     'extended QP (ibv_create_qp_ex create flags)'),
    (r'^Extended QP is not supported',
     'extended QP (ibv_create_qp_ex, ibv_wr_*)'),
    (r'^Create Extended CQ|^Extended CQ is not supported',
     'extended CQ (ibv_create_cq_ex)'),
    (r'^Extended CQ with Parent Domain', 'parent domain'),
    (r'^Resize CQ', 'CQ resize'),
    (r'^CQ with completion channel', 'completion channels'),
    (r'^SRQ resize', 'SRQ resize'),
    (r'^Create SRQ', 'SRQ'),
    (r'^Create custom mr with additional access flags (\d+)', access_feature),
    (r'^Reg MR with MW access|^Memory Window|memory window', 'MW'),
    (r'^Rereg MR', 'ibv_rereg_mr'),
    (r'^Device memory|^Reg DMMR|^MEMIC', 'DM (device memory)'),
    (r'^ODP|^Reg ODP MR|^Advise MR', 'ODP'),
    (r'^Parent Domain', 'parent domain'),
    (r'^Multicast', 'multicast'),
    (r'^Query device real time', 'real-time clock (ibv_query_rt_values_ex)'),
    (r'^Converting timestamp to nanoseconds',
     'mlx5 only (mlx5dv_ts_to_ns converts the timestamp)'),
    (r'^Importing a device|object imports', 'shared PD (ibv_import_device)'),
    (r'^Query MR', 'ibv_query_mr'),
    (r'^Flow creation', 'flow steering'),
    (r'^Modifying a QP UDP sport', 'UDP source port'),
    (r'^Alloc reserved QP number', 'reserved QPNs'),
    (r'^ibv_query_gid_(ex|table) is not', 'ibv_query_gid_ex'),
)


def skip_feature(msg):
    """The label a skip message maps to, or None for a message not known."""
    for pat, label in FEATURES:
        m = re.search(pat, msg)
        if m:
            return label(m) if callable(label) else label
    return None


def skip_label(msg):
    return skip_feature(msg) or f'unmapped: {msg}'


def read_results(path):
    """({id: (status, detail)}, finished) from a pyverbs_run.py file."""
    res, finished = {}, False
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('#'):
                finished = finished or line.startswith('# ran ')
                continue
            fields = line.split('\t')
            if len(fields) != 4 or fields[1] not in STATUSES:
                raise SystemExit(f'{path}: bad line: {line!r}')
            tid, status, _secs, detail = fields
            old = res.get(tid)
            if old is None or SEVERITY[status] > SEVERITY[old[0]]:
                res[tid] = (status, detail)
    return res, finished


def read_expect(path):
    """{id: (status, reason)} from an expectation file; exits on a bad one."""
    exp, bad = {}, []
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            words = line.split(None, 2)
            if not words or words[0].startswith('#'):
                continue
            status = words[1] if len(words) > 1 else ''
            reason = words[2].strip() if len(words) > 2 else ''
            if status not in STATUSES + (FLAKY,) or \
                    (status == 'pass') != (not reason):
                bad.append(f'{path}:{n}: want "ID pass" or "ID STATUS REASON"')
            elif words[0] in exp:
                bad.append(f'{path}:{n}: {words[0]} listed twice')
            exp[words[0]] = (status, reason)
    if bad:
        raise SystemExit('\n'.join(bad))
    return exp


def describe(status, detail):
    return f'{status} ({detail})' if detail else status


def check(expect_path, results_path):
    exp = read_expect(expect_path)
    try:
        res, finished = read_results(results_path)
    except FileNotFoundError:
        print(f'not ok - {PREFIX}: no {results_path}: the suite did not run '
              f'({len(exp)} tests expected)')
        return False
    tally = collections.Counter()
    differ = 0

    def bad(tid, why):
        nonlocal differ
        differ += 1
        print(f'not ok - {PREFIX}: {tid}: {why}')

    for tid in sorted(set(exp) | set(res)):
        if tid not in res:
            when = '' if finished else ' (the run stopped before it)'
            bad(tid, f'expected {describe(*exp[tid])}, did not run{when}')
            continue
        status, detail = res[tid]
        label = skip_label(detail) if status == 'skip' else None
        if label == ENV:
            bad(tid, f'skipped for the guest environment: "{detail}" '
                '(fix it in tests/e2e/guest/pyverbs.sh)')
            continue
        if tid not in exp:
            bad(tid, f'not in {expect_path}: {describe(status, detail)}')
            continue
        want, reason = exp[tid]
        if want == FLAKY and status in FLAKY_MATCHES:
            print(f'{"ok" if status == "pass" else "not ok"} - {PREFIX}: '
                  f'{tid} # TODO flaky, {status} this time: {reason}')
            tally[FLAKY] += 1
            continue
        if status != want:
            bad(tid, f'expected {describe(want, reason)}, got '
                f'{describe(status, detail)}')
            continue
        if status == 'skip' and label != reason:
            bad(tid, f'expected skip for {reason}, skipped for {label} '
                f'("{detail}")')
            continue
        if status == 'pass':
            print(f'ok - {PREFIX}: {tid}')
        elif status == 'skip':
            print(f'ok - {PREFIX}: {tid} # SKIP {reason}')
        else:
            print(f'not ok - {PREFIX}: {tid} # TODO {want} expected: {reason}')
        tally[status] += 1
    known = sum(tally.values()) - tally['pass'] - tally['skip'] - tally[FLAKY]
    print(f'# {PREFIX}: {len(res)} tests ran, {len(exp)} expected: '
          f'{tally["pass"]} passed, {tally["skip"]} skipped, {known} '
          f'expected errors, {tally[FLAKY]} flaky, as listed; {differ} differ '
          f'from {expect_path}')
    if not finished:
        print(f'not ok - {PREFIX}: {results_path} has no "# ran" line: '
              'the suite did not finish')
        differ += 1
    return differ == 0


HEADER = '''\
# rdma-core {version}'s tests/run_tests.py against {dev}: the outcome of
# every test (tests/e2e/groups/pyverbs.sh runs it, tests/e2e/host/
# pyverbs_expect.py compares; its docstring says the format).  A skip
# names the device feature the test needs, as the test's message says it
# (FEATURES in pyverbs_expect.py); an expected error or a flaky test says
# why, and regenerating keeps those words.  Regenerate after a change that
# flips results, then read the diff:
#   tests/e2e/run.sh pyverbs      (ROCX_PYVERBS_DEV=rxe for Soft-RoCE)
#   tests/e2e/host/pyverbs_expect.py update {expect} \\
#       build/e2e/pyverbs/guest0/pyverbs.results
# {counts}
'''


def update(expect_path, results_path):
    res, finished = read_results(results_path)
    if not finished:
        raise SystemExit(f'{results_path}: the suite did not finish; not '
                         'updating from a partial run')
    try:
        old = read_expect(expect_path)
    except FileNotFoundError:
        old = {}
    with open(results_path, encoding='utf-8') as f:
        first = f.readline()
    m = re.search(r'--dev (\S+)', first)
    dev = m.group(1) if m else 'the device'
    m = re.search(r'rdma-core-([0-9.]+)', first)
    version = m.group(1) if m else ''
    lines, todo = [], []
    for tid in sorted(res):
        status, detail = res[tid]
        if old.get(tid, ('',))[0] == FLAKY and status in FLAKY_MATCHES:
            lines.append(f'{tid} {FLAKY} {old[tid][1]}')
            continue
        if status == 'pass':
            lines.append(f'{tid} pass')
            continue
        if status == 'skip':
            reason = skip_label(detail)
            if reason == ENV or reason.startswith('unmapped: '):
                todo.append(f'{tid}: skip "{detail}": '
                            + ('fix the guest' if reason == ENV else
                               'add the message to FEATURES'))
        elif old.get(tid, ('',))[0] == status:
            # Why an error is expected is a human's sentence: kept.
            reason = old[tid][1]
        else:
            reason = f'UNEXPLAINED: {detail}'
            todo.append(f'{tid}: {status} "{detail}": say why it is '
                        'expected, or fix it')
        lines.append(f'{tid} {status} {reason}')
    counts = collections.Counter(line.split()[1] for line in lines)
    summary = ', '.join(f'{counts[s]} {s}' for s in STATUSES + (FLAKY,)
                        if counts[s])
    with open(expect_path, 'w', encoding='utf-8') as f:
        f.write(HEADER.format(version=version, dev=dev, expect=expect_path,
                              counts=f'{len(res)} tests: {summary}'))
        f.write('\n'.join(lines) + '\n')
    print(f'{expect_path}: {len(res)} tests: {summary}')
    for t in todo:
        print(f'to do: {t}', file=sys.stderr)
    return not todo


def summary(results_path):
    res, finished = read_results(results_path)
    by_status = collections.Counter(s for s, _ in res.values())
    print(f'{len(res)} tests{"" if finished else " (unfinished run)"}: '
          + ', '.join(f'{by_status[s]} {s}' for s in STATUSES if by_status[s]))
    by_label = collections.Counter(skip_label(d) for s, d in res.values()
                                   if s == 'skip')
    for label, n in by_label.most_common():
        print(f'  {n:4} skip {label}')
    for tid, (s, d) in sorted(res.items()):
        if s not in ('pass', 'skip'):
            print(f'  {s} {tid}: {d}')
    return True


def main(argv):
    if len(argv) == 4 and argv[1] == 'check':
        return 0 if check(argv[2], argv[3]) else 1
    if len(argv) == 4 and argv[1] == 'update':
        return 0 if update(argv[2], argv[3]) else 1
    if len(argv) == 3 and argv[1] == 'summary':
        return 0 if summary(argv[2]) else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
