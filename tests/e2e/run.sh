#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# End-to-end suite: boots groups of guests (once per group, not per test)
# on the rocx fabric and counts the "ok"/"not ok" lines their scripts print
# (a "# SKIP" or "# TODO" line as a skip: host/harness.sh).  Prints
# "e2e: N passed, N failed, N skipped" last.
#
#   tests/e2e/run.sh [--kernel debug|6.1] [GROUP...]
#                                  default: every groups/*.sh but mixed,
#                                  the soaks (soak-*.sh), incast and
#                                  timed-incast8
#
# --kernel debug (or ROCX_GUEST_KERNEL=debug) builds the debug kernel and
# the rocx modules for it if needed (scripts/build/debug-kernel.sh), proves
# first that its checks catch a broken module (host/splat_selftest.sh),
# boots every guest on it, fails a guest that shows a kernel report or a
# leak (host/harness.sh), keeps the output in build/e2e-debug and prints
# "debug: N passed, N failed, N skipped" last instead.
#
# --kernel 6.1 (or ROCX_GUEST_KERNEL=6.1) boots Debian 12's own kernel
# with the modules `make modules-6.1` builds (first, here), runs by
# default the groups pair, ib and rc there and the group mixed (a 6.1
# guest against a 6.12 one), keeps the output in build/e2e-6.1 and prints
# "linux-6.1: N passed, N failed, N skipped" last.
#
# Layout: groups/NAME.sh declares group NAME (its guests, their NICs,
# scripts and environment, its timeout, what runs on the host beside it
# and the host's checks afterwards; host/harness.sh says how); guest/ holds
# what runs inside the guests (the groups' entry scripts at its top, then
# lib/, verbs/, parts/ and c/: Documentation/testing.rst), host/ what runs
# on the host, kmod/ the kverbs group's test module (make kvtest builds it
# here).
# ROCX_INTEROP_PEER=rxe runs group rxe with rxe on both guests.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
out=$repo/build/e2e
suite=e2e
passed=0 failed=0 skipped=0
. tests/e2e/host/harness.sh

if [ "${1:-}" = --kernel ]; then
	[ $# -ge 2 ] || { echo "run.sh: --kernel needs debian, debug or 6.1" >&2; exit 2; }
	export ROCX_GUEST_KERNEL=$2
	shift 2
fi
case ${ROCX_GUEST_KERNEL:=debian} in
debian)
	# The kverbs group's test module; the debug kernel's is built with it.
	make -s kvtest >/dev/null ||
		{ echo "$suite: 0 passed, 1 failed, 0 skipped"; exit 1; }
	;;
debug)
	out=$repo/build/e2e-debug suite=debug
	bash scripts/build/debug-kernel.sh ||
		{ echo "$suite: 0 passed, 1 failed, 0 skipped"; exit 1; }
	;;
6.1)
	out=$repo/build/e2e-6.1 suite=linux-6.1
	make -s modules-6.1 >/dev/null ||
		{ echo "$suite: 0 passed, 1 failed, 0 skipped"; exit 1; }
	;;
*) echo "run.sh: unknown kernel $ROCX_GUEST_KERNEL (debian, debug or 6.1)" >&2; exit 2 ;;
esac
export ROCX_GUEST_KERNEL

make -s -C tests/e2e || { echo "$suite: 0 passed, 1 failed, 0 skipped"; exit 1; }

# The harness's own counting first: a count that lost a failure would
# make every group after it unable to fail.
host_tap tests/e2e/host/harness_selftest.sh

# The debug kernel's checks must catch a broken module before their
# silence about the groups means anything.
if [ "$suite" = debug ]; then
	echo "--- debug kernel checks: negative test (host/splat_selftest.sh)"
	mkdir -p "$out"
	rm -rf "$out/selftest"
	host_tap tests/e2e/host/splat_selftest.sh "$out/selftest"
fi

groups=("$@")
if [ ${#groups[@]} -eq 0 ] && [ "$suite" = linux-6.1 ]; then
	groups=(pair ib rc mixed)
elif [ ${#groups[@]} -eq 0 ]; then
	# mixed pairs 6.1 with 6.12: the 6.1 suite's.  A soak repeats
	# one test for many minutes: run by name (make soak-kverbs).  The
	# lossless experiments run in virtual time (timed-incast); their
	# wall-clock form, incast, which needs scaled rates and retries on
	# a loaded host, is make check-lossless's, and the 8-to-1
	# (timed-incast8), nine guests, make check-lossless TIMED=1's.
	for f in tests/e2e/groups/*.sh; do
		case $f in
		tests/e2e/groups/mixed.sh | tests/e2e/groups/soak-*.sh | \
			tests/e2e/groups/incast.sh | \
			tests/e2e/groups/timed-incast8.sh) ;;
		*) groups+=("$(basename "$f" .sh)") ;;
		esac
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

echo "$suite: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
