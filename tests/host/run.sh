#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Run the host suite: the device core's unit tests (test_core and
# test_rdma, built by the Makefile) and, when build/qemu-system-x86_64
# exists, the QEMU glue checks (qtest_glue.py).  Last line:
# "host: N passed, N failed[, N skipped]".
#
# Usage: run.sh TEST_BINARY... [args for them: -v, case names]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
bins=()
while [ $# -gt 0 ] && [ -x "$1" ] && [ -f "$1" ]; do
	bins+=("$1")
	shift
done

p=0 f=0 s=0
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

qemu=$repo/build/qemu-system-x86_64
if [ $# -gt 0 ]; then
	:	# a case list was given: run only the unit tests
elif [ -x "$qemu" ]; then
	timeout 300 python3 "$here/qtest_glue.py" --qemu "$qemu" 2>&1 | tee "$log"
	add "$log" qtest
else
	echo "qtest: skipped, no $qemu (scripts/build-qemu.sh builds it)"
	s=$((s + 1))
fi

if [ "$s" -gt 0 ]; then
	echo "host: $p passed, $f failed, $s skipped"
else
	echo "host: $p passed, $f failed"
fi
[ "$f" -eq 0 ]
