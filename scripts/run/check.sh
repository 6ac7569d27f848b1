#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run every rocx test suite and total them.  Each suite prints its own
# "<suite>: N passed, N failed[, N skipped]" line; a suite that dies without
# one counts as one failure.  Every suite runs under a time limit of its
# own, and its counts are held to tests/suites.expect: fewer tests run
# than expected, or more skipped, is a failure (a suite that quietly
# tests less must not pass).  check_lib.sh holds these rules, and the
# first suite, harness (tests/check/selftest.sh), proves them.  The lines
# before the last give each suite's, each group's and the whole run's wall
# time; the last line is the grand total, alone.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
logdir=$repo/build/check
expect=$repo/tests/suites.expect
mkdir -p "$logdir"
. scripts/run/check_lib.sh

clear_env
check_t0=$(date +%s)

build_t0=$(date +%s)
if ! bash scripts/build/all.sh; then
	echo "build failed"
	echo "check: wall time $(secs $(($(date +%s) - check_t0)))"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
times+=("$(printf '%-12s %8s' build "$(secs $(($(date +%s) - build_t0)))")")

# Limits: about twice what each suite takes from nothing on the 2-core
# machine (kunit includes building the debug kernel, about 16 minutes).
# The model and fuzz suites build their sanitizer binaries first: one
# compiler per core halves that (a minute of make check).
jobs=-j$(nproc)
run_suite harness 120 bash tests/check/selftest.sh
run_suite model 900 make -s "$jobs" -C tests/model run
run_suite qtest 600 bash tests/qtest/run.sh
run_suite switch 900 bash tests/switch/run.sh
run_suite fuzz 600 make -s "$jobs" -C tests/fuzz smoke
# On the debug guest kernel, which it builds the first time (cached).
run_suite kunit 2700 bash scripts/run/kunit.sh
# After kunit.sh, which overlays the drivers and contract on its kernel tree.
run_suite contract 300 bash tests/contract/check.sh
# rocx lab (Documentation/lab.rst): one lab of two guests, up to down.
run_suite lab 300 bash tests/lab/run.sh
run_suite e2e 3000 bash tests/e2e/run.sh
# Debian 12's own 6.1 kernel: its module build, the groups pair, ib and rc
# on it, and mixed (6.1 against 6.12).
run_suite linux-6.1 900 bash tests/e2e/run.sh --kernel 6.1
# The rc group again on the debug kernel (KASAN, lockdep, kmemleak), after
# the negative test of its checks; kunit.sh has built that kernel.  `make
# check-debug` runs every group there.
run_suite debug 900 bash tests/e2e/run.sh --kernel debug rc

echo "check: wall time per suite:"
printf '  %s\n' "${times[@]}"
# The end-to-end suites' groups, as host/harness.sh timed them.
echo "check: wall time per group:"
for n in e2e linux-6.1 debug; do
	sed -nE "s|^--- e2e group ([^ ]+): ([0-9]+) s\$|$n/\\1 \\2|p" "$logdir/$n.log" 2>/dev/null |
		while read -r g t; do printf '  %-22s %8s\n' "$g" "$(secs "$t")"; done
done
if [ "$total_f" -ne 0 ]; then
	notes=$(failure_notes)
	if [ -n "$notes" ]; then
		echo "check: what the failed tests showed:"
		echo "$notes"
	fi
	echo "check: what failed:"
	failures
fi
echo "check: wall time $(secs $(($(date +%s) - check_t0)))"
echo "$total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" -eq 0 ]
