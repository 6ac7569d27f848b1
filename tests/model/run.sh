#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Run the model suite: the device core's unit tests (test_core and
# test_rdma, built by the Makefile).  Last line:
# "model: N passed, N failed".
#
# A binary's own summary line comes before its end: LeakSanitizer and
# every other at-exit report run after main() has printed it.  So a
# binary counts by its summary *and* its exit status: a leak, a sanitizer
# report or a crash after a clean summary is one more failure.
#
# With --selftest BIN first, BIN (selftest_leak.c: a clean summary, then
# a leak) runs through the same rule before the suite and must be counted
# as failed; that it is counts as one passed check, so the rule itself
# can fail the suite.
#
# Usage: run.sh [--selftest BIN] TEST_BINARY... [args for them: -v, names]
set -uo pipefail
selftest=
if [ "${1:-}" = --selftest ]; then
	selftest=$2
	shift 2
fi
bins=()
while [ $# -gt 0 ] && [ -x "$1" ] && [ -f "$1" ]; do
	bins+=("$1")
	shift
done

p=0 f=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# run_bin BIN ARG... - run one test binary and fold its summary line and
# its exit status into p and f.
run_bin() {
	local bin=$1 name line rc

	shift
	name=$(basename "$bin")
	name=${name#test_}
	ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$bin" "$@" 2>&1 | sed "s/^host:/$name:/" | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed" "$log" | tail -n 1)
	if [ -z "$line" ]; then
		echo "$name: no summary (exit $rc, crashed?): counted as 1 failed"
		f=$((f + 1))
		return
	fi
	p=$((p + $(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$line")))
	f=$((f + $(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")))
	if [ "$rc" -ne 0 ] && ! grep -qE " [1-9][0-9]* failed" <<<"$line"; then
		echo "$name: exited $rc after a clean summary (a sanitizer's report above): counted as 1 failed"
		f=$((f + 1))
	fi
}

if [ -n "$selftest" ]; then
	run_bin "$selftest" >/dev/null
	if [ "$f" -gt 0 ]; then
		echo "ok - model runner: a leak after a clean summary fails the suite"
		p=1 f=0
	else
		echo "not ok - model runner: a leak after a clean summary went uncounted"
		p=0 f=1
	fi
fi

for bin in "${bins[@]}"; do
	run_bin "$bin" "$@"
done

echo "model: $p passed, $f failed"
[ "$f" -eq 0 ]
