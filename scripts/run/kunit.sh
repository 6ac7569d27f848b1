#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the rocx KUnit tests and report.  By default they run on the debug
# guest kernel (scripts/build/debug-kernel.sh builds it, KUnit built in,
# and the two drivers with their tests linked in): one TCG guest loads
# them (scripts/guest/kunit.sh) under KASAN, lockdep and kmemleak, and a
# kernel report or leak fails the run as a guest would fail an e2e group.
# The kernel is the e2e debug suite's, so a fresh machine builds one
# kernel, not two.  tests/kunit/rocx.kunitconfig still lists what the
# tests need: its rocx lines are the drivers and their tests (every
# *_KUNIT_TEST symbol of the drivers' Kconfig), and every other line must
# hold in the debug kernel's configuration (tests/debug/guest.config), or
# this fails and says so.  Should the drivers not build with their tests
# against the debug kernel, it says so too and uses kunit.py instead.
#
#   scripts/run/kunit.sh [GLOB]        GLOB filters suites ('rocx_ring*')
#   scripts/run/kunit.sh --kunit-py [ARG]...
#                                      as before: kunit.py builds its own
#                                      kernel with the drivers built in
#                                      (in $ROCX_CACHE) and runs it; ARGs
#                                      go to kunit.py run
#
# Last line: `kunit: N passed, N failed, N skipped`; exit status 0 only if
# tests ran and none failed.
set -euo pipefail
tool=kunit
. "$(dirname "$0")/../build/build_lib.sh"

kunitconfig=$repo/tests/kunit/rocx.kunitconfig
mode=guest
if [ "${1:-}" = --kunit-py ]; then
	mode=kunit.py
	shift
fi

# run_kunit_py ARG... - build and run with kunit.py; sets $rc and $log.
run_kunit_py() {
	# kunit.py boots the first qemu-system-x86_64 on PATH with `-bios qboot.rom`:
	# Debian's has that firmware, a self-built "+ds" QEMU has none.
	export PATH="/usr/bin:$PATH"

	# The tree must not change under a build: hold its lock (kernel-tree.sh
	# takes the same one) until the tests have run.
	cache_lock "linux-$ROCX_KSRC_VER"
	tree=
	while IFS= read -r line; do
		printf '%s\n' "$line"
		tree=$line
	done < <("$repo/scripts/build/kernel-tree.sh")
	[ -f "$tree/Makefile" ] || die "scripts/build/kernel-tree.sh gave no kernel tree"
	# One build directory per tree: kbuild rebuilds everything if an O= build
	# directory is pointed at another source tree.
	build="$ROCX_CACHE/kunit-build-${tree##*/linux-}"
	rm -f "$build/test.log"

	step "building and running in $build (kunit.py, -j2)"
	rc=0
	(cd "$tree" && timeout 3600 python3 tools/testing/kunit/kunit.py run \
		--arch=x86_64 --kunitconfig="$kunitconfig" --build_dir="$build" \
		--jobs=2 --timeout=300 "$@") || rc=$?
	log=$build/test.log
}

