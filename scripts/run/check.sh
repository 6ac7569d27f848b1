#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run every rocx test suite and total them.  Each suite prints its own
# "<suite>: N passed, N failed[, N skipped]" line; a suite that dies without
# one counts as one failure.  The line before the last gives the wall time
# of the whole run; the last line is the grand total, alone.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
logdir=$repo/build/check
mkdir -p "$logdir"

total_p=0 total_f=0 total_s=0
check_t0=$(date +%s)

# wall_time - the run's wall time so far, e.g. "check: wall time 22m 34s".
wall_time() {
	local s=$(($(date +%s) - check_t0))

	echo "check: wall time $((s / 60))m $((s % 60))s"
}

run_suite() {
	local name=$1 line p f s rc t0
	shift
	t0=$(date +%s)
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$logdir/$name.log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed" "$logdir/$name.log" | tail -n 1)
	if [ -z "$line" ]; then
		echo "$name: no summary line (exit $rc): counted as 1 failed"
		p=0 f=1 s=0
	else
		p=$(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$line")
		f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
		s=$(sed -nE 's/.* ([0-9]+) skipped.*/\1/p' <<<"$line")
		s=${s:-0}
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			echo "$name: exited $rc with no failure counted: counted as 1 failed"
			f=1
		fi
	fi
	echo "=== $name done in $(($(date +%s) - t0))s: $p passed, $f failed, $s skipped"
	total_p=$((total_p + p)) total_f=$((total_f + f)) total_s=$((total_s + s))
}

if ! bash scripts/build/all.sh; then
	echo "build failed"
	wall_time
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi

run_suite model make -s -C tests/model run
run_suite qtest bash tests/qtest/run.sh
run_suite switch bash tests/switch/run.sh
run_suite fuzz make -s -C tests/fuzz smoke
# On the debug guest kernel, which it builds the first time (cached).
run_suite kunit bash scripts/run/kunit.sh
# After kunit.sh, which overlays the drivers and contract on its kernel tree.
run_suite contract bash tests/contract/check.sh
run_suite e2e bash tests/e2e/run.sh
# Debian 12's own 6.1 kernel: its module build, the groups pair, ib and rc
# on it, and mixed (6.1 against 6.12).
run_suite linux-6.1 bash tests/e2e/run.sh --kernel 6.1
# The rc group again on the debug kernel (KASAN, lockdep, kmemleak), after
# the negative test of its checks; kunit.sh has built that kernel.  `make
# check-debug` runs every group there.
run_suite debug bash tests/e2e/run.sh --kernel debug rc

wall_time
echo "$total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" -eq 0 ]
