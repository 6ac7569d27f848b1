#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The negative test of the debug kernel's checks: one guest loads
# tests/debug/rocx_splat.c, a module that provokes a lockdep circular
# dependency, a sleep in atomic context, a KASAN use-after-free, a
# refcount_t decremented past 0, a list corruption and a leak, each after a
# "rocx_splat: <kind>" line.  Each kind's part of the kernel log must fail
# splat_check.sh on its own, with the report expected, and the final
# kmemleak scan must fail too.  A check that stops catching one of them
# (a lost config option, a console loglevel, a pattern, the scan) fails
# here instead of passing a broken driver silently.
#
#   splat_selftest.sh OUTDIR      prints TAP lines; exit 1 if any failed
#
# The same inputs give the same kernel reports: a passing run's lines are
# kept in $ROCX_CACHE/splat-selftest/ under the hash of every input (the
# debug kernel and its configuration, rocx_splat's source, the guest's
# initramfs, QEMU, the launcher, the scripts run in the guest and the
# checks that judge its log), and a run with the same inputs prints them
# again instead of booting the guest.  A changed input, a failed run or
# ROCX_SPLAT_RERUN=1 boots it.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
out=$1
sc=$repo/tests/e2e/host/splat_check.sh
fail=0

ok() { echo "ok - debug: $*"; }
bad() { echo "not ok - debug: $*"; fail=1; }

# inputs_key - hash of what the test's outcome depends on; fails when an
# input is missing (no key: the test boots).
inputs_key() {
	local f files qemu

	# shellcheck source=scripts/versions.sh
	. "$repo/scripts/versions.sh"
	files=(build/debug/vmlinux build/debug/config build/debug/kernelrelease
		tests/debug/rocx_splat.c tests/debug/Kbuild
		"build/guest/initramfs-$ROCX_KVER.cpio.gz.key"
		scripts/guest/splat.sh scripts/guest/init.sh
		scripts/guest/guest_lib.sh scripts/run/run-guests.sh
		scripts/run/launcher/*.py scripts/versions.sh
		tests/e2e/host/splat_check.sh tests/e2e/host/splat_selftest.sh)
	qemu=$(readlink -f "$repo/build/qemu-system-x86_64") && [ -x "$qemu" ] ||
		return 1
	for f in "${files[@]}"; do
		[ -f "$repo/$f" ] || return 1
	done
	{
		(cd "$repo" && sha256sum "${files[@]}")
		echo "qemu $qemu"
		echo "scale ${ROCX_TIME_SCALE:-3}"
	} | sha256sum | cut -c1-16
}

cache=${ROCX_CACHE:-$HOME/.cache/rocx}/splat-selftest
key=$(inputs_key) || key=
if [ -n "$key" ] && [ -z "${ROCX_SPLAT_RERUN:-}" ] && [ -s "$cache/$key" ]; then
	echo "# debug: negative test's inputs unchanged since a passing run" \
		"($cache/$key): its lines, the guest not booted"
	cat "$cache/$key"
	exit 0
fi

# Every line below also goes to $out.tap, kept in the cache if all pass.
mkdir -p "$(dirname "$out")"
exec > >(tee "$out.tap")
tee_pid=$!

# finish STATUS - keep a passing run's lines under its inputs' key.
finish() {
	exec >&-
	wait "$tee_pid" 2>/dev/null
	if [ "$1" -eq 0 ] && [ -n "$key" ] && mkdir -p "$cache" &&
		cp "$out.tap" "$cache/$key.$$" 2>/dev/null; then
		mv -f "$cache/$key.$$" "$cache/$key"
	fi
	exit "$1"
}

"$repo/scripts/run/run-guests.sh" --kernel debug --out "$out" --timeout 120 \
	--guest "cmd=scripts/guest/splat.sh,mem=512" >"$out.log" 2>&1
g=$out/guest0
if [ "$(cat "$g/rc" 2>/dev/null)" = 0 ]; then
	ok "selftest guest loaded rocx_splat.ko"
else
	bad "selftest guest loaded rocx_splat.ko (see $out.log, $g/log)"
	tail -n 20 "$g/console.log" 2>/dev/null | sed 's/^/#   /'
	finish 1
fi

# part KIND - the kernel log from "rocx_splat: KIND" to the next marker.
part() {
	awk -v k="rocx_splat: $1" '
		index($0, "rocx_splat: ") && on { exit }
		index($0, k) { on = 1; next }
		on' "$g/dmesg"
}

# expect KIND ERE WHAT - KIND's part fails splat_check and shows ERE.
expect() {
	local f=$out/part.$1 report

	part "$1" >"$f"
	report=$("$sc" console "$f") && {
		bad "$3 is caught (splat_check passed it)"
		return
	}
	if grep -qE "$2" <<<"$report"; then
		ok "$3 is caught"
	else
		bad "$3 is caught as \"$2\""
		sed 's/^/#   /' "$f" | head -n 20
	fi
}

expect lockdep 'possible circular locking dependency' "lockdep: AB-BA mutex order"
expect atomic-sleep 'BUG: sleeping function called from invalid context' \
	"GFP_KERNEL allocation under a spinlock"
expect kasan 'BUG: KASAN: slab-use-after-free' "KASAN: read after kfree"
expect refcount 'refcount_t: ' "refcount_t decremented past 0"
expect list 'list_del corruption' "list_del of a deleted entry"
# The console alone must be enough, as when a guest dies before its dmesg.
if "$sc" console "$g/console.log" >/dev/null; then
	bad "the console alone shows the reports"
else
	ok "the console alone shows the reports"
fi
if "$sc" kmemleak "$g/kmemleak" >"$out/kmemleak.report"; then
	bad "kmemleak: an unreferenced kmalloc is caught"
elif grep -q 'rocx_splat' "$g/kmemleak" ||
	grep -qE 'unreferenced object 0x[0-9a-f]+ \(size 128\)' "$g/kmemleak"; then
	ok "kmemleak: an unreferenced kmalloc is caught"
else
	bad "kmemleak: an unreferenced kmalloc is caught (another object reported)"
	sed 's/^/#   /' "$out/kmemleak.report"
fi
finish "$fail"
