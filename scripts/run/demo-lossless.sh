#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The lossless-Ethernet demo (Documentation/experiments.rst): the incast
# experiments on three rocx guests and rocx-switch, every check of their
# e2e group, then the scenario table and one PNG per scenario over time:
# the bottleneck's queue, each sender's rate, PFC frames and CE marks
# (gnuplot).
#   scripts/run/demo-lossless.sh           (make demo-lossless) on the
#       wall clock at scaled rates: lossy, PFC, PFC's victim, PFC + ECN
#       + DCQCN (the incast group)
#   scripts/run/demo-lossless.sh --timed   (make demo-lossless TIMED=1)
#       in virtual time at 25 Gb/s with DCQCN at mlx5's defaults: lossy,
#       PFC, PFC + ECN + DCQCN (the timed-incast group), plotted over
#       virtual time
# Needs scripts/build/all.sh to have run, and gnuplot-nox for the plots.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
group=incast
if [ "${1:-}" = --timed ]; then
	group=timed-incast
elif [ $# -gt 0 ]; then
	echo "usage: $0 [--timed]" >&2
	exit 2
fi
out=$repo/build/e2e/$group
cd "$repo" || exit 1
rc=0
tests/e2e/run.sh "$group" || rc=$?
echo
echo "== $group: the scenarios (Documentation/experiments.rst)"
if [ "$group" = incast ]; then
	python3 tests/e2e/host/incast.py table "$out" || rc=1
else
	python3 tests/e2e/host/timed_incast.py table "$out" || rc=1
fi
if command -v gnuplot >/dev/null; then
	echo "== plots"
	if [ "$group" = incast ]; then
		python3 tests/e2e/host/incast.py plot "$out" || rc=1
	else
		python3 tests/e2e/host/timed_incast.py plot "$out" || rc=1
	fi
else
	echo "demo-lossless: no gnuplot (apt-get install gnuplot-nox): no plots"
	rc=1
fi
if [ "$rc" -eq 0 ]; then
	echo "demo-lossless: every check passed (output in $out)"
else
	echo "demo-lossless: FAILED (output in $out)"
fi
exit "$rc"
