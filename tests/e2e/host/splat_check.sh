#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Judge a guest's kernel log after a run under the debug kernel
# (scripts/build/debug-kernel.sh); tests/e2e/host/harness.sh calls it per guest.
#
#   splat_check.sh console FILE...   fail if a kernel line in any FILE
#                                    (console.log, dmesg) reports a bug
#   splat_check.sh kmemleak FILE     fail if FILE, the guest's final
#                                    kmemleak scan, is missing or not empty
#
# What fails: any KASAN report, lockdep report (circular or recursive
# locking, inconsistent lock state, suspicious RCU usage...), sleeping in
# atomic context, refcount_t or list corruption, debugobjects complaint,
# DMA-API misuse (a WARNING), BUG, Oops, panic, hung task or an allocation
# failure warning.  Not RCU stall warnings: under TCG on a loaded 2-core
# host a starved vCPU shows them with no bug at all.  Only kernel lines
# count, by their printk timestamp: a guest script's own output that
# happens to say "WARNING:" is not the kernel's.  The kernel's line may
# begin in the middle of a console line that user space was writing, so
# the timestamp is looked for anywhere in the line.  The matching lines,
# and the first report in full, go to standard output.
set -uo pipefail

# One extended regular expression per kind of report, each as the kernel
# prints it (6.12).  WARN() and lockdep print "WARNING:", so most reports
# match twice; the named ones say what was found when a line is lost.
patterns=(
	'BUG: '                      # KASAN, sleeping in atomic, page faults
	'WARNING: '                  # WARN*(), lockdep, refcount_t, list
	'Oops'
	'general protection fault'
	'Kernel panic'
	'kernel BUG at'
	'BUG [^ ]+ \((Not tainted|Tainted)' # SLUB object checks
	'possible (circular|recursive) locking'
	'inconsistent lock state'
	'possible irq lock inversion'
	'suspicious RCU usage'
	'refcount_t: '
	'list_(add|del) corruption'
	'ODEBUG: '
	'UBSAN: '
	'blocked for more than [0-9]+ seconds'
	'page allocation failure'
)
stamp='\[ *[0-9]+\.[0-9]+\] '

die() { echo "splat_check: $*" >&2; exit 2; }

console() {
	local re f hits=0 first='' n

	re="$stamp.*($(IFS='|'; echo "${patterns[*]}"))"
	for f in "$@"; do
		[ -f "$f" ] || continue
		n=$(grep -caE "$re" "$f")
		[ "$n" -gt 0 ] || continue
		hits=$((hits + n))
		echo "# $f: $n kernel report line(s):"
		grep -naE "$re" "$f" | head -n 20 | sed 's/^/#   /'
		[ -n "$first" ] || first=$f
	done
	[ "$hits" -eq 0 ] && return 0
	# The first report with what follows it: usually the whole splat.
	n=$(grep -naE "$re" "$first" | head -n 1 | cut -d: -f1)
	echo "# $first from line $n:"
	tail -n "+$n" "$first" | head -n 60 | sed 's/^/#   /'
	return 1
}

kmemleak() {
	if [ ! -f "$1" ]; then
		echo "# $1: missing (the guest did not reach its final kmemleak scan)"
		return 1
	fi
	[ -s "$1" ] || return 0
	echo "# $1: $(grep -c '^unreferenced object' "$1") unreferenced object(s):"
	head -n 60 "$1" | sed 's/^/#   /'
	return 1
}

case ${1:-} in
console) shift; [ $# -gt 0 ] || die "console: no file"; console "$@" ;;
kmemleak) [ $# -eq 2 ] || die "kmemleak: one file"; kmemleak "$2" ;;
*) die "usage: splat_check.sh console FILE... | kmemleak FILE" ;;
esac
