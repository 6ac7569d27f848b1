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
#   splat_check.sh excuse FILE       FILE (- for stdin) less the excused
#                                    reports; what guest scripts' own
#                                    check (dmesg_clean) reads
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
#
# One report is excused, whole and alone: DMA-API debug's "cacheline
# tracking EEXIST, overlapping mappings aren't supported" WARNING from
# add_dma_entry() with ib_umem_get() in its call trace (see excuse()).
# So is the kernel's line about a user program's fault ("traps: PROG[PID]
# general protection fault ip:... in LIB"), which the program's own test
# judges by its exit status; a fault in the kernel still fails.
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

# excuse FILE - FILE without the reports that are no bug of a driver's:
# each report from its "cut here" to its "end trace" line that is
# DMA-API debug's cacheline overlap WARNING (kernel/dma/debug.c,
# add_dma_entry()) raised by ib_umem_get() and holds no other report.
# ib_umem_get() (ib_uverbs) DMA-maps every page a user memory region
# spans, from the page's start, DMA_BIDIRECTIONAL and without
# DMA_ATTR_SKIP_CPU_SYNC, so two regions in one page map its first
# cacheline twice.  Verbs allow that (rping registers its send and
# receive buffers, 16 bytes apart in one struct, as two MRs), the
# mapping is ib_core's, not the driver's, and on a DMA-coherent machine
# (x86) a shared cacheline cannot lose data, which is the danger the
# check is there for.  Any device that DMA-maps user memory gets it
# (rxe and siw map nothing).  Only the first DMA-API error of a boot is
# printed unless all_errors is set, which scripts/guest/init.sh does, so
# an excused one hides no other.  The number excused goes to stdout.
excuse() {
	LC_ALL=C SPLAT_RE=$re awk -v tag="$1: excused" '
	BEGIN { re = ENVIRON["SPLAT_RE"] }
	function flush(ok) {
		if (ok) {
			excused++
		} else {
			for (i = 0; i < n; i++)
				print blk[i]
		}
		n = 0
		inblk = 0
	}
	# A user program killed by a fault: the kernel reports it and the
	# test of that program sees its exit status; no kernel bug.
	/\] traps: [^ ]+\[[0-9]+\] general protection fault ip:[0-9a-f]+ .* in / {
		traps++
		next
	}
	/\[ *[0-9]+\.[0-9]+\] -+\[ cut here \]-+/ {
		if (inblk)
			flush(0)
		inblk = 1
		eexist = warn = umem = others = 0
	}
	inblk {
		blk[n++] = $0
		if ($0 ~ /\] DMA-API: [^ ]+ [^ ]+: cacheline tracking EEXIST, overlapping mappings aren.t supported\r?$/)
			eexist++
		else if ($0 ~ /\] WARNING: CPU: [0-9]+ PID: [0-9]+ at kernel\/dma\/debug\.c:[0-9]+ add_dma_entry\+0x/)
			warn++
		else if ($0 ~ /\]  ib_umem_get\+0x[0-9a-f]+\/0x[0-9a-f]+/)
			umem++
		else if ($0 ~ re)
			others++
		if ($0 ~ /\[ *[0-9]+\.[0-9]+\] ---\[ end trace [0-9a-f]+ \]---/)
			flush(eexist == 1 && warn == 1 && umem >= 1 && !others)
		next
	}
	{ print }
	END {
		if (inblk)
			flush(0)
		if (excused)
			printf "%s %d DMA-API cacheline overlap report(s) of ib_umem_get\n",
				tag, excused > "/dev/stderr"
		if (traps)
			printf "%s %d user program fault line(s)\n",
				tag, traps > "/dev/stderr"
	}' "$1"
}

# One line of any kind of report, with the kernel's timestamp.
re="$stamp.*($(IFS='|'; echo "${patterns[*]}"))"

console() {
	local f hits=0 first='' firstname='' n k tmp

	tmp=$(mktemp -d /tmp/splat_check.XXXXXX) || die "mktemp"
	for f in "$@"; do
		[ -f "$f" ] || continue
		k=$tmp/$(basename "$f").$hits.$RANDOM
		excuse "$f" 2>&1 >"$k" | sed 's/^/# /'
		n=$(grep -caE "$re" "$k")
		[ "$n" -gt 0 ] || continue
		hits=$((hits + n))
		echo "# $f: $n kernel report line(s):"
		grep -naE "$re" "$k" | head -n 20 | sed 's/^/#   /'
		[ -n "$first" ] || first=$k firstname=$f
	done
	if [ "$hits" -gt 0 ]; then
		# The first report with what follows it: usually the whole splat.
		n=$(grep -naE "$re" "$first" | head -n 1 | cut -d: -f1)
		echo "# $firstname (less what was excused) from line $n:"
		tail -n "+$n" "$first" | head -n 60 | sed 's/^/#   /'
	fi
	rm -rf "$tmp"
	[ "$hits" -eq 0 ]
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
excuse) [ $# -eq 2 ] || die "excuse: one file"; excuse "$2" ;;
*) die "usage: splat_check.sh console FILE... | kmemleak FILE | excuse FILE" ;;
esac
