#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Run the model suite: the device core's unit tests (test_core and
# test_rdma, built by the Makefile).  Last line:
# "model: N passed, N failed".
#
# Usage: run.sh TEST_BINARY... [args for them: -v, case names]
set -uo pipefail
bins=()
while [ $# -gt 0 ] && [ -x "$1" ] && [ -f "$1" ]; do
	bins+=("$1")
	shift
done

p=0 f=0
add() {	# add LOG SUITE - fold a suite's summary line into the totals
	local line

	line=$(grep -E "^$2: [0-9]+ passed, [0-9]+ failed" "$1" | tail -n 1)
	if [ -z "$line" ]; then
		echo "$2: no summary (crashed?): counted as 1 failed"
		f=$((f + 1))
		return
	fi
	p=$((p + $(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$line")))
	f=$((f + $(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")))
}

log=$(mktemp)
trap 'rm -f "$log"' EXIT

for bin in "${bins[@]}"; do
	name=$(basename "$bin")
	name=${name#test_}
	ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$bin" "$@" 2>&1 | sed "s/^host:/$name:/" | tee "$log"
	add "$log" "$name"
done

echo "model: $p passed, $f failed"
[ "$f" -eq 0 ]
