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

# ---- The one excused report, from made-up logs (no guest) ----
# DMA-API debug's cacheline overlap WARNING raised by ib_umem_get() passes
# splat_check.sh (its comment at excuse() says why); the same message from
# another caller, another DMA-API error from ib_umem_get(), and any report
# in or after an excused one still fail.  These run every time: they take
# no guest.
fx=$(mktemp -d /tmp/splat_fixture.XXXXXX)
# shellcheck disable=SC2064 # $fx is set now
trap "rm -rf '$fx'" EXIT

# warn_block MSG CALLER [EXTRA] - a 6.12 DMA-API WARNING as the console
# shows it: MSG from add_dma_entry(), CALLER's frame in the call trace,
# EXTRA (a line) inside the report.
warn_block() {
	cat <<EOT
[   41.201733] ------------[ cut here ]------------
[   41.202102] DMA-API: rocx_core 0000:00:03.0: $1
[   41.203011] WARNING: CPU: 0 PID: 412 at kernel/dma/debug.c:602 add_dma_entry+0x2f0/0x3a0
[   41.203955] Modules linked in: rdma_ucm rdma_cm iw_cm ib_cm rocx_ib ib_uverbs ib_core rocx_core
[   41.204801] CPU: 0 UID: 0 PID: 412 Comm: rping Not tainted 6.12.95-rocx-debug #1
[   41.205522] RIP: 0010:add_dma_entry+0x2f0/0x3a0
[   41.206100] Call Trace:
[   41.206300]  <TASK>
[   41.206500]  ? __warn+0xa1/0x1f0
[   41.206700]  ? add_dma_entry+0x2f0/0x3a0
${3:+$3
}[   41.207001]  debug_dma_map_sg+0x24c/0x4d0
[   41.207310]  __dma_map_sg_attrs+0xd9/0x1a0
[   41.207620]  dma_map_sgtable+0x55/0x90
[   41.207930]  $2
[   41.208240]  ib_uverbs_reg_mr+0x1a3/0x330 [ib_uverbs]
[   41.208550]  do_syscall_64+0x9e/0x1a0
[   41.208860]  </TASK>
[   41.209101] irq event stamp: 24680
[   41.209400] ---[ end trace 0000000000000000 ]---
[   41.209701] DMA-API: Mapped at:
[   41.210001]  debug_dma_map_sg+0x24c/0x4d0
EOT
}
eexist="cacheline tracking EEXIST, overlapping mappings aren't supported"
umem="ib_umem_get+0x2b7/0x6e0 [ib_uverbs]"
head='[   40.100000] rocx_ib rocx_core.rdma.0: registered'

# fixture NAME WANT - splat_check.sh console on $fx/NAME (the log on
# stdin) passes (WANT pass) or fails (WANT fail).
fixture() {
	local got=pass verb=passes

	[ "$2" = pass ] || verb=fails

	cat >"$fx/$1"
	"$sc" console "$fx/$1" >"$fx/$1.out" 2>&1 || got=fail
	if [ "$got" = "$2" ]; then
		ok "splat_check $verb a made-up log: $1"
	else
		bad "splat_check $verb a made-up log: $1 (it did not)"
		sed 's/^/#   /' "$fx/$1.out"
	fi
}

{ echo "$head"; warn_block "$eexist" "$umem"; warn_block "$eexist" "$umem"; } |
	fixture "ib_umem_get's cacheline overlap (twice)" pass
{ echo "$head"; warn_block "$eexist" "rocx_eth_xmit+0x1d2/0x510 [rocx_core]"; } |
	fixture "the same overlap from rocx_core" fail
{ echo "$head"; warn_block "device driver tries to free DMA memory it has not allocated" "$umem"; } |
	fixture "another DMA-API error from ib_umem_get" fail
{ echo "$head"; warn_block "$eexist" "$umem" \
	"[   41.206900] BUG: sleeping function called from invalid context at mm/slub.c:4116"; } |
	fixture "a report inside an excused one" fail
{ echo "$head"; warn_block "$eexist" "$umem"
	echo "[   42.000001] BUG: KASAN: slab-use-after-free in rocx_ib_poll_cq+0x51/0x300 [rocx_ib]"; } |
	fixture "a report after an excused one" fail
{ echo "$head"; warn_block "$eexist" "$umem" | grep -v 'end trace'; } |
	fixture "an excused report cut short" fail

# The guest scripts' own check (test_lib.sh's dmesg_clean) keeps the same
# rule: kverbs and verbs on the debug kernel end with it.
# guest_clean NAME WANT - kernel_log_clean on the log on stdin.
guest_clean() {
	local got=fail verb=passes

	[ "$2" = pass ] || verb=fails
	# shellcheck disable=SC2016 # expanded by the inner shell
	ROCX_REPO=$repo bash -c '. "$ROCX_REPO/tests/e2e/guest/lib/test_lib.sh" &&
		kernel_log_clean' 2>/dev/null && got=pass
	if [ "$got" = "$2" ]; then
		ok "the guests' dmesg_clean $verb a made-up log: $1"
	else
		bad "the guests' dmesg_clean $verb a made-up log: $1 (it did not)"
	fi
}
{ echo "$head"; warn_block "$eexist" "$umem"; } |
	guest_clean "ib_umem_get's cacheline overlap" pass
{ echo "$head"; warn_block "$eexist" "rocx_eth_xmit+0x1d2/0x510 [rocx_core]"; } |
	guest_clean "the same overlap from rocx_core" fail
{ echo "$head"; warn_block "$eexist" "$umem"
	echo "[   42.000001] WARNING: CPU: 1 PID: 90 at drivers/infiniband/hw/rocx/rocx_ib_qp.c:10"; } |
	guest_clean "a warning after an excused one" fail

# A user program's fault is its test's to judge; a fault in the kernel
# is not.
trap_line='[  236.763807] traps: ib_write_bw[607] general protection fault ip:7f543ebd4b61 sp:7fffca308b30 error:0 in librdmacm.so.1.3.56.1[9b61,7f543ebcf000+11000]'
kgpf='[  236.800000] Oops: general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] PREEMPT SMP KASAN NOPTI'
{ echo "$head"; echo "$trap_line"; } |
	fixture "a user program's general protection fault" pass
{ echo "$head"; echo "$trap_line"; echo "$kgpf"; } |
	fixture "the kernel's general protection fault after one" fail
{ echo "$head"; echo "$trap_line"; } |
	guest_clean "a user program's general protection fault" pass
{ echo "$head"; echo "$kgpf"; } |
	guest_clean "the kernel's general protection fault" fail

cache=${ROCX_CACHE:-$HOME/.cache/rocx}/splat-selftest
key=$(inputs_key) || key=
if [ -n "$key" ] && [ -z "${ROCX_SPLAT_RERUN:-}" ] && [ -s "$cache/$key" ]; then
	echo "# debug: negative test's inputs unchanged since a passing run" \
		"($cache/$key): its lines, the guest not booted"
	cat "$cache/$key"
	exit "$fail"
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
