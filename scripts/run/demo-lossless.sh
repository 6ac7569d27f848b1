#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The lossless-Ethernet demo (Documentation/experiments.rst): the incast
# experiments on three rocx guests and rocx-switch (lossy, PFC, PFC's
# victim, PFC + ECN + DCQCN), every check of the e2e group, then the
# scenario table and one PNG per scenario over time: the bottleneck's
# queue, each sender's rate, PFC frames and CE marks (gnuplot).
#   scripts/run/demo-lossless.sh     (make demo-lossless)
# Needs scripts/build/all.sh to have run, and gnuplot-nox for the plots.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=$repo/build/e2e/incast
cd "$repo" || exit 1
rc=0
tests/e2e/run.sh incast || rc=$?
echo
echo "== incast: the scenarios (Documentation/experiments.rst)"
python3 tests/e2e/host/incast.py table "$out" || rc=1
if command -v gnuplot >/dev/null; then
	echo "== plots"
	python3 tests/e2e/host/incast.py plot "$out" || rc=1
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