# run_guest [GLOB] - run the tests in a debug guest; sets $rc, $log.
run_guest() {
	local dbg=$repo/build/debug out=$repo/build/kunit-guest line sym

	[ $# -le 1 ] || die "one filter glob at most (kunit.py's options: --kunit-py)"
	while IFS= read -r line; do
		sym=${line%%=*}
		sym=${sym#CONFIG_}
		grep -qx "config $sym" "$repo"/drivers/net/ethernet/rocx/Kconfig \
			"$repo"/drivers/infiniband/hw/rocx/Kconfig && continue
		grep -qxF -- "$line" "$dbg/config" ||
			die "${kunitconfig#"$repo"/} wants $line, which the debug kernel lacks: add it to tests/debug/guest.config"
	done < <(grep -E '^CONFIG_[A-Z0-9_]+=' "$kunitconfig")

	step "running the tests in a debug guest (output: ${out#"$repo"/})"
	rc=0
	# KUnit is off by default in the debug kernel (e2e guests run no tests).
	# loglevel=7: should the guest die, its console still has all the KTAP.
	# log_buf_len: the KTAP of every suite, with lockdep's and KASAN's
	# start-up lines, must fit the kernel log that dmesg reads back.
	"$repo/scripts/run/run-guests.sh" --kernel debug --out "$out" \
		--timeout 300 --guest cmd=scripts/guest/kunit.sh --append \
		"loglevel=7 log_buf_len=8M kunit.enable=1 ROCX_MODDIR=$dbg/kunit-modules${1:+ kunit.filter_glob=$1}" ||
		rc=$?
	log=$out/guest0/dmesg
	[ -s "$log" ] || log=$out/guest0/console.log
	# What a debug guest of the e2e suite would fail on fails this too.
	if ! "$repo/tests/e2e/host/splat_check.sh" console "$out/guest0/console.log" \
		"$out/guest0/dmesg" ||
		! "$repo/tests/e2e/host/splat_check.sh" kmemleak "$out/guest0/kmemleak"; then
		step "the debug kernel reported a bug or a leak (above; ${out#"$repo"/}/guest0)"
		[ "$rc" != 0 ] || rc=1
	fi
}

log=/dev/null rc=0
if [ "$mode" = guest ]; then
	bash "$repo/scripts/build/debug-kernel.sh" ||
		die "the debug kernel did not build (run scripts/build/debug-kernel.sh)"
	if [ ! -d "$repo/build/debug/kunit-modules" ]; then
		step "warning: no drivers with their tests for the debug kernel (above): using kunit.py"
		mode=kunit.py
	fi
fi
if [ "$mode" = kunit.py ]; then
	run_kunit_py "$@"
else
	run_guest "$@"
fi

# Count leaf test cases (a result line with no results nested under it)
# from the KTAP in the kernel log: one document per test module in a guest,
# one in all from kunit.py.
read -r pass fail skip < <(awk '
	!on && /TAP version/ {
		on = 1
		cut = index($0, "TAP version") - 1
		if (cut > 0 && substr($0, cut, 1) == "K")
			cut--
		next
	}
	!on { next }
	{ line = substr($0, cut + 1) }
	line ~ /^ *(not )?ok [0-9]+/ {
		d = match(line, /[^ ]/) - 1
		if (!deeper[d]) {
			if (line ~ /^ *not ok/)
				f++
			else if (line ~ /# *SKIP/)
				s++
			else
				p++
		}
		for (k in deeper)
			if (k + 0 > d)
				deeper[k] = 0
		for (k = 0; k < d; k++)
			deeper[k] = 1
		deeper[d] = 0
	}
	END { printf "%d %d %d\n", p, f, s }' "$log" 2>/dev/null || echo 0 0 0)

# Every case the drivers declare must have reported, passed, failed or
# skipped: a kernel log cut short or a suite that never ran would
# otherwise only lower the count.  A filtered run is exempt.
missing=0
if [ $# -eq 0 ]; then
	while read -r c; do
		grep -qE "(^|[] ])(not )?ok [0-9]+ $c( |\$)" "$log" 2>/dev/null && continue
		echo "kunit: case $c declared in the drivers but not reported"
		missing=$((missing + 1))
	done < <(grep -rhoE 'KUNIT_CASE[A-Z_]*\( *[A-Za-z0-9_]+' \
		"$repo/drivers/net/ethernet/rocx" "$repo/drivers/infiniband/hw/rocx" |
		sed -E 's/.*\( *//' | sort -u)
fi
fail=$((fail + missing))

link kunit.log "$log"
echo "kunit: $pass passed, $fail failed, $skip skipped"
if [ "$rc" != 0 ] || [ "$fail" != 0 ] || [ "$pass" = 0 ]; then
	die "KUnit failed ($mode status $rc); kernel log: build/kunit.log"
fi
