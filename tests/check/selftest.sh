#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's own rules (scripts/run/check_lib.sh), tried on made-up
# suites before the real ones run: a suite that runs fewer tests than
# tests/suites.expect says, skips more, outlives its time limit, exits
# non-zero after a clean summary or is not listed must each fail, and
# the caller's ROCX_* variables must not reach the suites.  Then the
# guest launcher's parsing and wiring (launcher.py), which every
# end-to-end suite boots its guests with, and make bench's table and host
# accounting (bench.py), and rocx lab's topology files and capture
# (lab.py).  Last
# line: "harness: N passed, N failed".
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/rocx-checktest.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$repo/scripts/run/check_lib.sh"

logdir=$work
expect=$work/expect
cat >"$expect" <<'EOT'
full    5  0
short   5  0
skips   5  1
slow    1  0
crash   1  0
EOT

n=0 bad=0
# is NAME WANT GOT - one check of this self-test.
is() {
	n=$((n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1 (got '$3', want '$2')"
		bad=$((bad + 1))
	fi
}

# suite NAME LIMIT CMD - run a made-up suite; prints "passed failed
# skipped" as make check counted it.
suite() {
	total_p=0 total_f=0 total_s=0
	run_suite "$@" >"$work/$1.out" 2>&1
	echo "$total_p $total_f $total_s"
}

is "a suite that ran what it must counts as it says" "5 0 0" \
	"$(suite full 10 echo 'full: 5 passed, 0 failed')"
is "fewer tests than expected fail" "3 1 0" \
	"$(suite short 10 echo 'short: 3 passed, 0 failed')"
is "more skips than expected fail" "4 1 2" \
	"$(suite skips 10 echo 'skips: 4 passed, 0 failed, 2 skipped')"
is "a suite not in the expectations fails" "1 1 0" \
	"$(suite unlisted 10 echo 'unlisted: 1 passed, 0 failed')"
is "a non-zero exit after a clean summary fails" "1 1 0" \
	"$(suite crash 10 sh -c 'echo "crash: 1 passed, 0 failed"; exit 3')"

# A suite past its limit is stopped with what it started.
t0=$(date +%s)
is "a suite past its time limit fails" "0 1 0" \
	"$(suite slow 1 sh -c "sleep 60 & echo \$! >$work/child; wait")"
is "... within its limit and timeout's grace" yes \
	"$([ $(($(date +%s) - t0)) -lt 30 ] && echo yes || echo no)"
# gone: no such process, or a zombie nobody has reaped yet (it was killed).
is "... and what it started is gone" gone \
	"$(case $(ps -o stat= -p "$(cat "$work/child")") in "" | Z*) echo gone ;; *) echo alive ;; esac)"

is "the caller's ROCX_* variables are cleared" ":/keep" \
	"$(ROCX_PYVERBS_DEV=rxe ROCX_CACHE=/keep bash -c \
		". '$repo/scripts/run/check_lib.sh'; clear_env >/dev/null;
		 echo \"\${ROCX_PYVERBS_DEV:-}:\${ROCX_CACHE:-}\"")"

# What failed is named at the end, whatever the suite's way of saying it,
# and a known failure (# TODO) is not.
rm -f "$work"/*.log
suite full 10 printf '%s\n' 'ok - a' 'not ok - b # TODO flaky' \
	'  not ok 3 - c' 'FAIL d (2 checks)' 'full: 2 passed, 3 failed' >/dev/null
suite short 10 echo 'short: 3 passed, 0 failed' >/dev/null
is "what failed is listed from every log, make check's verdicts too" \
	"full: not ok 3 - c|full: FAIL d (2 checks)|short: short: not ok - ran 3 tests, expected at least 5: counted as 1 failed" \
	"$(failures | sed 's/^  //' | paste -sd'|')"
# What a failing test showed just before it, by the guest that printed
# it; a line not a comment ends what belongs to the next failure.
rm -f "$work"/*.log
printf '%s\n' 'g/guest0: # old' 'g/guest0: ok - a' 'g/guest1: # peer log:' \
	'g/guest0: # counters 0' 'g/guest1: #   timed out' 'g/guest0: ok - c' \
	'g/guest1: not ok - b' 'g/guest0: not ok - d' >"$work/e2e.log"
is "what the failed tests showed, by the guest that printed it" \
	"e2e: before not ok - b|g/guest1: # peer log:|g/guest1: #   timed out" \
	"$(failure_notes | sed 's/^ *//' | paste -sd'|')"
rm -f "$work"/*.log
{ seq 15 | sed 's/^/# l/'; echo 'not ok - x'; } >"$work/x.log"
is "... and a long one is cut to its last 12 lines" \
	"14 lines: (3 lines more in the log)|# l4|# l15" \
	"$(failure_notes | wc -l) lines: $(failure_notes | sed 's/^ *//' |
		sed -n '2p;3p;$p' | paste -sd'|')"
is "... and a long list is cut short" 31 \
	"$(rm -f "$work"/*.log; seq 40 | sed 's/^/not ok - t/' >"$work/many.log"; failures | wc -l)"

# The guest launcher's parsing and wiring (tests/check/launcher.py), with
# no guest booted: each of its checks counts as one of this suite's, and
# its dying without a verdict on each as one failure more.
launcher_out=$(python3 "$repo/tests/check/launcher.py" 2>&1)
launcher_rc=$?
while IFS= read -r line; do
	case $line in
	"ok - "*) is "${line#ok - }" ok ok ;;
	"not ok - "*) is "${line#not ok - }" ok "not ok" ;;
	*) echo "# $line" ;;
	esac
done <<<"$launcher_out"
if [ "$launcher_rc" -ne 0 ] && ! grep -q '^not ok - ' <<<"$launcher_out"; then
	is "tests/check/launcher.py exits 0" 0 "$launcher_rc"
fi

# make bench's host side (tests/check/bench.py): the table and the host
# accounting on made-up results, counted the same way.
bench_out=$(python3 "$repo/tests/check/bench.py" 2>&1)
bench_rc=$?
while IFS= read -r line; do
	case $line in
	"ok - "*) is "${line#ok - }" ok ok ;;
	"not ok - "*) is "${line#not ok - }" ok "not ok" ;;
	*) echo "# $line" ;;
	esac
done <<<"$bench_out"
if [ "$bench_rc" -ne 0 ] && ! grep -q '^not ok - ' <<<"$bench_out"; then
	is "tests/check/bench.py exits 0" 0 "$bench_rc"
fi

# rocx lab's topology files (tests/check/lab.py): the examples, and each
# kind of mistake refused with its line; capture against a switch of its
# own; counted the same way.  Debian's
# python3, as scripts/rocx: python3-yaml is installed for it.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
lab_out=$("$py" "$repo/tests/check/lab.py" 2>&1)
lab_rc=$?
while IFS= read -r line; do
	case $line in
	"ok - "*) is "${line#ok - }" ok ok ;;
	"not ok - "*) is "${line#not ok - }" ok "not ok" ;;
	*) echo "# $line" ;;
	esac
done <<<"$lab_out"
if [ "$lab_rc" -ne 0 ] && ! grep -q '^not ok - ' <<<"$lab_out"; then
	is "tests/check/lab.py exits 0" 0 "$lab_rc"
fi

echo "harness: $((n - bad)) passed, $bad failed"
[ "$bad" -eq 0 ]
