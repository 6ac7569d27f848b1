#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# End-to-end suite: boots groups of guests (once per group, not per test)
# on the rocx fabric and counts the "ok"/"not ok" lines their scripts print
# (a "# SKIP" or "# TODO" line as a skip: host/lib.sh).  Prints
# "e2e: N passed, N failed, N skipped" last.
#
#   tests/e2e/run.sh [GROUP...]     default: every groups/*.sh
#
# Layout: groups/NAME.sh declares group NAME (its guests, their NICs,
# scripts and environment, its timeout, what runs on the host beside it
# and the host's checks afterwards; host/lib.sh says how); guest/ holds
# what runs inside the guests, host/ what runs on the host.
# ROCX_INTEROP_PEER=rxe runs group rxe with rxe on both guests.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
out=$repo/build/e2e
passed=0 failed=0 skipped=0
. tests/e2e/host/lib.sh

make -s -C tests/e2e || { echo "e2e: 0 passed, 1 failed, 0 skipped"; exit 1; }

groups=("$@")
if [ ${#groups[@]} -eq 0 ]; then
	for f in tests/e2e/groups/*.sh; do
		groups+=("$(basename "$f" .sh)")
	done
fi
mkdir -p "$out"

for g in "${groups[@]}"; do
	if [ ! -f "tests/e2e/groups/$g.sh" ]; then
		echo "unknown group $g"
		failed=$((failed + 1))
		continue
	fi
	run_group "$g"
done

echo "e2e: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
