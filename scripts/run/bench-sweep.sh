#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-sweep`: what does not fit make bench's 10 minutes (about 45
# minutes on an idle 2-core host).
#   1. tests/bench/sweep: the plan rows make bench leaves out (READ and
#      SEND variants, send latency, rdma_cm, MTU 4096 at 64 B, more sink
#      rows), rocx, rxe and sink as in make bench (build/bench-sweep/rows),
#      a latency run's 100 000 round trips given 300 s (bench.sh --lat-s).
#   2. The requester's window: rocx guests booted once per x-req-window
#      value (ROCX_SWEEP_WINDOWS), each running tests/bench/sweep-depth.
#   3. WQEs in flight per QP: the same per x-sq-inflight value
#      (ROCX_SWEEP_WQES).
# Prints a table per sweep, also in build/bench-sweep/sweep.txt; each
# point's full output (table, host accounting) is in its own directory.
#
#   scripts/run/bench-sweep.sh [--no-build] [--no-rows]
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
out=$repo/build/bench-sweep
windows=${ROCX_SWEEP_WINDOWS:-64 128 256 512 1024 4096}
wqes=${ROCX_SWEEP_WQES:-4 8 16 32 64 128}
build=1 rows=1
for a in "$@"; do
	case $a in
	--no-build) build=0 ;;
	--no-rows) rows=0 ;;
	-h | --help) sed -n '3,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench-sweep: unknown argument $a" >&2; exit 2 ;;
	esac
done
mkdir -p "$out"
if [ "$build" -eq 1 ] && ! bash scripts/build/all.sh >"$out/build.log" 2>&1; then
	tail -n 20 "$out/build.log"
	echo "bench-sweep: build failed"
	exit 1
fi
rc=0
if [ "$rows" -eq 1 ]; then
	bash scripts/run/bench.sh --no-build --plan tests/bench/sweep --lat-s 300 \
		--out "$out/rows" || rc=1
fi

# point PROP VALUE - one rocx boot with PROP=VALUE; one line of figures.
point() {
	local dir=$out/$1-$2

	bash scripts/run/bench.sh --no-build --kinds rocx --plan tests/bench/sweep-depth \
		--props "$1=$2" --out "$dir" >"$dir.log" 2>&1 || rc=1
	awk -v v="$2" '
		$4 == "ok" { for (i = 5; i <= NF; i++) { split($i, kv, "="); f[$1, kv[1]] = kv[2] } }
		END {
			printf "%-8s %12s %12s %14s %14s\n", v,
				f["write_bw_64k", "bw_avg"], f["write_bw_64", "bw_avg"],
				f["write_bw_64", "msg_rate"] * 1000, f["write_bw_64_q4", "msg_rate"] * 1000
		}' "$dir"/guest1/results 2>/dev/null
}

{
	for sweep in x-req-window x-sq-inflight; do
		vals=$windows
		[ "$sweep" = x-sq-inflight ] && vals=$wqes
		echo "rocx, $sweep (tests/bench/sweep-depth; default window 512 PSNs, 128 WQEs per QP)"
		printf '%-8s %12s %12s %14s %14s\n' value "64K MiB/s" "64B MiB/s" "64B Kmsg/s" "64B q4 Kmsg/s"
		for v in $vals; do
			mkdir -p "$out/$sweep-$v"
			point "$sweep" "$v"
		done
		echo
	done
	echo "host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
} | tee "$out/sweep.txt"
exit "$rc"
