#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The e2e harness's counting (host/harness.sh), checked on made-up guest
# output before any group runs (tests/e2e/run.sh runs it first): a count
# that loses a failure would make every group after it unable to fail.
# Prints TAP lines.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$repo" || exit 1
out=$(mktemp -d /tmp/rocx-libtest.XXXXXX)
trap 'rm -rf "$out"' EXIT
. tests/e2e/host/harness.sh

n=0 bad=0
# expect NAME WANT_PASSED WANT_FAILED WANT_SKIPPED - the counts so far.
expect() {
	n=$((n + 1))
	if [ "$passed $failed $skipped" = "$2 $3 $4" ]; then
		echo "ok $n - harness: $1"
	else
		echo "not ok $n - harness: $1 (counted $passed/$failed/$skipped, want $2/$3/$4)"
		bad=$((bad + 1))
	fi
}

# guest_out GROUP N RC LINE... - guest N of GROUP ended with RC, logging LINEs.
guest_out() {
	local d=$out/$1/guest$2

	mkdir -p "$d"
	echo "$3" >"$d/rc"
	shift 3
	printf '%s\n' "$@" >"$d/log"
}

passed=0 failed=0 skipped=0
guest_out a 0 0 "ok - one" "ok - two # SKIP no device" "not ok - three # TODO later"
guest_out a 1 1 "ok - four" "not ok - five"
count a 0 >/dev/null
expect "TAP lines, SKIP and TODO" 2 1 2

# A guest that failed without a "not ok" line, after an earlier group
# failed: its own failure still counts.
guest_out b 0 1 "ok - six"
count b 0 >/dev/null
expect "a guest's exit status after another group's failure" 3 2 2

# run-guests.sh failing with every guest clean, after earlier failures.
guest_out c 0 0 "ok - seven"
count c 2 >/dev/null
expect "run-guests' exit status after another group's failure" 4 3 2

# A clean group adds no failure.
guest_out d 0 0 "ok - eight"
count d 0 >/dev/null
expect "a clean group" 5 3 2

echo "1..$n"
[ "$bad" -eq 0 ]
