#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The lossless-Ethernet demo (Documentation/experiments.rst): the incast
# experiments on rocx guests and rocx-switch, every check of their e2e
# groups, then each group's scenario table and one PNG per scenario over
# time: the bottleneck's queue, each sender's rate, PFC frames and CE
# marks (gnuplot).
#   scripts/run/demo-lossless.sh           (make demo-lossless) on the
#       wall clock at scaled rates: lossy, PFC, PFC's victim, PFC + ECN
#       + DCQCN (the incast group, three guests)
#   scripts/run/demo-lossless.sh --timed   (make demo-lossless TIMED=1)
#       in virtual time at 25 Gb/s with DCQCN at mlx5's defaults: lossy,
#       PFC, PFC + ECN + DCQCN, the 2-to-1 and the 8-to-1 (the
#       timed-incast and timed-incast8 groups, three and nine guests),
#       plotted over virtual time
# Needs scripts/build/all.sh to have run, and gnuplot-nox for the plots.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
groups=(incast)
tool=incast.py
if [ "${1:-}" = --timed ]; then
	groups=(timed-incast timed-incast8)
	tool=timed_incast.py
elif [ $# -gt 0 ]; then
	echo "usage: $0 [--timed]" >&2
	exit 2
fi
cd "$repo" || exit 1
rc=0
tests/e2e/run.sh "${groups[@]}" || rc=$?
for group in "${groups[@]}"; do
	out=$repo/build/e2e/$group
	echo
	echo "== $group: the scenarios (Documentation/experiments.rst)"
	python3 "tests/e2e/host/$tool" table "$out" || rc=1
	if command -v gnuplot >/dev/null; then
		echo "== $group: plots"
		python3 "tests/e2e/host/$tool" plot "$out" || rc=1
	else
		echo "demo-lossless: no gnuplot (apt-get install gnuplot-nox): no plots"
		rc=1
	fi
done
if [ "$rc" -eq 0 ]; then
	echo "demo-lossless: every check passed (output in build/e2e/{$(IFS=,; echo "${groups[*]}")})"
else
	echo "demo-lossless: FAILED (output in build/e2e/{$(IFS=,; echo "${groups[*]}")})"
fi
exit "$rc"
