#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run rdma-core's tests/run_tests.py as it is, recording every outcome.

Usage: pyverbs_run.py [--seed=N] RDMA_BUILD RESULTS [run_tests.py ARGS...]

RDMA_BUILD is an IN_PLACE rdma-core build with pyverbs; its bin/run_tests.py
is a shell wrapper naming the Python path and the source tree's
tests/run_tests.py, which this script then runs in that interpreter, so
that unittest's verbose report still goes to stderr as usual while each
outcome is also written to RESULTS as it happens, one tab-separated line:

    TEST_ID  STATUS  SECONDS  DETAIL

STATUS is pass, skip, fail, error, xfail or xpass; DETAIL is the skip
reason or the exception's last line.  A test reported twice (say, a failure
and then an error in tearDown) has two lines.  Lines starting with '#' are
comments: the first says what ran, the last, written only when
run_tests.py returned, "# ran N tests in S s".  The guest's stdout and
stderr interleave (tests print from forked children), which is why the
outcome is not scraped from the verbose report.

Several tests draw their attributes at random (tests/utils.py's
random_qp_init_attr_ex picks QP create flags half the time, which a device
without ibv_create_qp_ex refuses), so their outcome would change from run
to run: --seed seeds Python's random module first (default 1) and makes a
run repeatable; another seed explores other draws.  Set PYTHONHASHSEED in
the environment too for the same order of sets and dicts.
"""

import os
import random
import runpy
import shlex
import sys
import time
import traceback
import unittest


def wrapper_target(build):
    """PYTHONPATH, interpreter and script of bin/run_tests.py's exec line."""
    path = os.path.join(build, 'bin', 'run_tests.py')
    with open(path, encoding='utf-8') as f:
        for line in f:
            words = shlex.split(line)
            if 'exec' not in words:
                continue
            env = [w for w in words[:words.index('exec')] if '=' in w]
            args = words[words.index('exec') + 1:]
            pythonpath = [w.split('=', 1)[1] for w in env
                          if w.startswith('PYTHONPATH=')]
            if len(args) >= 2 and pythonpath:
                return pythonpath[0], args[0], args[1]
    sys.exit(f'pyverbs_run: no "PYTHONPATH=... exec PYTHON SCRIPT" in {path} '
             '(is rdma-core built with pyverbs?)')


def one_line(text):
    return ' '.join(str(text).split())


class Recorder(unittest.TextTestResult):
    """unittest's verbose result, which also appends each outcome to a file."""

    out = None
    ids = set()

    def startTest(self, test):
        self._t0 = time.monotonic()
        super().startTest(test)

    def _record(self, test, status, detail=''):
        secs = time.monotonic() - getattr(self, '_t0', time.monotonic())
        self.ids.add(test.id())
        self.out.write(f'{test.id()}\t{status}\t{secs:.2f}\t'
                       f'{one_line(detail)}\n')
        self.out.flush()

    @staticmethod
    def _last_line(err):
        lines = traceback.format_exception_only(err[0], err[1])
        return lines[-1] if lines else repr(err[1])

    def addSuccess(self, test):
        super().addSuccess(test)
        self._record(test, 'pass')

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._record(test, 'skip', reason)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._record(test, 'fail', self._last_line(err))

    def addError(self, test, err):
        super().addError(test, err)
        self._record(test, 'error', self._last_line(err))

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._record(test, 'xfail', self._last_line(err))

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._record(test, 'xpass')

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            failed = issubclass(err[0], test.failureException)
            self._record(subtest, 'fail' if failed else 'error',
                         self._last_line(err))


def main():
    seed = 1
    if len(sys.argv) > 1 and sys.argv[1].startswith('--seed='):
        seed = int(sys.argv.pop(1).split('=', 1)[1])
    if len(sys.argv) < 3:
        sys.exit(__doc__.split('\n\n')[1])
    build, results = sys.argv[1], sys.argv[2]
    pythonpath, python, script = wrapper_target(build)
    # pyverbs is built for the interpreter the wrapper names: run under it.
    if os.path.realpath(sys.executable) != os.path.realpath(python):
        os.execv(python, [python, os.path.abspath(__file__)] +
                 [f'--seed={seed}'] + sys.argv[1:])
    # What "python3 SCRIPT" would put first on the path, then the wrapper's.
    sys.path[0:0] = [os.path.dirname(script)] + pythonpath.split(':')
    sys.argv = [script] + sys.argv[3:]

    with open(results, 'w', encoding='utf-8') as out:
        out.write(f'# {shlex.join(sys.argv)}, seed {seed}\n')
        out.flush()
        random.seed(seed)
        Recorder.out = out
        unittest.TextTestRunner.resultclass = Recorder
        t0 = time.monotonic()
        status = 0
        try:
            runpy.run_path(script, run_name='__main__')
        except SystemExit as e:
            # run_tests.py ends in unittest.main(), which exits with its
            # verdict (a bool).
            status = int(e.code) if isinstance(e.code, (bool, int)) else 1
        out.write(f'# ran {len(Recorder.ids)} tests in '
                  f'{time.monotonic() - t0:.0f} s, exit {status}\n')
    return status


if __name__ == '__main__':
    sys.exit(main())
